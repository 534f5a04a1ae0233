// heat: Jacobi iterations of 2D heat diffusion on a plate near 300 K: each interior cell
// becomes the mean of its four neighbours, the edges stay fixed. The temperatures vary
// smoothly by about a kelvin, so the floats of one 128-byte line share their exponent and
// most of their mantissa: the kind of data base-delta compression shrinks (BDI's 4-byte
// values with 2-byte deltas). Five loads and a store per cell and two buffers of n x n
// floats: a bandwidth-bound stream once the plate outgrows the L2. Checked exactly against
// the CPU: both compute ((north + south) + (west + east)) * 0.25f in float.
// Usage: heat [n [iterations]]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "heat: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

__global__ void jacobi(int n, const float *t, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    size_t i = (size_t)y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
        out[i] = t[i];
        return;
    }
    out[i] = ((t[i - n] + t[i + n]) + (t[i - 1] + t[i + 1])) * 0.25f;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, iters = argc > 2 ? atoi(argv[2]) : 4;
    if (n < 3 || n > 8192 || iters < 1 || iters > 1000) {
        fprintf(stderr, "usage: heat [n 3..8192 [iterations 1..1000]]\n");
        return 2;
    }
    size_t cells = (size_t)n * n;
    float *t = (float *)malloc(sizeof(float) * cells), *u = (float *)malloc(sizeof(float) * cells);
    float *got = (float *)malloc(sizeof(float) * cells);
    if (!t || !u || !got) {
        fprintf(stderr, "heat: out of host memory\n");
        return 1;
    }
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            t[(size_t)y * n + x] = (float)(300.0 + sin(x * 0.01) * cos(y * 0.013));
    float *d[2];
    if (check(cudaMalloc(&d[0], sizeof(float) * cells), "cudaMalloc") ||
        check(cudaMalloc(&d[1], sizeof(float) * cells), "cudaMalloc") ||
        check(cudaMemcpy(d[0], t, sizeof(float) * cells, cudaMemcpyHostToDevice), "copy"))
        return 1;
    dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
    for (int k = 0; k < iters; k++)
        jacobi<<<grid, block>>>(n, d[k % 2], d[(k + 1) % 2]);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(got, d[iters % 2], sizeof(float) * cells, cudaMemcpyDeviceToHost),
              "copy"))
        return 1;
    double t0 = cpu_seconds();
    for (int k = 0; k < iters; k++) {
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                size_t i = (size_t)y * n + x;
                u[i] = x == 0 || y == 0 || x == n - 1 || y == n - 1
                           ? t[i]
                           : ((t[i - n] + t[i + n]) + (t[i - 1] + t[i + 1])) * 0.25f;
            }
        float *s = t;
        t = u, u = s;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    size_t bad = 0;
    for (size_t i = 0; i < cells; i++)
        bad += got[i] != t[i];
    printf("heat %d x %d, %d iterations, centre %.4f K\n", n, n, iters,
           (double)t[(size_t)(n / 2) * n + n / 2]);
    printf("heat: %s\n", bad ? "FAIL" : "PASS");
    if (bad)
        fprintf(stderr, "heat: %zu cells differ from the CPU\n", bad);
    cudaFree(d[0]);
    cudaFree(d[1]);
    free(t), free(u), free(got);
    return bad ? 1 : 0;
}
