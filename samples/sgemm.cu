// sgemm: register-blocked single-precision C = alpha * A * B + beta * C, in the style of
// Parboil's sgemm (a thread block of 128 threads computes a 128 x 16 tile of C; each
// thread keeps one row of the tile, 16 partial sums, in registers). A is NI x NK stored
// column-major (as Parboil's sgemm takes it, so that a warp's loads of A coalesce), B is
// NK x NJ and C is NI x NJ, row-major. For every 8 values of k the block stages an
// 8 x 16 tile of B in shared memory (one element per thread); each thread then loads its
// own A value for that k and does 16 independent multiply-adds with it, the
// instruction-level parallelism that hand-tuned GEMMs expose (each multiply-add follows
// the shared load it needs; -DSGEMM_PRELOAD_B issues the 16 loads first instead, as a
// latency-hiding instruction scheduler would order them). Edges are guarded (sizes
// need not be multiples of the tile). Results are compared with a relative tolerance
// against a double-precision CPU reference.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TILE_M 128 /* rows of C per block = threads per block */
#define TILE_N 16  /* columns of C per block = partial sums per thread */
#define TILE_K 8   /* rows of B staged at a time: TILE_K * TILE_N = TILE_M elements */

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
            fprintf(stderr, "sgemm: %s:%d: %s\n", __FILE__, __LINE__,                   \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void sgemm_regblock(int ni, int nj, int nk, float alpha, float beta,
                               const float *A, const float *B, float *C)
{
    __shared__ float bs[TILE_K][TILE_N];
    int row = blockIdx.y * TILE_M + threadIdx.x;
    int col0 = blockIdx.x * TILE_N;
    float c[TILE_N];
#pragma unroll
    for (int j = 0; j < TILE_N; j++)
        c[j] = 0.0f;
    for (int k0 = 0; k0 < nk; k0 += TILE_K) {
        int bk = k0 + threadIdx.x / TILE_N, bj = col0 + threadIdx.x % TILE_N;
        bs[threadIdx.x / TILE_N][threadIdx.x % TILE_N] =
            bk < nk && bj < nj ? B[bk * nj + bj] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE_K; kk++) {
            float a = row < ni && k0 + kk < nk ? A[(k0 + kk) * ni + row] : 0.0f;
#ifdef SGEMM_PRELOAD_B
            /* all 16 shared loads first, then the 16 multiply-adds: the order a
             * latency-hiding instruction scheduler would give */
            float b[TILE_N];
#pragma unroll
            for (int j = 0; j < TILE_N; j++)
                b[j] = bs[kk][j];
#pragma unroll
            for (int j = 0; j < TILE_N; j++)
                c[j] += a * b[j];
#else
#pragma unroll
            for (int j = 0; j < TILE_N; j++)
                c[j] += a * bs[kk][j];
#endif
        }
        __syncthreads();
    }
    if (row < ni) {
#pragma unroll
        for (int j = 0; j < TILE_N; j++)
            if (col0 + j < nj)
                C[row * nj + col0 + j] = alpha * c[j] + beta * C[row * nj + col0 + j];
    }
}

static float next_value(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)((*seed >> 9) % 2001) / 1000.0f - 1.0f;
}

int main(int argc, char **argv)
{
    int ni = argc > 1 ? atoi(argv[1]) : 512;
    int nj = argc > 2 ? atoi(argv[2]) : 256;
    int nk = argc > 3 ? atoi(argv[3]) : 96;
    if (ni <= 0 || nj <= 0 || nk <= 0) {
        fprintf(stderr, "usage: sgemm [NI NJ NK > 0]\n");
        return 2;
    }
    float alpha = 1.5f, beta = 0.75f;
    size_t sa = (size_t)ni * nk, sb = (size_t)nk * nj, sc = (size_t)ni * nj;
    float *A = (float *)malloc(sizeof(float) * sa);
    float *B = (float *)malloc(sizeof(float) * sb);
    float *C = (float *)malloc(sizeof(float) * sc);
    double *R = (double *)malloc(sizeof(double) * sc);
    double *row = (double *)malloc(sizeof(double) * nj);
    if (!A || !B || !C || !R || !row) {
        fprintf(stderr, "sgemm: out of host memory\n");
        return 1;
    }
    unsigned seed = 2025;
    for (size_t i = 0; i < sa; i++)
        A[i] = next_value(&seed);
    for (size_t i = 0; i < sb; i++)
        B[i] = next_value(&seed);
    for (size_t i = 0; i < sc; i++)
        R[i] = C[i] = next_value(&seed);

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, sizeof(float) * sa));
    CHECK(cudaMalloc(&dB, sizeof(float) * sb));
    CHECK(cudaMalloc(&dC, sizeof(float) * sc));
    CHECK(cudaMemcpy(dA, A, sizeof(float) * sa, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, sizeof(float) * sb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, C, sizeof(float) * sc, cudaMemcpyHostToDevice));
    dim3 block(TILE_M), grid((nj + TILE_N - 1) / TILE_N, (ni + TILE_M - 1) / TILE_M);
    sgemm_regblock<<<grid, block>>>(ni, nj, nk, alpha, beta, dA, dB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(C, dC, sizeof(float) * sc, cudaMemcpyDeviceToHost));

    double t0 = cpu_seconds();
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            row[j] = 0.0;
        for (int k = 0; k < nk; k++) {
            double a = A[(size_t)k * ni + i];
            for (int j = 0; j < nj; j++)
                row[j] += a * B[(size_t)k * nj + j];
        }
        for (int j = 0; j < nj; j++)
            R[(size_t)i * nj + j] = alpha * row[j] + beta * R[(size_t)i * nj + j];
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    for (size_t i = 0; i < sc; i++) {
        double scale = 1.0 + fabs(R[i]);
        if (!(fabs(C[i] - R[i]) <= 1e-4 * scale * sqrt((double)nk))) {
            if (bad < 5)
                fprintf(stderr, "sgemm: C[%zu][%zu] = %.7g, expected %.7g\n", i / nj,
                        i % nj, C[i], R[i]);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "sgemm: %d of %zu elements differ\n", bad, sc);
    printf("sgemm %dx%dx%d\n", ni, nj, nk);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
    free(B);
    free(C);
    free(R);
    free(row);
    printf("sgemm: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
