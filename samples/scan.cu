// scan: inclusive prefix sum of a large int array in three kernels. scan_blocks gives
// each thread one element: a warp scans its 32 values with __shfl_up_sync, warp totals
// meet in shared memory where the first warp scans them the same way, and each block
// writes its scanned slice and its total. scan_totals (one block) scans the block totals
// in chunks, carrying the running sum between chunks. add_offsets adds the sum of all
// earlier blocks to every element. Integer sums are exact, so the check is exact.
// Usage: scan [elements]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef BLOCK /* threads per block; xgpu-cc -DBLOCK=N changes it (a power of two, 64..1024) */
#define BLOCK 256
#endif
#define WARP 32
#define FULL 0xffffffffu

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
    fprintf(stderr, "scan: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

__device__ int warp_scan(int v)
{
    int lane = threadIdx.x % WARP;
    for (int d = 1; d < WARP; d <<= 1) {
        int up = __shfl_up_sync(FULL, v, d);
        if (lane >= d)
            v += up;
    }
    return v;
}

// Inclusive scan over the whole block (blockDim.x == BLOCK); every thread must call it.
__device__ int block_scan(int v)
{
    __shared__ int warp_totals[BLOCK / WARP];
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    v = warp_scan(v);
    if (lane == WARP - 1)
        warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int t = lane < BLOCK / WARP ? warp_totals[lane] : 0;
        t = warp_scan(t);
        if (lane < BLOCK / WARP)
            warp_totals[lane] = t;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_totals[warp - 1];
    __syncthreads(); // warp_totals is reused by the next call
    return v;
}

__global__ void scan_blocks(const int *in, int *out, int *totals, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int v = block_scan(i < n ? in[i] : 0);
    if (i < n)
        out[i] = v;
    if (threadIdx.x == BLOCK - 1)
        totals[blockIdx.x] = v;
}

__global__ void scan_totals(int *totals, int count)
{
    __shared__ int last;
    int carry = 0;
    for (int base = 0; base < count; base += BLOCK) {
        int i = base + threadIdx.x;
        int v = block_scan(i < count ? totals[i] : 0) + carry;
        if (i < count)
            totals[i] = v;
        if (threadIdx.x == BLOCK - 1)
            last = v;
        __syncthreads();
        carry = last;
        __syncthreads();
    }
}

__global__ void add_offsets(int *out, const int *totals, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += totals[blockIdx.x - 1];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    if (n <= 0) {
        fprintf(stderr, "usage: scan [elements > 0]\n");
        return 2;
    }
    int blocks = (n + BLOCK - 1) / BLOCK;
    int *in = (int *)malloc(sizeof(int) * n), *out = (int *)malloc(sizeof(int) * n);
    int *ref = (int *)malloc(sizeof(int) * n);
    unsigned seed = 31337;
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (int)(seed >> 16) % 2001 - 1000;
    }
    int *din, *dout, *dtotals;
    if (check(cudaMalloc(&din, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dout, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dtotals, sizeof(int) * blocks), "cudaMalloc") ||
        check(cudaMemcpy(din, in, sizeof(int) * n, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;
    scan_blocks<<<blocks, BLOCK>>>(din, dout, dtotals, n);
    scan_totals<<<1, BLOCK>>>(dtotals, blocks);
    add_offsets<<<blocks, BLOCK>>>(dout, dtotals, n);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel") ||
        check(cudaMemcpy(out, dout, sizeof(int) * n, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;

    double t0 = cpu_seconds();
    int acc = 0;
    for (int i = 0; i < n; i++)
        ref[i] = acc += in[i];
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (out[i] != ref[i] && bad++ < 5)
            fprintf(stderr, "scan: out[%d] = %d, expected %d\n", i, out[i], ref[i]);
    printf("scan n=%d blocks=%d\n", n, blocks);
    if (bad)
        fprintf(stderr, "scan: %d wrong prefix sums\n", bad);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dtotals);
    free(in);
    free(out);
    free(ref);
    printf("scan: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
