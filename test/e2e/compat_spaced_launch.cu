// A launch written with spaces inside the chevrons, accepted by nvcc: clang rejects it,
// and xgpu-cc adds a note at the launch that says what to write.
#include <cuda_runtime.h>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main()
{
    int *d;
    cudaMalloc((void **)&d, 16);
    k << < 1, 4 >> > (d);
    return 0;
}
