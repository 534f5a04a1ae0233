// Recursion on the device is not supported: xgpu-cc must say where, not crash.
#include <cuda_runtime.h>

__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

__global__ void k(int *out, int n) { out[threadIdx.x] = fact(n + threadIdx.x); }

int main(void) { return 0; }
