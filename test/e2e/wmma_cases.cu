// Warp matrix operations (nvcuda::wmma 16x16x16, half A and B) in every combination the
// lowering accepts: A and B row- or column-major, C and D f32 or f16 (all four mma
// forms), C loaded and D stored row- or column-major, run-time leading dimensions larger
// than 16 in global memory, constant ones in shared memory, element-wise work on
// fragments and fill_fragment on every kind. The device's result must equal, bit for
// bit, the documented arithmetic (f32 products and sums in k order starting from C, one
// rounding for an f16 D), which the host recomputes here. Last, a wmma reached by half
// of a warp must fail the launch.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdio.h>
#include <string.h>

using namespace nvcuda;

#define LDA 24
#define LDB 32
#define LDC 40

static int failures;

template <typename T> struct Conv;
template <> struct Conv<float> {
    static __host__ __device__ float to(float v) { return v; }
    static __host__ __device__ float from(float v) { return v; }
};
template <> struct Conv<half> {
    static __host__ __device__ half to(float v) { return __float2half(v); }
    static __host__ __device__ float from(half v) { return __half2float(v); }
};

static wmma::layout_t lay(int col) { return col ? wmma::mem_col_major : wmma::mem_row_major; }

template <typename LA, typename LB, typename TD, typename TC>
__global__ void mma_global(const half *a, const half *b, const TC *c, TD *d, unsigned lda,
                           unsigned ldb, unsigned ldc, int ccol, int dcol)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, LA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, LB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, TC> fc;
    wmma::fragment<wmma::accumulator, 16, 16, 16, TD> fd;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, ccol ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::mma_sync(fd, fa, fb, fc);
    wmma::store_matrix_sync(d, fd, ldc, dcol ? wmma::mem_col_major : wmma::mem_row_major);
}

/* Two chained products through shared memory with the default leading dimension, and an
 * element-wise step on the accumulator in between: D = 2 * (A*B + 0) * ... see host. */
__global__ void mma_shared(const half *a, const half *b, float *d)
{
    __shared__ half sa[256], sb[256];
    __shared__ float sd[256];
    for (int i = threadIdx.x; i < 256; i += 32) {
        sa[i] = a[i];
        sb[i] = b[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.5f);
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, sb, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < acc.num_elements; i++)
        acc.x[i] = acc.x[i] * 2.0f;
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(sd, acc, 16, wmma::mem_col_major);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += 32)
        d[i] = sd[i];
}

/* Fragments filled with constants (float literals into half fragments too), f16 D. */
__global__ void mma_filled(half *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
    wmma::fill_fragment(fa, __float2half(0.5f));
    wmma::fill_fragment(fb, 2.0f);
    wmma::fill_fragment(acc, -3.0f);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

__global__ void mma_divergent(const half *a, float *d)
{
    if (threadIdx.x < 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, a, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
    }
}

static float value(int i, int salt)
{
    return (float)(((i * 37 + salt * 11) % 29) - 14) / 8.0f;
}

/* Element (r, c) of a matrix in layout col with leading dimension ld. */
static int at(int r, int c, int col, int ld) { return col ? c * ld + r : r * ld + c; }

/* D = A*B + C as the device computes it, from the host copies. */
template <typename TD, typename TC>
static TD expect(const half *a, int acol, const half *b, int bcol, const TC *c, int ccol,
                 int r, int col)
{
    float s = Conv<TC>::from(c[at(r, col, ccol, LDC)]);
    for (int k = 0; k < 16; k++)
        s += __half2float(a[at(r, k, acol, LDA)]) * __half2float(b[at(k, col, bcol, LDB)]);
    return Conv<TD>::to(s);
}

template <typename LA, typename LB, typename TD, typename TC>
static void run(int acol, int bcol, int ccol, int dcol, const char *what)
{
    half a[16 * LDA], b[16 * LDB];
    TC c[16 * LDC];
    TD d[16 * LDC];
    for (int i = 0; i < 16 * LDA; i++)
        a[i] = __float2half(value(i, 1));
    for (int i = 0; i < 16 * LDB; i++)
        b[i] = __float2half(value(i, 2));
    for (int i = 0; i < 16 * LDC; i++)
        c[i] = Conv<TC>::to(value(i, 3) * 3.0f);
    half *da, *db;
    TC *dc;
    TD *dd;
    cudaMalloc(&da, sizeof a);
    cudaMalloc(&db, sizeof b);
    cudaMalloc(&dc, sizeof c);
    cudaMalloc(&dd, sizeof d);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice);
    cudaMemset(dd, 0, sizeof d);
    mma_global<LA, LB, TD, TC><<<1, 32>>>(da, db, dc, dd, LDA, LDB, LDC, ccol, dcol);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int col = 0; col < 16; col++) {
            TD want = expect<TD, TC>(a, acol, b, bcol, c, ccol, r, col);
            TD got = d[at(r, col, dcol, LDC)];
            if (memcmp(&want, &got, sizeof want) && bad++ < 3)
                printf("%s a%s b%s c%s d%s: D[%d][%d] = %g, expected %g\n", what,
                       acol ? "col" : "row", bcol ? "col" : "row", ccol ? "col" : "row",
                       dcol ? "col" : "row", r, col, (double)Conv<TD>::from(got),
                       (double)Conv<TD>::from(want));
        }
    if (e != cudaSuccess || bad) {
        printf("%s a%d b%d c%d d%d: %s, %d elements differ\n", what, acol, bcol, ccol, dcol,
               cudaGetErrorString(e), bad);
        failures++;
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
}

template <typename LA, typename LB>
static void run_types(int acol, int bcol)
{
    for (int cl = 0; cl < 2; cl++)
        for (int dl = 0; dl < 2; dl++) {
            run<LA, LB, float, float>(acol, bcol, cl, dl, "f32.f32");
            run<LA, LB, float, half>(acol, bcol, cl, dl, "f32.f16");
            run<LA, LB, half, float>(acol, bcol, cl, dl, "f16.f32");
            run<LA, LB, half, half>(acol, bcol, cl, dl, "f16.f16");
        }
}

static void run_shared(void)
{
    half a[256], b[256];
    float d[256];
    for (int i = 0; i < 256; i++) {
        a[i] = __float2half(value(i, 4));
        b[i] = __float2half(value(i, 5));
    }
    half *da, *db;
    float *dd;
    cudaMalloc(&da, sizeof a);
    cudaMalloc(&db, sizeof b);
    cudaMalloc(&dd, sizeof d);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    mma_shared<<<1, 32>>>(da, db, dd);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) {
            float s = 0.5f;
            for (int k = 0; k < 16; k++)
                s += __half2float(a[r * 16 + k]) * __half2float(b[k * 16 + c]);
            s *= 2.0f;
            for (int k = 0; k < 16; k++)
                s += __half2float(a[r * 16 + k]) * __half2float(b[k * 16 + c]);
            if (s != d[c * 16 + r] && bad++ < 3)
                printf("shared: D[%d][%d] = %g, expected %g\n", r, c, d[c * 16 + r], s);
        }
    if (e != cudaSuccess || bad) {
        printf("shared: %s, %d elements differ\n", cudaGetErrorString(e), bad);
        failures++;
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dd);
}

static void run_filled(void)
{
    half *dd, d[256];
    cudaMalloc(&dd, sizeof d);
    mma_filled<<<1, 32>>>(dd);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += __half2float(d[i]) != 13.0f; /* 16 * 0.5 * 2 - 3 */
    if (e != cudaSuccess || bad) {
        printf("filled: %s, %d elements differ (D[0] = %g)\n", cudaGetErrorString(e), bad,
               (double)__half2float(d[0]));
        failures++;
    }
    cudaFree(dd);
}

static void run_divergent(void)
{
    half *da;
    float *dd;
    cudaMalloc(&da, 512);
    cudaMalloc(&dd, 1024);
    cudaMemset(da, 0, 512);
    mma_divergent<<<1, 32>>>(da, dd);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaErrorLaunchFailure) {
        printf("divergent wmma: %s, expected a launch failure\n", cudaGetErrorString(e));
        failures++;
    }
}

int main(void)
{
    run_types<wmma::row_major, wmma::row_major>(0, 0);
    run_types<wmma::row_major, wmma::col_major>(0, 1);
    run_types<wmma::col_major, wmma::row_major>(1, 0);
    run_types<wmma::col_major, wmma::col_major>(1, 1);
    run_shared();
    run_filled();
    run_divergent(); /* last: the launch failure is sticky */
    printf("wmma_cases: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
