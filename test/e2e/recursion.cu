// Recursion on the device is not supported: xgpu-cc must say where, not crash.
#include <cuda_runtime.h>

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__global__ void k(int *out, int n) { out[threadIdx.x] = fib(n + threadIdx.x); }

int main(void) { return 0; }
