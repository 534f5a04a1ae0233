// chase: load-to-use latency of global memory by pointer chasing, as GPU microbenchmarks
// measure it (Wong et al. 2010; Mei & Chu 2017; Jia et al. 2018). One thread follows a
// chain of 64-bit pointers, each element holding the address of the next, so every load
// depends on the one before and needs no address arithmetic; clock64() around the timed
// hops gives core cycles per load. The chain's layout picks the level that answers:
//
//   chase seq  FOOTPRINT STRIDE HOPS WARM   elements STRIDE bytes apart, in address order
//   chase rand FOOTPRINT STRIDE HOPS WARM   the same elements in a random cyclic order
//   chase sets STRIDE NLINES HOPS           NLINES lines STRIDE bytes apart (set conflicts)
//
// WARM hops are walked first without timing (1: walk the whole chain once, so a footprint
// that fits a cache is resident; 0: the timed hops are the first touch). "sets" always
// warms. Prints "latency CYCLES_PER_LOAD", "hops N", "footprint BYTES" and PASS when the
// chain ends where the host says it must. Builds with nvcc as well.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void chase(void **start, long long warm, long long hops, void **end,
                      long long *cycles)
{
    void **p = start;
    for (long long i = 0; i < warm; i++)
        p = (void **)*p;
    // the first timed load waits for the last warm one, so start the clock after it
    long long t0 = clock64();
#pragma unroll 8
    for (long long i = 0; i < hops; i++)
        p = (void **)*p;
    *end = (void *)p;  // stalls until the last load is back, then the clock is read
    long long t1 = clock64();
    *cycles = t1 - t0;
}

static int fail(const char *what, cudaError_t e)
{
    fprintf(stderr, "chase: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

static long long arg(const char *s, const char *name)
{
    char *e;
    long long v = strtoll(s, &e, 0);
    if (*e || v < 0) {
        fprintf(stderr, "chase: %s must be a non-negative integer, not '%s'\n", name, s);
        exit(2);
    }
    return v;
}

static void usage(void)
{
    fprintf(stderr, "usage: chase seq|rand FOOTPRINT STRIDE HOPS WARM\n"
                    "       chase sets STRIDE NLINES HOPS\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    const char *mode = argv[1];
    long long footprint, stride, hops, warm, n;
    if (!strcmp(mode, "seq") || !strcmp(mode, "rand")) {
        if (argc != 6)
            usage();
        footprint = arg(argv[2], "FOOTPRINT");
        stride = arg(argv[3], "STRIDE");
        hops = arg(argv[4], "HOPS");
        warm = arg(argv[5], "WARM");
        if (stride < 8 || stride % 8 || footprint < stride) {
            fprintf(stderr, "chase: STRIDE must be a multiple of 8 and at most FOOTPRINT\n");
            return 2;
        }
        n = footprint / stride;
        warm = warm ? n : 0;
    } else if (!strcmp(mode, "sets")) {
        if (argc != 5)
            usage();
        stride = arg(argv[2], "STRIDE");
        n = arg(argv[3], "NLINES");
        hops = arg(argv[4], "HOPS");
        if (stride < 8 || stride % 8 || n < 1) {
            fprintf(stderr, "chase: STRIDE must be a multiple of 8, NLINES at least 1\n");
            return 2;
        }
        footprint = stride * n;
        warm = n;
    } else {
        usage();
        return 2;
    }
    if (hops < 1)
        hops = 1;
    // the chain visits the n elements in order, or in a random cycle
    long long *order = (long long *)malloc(n * sizeof(long long));
    for (long long i = 0; i < n; i++)
        order[i] = i;
    if (!strcmp(mode, "rand")) {
        srand(12345);
        for (long long i = n - 1; i > 0; i--) {
            long long j = (((long long)rand() << 16) ^ rand()) % (i + 1);
            long long t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    size_t words = (size_t)footprint / 8;
    char *base;
    void **end;
    long long *cyc;
    cudaError_t e = cudaMalloc((void **)&base, footprint);
    if (e != cudaSuccess)
        return fail("cudaMalloc", e);
    if ((e = cudaMalloc((void **)&end, sizeof(void *))) != cudaSuccess ||
        (e = cudaMalloc((void **)&cyc, sizeof(long long))) != cudaSuccess)
        return fail("cudaMalloc", e);
    uint64_t *host = (uint64_t *)calloc(words, 8);
    for (long long i = 0; i < n; i++) {
        long long from = order[i], to = order[(i + 1) % n];
        host[from * stride / 8] = (uint64_t)(uintptr_t)(base + to * stride);
    }
    if ((e = cudaMemcpy(base, host, footprint, cudaMemcpyHostToDevice)) != cudaSuccess)
        return fail("cudaMemcpy", e);
    void **start = (void **)(base + order[0] * stride);
    chase<<<1, 1>>>(start, warm, hops, end, cyc);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return fail("chase kernel", e);
    void *got;
    long long cycles;
    cudaMemcpy(&got, end, sizeof got, cudaMemcpyDeviceToHost);
    cudaMemcpy(&cycles, cyc, sizeof cycles, cudaMemcpyDeviceToHost);
    long long at = (warm + hops) % n;
    void *want = (void *)(base + order[at] * stride);
    printf("latency %.2f\n", (double)cycles / hops);
    printf("hops %lld\n", hops);
    printf("footprint %lld\n", footprint);
    printf("%s\n", got == want ? "PASS" : "FAIL");
    free(host);
    free(order);
    return got == want ? 0 : 1;
}
