// Part of a three-file program: kernels in two CUDA translation units plus a C file.
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" int c_expected(int i);   // multi_c.c
void launch_b(int *d, int n);       // multi_b.cu

__global__ void fill_a(int *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = i * 2;
}

int main(void)
{
    const int n = 300;
    int *d, h[300];
    cudaMalloc((void **)&d, sizeof h);
    fill_a<<<(n + 31) / 32, 32>>>(d, n);
    launch_b(d, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += h[i] != c_expected(i);
    printf("multi: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
