// ld_spmv: sparse matrix-vector products x <- A x on the adjacency matrix of a generated
// graph with power-law in-degrees, annotated with Locality Descriptors. Row r lists the
// vertices r averages over (8..56 of them, drawn as n * u^3 for uniform u, so vertex v is
// chosen with a density falling like v^(-2/3): the ids are ordered by degree, hubs first,
// as graph frameworks often renumber them); each entry is 1 / row length, so the matrix is
// row-stochastic and the iterates stay in [0, 1). A CTA of WARPS warps takes ROWS_PER_CTA
// consecutive rows, loads their row pointers into shared memory once, and gives each row
// to one warp, whose lanes stride through the row's entries (coalesced) and gather x at
// its column indices; a shuffle tree sums the lanes.
// Descriptors: x is read by every CTA, at data-dependent places concentrated on the hubs'
// lines: INTER_THREAD, COACCESSED, IRREGULAR, one C-Tile of the whole grid over one D-Tile
// of all of x, priority 3 (the data worth keeping). The CSR arrays (row pointers, column
// indices, values) are each read once, in order: NO_REUSE, priority 0, so that they need
// not evict x's hot lines. A NO_REUSE structure's tiles carry nothing (bypassing needs no
// tile): the whole array and the whole grid. y is only stored (write-through, no
// allocation in the L1) and gets no descriptor. x and y swap every iteration, so x's
// descriptor is re-specified before each launch; the CSR ones stay in force.
// The program checks the result against a double-precision CPU reference and, through the
// runtime's query API, that every launch recorded the descriptors it specified.
// Usage: ld_spmv [vertices=16384] [iterations=2]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xgpu/ldesc.h>

#define WARP 32
#define WARPS 4         // warps per CTA
#define ROWS_PER_CTA 32 // eight rows per warp
#define MIN_LEN 8
#define MAX_LEN 56

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
    fprintf(stderr, "ld_spmv: %s\n", what);
    return 1;
}

__global__ void spmv(int n, const int *rowptr, const int *col, const float *val,
                     const float *x, float *y)
{
    __shared__ int bounds[ROWS_PER_CTA + 1];
    int r0 = blockIdx.x * ROWS_PER_CTA, rows = min(ROWS_PER_CTA, n - r0);
    for (int i = threadIdx.x; i <= rows; i += blockDim.x)
        bounds[i] = rowptr[r0 + i];
    __syncthreads();
    int lane = threadIdx.x % WARP;
    for (int r = threadIdx.x / WARP; r < rows; r += WARPS) {
        float acc = 0.0f;
        for (int k = bounds[r] + lane; k < bounds[r + 1]; k += WARP)
            acc += val[k] * x[col[k]];
        for (int off = WARP / 2; off > 0; off /= 2)
            acc += __shfl_down_sync(0xffffffffu, acc, off);
        if (lane == 0)
            y[r0 + r] = acc;
    }
}

typedef struct Csr {
    int n, nnz;
    int *rowptr, *col;
    float *val;
} Csr;

// The descriptors of one launch: the CSR arrays' before the first launch only (they stay
// in force), x's before every launch (its buffer alternates).
static cudaError_t describe(const Csr *a, const Csr *d, const float *x, int first, int blocks)
{
    XLDTile all = {{(uint32_t)a->n, 1, 1}, {(uint32_t)blocks, 1, 1}};
    cudaError_t e = LocalityDescriptor(spmv, x, sizeof(float) * a->n, &all, 0,
                                       XLD_INTER_THREAD, XLD_COACCESSED, XLD_IRREGULAR,
                                       XLD_MAP(1, 0, 0), 3, sizeof(float));
    if (e != cudaSuccess || !first)
        return e;
    XLDTile rp = {{(uint32_t)a->n + 1, 1, 1}, {(uint32_t)blocks, 1, 1}};
    XLDTile nz = {{(uint32_t)a->nnz, 1, 1}, {(uint32_t)blocks, 1, 1}};
    e = LocalityDescriptor(spmv, d->rowptr, sizeof(int) * (a->n + 1), &rp, 0, XLD_NO_REUSE,
                           XLD_SHARING_NONE, XLD_PATTERN_NONE, XLD_MAP(1, 0, 0), 0,
                           sizeof(int));
    if (e == cudaSuccess)
        e = LocalityDescriptor(spmv, d->col, sizeof(int) * a->nnz, &nz, 0, XLD_NO_REUSE,
                               XLD_SHARING_NONE, XLD_PATTERN_NONE, XLD_MAP(1, 0, 0), 0,
                               sizeof(int));
    if (e == cudaSuccess)
        e = LocalityDescriptor(spmv, d->val, sizeof(float) * a->nnz, &nz, 0, XLD_NO_REUSE,
                               XLD_SHARING_NONE, XLD_PATTERN_NONE, XLD_MAP(1, 0, 0), 0,
                               sizeof(float));
    return e;
}

// The runtime's record of launch `expect` against what describe() specified, in the order
// they were first specified: x, then the three CSR arrays.
static int check_launch(uint64_t expect, const Csr *a, const Csr *d, const float *x,
                        int blocks)
{
    XLDescInfo v[8];
    uint64_t launch;
    int n = xgpuLDescLastLaunch((const void *)spmv, v, 8, &launch);
    int ok = n == 4 && launch == expect && xgpuLDescCount() == 4;
    const void *base[4] = {x, d->rowptr, d->col, d->val};
    uint64_t bytes[4] = {sizeof(float) * a->n, sizeof(int) * (a->n + 1),
                         sizeof(int) * a->nnz, sizeof(float) * a->nnz};
    for (int i = 0; ok && i < 4; i++) {
        const XLDescInfo *s = &v[i];
        int hot = i == 0;
        ok = s->base == (uint64_t)(uintptr_t)base[i] && s->bytes == bytes[i] &&
             s->s.locality == (hot ? XLD_INTER_THREAD : XLD_NO_REUSE) &&
             s->s.sharing == (hot ? XLD_COACCESSED : XLD_SHARING_NONE) &&
             s->s.pattern == (hot ? XLD_IRREGULAR : XLD_PATTERN_NONE) &&
             s->s.priority == (hot ? 3 : 0) && s->s.map[0] == 1 && s->s.map[1] == 0 &&
             s->tile.ctile[0] == (uint32_t)blocks && s->tile.dtile[1] == 1 &&
             s->stride == 0 && s->s.elem_size == 4 && strstr(s->kernel_name, "spmv");
    }
    if (!ok)
        fprintf(stderr, "ld_spmv: launch %llu recorded %d descriptors, not the ones "
                "specified\n", (unsigned long long)launch, n);
    return !ok;
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8; // 24 bits
}

// 0..m-1 from the generator's high bits (its low bits repeat with short periods).
static int below(unsigned *s, int m)
{
    return (int)((unsigned long long)lcg(s) * m >> 24);
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

// Rows of MIN_LEN..MAX_LEN distinct columns drawn as n * u^3, sorted; values 1 / length.
static int generate(Csr *a, int n, unsigned seed)
{
    a->n = n;
    a->rowptr = (int *)malloc(sizeof(int) * (n + 1));
    a->col = (int *)malloc(sizeof(int) * (size_t)n * MAX_LEN);
    a->val = (float *)malloc(sizeof(float) * (size_t)n * MAX_LEN);
    if (!a->rowptr || !a->col || !a->val)
        return -1;
    int nnz = 0;
    for (int r = 0; r < n; r++) {
        int len = MIN_LEN + below(&seed, MAX_LEN - MIN_LEN + 1), *c = a->col + nnz;
        for (int k = 0; k < len; k++) {
            double u = lcg(&seed) / 16777216.0;
            c[k] = (int)(n * u * u * u);
        }
        qsort(c, len, sizeof(int), by_value);
        int m = 0;
        for (int k = 0; k < len; k++)
            if (m == 0 || c[k] != c[m - 1])
                c[m++] = c[k];
        a->rowptr[r] = nnz;
        for (int k = 0; k < m; k++)
            a->val[nnz + k] = 1.0f / m;
        nnz += m;
    }
    a->rowptr[n] = a->nnz = nnz;
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16384, iters = argc > 2 ? atoi(argv[2]) : 2;
    if (n < 1 || n > (1 << 20) || iters < 1 || iters > 100) {
        fprintf(stderr, "usage: ld_spmv [vertices 1..1048576 [iterations 1..100]]\n");
        return 2;
    }
    Csr a, d;
    float *x = (float *)malloc(sizeof(float) * n), *got = (float *)malloc(sizeof(float) * n);
    if (!x || !got || generate(&a, n, 2024u))
        return fail("out of host memory");
    unsigned seed = 77u;
    for (int i = 0; i < n; i++)
        x[i] = lcg(&seed) / 16777216.0f;
    float *dx[2];
    d.n = n, d.nnz = a.nnz;
    if (cudaMalloc((void **)&d.rowptr, sizeof(int) * (n + 1)) ||
        cudaMalloc((void **)&d.col, sizeof(int) * a.nnz) ||
        cudaMalloc((void **)&d.val, sizeof(float) * a.nnz) ||
        cudaMalloc((void **)&dx[0], sizeof(float) * n) ||
        cudaMalloc((void **)&dx[1], sizeof(float) * n) ||
        cudaMemcpy(d.rowptr, a.rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice) ||
        cudaMemcpy(d.col, a.col, sizeof(int) * a.nnz, cudaMemcpyHostToDevice) ||
        cudaMemcpy(d.val, a.val, sizeof(float) * a.nnz, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dx[0], x, sizeof(float) * n, cudaMemcpyHostToDevice))
        return fail("setup failed");
    int blocks = (n + ROWS_PER_CTA - 1) / ROWS_PER_CTA, bad = 0;
    for (int it = 0; it < iters; it++) {
        const float *in = dx[it % 2];
        if (describe(&a, &d, in, it == 0, blocks) != cudaSuccess)
            return fail("LocalityDescriptor failed");
        spmv<<<blocks, WARP * WARPS>>>(n, d.rowptr, d.col, d.val, in, dx[(it + 1) % 2]);
        if (cudaGetLastError() != cudaSuccess)
            return fail("launch failed");
        bad |= check_launch((uint64_t)it + 1, &a, &d, in, blocks);
    }
    if (cudaMemcpy(got, dx[iters % 2], sizeof(float) * n, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    // Each device sum is of at most MAX_LEN positive terms, in another order than the CPU's
    // and possibly with FMAs; the CPU iterates in double. A relative error of 1e-5 per
    // iteration bounds the difference (averaging does not amplify earlier errors).
    double *ref = (double *)malloc(sizeof(double) * n);
    double *next = (double *)malloc(sizeof(double) * n);
    if (!ref || !next)
        return fail("out of host memory");
    double t0 = cpu_seconds();
    for (int i = 0; i < n; i++)
        ref[i] = x[i];
    for (int it = 0; it < iters; it++) {
        for (int r = 0; r < n; r++) {
            double s = 0.0;
            for (int k = a.rowptr[r]; k < a.rowptr[r + 1]; k++)
                s += (double)a.val[k] * ref[a.col[k]];
            next[r] = s;
        }
        double *t = ref;
        ref = next, next = t;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int wrong = 0;
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += got[i];
        if (fabs(got[i] - ref[i]) > 1e-5 * iters * fabs(ref[i]) && wrong++ < 5)
            fprintf(stderr, "ld_spmv: x[%d] = %.9g, expected %.9g\n", i, (double)got[i], ref[i]);
    }
    printf("ld_spmv %d vertices, %d edges, %d iterations, sum %.4f\n", n, a.nnz, iters, sum);
    cudaFree(d.rowptr), cudaFree(d.col), cudaFree(d.val), cudaFree(dx[0]), cudaFree(dx[1]);
    free(a.rowptr), free(a.col), free(a.val), free(x), free(got), free(ref), free(next);
    if (wrong)
        fprintf(stderr, "ld_spmv: %d entries differ from the CPU\n", wrong);
    bad |= wrong != 0;
    printf("ld_spmv: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
