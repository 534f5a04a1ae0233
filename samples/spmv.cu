// spmv: sparse matrix-vector products on a generated CSR matrix whose row lengths are
// irregular (most rows are short, a few are hundreds of entries long). The matrix is
// row-stochastic (nonnegative, each row sums to 1), and the program iterates
// x <- DAMPING * A x + c (a PageRank-like iteration) so the values stay in a fixed range.
// Three kernels run the same iterations on separate vectors:
//   spmv_scalar:        one thread per row walks the row;
//   spmv_vector_shared: one warp per row, lanes stride through the row, and the lanes'
//                       partial sums are reduced in shared memory (__syncwarp between
//                       steps);
//   spmv_vector_shfl:   the same with warp shuffles (__shfl_down_sync) instead.
// All three results are compared with a double-precision CPU reference within a relative
// tolerance of 1e-5 (float on the device, summed in another order, may use FMAs).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef BLOCK /* threads per block; xgpu-cc -DBLOCK=N changes it (a power of two, 64..1024) */
#define BLOCK 128
#endif
#define WARP 32
#define DAMPING 0.85f

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
            fprintf(stderr, "spmv: %s:%d: %s\n", __FILE__, __LINE__,                    \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void spmv_scalar(int rows, const int *rowptr, const int *colidx, const float *val,
                            const float *c, const float *x, float *y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
        acc += val[k] * x[colidx[k]];
    y[r] = DAMPING * acc + c[r];
}

__global__ void spmv_vector_shared(int rows, const int *rowptr, const int *colidx,
                                   const float *val, const float *c, const float *x, float *y)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x, lane = t % WARP;
    int r = (blockIdx.x * blockDim.x + t) / WARP;
    if (r >= rows)
        return; /* whole warps leave together */
    float acc = 0.0f;
    for (int k = rowptr[r] + lane; k < rowptr[r + 1]; k += WARP)
        acc += val[k] * x[colidx[k]];
    partial[t] = acc;
    __syncwarp();
    for (int offset = WARP / 2; offset > 0; offset >>= 1) {
        if (lane < offset)
            partial[t] += partial[t + offset];
        __syncwarp();
    }
    if (lane == 0)
        y[r] = DAMPING * partial[t] + c[r];
}

__global__ void spmv_vector_shfl(int rows, const int *rowptr, const int *colidx, const float *val,
                            const float *c, const float *x, float *y)
{
    int lane = threadIdx.x % WARP;
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    if (r >= rows)
        return; /* whole warps leave together */
    float acc = 0.0f;
    for (int k = rowptr[r] + lane; k < rowptr[r + 1]; k += WARP)
        acc += val[k] * x[colidx[k]];
    for (int offset = WARP / 2; offset > 0; offset >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0)
        y[r] = DAMPING * acc + c[r];
}

static unsigned next_random(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* Irregular row lengths: 1..16 usually, 64..575 for one row in 64. */
static int row_length(unsigned *seed, int cols)
{
    unsigned r = next_random(seed);
    int len = (r & 63) == 0 ? 64 + (int)(r >> 6) % 512 : 1 + (int)(r >> 6) % 16;
    return len < cols ? len : cols;
}

static int compare(const char *what, const float *got, const double *ref, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (!(fabs(got[i] - ref[i]) <= 1e-5 * fabs(ref[i]))) {
            if (bad < 5)
                fprintf(stderr, "spmv: %s: x[%d] = %.7g, expected %.7g\n", what, i, got[i],
                        ref[i]);
            bad++;
        }
    if (bad)
        fprintf(stderr, "spmv: %s: %d of %d entries differ\n", what, bad, n);
    return bad;
}

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 12000;
    int iterations = argc > 2 ? atoi(argv[2]) : 5;
    if (rows <= 0 || iterations <= 0) {
        fprintf(stderr, "usage: spmv [ROWS > 0] [ITERATIONS > 0]\n");
        return 2;
    }
    int cols = rows;
    unsigned seed = 2718;
    int *rowptr = (int *)malloc(sizeof(int) * (rows + 1));
    rowptr[0] = 0;
    for (int r = 0; r < rows; r++)
        rowptr[r + 1] = rowptr[r] + row_length(&seed, cols);
    int nnz = rowptr[rows];
    int *colidx = (int *)malloc(sizeof(int) * nnz);
    float *val = (float *)malloc(sizeof(float) * nnz);
    for (int r = 0; r < rows; r++) {
        float sum = 0.0f;
        /* Columns increase along the row from a random start, with random strides. */
        int len = rowptr[r + 1] - rowptr[r];
        int col = (int)(next_random(&seed) % cols);
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) {
            colidx[k] = col;
            col = (col + 1 + (int)(next_random(&seed) % (cols / len + 1))) % cols;
            val[k] = 1.0f + (float)(next_random(&seed) % 1000) / 100.0f;
            sum += val[k];
        }
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
            val[k] /= sum;
    }
    float *c = (float *)malloc(sizeof(float) * rows), *x0 = (float *)malloc(sizeof(float) * rows);
    for (int r = 0; r < rows; r++) {
        c[r] = (1.0f - DAMPING) * (float)(next_random(&seed) % 1000) / 500.0f;
        x0[r] = 1.0f + (float)(next_random(&seed) % 1000) / 1000.0f;
    }

    int *drowptr, *dcolidx;
    float *dval, *dc, *dx[2], *dv[2], *dw[2];
    CHECK(cudaMalloc(&drowptr, sizeof(int) * (rows + 1)));
    CHECK(cudaMalloc(&dcolidx, sizeof(int) * nnz));
    CHECK(cudaMalloc(&dval, sizeof(float) * nnz));
    CHECK(cudaMalloc(&dc, sizeof(float) * rows));
    for (int i = 0; i < 2; i++) {
        CHECK(cudaMalloc(&dx[i], sizeof(float) * rows));
        CHECK(cudaMalloc(&dv[i], sizeof(float) * rows));
        CHECK(cudaMalloc(&dw[i], sizeof(float) * rows));
    }
    CHECK(cudaMemcpy(drowptr, rowptr, sizeof(int) * (rows + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcolidx, colidx, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dval, val, sizeof(float) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c, sizeof(float) * rows, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx[0], x0, sizeof(float) * rows, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv[0], x0, sizeof(float) * rows, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw[0], x0, sizeof(float) * rows, cudaMemcpyHostToDevice));
    int grid_scalar = (rows + BLOCK - 1) / BLOCK;
    int grid_vector = (int)(((long long)rows * WARP + BLOCK - 1) / BLOCK);
    for (int it = 0; it < iterations; it++) {
        int from = it & 1, to = 1 - from;
        spmv_scalar<<<grid_scalar, BLOCK>>>(rows, drowptr, dcolidx, dval, dc, dx[from], dx[to]);
        spmv_vector_shared<<<grid_vector, BLOCK>>>(rows, drowptr, dcolidx, dval, dc, dv[from],
                                                   dv[to]);
        spmv_vector_shfl<<<grid_vector, BLOCK>>>(rows, drowptr, dcolidx, dval, dc, dw[from],
                                                 dw[to]);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float *xs = (float *)malloc(sizeof(float) * rows), *xv = (float *)malloc(sizeof(float) * rows);
    float *xw = (float *)malloc(sizeof(float) * rows);
    CHECK(cudaMemcpy(xs, dx[iterations & 1], sizeof(float) * rows, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(xv, dv[iterations & 1], sizeof(float) * rows, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(xw, dw[iterations & 1], sizeof(float) * rows, cudaMemcpyDeviceToHost));

    double *ref = (double *)malloc(sizeof(double) * rows);
    double *next = (double *)malloc(sizeof(double) * rows);
    for (int r = 0; r < rows; r++)
        ref[r] = x0[r];
    double t0 = cpu_seconds();
    for (int it = 0; it < iterations; it++) {
        for (int r = 0; r < rows; r++) {
            double acc = 0;
            for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
                acc += (double)val[k] * ref[colidx[k]];
            next[r] = (double)DAMPING * acc + c[r];
        }
        double *swap = ref;
        ref = next;
        next = swap;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = compare("scalar", xs, ref, rows) + compare("vector_shared", xv, ref, rows) +
              compare("vector_shfl", xw, ref, rows);
    printf("spmv %d rows, %d nonzeros, %d iterations x 3 kernels\n", rows, nnz, iterations);
    cudaFree(drowptr);
    cudaFree(dcolidx);
    cudaFree(dval);
    cudaFree(dc);
    for (int i = 0; i < 2; i++) {
        cudaFree(dx[i]);
        cudaFree(dv[i]);
        cudaFree(dw[i]);
    }
    free(rowptr);
    free(colidx);
    free(val);
    free(c);
    free(x0);
    free(xs);
    free(xv);
    free(xw);
    free(ref);
    free(next);
    printf("spmv: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
