// arith: dependent latency and throughput of the SM's execution units, the way GPU
// microbenchmarks measure them (Wong et al. 2010; Jia et al. 2018, 2019; Arafa et al. 2019).
//
//   arith lat OP ITERS             one thread (one warp) runs ITERS x 256 dependent
//                                  operations, each using the result of the one before;
//                                  clock64() around them gives core cycles per operation
//   arith tput OP WARPS_PER_SM ITERS  (0 warps: as many as the SM holds) every thread runs
//                                  8 independent chains of ITERS x 64 operations each:
//                                  operations per core cycle per SM, from clock64() at the
//                                  start and end of every block (first start to last
//                                  end), the unit of the CUDA Programming Guide's
//                                  throughput table
//
// OP (what each step is, in source; docs/validation.md says what it compiles to):
//   iadd  x = (x + a) ^ b       two integer ALU operations (an add and a logic operation,
//                               so that no compiler can fold a run of adds into one)
//   imad  x = x * a + b         one integer multiply-add
//   fadd  x = x + a             fp32 add
//   ffma  x = fmaf(x, a, b)     fp32 fused multiply-add
//   dfma  x = fma(x, a, b)      fp64 fused multiply-add
//   sfu   x = __sinf(x)         the special-function unit's sine
//
// The 256 (64 in tput) steps between two loop tests are unrolled, so the loop's own
// instructions (a counter add, a compare, a branch and the copies of the chains' values)
// cost under 3% of what is timed.
// Prints "latency" (cycles per operation) or "ops_per_cycle_per_sm", and PASS when the
// chains end where the host computes they must (exactly; sfu: finite and in [-1, 1]).
// Builds with nvcc as well.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAT_STEPS 256   // dependent operations between two loop tests (latency)
#define TPUT_STEPS 64   // steps of every chain between two loop tests (throughput)
#define CHAINS 8        // independent chains per thread (throughput)
#define BLOCK 256       // threads per block (throughput)

struct IAdd {
    typedef unsigned T;
    static const int ops = 2;
    __host__ __device__ static T f(T x, T a, T b) { return (x + a) ^ b; }
};
struct IMad {
    typedef unsigned T;
    static const int ops = 1;
    __host__ __device__ static T f(T x, T a, T b) { return x * a + b; }
};
struct FAdd {
    typedef float T;
    static const int ops = 1;
    __host__ __device__ static T f(T x, T a, T) { return x + a; }
};
struct FFma {
    typedef float T;
    static const int ops = 1;
    __host__ __device__ static T f(T x, T a, T b) { return fmaf(x, a, b); }
};
struct DFma {
    typedef double T;
    static const int ops = 1;
    __host__ __device__ static T f(T x, T a, T b) { return fma(x, a, b); }
};
struct Sfu {
    typedef float T;
    static const int ops = 1;
    __device__ static T f(T x, T, T) { return __sinf(x); }
};

template <class Op>
__global__ void lat_kernel(typename Op::T x0, typename Op::T a, typename Op::T b,
                           long long iters, typename Op::T *out, long long *cycles)
{
    // one step untimed, its result stored: the store waits for it, so the clock starts
    // once the operands (kernel parameters, read from memory) are in registers
    typename Op::T x = Op::f(x0, a, b);
    *out = x;
    long long t0 = clock64();
    for (long long i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < LAT_STEPS; k++)
            x = Op::f(x, a, b);
    }
    *out = x;  // waits for the last result, then the clock is read
    long long t1 = clock64();
    *cycles = t1 - t0;
}

template <class Op>
__global__ void tput_kernel(typename Op::T x0, typename Op::T a, typename Op::T b,
                            long long iters, typename Op::T *out, long long *spans)
{
    typedef typename Op::T T;
    T x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        x[c] = x0 + (T)(c + 1);
    __syncthreads();
    long long t0 = clock64();
    for (long long i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < TPUT_STEPS; k++) {
#pragma unroll
            for (int c = 0; c < CHAINS; c++)
                x[c] = Op::f(x[c], a, b);
        }
    }
    __syncthreads();
    long long t1 = clock64();
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        out[((size_t)blockIdx.x * blockDim.x + threadIdx.x) * CHAINS + c] = x[c];
    if (threadIdx.x == 0) {
        spans[2 * blockIdx.x] = t0;
        spans[2 * blockIdx.x + 1] = t1;
    }
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "arith: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static long long arg(const char *s, const char *name, long long least)
{
    char *e;
    long long v = strtoll(s, &e, 0);
    if (*e || v < least) {
        fprintf(stderr, "arith: %s must be an integer of at least %lld, not '%s'\n", name,
                least, s);
        exit(2);
    }
    return v;
}

// The host's version of a chain of n steps, or -2 where the host cannot compute it.
template <class Op> static int same(typename Op::T got, typename Op::T x, typename Op::T a,
                                    typename Op::T b, long long n)
{
    for (long long i = 0; i < n; i++)
        x = Op::f(x, a, b);
    return memcmp(&got, &x, sizeof x) == 0;
}
template <> int same<Sfu>(float got, float, float, float, long long)
{
    return got >= -1.0f && got <= 1.0f;  // __sinf is approximate: check the range only
}

// Operands that keep every chain finite and away from denormals.
template <class Op> struct Args;
template <> struct Args<IAdd> { static unsigned x() { return 1; } static unsigned a() { return 0x9e3779b9u; } static unsigned b() { return 0x7f4a7c15u; } };
template <> struct Args<IMad> { static unsigned x() { return 1; } static unsigned a() { return 1664525u; } static unsigned b() { return 1013904223u; } };
template <> struct Args<FAdd> { static float x() { return 1.0f; } static float a() { return 1.0f / 1024; } static float b() { return 0; } };
template <> struct Args<FFma> { static float x() { return 1.0f; } static float a() { return 0.5f; } static float b() { return 1.0f; } };
template <> struct Args<DFma> { static double x() { return 1.0; } static double a() { return 0.5; } static double b() { return 1.0; } };
template <> struct Args<Sfu> { static float x() { return 1.0f; } static float a() { return 0; } static float b() { return 0; } };

template <class Op> static int lat(long long iters)
{
    typedef typename Op::T T;
    T *out;
    long long *cyc;
    check(cudaMalloc((void **)&out, sizeof(T)), "cudaMalloc");
    check(cudaMalloc((void **)&cyc, 8), "cudaMalloc");
    T x0 = Args<Op>::x(), a = Args<Op>::a(), b = Args<Op>::b();
    lat_kernel<Op><<<1, 1>>>(x0, a, b, iters, out, cyc);
    check(cudaDeviceSynchronize(), "lat kernel");
    T got;
    long long cycles;
    check(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(&cycles, cyc, 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    long long n = iters * LAT_STEPS;
    int ok = same<Op>(got, x0, a, b, n + 1);
    printf("latency %.3f\n", (double)cycles / (n * Op::ops));
    printf("operations %lld\n", n * Op::ops);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

template <class Op> static int tput(int warps, long long iters)
{
    typedef typename Op::T T;
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    int fit = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, tput_kernel<Op>, BLOCK, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    int per_sm = warps ? (warps * 32 + BLOCK - 1) / BLOCK : fit;
    if (per_sm > fit)
        per_sm = fit;
    if (per_sm < 1) {
        fprintf(stderr, "arith: a block of %d threads does not fit an SM\n", BLOCK);
        return 1;
    }
    int blocks = per_sm * p.multiProcessorCount;
    size_t n_out = (size_t)blocks * BLOCK * CHAINS;
    T *out;
    long long *spans;
    check(cudaMalloc((void **)&out, n_out * sizeof(T)), "cudaMalloc");
    check(cudaMalloc((void **)&spans, (size_t)blocks * 16), "cudaMalloc");
    T x0 = Args<Op>::x(), a = Args<Op>::a(), b = Args<Op>::b();
    tput_kernel<Op><<<blocks, BLOCK>>>(x0, a, b, iters, out, spans);
    check(cudaDeviceSynchronize(), "tput kernel");
    T *h = (T *)malloc(n_out * sizeof(T));
    long long *sp = (long long *)malloc((size_t)blocks * 16);
    check(cudaMemcpy(h, out, n_out * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(sp, spans, (size_t)blocks * 16, cudaMemcpyDeviceToHost), "cudaMemcpy");
    // every thread computes the same chains: check one thread's, then that all agree
    int ok = 1;
    for (int c = 0; c < CHAINS && ok; c++)
        ok = same<Op>(h[c], x0 + (T)(c + 1), a, b, iters * TPUT_STEPS);
    for (size_t i = CHAINS; i < n_out && ok; i++)
        ok = memcmp(&h[i], &h[i % CHAINS], sizeof(T)) == 0;
    // from the first block's start to the last block's end (the SMs' clocks are one
    // clock in timing mode; on a GPU they are close), so blocks that did not all fit at
    // once count as the time they took
    long long first = sp[0], last = sp[1];
    for (int i = 1; i < blocks; i++) {
        first = sp[2 * i] < first ? sp[2 * i] : first;
        last = sp[2 * i + 1] > last ? sp[2 * i + 1] : last;
    }
    long long span = last - first;
    double ops = (double)per_sm * BLOCK * CHAINS * iters * TPUT_STEPS * Op::ops;
    printf("ops_per_cycle_per_sm %.3f\n", span ? ops / span : 0.0);
    printf("warps_per_sm %d\n", per_sm * BLOCK / 32);
    printf("%s\n", ok ? "PASS" : "FAIL");
    free(h);
    free(sp);
    return ok ? 0 : 1;
}

template <class Op> static int run(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "lat"))
        return lat<Op>(arg(argv[3], "ITERS", 1));
    if (argc == 5 && !strcmp(argv[1], "tput"))
        return tput<Op>((int)arg(argv[3], "WARPS_PER_SM", 0), arg(argv[4], "ITERS", 1));
    fprintf(stderr, "usage: arith lat OP ITERS\n       arith tput OP WARPS_PER_SM ITERS\n"
                    "OP: iadd imad fadd ffma dfma sfu\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *op = argc > 2 ? argv[2] : "";
    if (!strcmp(op, "iadd"))
        return run<IAdd>(argc, argv);
    if (!strcmp(op, "imad"))
        return run<IMad>(argc, argv);
    if (!strcmp(op, "fadd"))
        return run<FAdd>(argc, argv);
    if (!strcmp(op, "ffma"))
        return run<FFma>(argc, argv);
    if (!strcmp(op, "dfma"))
        return run<DFma>(argc, argv);
    if (!strcmp(op, "sfu"))
        return run<Sfu>(argc, argv);
    if (argc > 2) {
        fprintf(stderr, "arith: unknown OP '%s' (iadd imad fadd ffma dfma sfu)\n", op);
        return 2;
    }
    return run<IAdd>(argc, argv);
}
