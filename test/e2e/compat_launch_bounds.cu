// __launch_bounds__: cudaFuncGetAttributes reports the bound, a launch within it runs,
// a launch beyond it fails with cudaErrorLaunchOutOfResources, and (256, 4) leaves at
// most 65536 / (4 x 256) = 64 registers per thread.
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void __launch_bounds__(64) k(int *o) { o[threadIdx.x] = threadIdx.x; }
__global__ void __launch_bounds__(256, 4) k4(int *o) { o[threadIdx.x] = 2 * threadIdx.x; }
int main()
{
    int *d, h[64];
    cudaMalloc((void **)&d, 4096);
    cudaFuncAttributes a, a4;
    cudaFuncGetAttributes(&a, (const void *)k);
    cudaFuncGetAttributes(&a4, (const void *)k4);
    k<<<1, 1024>>>(d);
    cudaError_t over = cudaGetLastError();
    k<<<1, 64>>>(d);
    cudaError_t within = cudaGetLastError();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int ok = a.maxThreadsPerBlock == 64 && a4.maxThreadsPerBlock == 256 && a4.numRegs <= 64 &&
             over == cudaErrorLaunchOutOfResources && within == cudaSuccess && h[63] == 63;
    printf("max %d %d regs %d, over: %s, within: %s, h[63] = %d\n", a.maxThreadsPerBlock,
           a4.maxThreadsPerBlock, a4.numRegs, cudaGetErrorName(over), cudaGetErrorName(within),
           h[63]);
    printf("compat_launch_bounds: %s\n", ok ? "PASS" : "FAIL");
    return !ok;
}
