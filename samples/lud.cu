// lud: blocked LU decomposition without pivoting (Rodinia lud-like), A = L * U with L unit
// lower triangular and U upper triangular, stored in place in one matrix. The generated
// matrix is diagonally dominant, so no pivoting is needed. For each BLOCK-wide step:
//   lud_diagonal  (1 block)            factors the diagonal tile in shared memory;
//   lud_perimeter (one block per tile) solves the tiles right of it (U = L_dd^-1 A) and
//                                      below it (L = A U_dd^-1), 2*BLOCK threads;
//   lud_internal  (2D grid of tiles)   updates the trailing matrix A -= L U, one thread per
//                                      element with both factors staged in shared memory.
// A size that is not a multiple of BLOCK is padded with an identity block (the LU of
// diag(A, I) is diag(L, I) diag(U, I)). Checks: the reconstruction L*U (in double) must
// match A within 1e-5 * (1 + |A|) * sqrt(n), and the factors must match a CPU LU in double
// within 1e-4 relative (float on the device; it may contract into FMAs).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK 16

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
            fprintf(stderr, "lud: %s:%d: %s\n", __FILE__, __LINE__,                     \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Factors the tile at (off, off) in place; BLOCK threads, thread t owns row t. */
__global__ void lud_diagonal(float *m, int n, int off)
{
    __shared__ float s[BLOCK][BLOCK];
    int t = threadIdx.x;
    for (int j = 0; j < BLOCK; j++)
        s[t][j] = m[(off + t) * n + off + j];
    __syncthreads();
    for (int k = 0; k < BLOCK - 1; k++) {
        if (t > k) {
            float l = s[t][k] / s[k][k];
            s[t][k] = l;
            for (int j = k + 1; j < BLOCK; j++)
                s[t][j] -= l * s[k][j];
        }
        __syncthreads();
    }
    for (int j = 0; j < BLOCK; j++)
        m[(off + t) * n + off + j] = s[t][j];
}

/* Block b handles the tile right of the diagonal tile in block column off/BLOCK + 1 + b
 * (threads 0..BLOCK-1, one column each) and the tile below it in the same block row
 * (threads BLOCK..2*BLOCK-1, one row each). After the loads each thread touches only its
 * own column or row, so the two halves need no further barrier. */
__global__ void lud_perimeter(float *m, int n, int off)
{
    __shared__ float dia[BLOCK][BLOCK];
    __shared__ float right[BLOCK][BLOCK];
    __shared__ float below[BLOCK][BLOCK];
    int t = threadIdx.x;
    int other = off + (blockIdx.x + 1) * BLOCK;
    if (t < BLOCK) {
        for (int i = 0; i < BLOCK; i++) {
            dia[i][t] = m[(off + i) * n + off + t];
            right[i][t] = m[(off + i) * n + other + t];
        }
    } else {
        int c = t - BLOCK;
        for (int i = 0; i < BLOCK; i++)
            below[i][c] = m[(other + i) * n + off + c];
    }
    __syncthreads();
    if (t < BLOCK) {
        /* Forward substitution with the unit lower factor, column t of the right tile. */
        for (int i = 1; i < BLOCK; i++) {
            float v = right[i][t];
            for (int k = 0; k < i; k++)
                v -= dia[i][k] * right[k][t];
            right[i][t] = v;
        }
        for (int i = 0; i < BLOCK; i++)
            m[(off + i) * n + other + t] = right[i][t];
    } else {
        /* Row r of the tile below times the inverse of the upper factor. */
        int r = t - BLOCK;
        for (int j = 0; j < BLOCK; j++) {
            float v = below[r][j];
            for (int k = 0; k < j; k++)
                v -= below[r][k] * dia[k][j];
            below[r][j] = v / dia[j][j];
        }
        for (int j = 0; j < BLOCK; j++)
            m[(other + r) * n + off + j] = below[r][j];
    }
}

/* A[i][j] -= sum_k L[i][k] U[k][j] for the trailing tile (by, bx) past the step. */
__global__ void lud_internal(float *m, int n, int off)
{
    __shared__ float l[BLOCK][BLOCK];
    __shared__ float u[BLOCK][BLOCK];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = off + (blockIdx.y + 1) * BLOCK + ty;
    int col = off + (blockIdx.x + 1) * BLOCK + tx;
    l[ty][tx] = m[row * n + off + tx];
    u[ty][tx] = m[(off + ty) * n + col];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < BLOCK; k++)
        sum += l[ty][k] * u[k][tx];
    m[row * n + col] -= sum;
}

static void cpu_lu(double *a, int n)
{
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++) {
            double l = a[(size_t)i * n + k] / a[(size_t)k * n + k];
            a[(size_t)i * n + k] = l;
            for (int j = k + 1; j < n; j++)
                a[(size_t)i * n + j] -= l * a[(size_t)k * n + j];
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 384;
    if (n <= 0) {
        fprintf(stderr, "usage: lud [N > 0]\n");
        return 2;
    }
    int np = (n + BLOCK - 1) / BLOCK * BLOCK; /* padded size */
    float *a = (float *)malloc(sizeof(float) * np * np);
    unsigned seed = 555;
    for (int i = 0; i < np; i++)
        for (int j = 0; j < np; j++) {
            seed = seed * 1664525u + 1013904223u;
            float v = (float)((seed >> 9) % 2001) / 1000.0f - 1.0f;
            if (i >= n || j >= n)
                v = i == j ? 1.0f : 0.0f;
            else if (i == j)
                v = (float)n + 1.0f + fabsf(v);
            a[(size_t)i * np + j] = v;
        }
    float *dm;
    CHECK(cudaMalloc(&dm, sizeof(float) * np * np));
    CHECK(cudaMemcpy(dm, a, sizeof(float) * np * np, cudaMemcpyHostToDevice));
    int launches = 0;
    for (int off = 0; off < np; off += BLOCK) {
        lud_diagonal<<<1, BLOCK>>>(dm, np, off);
        launches++;
        int rest = (np - off) / BLOCK - 1;
        if (rest == 0)
            break;
        lud_perimeter<<<rest, 2 * BLOCK>>>(dm, np, off);
        lud_internal<<<dim3(rest, rest), dim3(BLOCK, BLOCK)>>>(dm, np, off);
        launches += 2;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float *lu = (float *)malloc(sizeof(float) * np * np);
    CHECK(cudaMemcpy(lu, dm, sizeof(float) * np * np, cudaMemcpyDeviceToHost));

    double *ref = (double *)malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            ref[(size_t)i * n + j] = a[(size_t)i * np + j];
    double t0 = cpu_seconds();
    cpu_lu(ref, n);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    double max_rec = 0, max_fac = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            /* (L U)[i][j] = sum_{k <= min(i, j)} L[i][k] U[k][j], L[i][i] = 1. */
            double sum = 0;
            int kmax = i < j ? i : j;
            for (int k = 0; k <= kmax; k++) {
                double l = k == i ? 1.0 : lu[(size_t)i * np + k];
                sum += l * lu[(size_t)k * np + j];
            }
            double want = a[(size_t)i * np + j];
            double rec = fabs(sum - want) / ((1.0 + fabs(want)) * sqrt((double)n));
            double r = ref[(size_t)i * n + j];
            double fac = fabs(lu[(size_t)i * np + j] - r) / (1e-3 + fabs(r));
            max_rec = rec > max_rec ? rec : max_rec;
            max_fac = fac > max_fac ? fac : max_fac;
            if (!(rec <= 1e-5) || !(fac <= 1e-4)) {
                if (bad < 5)
                    fprintf(stderr, "lud: [%d][%d]: L*U = %.7g, A = %.7g; LU = %.7g, CPU %.7g\n",
                            i, j, sum, want, lu[(size_t)i * np + j], r);
                bad++;
            }
        }
    if (bad)
        fprintf(stderr, "lud: %d of %d elements differ\n", bad, n * n);
    printf("lud %dx%d (padded to %d), %d launches, max reconstruction error %.2g, max factor "
           "error %.2g\n",
           n, n, np, launches, max_rec, max_fac);
    cudaFree(dm);
    free(a);
    free(lu);
    free(ref);
    printf("lud: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
