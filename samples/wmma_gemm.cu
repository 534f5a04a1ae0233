// wmma_gemm: C = alpha * A * B + beta * C with tensor-core warp matrix operations
// (nvcuda::wmma, 16x16x16, half inputs, float accumulators). A is M x K row-major, B is
// K x N column-major, C is M x N row-major, all sizes multiples of 32 (the block tile).
// A block of four warps computes a 32x32 tile of C: per 16-wide step of K it stages a
// 32x16 slice of A and a 16x32 slice of B in shared memory (half), every warp loads its
// fragments from there and accumulates with mma_sync; C is read with load_matrix_sync,
// combined element-wise with alpha and beta on the fragments, and stored. The CPU
// reference multiplies the same half-rounded inputs in double; results must agree within
// 1e-3 * (1 + |ref|) (the device sums in float, k in order).
#include <cuda_runtime.h>
#include <mma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

using namespace nvcuda;

#define BT 32 /* block tile (C rows and columns) */
#define KT 16 /* K step */

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            fprintf(stderr, "wmma_gemm: %s:%d: %s\n", __FILE__, __LINE__,               \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void wmma_gemm(int m, int n, int k, float alpha, float beta, const half *A,
                          const half *B, float *C)
{
    __shared__ half as[BT * KT]; /* 32 rows of A's slice, row-major, ldm 16 */
    __shared__ half bs[BT * KT]; /* 32 columns of B's slice, column-major, ldm 16 */
    int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
    int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < k; k0 += KT) {
        for (int i = threadIdx.x; i < BT * KT; i += blockDim.x) {
            int r = i / KT, c = i % KT;
            as[i] = A[(size_t)(row0 + r) * k + k0 + c];
            bs[i] = B[(size_t)(col0 + r) * k + k0 + c];
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::load_matrix_sync(fa, as + wr * 16 * KT, KT);
        wmma::load_matrix_sync(fb, bs + wc * 16 * KT, KT);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    float *ct = C + (size_t)(row0 + wr * 16) * n + col0 + wc * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(c, ct, n, wmma::mem_row_major);
    for (int i = 0; i < c.num_elements; i++)
        c.x[i] = alpha * acc.x[i] + beta * c.x[i];
    wmma::store_matrix_sync(ct, c, n, wmma::mem_row_major);
}

static float next_value(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)((*seed >> 9) % 2001) / 1000.0f - 1.0f;
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : 64;
    int n = argc > 2 ? atoi(argv[2]) : 96;
    int k = argc > 3 ? atoi(argv[3]) : 64;
    if (m <= 0 || n <= 0 || k <= 0 || m % BT || n % BT || k % BT) {
        fprintf(stderr, "usage: wmma_gemm [M N K: positive multiples of 32]\n");
        return 2;
    }
    float alpha = 1.5f, beta = -0.5f;
    size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
    half *A = (half *)malloc(sizeof(half) * sa);
    half *B = (half *)malloc(sizeof(half) * sb);
    float *C = (float *)malloc(sizeof(float) * sc);
    double *R = (double *)malloc(sizeof(double) * sc);
    unsigned seed = 77;
    for (size_t i = 0; i < sa; i++)
        A[i] = __float2half(next_value(&seed));
    for (size_t i = 0; i < sb; i++)
        B[i] = __float2half(next_value(&seed));
    for (size_t i = 0; i < sc; i++)
        C[i] = next_value(&seed);

    half *dA, *dB;
    float *dC;
    CHECK(cudaMalloc(&dA, sizeof(half) * sa));
    CHECK(cudaMalloc(&dB, sizeof(half) * sb));
    CHECK(cudaMalloc(&dC, sizeof(float) * sc));
    CHECK(cudaMemcpy(dA, A, sizeof(half) * sa, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, sizeof(half) * sb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, C, sizeof(float) * sc, cudaMemcpyHostToDevice));
    wmma_gemm<<<dim3(n / BT, m / BT), 128>>>(m, n, k, alpha, beta, dA, dB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float *out = (float *)malloc(sizeof(float) * sc);
    CHECK(cudaMemcpy(out, dC, sizeof(float) * sc, cudaMemcpyDeviceToHost));

    double t0 = cpu_seconds();
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int q = 0; q < k; q++) /* B is column-major: B(q, j) at j * k + q */
                s += (double)__half2float(A[(size_t)i * k + q]) *
                     __half2float(B[(size_t)j * k + q]);
            R[(size_t)i * n + j] = alpha * s + beta * C[(size_t)i * n + j];
        }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    for (size_t i = 0; i < sc; i++)
        if (!(fabs(out[i] - R[i]) <= 1e-3 * (1.0 + fabs(R[i])))) {
            if (bad < 5)
                fprintf(stderr, "wmma_gemm: C[%zu][%zu] = %.7g, expected %.7g\n", i / n, i % n,
                        out[i], R[i]);
            bad++;
        }
    if (bad)
        fprintf(stderr, "wmma_gemm: %d of %zu elements differ\n", bad, sc);
    printf("wmma_gemm %dx%dx%d\n", m, n, k);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
    free(B);
    free(C);
    free(R);
    free(out);
    printf("wmma_gemm: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
