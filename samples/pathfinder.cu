// pathfinder: minimum-cost path from the top row of a grid to each cell of the bottom row
// (Rodinia pathfinder-like dynamic programming). cost[r][c] = wall[r][c] + the minimum of
// cost[r-1][c-1], cost[r-1][c] and cost[r-1][c+1] (the edge columns have two parents).
// Rows are processed by a pyramid scheme: a block of BLOCK threads keeps a row segment in
// shared memory and advances it PYRAMID rows per launch with a barrier between rows; each
// row the valid part shrinks by one column on both sides, so a block writes back only its
// inner BLOCK - 2*PYRAMID columns and neighbouring segments overlap. Launches alternate
// between two row buffers. Integer costs: the result must match the CPU exactly.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK 256

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
            fprintf(stderr, "pathfinder: %s:%d: %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Advances the cost row `steps` (<= halo) rows: src holds the costs of row first_row - 1,
 * dst receives those of row first_row + steps - 1. */
__global__ void pathfinder_rows(int steps, int halo, const int *wall, const int *src, int *dst,
                                int cols, int first_row)
{
    __shared__ int prev[BLOCK];
    __shared__ int cur[BLOCK];
    int tx = threadIdx.x;
    int inner = BLOCK - 2 * halo;
    int x0 = blockIdx.x * inner - halo;
    int x = x0 + tx;
    int lo = x0 < 0 ? -x0 : 0;
    int hi = x0 + BLOCK > cols ? cols - 1 - x0 : BLOCK - 1;
    bool on_grid = tx >= lo && tx <= hi;
    if (on_grid)
        prev[tx] = src[x];
    __syncthreads();
    int west = tx - 1 < lo ? lo : tx - 1;
    int east = tx + 1 > hi ? hi : tx + 1;
    bool computed = false;
    for (int i = 0; i < steps; i++) {
        computed = false;
        if (on_grid && tx >= i + 1 && tx <= BLOCK - i - 2) {
            int best = min(prev[west], min(prev[tx], prev[east]));
            cur[tx] = best + wall[(size_t)(first_row + i) * cols + x];
            computed = true;
        }
        __syncthreads();
        if (i == steps - 1)
            break;
        if (computed)
            prev[tx] = cur[tx];
        __syncthreads();
    }
    if (computed && tx >= halo && tx < BLOCK - halo)
        dst[x] = cur[tx];
}

int main(int argc, char **argv)
{
    int cols = argc > 1 ? atoi(argv[1]) : 50000;
    int rows = argc > 2 ? atoi(argv[2]) : 160;
    int pyramid = argc > 3 ? atoi(argv[3]) : 10;
    if (cols <= 0 || rows <= 1 || pyramid <= 0 || 2 * pyramid >= BLOCK) {
        fprintf(stderr, "usage: pathfinder [COLS > 0] [ROWS > 1] [PYRAMID 1..%d]\n",
                BLOCK / 2 - 1);
        return 2;
    }
    size_t cells = (size_t)rows * cols;
    int *wall = (int *)malloc(sizeof(int) * cells);
    unsigned seed = 9;
    for (size_t i = 0; i < cells; i++) {
        seed = seed * 1103515245u + 12345u;
        wall[i] = (seed >> 16) % 10;
    }
    int *dwall, *drow[2];
    CHECK(cudaMalloc(&dwall, sizeof(int) * cells));
    CHECK(cudaMalloc(&drow[0], sizeof(int) * cols));
    CHECK(cudaMalloc(&drow[1], sizeof(int) * cols));
    CHECK(cudaMemcpy(dwall, wall, sizeof(int) * cells, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(drow[0], wall, sizeof(int) * cols, cudaMemcpyHostToDevice));
    int inner = BLOCK - 2 * pyramid;
    int grid = (cols + inner - 1) / inner;
    int cur = 0, launches = 0;
    for (int r = 1; r < rows; r += pyramid) {
        int steps = rows - r < pyramid ? rows - r : pyramid;
        pathfinder_rows<<<grid, BLOCK>>>(steps, pyramid, dwall, drow[cur], drow[1 - cur], cols, r);
        cur = 1 - cur;
        launches++;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int *out = (int *)malloc(sizeof(int) * cols);
    CHECK(cudaMemcpy(out, drow[cur], sizeof(int) * cols, cudaMemcpyDeviceToHost));

    int *ref = (int *)malloc(sizeof(int) * cols), *next = (int *)malloc(sizeof(int) * cols);
    double t0 = cpu_seconds();
    for (int c = 0; c < cols; c++)
        ref[c] = wall[c];
    for (int r = 1; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int best = ref[c];
            if (c > 0 && ref[c - 1] < best)
                best = ref[c - 1];
            if (c < cols - 1 && ref[c + 1] < best)
                best = ref[c + 1];
            next[c] = best + wall[(size_t)r * cols + c];
        }
        int *swap = ref;
        ref = next;
        next = swap;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    long long total = 0;
    for (int c = 0; c < cols; c++) {
        total += ref[c];
        if (out[c] != ref[c]) {
            if (bad < 5)
                fprintf(stderr, "pathfinder: cost[%d] = %d, expected %d\n", c, out[c], ref[c]);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "pathfinder: %d of %d columns differ\n", bad, cols);
    printf("pathfinder %d cols x %d rows, pyramid %d, %d launches, cost sum %lld\n", cols, rows,
           pyramid, launches, total);
    cudaFree(dwall);
    cudaFree(drow[0]);
    cudaFree(drow[1]);
    free(wall);
    free(out);
    free(ref);
    free(next);
    printf("pathfinder: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
