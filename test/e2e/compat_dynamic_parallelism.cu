// A kernel launched from device code (dynamic parallelism): not supported by xgpu, and
// xgpu-cc says so at the launch.
#include <cuda_runtime.h>
__global__ void child(int *p) { p[threadIdx.x] = 1; }
__global__ void parent(int *p) { child<<<1, 32>>>(p); }
int main() { return 0; }
