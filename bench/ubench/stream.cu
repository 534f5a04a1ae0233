// stream: sustained bandwidth of streaming reads and copies, and of the L2.
//
//   stream read|copy 4|16 WARPS_PER_SM MBYTES     DRAM: a grid-stride pass over MBYTES
//   stream l2 4|16 WARPS_PER_SM KBYTES PASSES     L2: PASSES passes over KBYTES that fit it
//
// Accesses are 4-byte (int) or 16-byte (int4) per thread, coalesced. Every SM gets
// WARPS_PER_SM warps (0: as many as it holds), as one block, or as the fewest equal blocks
// the per-block thread limit allows, so occupancy is chosen directly. "read" sums every element (the sum is checked);
// "copy" writes each element to a second array (checked on the host), moving twice the
// bytes. "l2" first reads the footprint once (untimed launch) and then reads it PASSES
// times in a second launch; each pass a block takes the next block's slice, so an SM
// never finds in its L1 what it read the pass before and every load is answered by the
// L2. Time is the launch's emulated device time from CUDA events, in core cycles of
// cudaDeviceProp.clockRate. Prints "cycles", "bytes", "bytes_per_cycle", "gbps",
// "warps_per_sm" and PASS when the result checks. Builds with nvcc as well.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

template <typename T> __device__ unsigned sum_of(T v);
template <> __device__ unsigned sum_of<int>(int v) { return (unsigned)v; }
template <> __device__ unsigned sum_of<int4>(int4 v) { return (unsigned)(v.x + v.y + v.z + v.w); }

// every thread leaves its partial sum in sums[] (the host adds them): a same-address
// atomic per thread would serialize at the end and weigh on the time measured
template <typename T>
__global__ void read_kernel(const T *in, long long n, unsigned *sums)
{
    unsigned acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        acc += sum_of(in[i]);
    sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <typename T>
__global__ void copy_kernel(const T *in, T *out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        out[i] = in[i];
}

// pass p: block b reads slice (b + p) mod gridDim.x of the footprint
template <typename T>
__global__ void l2_kernel(const T *in, long long n, int passes, unsigned *sums)
{
    long long slice = (n + gridDim.x - 1) / gridDim.x;
    unsigned acc = 0;
    for (int p = 0; p < passes; p++) {
        long long lo = ((blockIdx.x + p) % gridDim.x) * slice;
        long long hi = lo + slice < n ? lo + slice : n;
        for (long long i = lo + threadIdx.x; i < hi; i += blockDim.x)
            acc += sum_of(in[i]);
    }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "stream: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static long long arg(const char *s, const char *name)
{
    char *e;
    long long v = strtoll(s, &e, 0);
    if (*e || v < 0) {
        fprintf(stderr, "stream: %s must be a non-negative integer, not '%s'\n", name, s);
        exit(2);
    }
    return v;
}

static void usage(void)
{
    fprintf(stderr, "usage: stream read|copy 4|16 WARPS_PER_SM MBYTES\n"
                    "       stream l2 4|16 WARPS_PER_SM KBYTES PASSES\n");
    exit(2);
}

template <typename T>
static int run(const char *op, long long bytes, int passes, int blocks, int threads,
               const cudaDeviceProp &p)
{
    long long n = bytes / (long long)sizeof(T), words = n * (long long)(sizeof(T) / 4);
    int *h = (int *)malloc(words * 4);
    unsigned long long want = 0;
    for (long long i = 0; i < words; i++) {
        h[i] = (int)(i & 0xff);
        want += (unsigned)h[i];
    }
    T *in, *out = NULL;
    unsigned *sum;
    size_t nthreads = (size_t)blocks * threads;
    check(cudaMalloc((void **)&in, words * 4), "cudaMalloc");
    check(cudaMalloc((void **)&sum, nthreads * 4), "cudaMalloc");
    check(cudaMemcpy(in, h, words * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    long long moved = bytes;
    int ok = 1;
    if (!strcmp(op, "copy")) {
        check(cudaMalloc((void **)&out, words * 4), "cudaMalloc");
        cudaEventRecord(a);
        copy_kernel<T><<<blocks, threads>>>(in, out, n);
        cudaEventRecord(b);
        check(cudaDeviceSynchronize(), "copy kernel");
        int *back = (int *)malloc(words * 4);
        check(cudaMemcpy(back, out, words * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
        ok = !memcmp(back, h, words * 4);
        free(back);
        moved = 2 * bytes;
    } else if (!strcmp(op, "read")) {
        cudaEventRecord(a);
        read_kernel<T><<<blocks, threads>>>(in, n, sum);
        cudaEventRecord(b);
        check(cudaDeviceSynchronize(), "read kernel");
    } else {
        l2_kernel<T><<<blocks, threads>>>(in, n, 1, sum);  // bring the footprint into L2
        check(cudaDeviceSynchronize(), "l2 warm-up kernel");
        cudaEventRecord(a);
        l2_kernel<T><<<blocks, threads>>>(in, n, passes, sum);
        cudaEventRecord(b);
        check(cudaDeviceSynchronize(), "l2 kernel");
        moved = bytes * passes;
        want *= (unsigned long long)passes;
    }
    if (strcmp(op, "copy")) {
        unsigned *part = (unsigned *)malloc(nthreads * 4);
        check(cudaMemcpy(part, sum, nthreads * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
        unsigned got = 0;
        for (size_t t = 0; t < nthreads; t++)
            got += part[t];
        free(part);
        ok = got == (unsigned)want;  // both modulo 2^32
    }
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    double cycles = ms * (double)p.clockRate;  // clockRate is in kHz
    printf("cycles %.0f\n", cycles);
    printf("bytes %lld\n", moved);
    printf("bytes_per_cycle %.3f\n", cycles > 0 ? moved / cycles : 0.0);
    printf("gbps %.2f\n", ms > 0 ? moved / (ms * 1e6) : 0.0);
    printf("warps_per_sm %d\n", blocks / p.multiProcessorCount * threads / 32);
    printf("%s\n", ok ? "PASS" : "FAIL");
    free(h);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        usage();
    const char *op = argv[1];
    int l2 = !strcmp(op, "l2");
    if (strcmp(op, "read") && strcmp(op, "copy") && !l2)
        usage();
    if (argc != (l2 ? 6 : 5))
        usage();
    long long width = arg(argv[2], "width"), warps = arg(argv[3], "WARPS_PER_SM");
    long long size = arg(argv[4], l2 ? "KBYTES" : "MBYTES");
    int passes = l2 ? (int)arg(argv[5], "PASSES") : 1;
    if ((width != 4 && width != 16) || size < 1 || passes < 1) {
        fprintf(stderr, "stream: width must be 4 or 16, the size and passes at least 1\n");
        return 2;
    }
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    int max_warps = p.maxThreadsPerMultiProcessor / 32;
    if (warps == 0 || warps > max_warps)
        warps = max_warps;
    int per_sm = (int)((warps * 32 + p.maxThreadsPerBlock - 1) / p.maxThreadsPerBlock);
    int threads = (int)(warps / per_sm * 32), blocks = per_sm * p.multiProcessorCount;
    long long bytes = size * (l2 ? 1024 : 1024 * 1024);
    return width == 4 ? run<int>(op, bytes, passes, blocks, threads, p)
                      : run<int4>(op, bytes, passes, blocks, threads, p);
}
