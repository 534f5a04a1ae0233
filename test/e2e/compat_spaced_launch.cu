// A launch written with spaces inside the chevrons, as nvcc accepts it: xgpu-cc joins the
// chevrons in a copy of the source (lines and columns unchanged) before clang reads it.
#include <cuda_runtime.h>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main()
{
    int *d;
    cudaMalloc((void **)&d, 16);
    k << < 1, 4 >> > (d);
    return 0;
}
