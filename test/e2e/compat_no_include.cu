// nvcc includes cuda_runtime.h implicitly in every .cu: no CUDA header at all, yet
// __global__, threadIdx, cudaMalloc and the <<<>>> launch are known.
#include <stdio.h>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main()
{
    int *d, h[4];
    cudaMalloc((void **)&d, sizeof h);
    k<<<1, 4>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d %d %d\n", h[0], h[1], h[2], h[3]);
    printf("compat_no_include: %s\n", h[3] == 3 ? "PASS" : "FAIL");
    return h[3] != 3;
}
