// shared: shared-memory latency and bandwidth.
//
//   shared lat HOPS            one thread chases a chain of byte offsets through an 8 KB
//                              shared array (each 8-byte word holds the offset of the
//                              next, 64-bit so that no conversion sits between two
//                              loads), so each load depends on the last: core cycles per
//                              load by clock64(), as Wong et al. (2010) and Mei & Chu
//                              (2017) do
//   shared bw WARPS_PER_SM ITERS  (0 warps: all the SM holds) every warp of every SM reads its own conflict-free
//                              32-word rows, 4 independent loads per iteration: bytes per
//                              core cycle per SM, from clock64() on each block (the slowest
//                              block's span), against 32 banks x 4 bytes = 128 per cycle
//
// Prints "latency" or "bytes_per_cycle_per_sm" and PASS when the result checks. Builds
// with nvcc as well.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 1024

__global__ void lat_kernel(int hops, unsigned *end, long long *cycles)
{
    __shared__ unsigned long long s[WORDS];
    // a chain over every 33rd word (mod WORDS)
    for (int i = 0; i < WORDS; i++)
        s[i] = ((i + 33) % WORDS) * 8;
    __syncthreads();
    unsigned long long off = 0;
    for (int i = 0; i < 64; i++)  // warm-up
        off = *(unsigned long long *)((char *)s + off);
    long long t0 = clock64();
#pragma unroll 8
    for (int i = 0; i < hops; i++)
        off = *(unsigned long long *)((char *)s + off);
    end[0] = (unsigned)off;
    long long t1 = clock64();
    *cycles = t1 - t0;
}

__global__ void bw_kernel(int iters, unsigned *sums, long long *spans)
{
    __shared__ unsigned s[WORDS * 4];
    if (iters < 0)  // reads the parameters first: their line is fetched before the clock starts
        return;
    for (int i = threadIdx.x; i < WORDS * 4; i += blockDim.x)
        s[i] = i;
    __syncthreads();
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned row = (threadIdx.x >> 5) & 31;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
        unsigned r = (row + i) & 31;  // each warp walks the rows; a row is 32 banks
        acc += s[(r * 4 + 0) * 32 % (WORDS * 4) + lane];
        acc += s[((r * 4 + 1) * 32) % (WORDS * 4) + lane];
        acc += s[((r * 4 + 2) * 32) % (WORDS * 4) + lane];
        acc += s[((r * 4 + 3) * 32) % (WORDS * 4) + lane];
    }
    __syncthreads();
    long long t1 = clock64();
    sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0)
        spans[blockIdx.x] = t1 - t0;
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "shared: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static long long arg(const char *s, const char *name, long long least)
{
    char *e;
    long long v = strtoll(s, &e, 0);
    if (*e || v < least) {
        fprintf(stderr, "shared: %s must be an integer of at least %lld, not '%s'\n", name,
                least, s);
        exit(2);
    }
    return v;
}

static int lat(int hops)
{
    unsigned *end;
    long long *cyc;
    check(cudaMalloc((void **)&end, 4), "cudaMalloc");
    check(cudaMalloc((void **)&cyc, 8), "cudaMalloc");
    lat_kernel<<<1, 1>>>(hops, end, cyc);
    check(cudaDeviceSynchronize(), "lat kernel");
    unsigned got;
    long long cycles;
    cudaMemcpy(&got, end, 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(&cycles, cyc, 8, cudaMemcpyDeviceToHost);
    unsigned want = (unsigned)(((64 + (long long)hops) * 33) % WORDS) * 8;
    printf("latency %.2f\n", (double)cycles / hops);
    printf("hops %d\n", hops);
    printf("%s\n", got == want ? "PASS" : "FAIL");
    return got == want ? 0 : 1;
}

static int bw(int warps, int iters)
{
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    int max_warps = p.maxThreadsPerMultiProcessor / 32;
    if (warps == 0 || warps > max_warps)
        warps = max_warps;
    int per_sm = (warps * 32 + p.maxThreadsPerBlock - 1) / p.maxThreadsPerBlock;
    int threads = warps / per_sm * 32, blocks = per_sm * p.multiProcessorCount;
    unsigned *sums;
    long long *spans;
    check(cudaMalloc((void **)&sums, (size_t)blocks * threads * 4), "cudaMalloc");
    check(cudaMalloc((void **)&spans, (size_t)blocks * 8), "cudaMalloc");
    bw_kernel<<<blocks, threads>>>(iters, sums, spans);
    check(cudaDeviceSynchronize(), "bw kernel");
    unsigned *h = (unsigned *)malloc((size_t)blocks * threads * 4);
    long long *sp = (long long *)malloc((size_t)blocks * 8);
    cudaMemcpy(h, sums, (size_t)blocks * threads * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(sp, spans, (size_t)blocks * 8, cudaMemcpyDeviceToHost);
    int ok = 1;
    for (int t = 0; t < blocks * threads && ok; t++) {
        unsigned lane = t % threads & 31, row = (t % threads >> 5) & 31, want = 0;
        for (int i = 0; i < iters; i++)
            for (int k = 0; k < 4; k++)
                want += (((row + i) & 31) * 4 + k) * 32 % (WORDS * 4) + lane;
        ok = h[t] == want;
    }
    long long span = 0;
    for (int b = 0; b < blocks; b++)
        span = sp[b] > span ? sp[b] : span;
    double per_sm_bytes = (double)per_sm * threads * iters * 4 * 4;
    printf("bytes_per_cycle_per_sm %.3f\n", span ? per_sm_bytes / span : 0.0);
    printf("warps_per_sm %d\n", per_sm * threads / 32);
    printf("%s\n", ok ? "PASS" : "FAIL");
    free(h);
    free(sp);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "lat"))
        return lat((int)arg(argv[2], "HOPS", 1));
    if (argc == 4 && !strcmp(argv[1], "bw"))
        return bw((int)arg(argv[2], "WARPS_PER_SM", 0), (int)arg(argv[3], "ITERS", 1));
    fprintf(stderr, "usage: shared lat HOPS\n       shared bw WARPS_PER_SM ITERS\n");
    return 2;
}
