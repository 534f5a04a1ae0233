// fir: a finite impulse response filter over a signal, block by block (Hetero-Mark's FIR,
// one of the HALCONE paper's workloads): y[i] = sum over k of h[k] x[i - k], with the
// taps in constant memory and each block's input window staged in shared memory. Taps
// and samples are small dyadic fractions, so every sum is exact in float: checked
// exactly against the CPU.
// Usage: fir [samples [taps]]   (default 262144 samples, 32 taps)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_TAPS 64
#define BLOCK 256

__constant__ float taps[MAX_TAPS];

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
    fprintf(stderr, "fir: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

__global__ void filter(const float *x, float *y, int n, int ntaps)
{
    __shared__ float win[BLOCK + MAX_TAPS];
    int first = blockIdx.x * BLOCK;
    for (int k = threadIdx.x; k < BLOCK + ntaps - 1; k += blockDim.x) {
        int i = first - (ntaps - 1) + k;
        win[k] = i >= 0 && i < n ? x[i] : 0.0f;
    }
    __syncthreads();
    int i = first + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int k = 0; k < ntaps; k++)
            s += taps[k] * win[threadIdx.x + ntaps - 1 - k];
        y[i] = s;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 262144, ntaps = argc > 2 ? atoi(argv[2]) : 32;
    if (n < 1 || n > (1 << 26) || ntaps < 1 || ntaps > MAX_TAPS) {
        fprintf(stderr, "usage: fir [samples 1..2^26 [taps 1..%d]]\n", MAX_TAPS);
        return 2;
    }
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    float h[MAX_TAPS];
    unsigned seed = 11;
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((int)(seed >> 24) - 128) / 64.0f; // 8 significant bits
    }
    for (int k = 0; k < ntaps; k++)
        h[k] = (float)((k * 37) % 17 - 8) / 16.0f;
    float *dx, *dy;
    if (check(cudaMalloc(&dx, n * sizeof(float)), "cudaMalloc") ||
        check(cudaMalloc(&dy, n * sizeof(float)), "cudaMalloc") ||
        check(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpyToSymbol(taps, h, ntaps * sizeof(float)), "taps"))
        return 1;
    filter<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(dx, dy, n, ntaps);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost), "copy"))
        return 1;
    double t0 = cpu_seconds();
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int k = 0; k < ntaps; k++)
            s += h[k] * (i - k >= 0 ? x[i - k] : 0.0f);
        if (y[i] != s && bad++ < 5)
            fprintf(stderr, "fir: y[%d] = %g, expected %g\n", i, y[i], s);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("fir %d samples, %d taps\n", n, ntaps);
    printf("fir: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(dx), cudaFree(dy);
    free(x), free(y);
    return bad ? 1 : 0;
}
