// 16 MiB of local memory per thread: CUDA's limit is 512 KiB, and xgpu-cc says so.
#include <cuda_runtime.h>
__global__ void k(int *o, int n) { volatile char a[16 << 20]; a[n] = 1; o[threadIdx.x] = a[n]; }
int main() { return 0; }
