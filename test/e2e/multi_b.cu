// Second CUDA translation unit of the multi_* program.
#include <cuda_runtime.h>

__global__ void add_b(int *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] += 7;
}

void launch_b(int *d, int n) { add_b<<<(n + 63) / 64, 64>>>(d, n); }
