// A zero-initialized 16 MiB __device__ array costs the executable no bytes (only its size
// is stored), and it reads as zero.
#include <cuda_runtime.h>
#include <stdio.h>
__device__ char big[1u << 24];
__global__ void k(int *o) { o[threadIdx.x] = big[threadIdx.x * 65536] + big[(1u << 24) - 1]; big[threadIdx.x] = 1; }
int main()
{
    int *o, h[32];
    cudaMalloc((void **)&o, sizeof h);
    k<<<1, 32>>>(o);
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 32; i++)
        bad += h[i] != 0;
    printf("compat_zero_global: %s\n", bad || cudaGetLastError() ? "FAIL" : "PASS");
    return bad;
}
