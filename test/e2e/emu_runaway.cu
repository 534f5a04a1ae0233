// Long and runaway launches (test 391). argv[1] picks the kernel:
//   spin - every thread spins on a flag nobody sets (stopped by emu.max_warp_insns);
//   grid - an empty kernel on a 2^31-1-block grid.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void spin(volatile int *flag, int *out)
{
    int n = 0;
    while (*flag == 0)
        n++;
    out[threadIdx.x] = n;
}

__global__ void tiny(int *out) {}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "spin";
    int *flag, *out;
    cudaMalloc(&flag, 4);
    cudaMalloc(&out, 4096);
    cudaMemset(flag, 0, 4);
    if (strcmp(which, "grid") == 0)
        tiny<<<0x7fffffff, 1>>>(out);
    else
        spin<<<1, 32>>>(flag, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("status: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
