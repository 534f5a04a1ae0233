// xtreme: HALCONE's Xtreme micro-benchmarks (Mojumder et al., 2020): C = A + B over vectors
// of a given size, with three patterns of sharing between the writers and the readers of
// C, to show what keeping several GPUs' caches coherent costs:
//   1  one CTA (one SM) rewrites the same locations of C, pass after pass;
//   2  producer/consumer within a GPU: a second kernel's CTA i reads the part of C the
//      first kernel's CTA i wrote (on a device of several GPUs, the same GPU);
//   3  producer/consumer across GPUs: CTA i reads the part CTA (i + n/2) mod n wrote
//      (on a device of two or more GPUs, another GPU).
// Usage: xtreme [pattern 1..3 [bytes per vector [passes]]]   (default 3, 1 MB, 2)
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
    fprintf(stderr, "xtreme: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// C = A + B over [0, n), by the grid's threads (pattern 1: one CTA does it all).
__global__ void add(const int *a, const int *b, int *c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

// D = C + A, CTA i reading the chunk of C that CTA (i + shift) mod grid wrote.
__global__ void consume(const int *c, const int *a, int *d, int n, int shift)
{
    int chunk = (n + gridDim.x - 1) / gridDim.x;
    int from = ((blockIdx.x + shift) % gridDim.x) * chunk;
    for (int k = threadIdx.x; k < chunk && from + k < n; k += blockDim.x)
        d[from + k] = c[from + k] + a[from + k];
}

int main(int argc, char **argv)
{
    int pattern = argc > 1 ? atoi(argv[1]) : 3;
    long bytes = argc > 2 ? atol(argv[2]) : 1L << 20;
    int passes = argc > 3 ? atoi(argv[3]) : 2;
    if (pattern < 1 || pattern > 3 || bytes < 1024 || bytes > (1L << 28) || passes < 1 ||
        passes > 64) {
        fprintf(stderr, "usage: xtreme [pattern 1..3 [bytes per vector 1K..256M [passes "
                        "1..64]]]\n");
        return 2;
    }
    int n = (int)(bytes / sizeof(int));
    int *a = (int *)malloc(bytes), *b = (int *)malloc(bytes), *c = (int *)malloc(bytes);
    int *d = (int *)malloc(bytes);
    for (int i = 0; i < n; i++)
        a[i] = i % 1000, b[i] = (i * 7) % 1003;
    int *da, *db, *dc, *dd;
    if (check(cudaMalloc(&da, bytes), "cudaMalloc") || check(cudaMalloc(&db, bytes), "cudaMalloc") ||
        check(cudaMalloc(&dc, bytes), "cudaMalloc") || check(cudaMalloc(&dd, bytes), "cudaMalloc"))
        return 1;
    if (check(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice), "copy"))
        return 1;
    int grid = (n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024;
    for (int p = 0; p < passes; p++) {
        if (pattern == 1) {
            add<<<1, 256>>>(da, db, dc, n);
        } else {
            add<<<grid, 256>>>(da, db, dc, n);
            consume<<<grid, 256>>>(dc, da, dd, n, pattern == 3 ? grid / 2 : 0);
        }
    }
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost), "copy") ||
        (pattern > 1 && check(cudaMemcpy(d, dd, bytes, cudaMemcpyDeviceToHost), "copy")))
        return 1;
    double t0 = cpu_seconds();
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int want = a[i] + b[i];
        if (c[i] != want && bad++ < 5)
            fprintf(stderr, "xtreme: c[%d] = %d, expected %d\n", i, c[i], want);
        if (pattern > 1 && d[i] != want + a[i] && bad++ < 5)
            fprintf(stderr, "xtreme: d[%d] = %d, expected %d\n", i, d[i], want + a[i]);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("xtreme%d %ld bytes, %d passes\n", pattern, bytes, passes);
    printf("xtreme: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
    free(a), free(b), free(c), free(d);
    return bad ? 1 : 0;
}
