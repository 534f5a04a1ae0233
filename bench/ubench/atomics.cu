// atomics: throughput of atomicAdd on global memory, all threads on one address or each
// thread on its own (consecutive words, so a warp's 32 atomics fall in one 128-byte line).
//
//   atomics same|distinct WARPS_PER_SM ITERS     (0 warps: all the SM holds)
//
// Every thread adds 1 ITERS times. Time is the launch's emulated device time from CUDA
// events in core cycles of cudaDeviceProp.clockRate; prints "atomics_per_cycle",
// "cycles", "atomics" and PASS when every counter holds what was added. Builds with nvcc.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void add_kernel(unsigned *counters, int distinct, int iters)
{
    unsigned *c = counters + (distinct ? blockIdx.x * blockDim.x + threadIdx.x : 0);
    for (int i = 0; i < iters; i++)
        atomicAdd(c, 1u);
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "atomics: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static long long arg(const char *s, const char *name, long long least)
{
    char *e;
    long long v = strtoll(s, &e, 0);
    if (*e || v < least) {
        fprintf(stderr, "atomics: %s must be an integer of at least %lld, not '%s'\n", name,
                least, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "same") && strcmp(argv[1], "distinct"))) {
        fprintf(stderr, "usage: atomics same|distinct WARPS_PER_SM ITERS\n");
        return 2;
    }
    int distinct = !strcmp(argv[1], "distinct");
    int warps = (int)arg(argv[2], "WARPS_PER_SM", 0), iters = (int)arg(argv[3], "ITERS", 1);
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    if (warps == 0 || warps > p.maxThreadsPerMultiProcessor / 32)
        warps = p.maxThreadsPerMultiProcessor / 32;
    int per_sm = (warps * 32 + p.maxThreadsPerBlock - 1) / p.maxThreadsPerBlock;
    int threads = warps / per_sm * 32, blocks = per_sm * p.multiProcessorCount;
    size_t n = distinct ? (size_t)blocks * threads : 1;
    unsigned *c;
    check(cudaMalloc((void **)&c, n * 4), "cudaMalloc");
    check(cudaMemset(c, 0, n * 4), "cudaMemset");
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    add_kernel<<<blocks, threads>>>(c, distinct, iters);
    cudaEventRecord(b);
    check(cudaDeviceSynchronize(), "atomics kernel");
    unsigned *h = (unsigned *)malloc(n * 4);
    check(cudaMemcpy(h, c, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    unsigned want = distinct ? (unsigned)iters : (unsigned)((size_t)blocks * threads * iters);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= h[i] == want;
    float ms;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    double cycles = ms * (double)p.clockRate, total = (double)blocks * threads * iters;
    printf("atomics_per_cycle %.4f\n", cycles > 0 ? total / cycles : 0.0);
    printf("cycles %.0f\n", cycles);
    printf("atomics %.0f\n", total);
    printf("%s\n", ok ? "PASS" : "FAIL");
    free(h);
    return ok ? 0 : 1;
}
