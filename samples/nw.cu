// nw: Needleman-Wunsch global alignment scores of two generated protein-like sequences
// (Rodinia nw-like). score[i][j] = max(score[i-1][j-1] + sub(a[i], b[j]),
// score[i-1][j] - GAP, score[i][j-1] - GAP), with score[i][0] = -i*GAP and
// score[0][j] = -j*GAP. The (n+1)x(m+1) matrix is cut into TILExTILE tiles that are filled
// tile anti-diagonal by tile anti-diagonal, one launch per diagonal (a tile needs the
// tiles above, left and above-left). A block copies its tile's top row and left column
// and the two sequence slices into shared memory, sweeps the tile's cells anti-diagonal
// by anti-diagonal with a barrier after each, and writes the tile back. The substitution
// matrix is a generated symmetric table in __constant__ memory. Integer scores: the
// result must match the CPU exactly.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TILE 16
#define ALPHABET 24
#define GAP 10

__constant__ int c_sub[ALPHABET * ALPHABET];

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
            fprintf(stderr, "nw: %s:%d: %s\n", __FILE__, __LINE__,                      \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Fills the tiles (ti, tj) with ti + tj == diag. score is (n+1) x (m+1), row-major;
 * row 0 and column 0 are preset. Tile (ti, tj) covers rows ti*TILE+1 .. and columns
 * tj*TILE+1 ..; blockIdx.x counts the diagonal's tiles from its topmost one. */
__global__ void nw_diagonal(int *score, const unsigned char *a, const unsigned char *b, int n,
                            int m, int diag, int first_ti)
{
    __shared__ int s[TILE + 1][TILE + 1];
    __shared__ unsigned char sa[TILE], sb[TILE];
    int tx = threadIdx.x;
    int ti = first_ti + blockIdx.x, tj = diag - ti;
    int row0 = ti * TILE, col0 = tj * TILE; /* the tile's corner (already computed) */
    int width = m + 1;
    /* Top row (including the corner) and left column. */
    if (col0 + tx <= m)
        s[0][tx] = score[row0 * width + col0 + tx];
    if (tx == 0 && col0 + TILE <= m)
        s[0][TILE] = score[row0 * width + col0 + TILE];
    if (row0 + tx + 1 <= n)
        s[tx + 1][0] = score[(row0 + tx + 1) * width + col0];
    if (row0 + tx < n)
        sa[tx] = a[row0 + tx];
    if (col0 + tx < m)
        sb[tx] = b[col0 + tx];
    __syncthreads();
    /* Anti-diagonal k of the tile holds cells (i, j), i + j == k, 1-based in the tile;
     * thread tx handles row i = tx + 1. */
    int i = tx + 1;
    for (int k = 2; k <= 2 * TILE; k++) {
        int j = k - i;
        if (j >= 1 && j <= TILE && row0 + i <= n && col0 + j <= m) {
            int match = s[i - 1][j - 1] + c_sub[sa[i - 1] * ALPHABET + sb[j - 1]];
            int del = s[i - 1][j] - GAP, ins = s[i][j - 1] - GAP;
            s[i][j] = max(match, max(del, ins));
        }
        __syncthreads();
    }
    if (row0 + i <= n)
        for (int j = 1; j <= TILE && col0 + j <= m; j++)
            score[(row0 + i) * width + col0 + j] = s[i][j];
}

static unsigned next_random(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1536;
    int m = argc > 2 ? atoi(argv[2]) : n;
    if (n <= 0 || m <= 0) {
        fprintf(stderr, "usage: nw [N [M] > 0]\n");
        return 2;
    }
    unsigned seed = 4242;
    int sub[ALPHABET * ALPHABET];
    for (int x = 0; x < ALPHABET; x++)
        for (int y = 0; y <= x; y++) {
            int v = x == y ? 4 + (int)(next_random(&seed) % 8) : (int)(next_random(&seed) % 8) - 4;
            sub[x * ALPHABET + y] = sub[y * ALPHABET + x] = v;
        }
    unsigned char *a = (unsigned char *)malloc(n), *b = (unsigned char *)malloc(m);
    for (int i = 0; i < n; i++)
        a[i] = next_random(&seed) % ALPHABET;
    /* b is a mutated copy of a where they overlap, so the alignment is not trivial. */
    for (int j = 0; j < m; j++)
        b[j] = (j < n && next_random(&seed) % 4) ? a[j] : next_random(&seed) % ALPHABET;
    size_t width = (size_t)m + 1, cells = ((size_t)n + 1) * width;
    int *score = (int *)malloc(sizeof(int) * cells);
    for (size_t k = 0; k < cells; k++)
        score[k] = 0;
    for (int i = 0; i <= n; i++)
        score[i * width] = -i * GAP;
    for (int j = 0; j <= m; j++)
        score[j] = -j * GAP;

    int *dscore;
    unsigned char *da, *db;
    CHECK(cudaMalloc(&dscore, sizeof(int) * cells));
    CHECK(cudaMalloc(&da, n));
    CHECK(cudaMalloc(&db, m));
    CHECK(cudaMemcpy(dscore, score, sizeof(int) * cells, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(da, a, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, m, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(c_sub, sub, sizeof sub));
    int tiles_i = (n + TILE - 1) / TILE, tiles_j = (m + TILE - 1) / TILE;
    int launches = 0;
    for (int d = 0; d < tiles_i + tiles_j - 1; d++) {
        int first = d - (tiles_j - 1) > 0 ? d - (tiles_j - 1) : 0;
        int last = d < tiles_i - 1 ? d : tiles_i - 1;
        nw_diagonal<<<last - first + 1, TILE>>>(dscore, da, db, n, m, d, first);
        launches++;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int *out = (int *)malloc(sizeof(int) * cells);
    CHECK(cudaMemcpy(out, dscore, sizeof(int) * cells, cudaMemcpyDeviceToHost));

    double t0 = cpu_seconds();
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            int match = score[(i - 1) * width + j - 1] + sub[a[i - 1] * ALPHABET + b[j - 1]];
            int del = score[(i - 1) * width + j] - GAP, ins = score[i * width + j - 1] - GAP;
            int best = match > del ? match : del;
            score[i * width + j] = best > ins ? best : ins;
        }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    for (size_t k = 0; k < cells; k++)
        if (out[k] != score[k]) {
            if (bad < 5)
                fprintf(stderr, "nw: score[%zu][%zu] = %d, expected %d\n", k / width, k % width,
                        out[k], score[k]);
            bad++;
        }
    if (bad)
        fprintf(stderr, "nw: %d of %zu cells differ\n", bad, cells);
    printf("nw %dx%d, %d launches, alignment score %d\n", n, m, launches, out[cells - 1]);
    cudaFree(dscore);
    cudaFree(da);
    cudaFree(db);
    free(a);
    free(b);
    free(score);
    free(out);
    printf("nw: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
