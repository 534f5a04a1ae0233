// Unified memory, as in NVIDIA's introduction to CUDA: x and y come from
// cudaMallocManaged, the host initializes them, a kernel adds x to y, and after
// cudaDeviceSynchronize the host checks the result through the same pointers. Then the
// host changes y and a second launch must see that; copies and sets on managed memory
// work from both sides. argv[1]: the number of elements (default 1<<20).
#include <cmath>
#include <cstdio>
#include <cstdlib>

__global__ void add(int n, float *x, float *y)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = index; i < n; i += stride)
        y[i] = x[i] + y[i];
}

static int check(const char *what, cudaError_t e)
{
    if (e == cudaSuccess)
        return 0;
    printf("FAIL: %s: %s\n", what, cudaGetErrorName(e));
    return 1;
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 1 << 20;
    float *x, *y;
    if (check("cudaMallocManaged x", cudaMallocManaged(&x, N * sizeof(float))) ||
        check("cudaMallocManaged y", cudaMallocManaged(&y, N * sizeof(float))))
        return 1;
    for (int i = 0; i < N; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
    int blockSize = 256;
    int numBlocks = (N + blockSize - 1) / blockSize;
    if (numBlocks > 64)
        numBlocks = 64; // grid-stride loop covers the rest
    add<<<numBlocks, blockSize>>>(N, x, y);
    if (check("cudaDeviceSynchronize", cudaDeviceSynchronize()))
        return 1;
    float maxError = 0.0f;
    for (int i = 0; i < N; i++)
        maxError = fmaxf(maxError, fabsf(y[i] - 3.0f));
    printf("Max error: %g\n", maxError);

    // the host's writes reach the next launch
    y[N - 1] = 10.0f;
    add<<<numBlocks, blockSize>>>(N, x, y);
    if (check("second launch", cudaDeviceSynchronize()))
        return 1;
    if (y[0] != 4.0f || y[N - 1] != 11.0f) {
        printf("FAIL: second launch: y[0] = %g, y[N-1] = %g\n", y[0], y[N - 1]);
        return 1;
    }

    // copies and sets: managed to plain device memory and back, memset on managed
    float *d, back = 0;
    if (check("cudaMalloc", cudaMalloc(&d, sizeof(float))) ||
        check("managed -> device", cudaMemcpy(d, &y[1], sizeof(float), cudaMemcpyDefault)) ||
        check("device -> host", cudaMemcpy(&back, d, sizeof(float), cudaMemcpyDeviceToHost)) ||
        check("cudaMemset", cudaMemset(x, 0, N * sizeof(float))) ||
        check("device -> managed", cudaMemcpy(&x[2], d, sizeof(float), cudaMemcpyDeviceToDevice)))
        return 1;
    if (back != 4.0f || x[0] != 0.0f || x[2] != 4.0f) {
        printf("FAIL: copies: back = %g, x[0] = %g, x[2] = %g\n", back, x[0], x[2]);
        return 1;
    }
    cudaFree(d);
    if (check("cudaFree x", cudaFree(x)) || check("cudaFree y", cudaFree(y)))
        return 1;
    printf(maxError == 0.0f ? "PASS\n" : "FAIL\n");
    return maxError == 0.0f ? 0 : 1;
}
