// A small program whose embedded device binary test 793 corrupts: it launches one
// kernel, prints the launch's error name and exits 3 when the launch failed.
#include <cstdio>

__global__ void square(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = i * i;
}

int main()
{
    const int n = 64;
    int *d = nullptr, h[n];
    cudaMalloc(&d, n * sizeof(int));
    square<<<2, 32>>>(d, n);
    cudaError_t e = cudaGetLastError();
    printf("launch: %s\n", cudaGetErrorName(e));
    if (e != cudaSuccess)
        return 3;
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        if (h[i] != i * i) {
            printf("FAIL at %d\n", i);
            return 1;
        }
    cudaFree(d);
    printf("PASS\n");
    return 0;
}
