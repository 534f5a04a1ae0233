// maxpool: a CNN layer's 2 x 2 max pooling with stride 2 over a batch of feature maps
// (DNNMark's max-pool, one of the HALCONE paper's workloads), forward, keeping each
// output's argmax for the backward pass. Exact check against the CPU.
// Usage: maxpool [maps [height [width]]]   (default 64 maps of 64 x 64)
#include <cuda_runtime.h>
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
    fprintf(stderr, "maxpool: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// One thread per output element: the largest of its 2 x 2 window, the first one on ties.
__global__ void pool(const float *x, float *y, int *arg, int maps, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    long total = (long)maps * oh * ow;
    for (long o = blockIdx.x * (long)blockDim.x + threadIdx.x; o < total;
         o += (long)gridDim.x * blockDim.x) {
        int m = (int)(o / ((long)oh * ow)), r = (int)(o / ow % oh), c = (int)(o % ow);
        const float *in = x + (long)m * h * w;
        int best = (2 * r) * w + 2 * c;
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                int k = (2 * r + dy) * w + 2 * c + dx;
                if (in[k] > in[best])
                    best = k;
            }
        y[o] = in[best];
        arg[o] = best;
    }
}

int main(int argc, char **argv)
{
    int maps = argc > 1 ? atoi(argv[1]) : 64, h = argc > 2 ? atoi(argv[2]) : 64;
    int w = argc > 3 ? atoi(argv[3]) : 64;
    if (maps < 1 || h < 2 || w < 2 || h % 2 || w % 2 || (long)maps * h * w > (1L << 26)) {
        fprintf(stderr, "usage: maxpool [maps [even height [even width]]], at most 2^26 "
                        "inputs\n");
        return 2;
    }
    long n = (long)maps * h * w, m = n / 4;
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(m * sizeof(float));
    int *arg = (int *)malloc(m * sizeof(int));
    unsigned seed = 7;
    for (long i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((int)(seed >> 20) - 2048) / 256.0f;
    }
    float *dx, *dy;
    int *darg;
    if (check(cudaMalloc(&dx, n * sizeof(float)), "cudaMalloc") ||
        check(cudaMalloc(&dy, m * sizeof(float)), "cudaMalloc") ||
        check(cudaMalloc(&darg, m * sizeof(int)), "cudaMalloc") ||
        check(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice), "copy"))
        return 1;
    int grid = (int)((m + 255) / 256 < 2048 ? (m + 255) / 256 : 2048);
    pool<<<grid, 256>>>(dx, dy, darg, maps, h, w);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(y, dy, m * sizeof(float), cudaMemcpyDeviceToHost), "copy") ||
        check(cudaMemcpy(arg, darg, m * sizeof(int), cudaMemcpyDeviceToHost), "copy"))
        return 1;
    double t0 = cpu_seconds();
    int bad = 0;
    for (long o = 0; o < m; o++) {
        int mm = (int)(o / ((long)(h / 2) * (w / 2))), r = (int)(o / (w / 2) % (h / 2));
        int c = (int)(o % (w / 2));
        const float *in = x + (long)mm * h * w;
        int best = (2 * r) * w + 2 * c;
        for (int dy2 = 0; dy2 < 2; dy2++)
            for (int dx2 = 0; dx2 < 2; dx2++) {
                int k = (2 * r + dy2) * w + 2 * c + dx2;
                if (in[k] > in[best])
                    best = k;
            }
        if ((y[o] != in[best] || arg[o] != best) && bad++ < 5)
            fprintf(stderr, "maxpool: out[%ld] = %g at %d, expected %g at %d\n", o, y[o],
                    arg[o], in[best], best);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("maxpool %d maps of %d x %d\n", maps, h, w);
    printf("maxpool: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(dx), cudaFree(dy), cudaFree(darg);
    free(x), free(y), free(arg);
    return bad ? 1 : 0;
}
