// 2D grid and block, matrix transpose and a scaled copy over several launches.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void transpose(const int *in, int *out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows)
        out[x * rows + y] = in[y * cols + x];
}

__global__ void scale(int *a, int n, int k)
{
    int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * k - i;
}

int main(void)
{
    const int rows = 37, cols = 53, n = rows * cols;
    int *h = (int *)malloc(n * sizeof(int)), *r = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        h[i] = i * 3 + 1;
    int *d_in, *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(int));
    cudaMalloc((void **)&d_out, n * sizeof(int));
    cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
    dim3 block(8, 4), grid((cols + 7) / 8, (rows + 3) / 4);
    transpose<<<grid, block>>>(d_in, d_out, rows, cols);
    for (int it = 1; it <= 3; it++)
        scale<<<dim3(4, 2), 256>>>(d_out, n, it + 1);
    cudaMemcpy(r, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) {
            int i = x * rows + y;
            long long v = h[y * cols + x];
            for (int it = 1; it <= 3; it++)
                v = (int)(v * (it + 1) - i);
            if (r[i] != (int)v)
                bad++;
        }
    printf("grid2d: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
