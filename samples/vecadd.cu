// vecadd: c[i] = a[i] + b[i] over a 1D grid, checked against the CPU.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "vecadd: %s: %s\n", what, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    if (n <= 0) {
        fprintf(stderr, "usage: vecadd [N > 0]\n");
        return 2;
    }
    size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.5f;
        b[i] = (float)((i * 7) % 977) - 300.0f;
    }
    float *da, *db, *dc;
    if (check(cudaMalloc((void **)&da, bytes), "cudaMalloc") ||
        check(cudaMalloc((void **)&db, bytes), "cudaMalloc") ||
        check(cudaMalloc((void **)&dc, bytes), "cudaMalloc"))
        return 1;
    cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
    int block = 256, grid = (n + block - 1) / block;
    vecadd<<<grid, block>>>(da, db, dc, n);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel"))
        return 1;
    cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (c[i] != a[i] + b[i] && bad++ < 5)
            fprintf(stderr, "vecadd: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(a);
    free(b);
    free(c);
    printf("vecadd n=%d: %s\n", n, bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
