// ld_stream: a matrix-vector product y = A x with A quantized to 8-bit codes into a
// 256-entry codebook (non-uniform levels, as weight-quantized layers store them), annotated
// with Locality Descriptors of three priorities. A warp computes ROWS_PER_WARP rows at once:
// each lane loads four consecutive floats of x (one float4) and the word holding the four
// matching codes of each of its rows, looks the codes up in the codebook and accumulates;
// a shuffle tree sums the lanes. So every warp of every CTA walks all of x, 128 floats per
// step, and looks up the codebook at data-dependent places four times per code word, while
// the codes, the bulk of the traffic, are each read exactly once.
// Descriptors, by priority: the codebook (1 KB) is INTER_THREAD, COACCESSED, IRREGULAR,
// priority 3: the hottest data, read everywhere at random. x (n floats) is INTER_THREAD,
// COACCESSED, REGULAR with a stride of 128 elements (a thread's next float4 is 32 float4s
// further on), priority 2: reread by every warp in order, so prefetchable, and with n = 4096
// (16 KB) it and the codebook just outgrow a 16 KB L1, so the priorities say which to keep.
// Both are shared by the whole grid: one C-Tile of all CTAs over one D-Tile of the whole
// structure, map (1,0,0). The codes are NO_REUSE, priority 0: they stream through and need
// not evict the other two; a NO_REUSE structure's tiles carry nothing (bypassing needs no
// tile): the whole matrix and the whole grid. y is only stored (write-through, no
// allocation in the L1) and gets no descriptor.
// The program checks y against a double-precision CPU reference and, through the runtime's
// query API, that the launch recorded the descriptors it specified.
// Usage: ld_stream [rows=1024 (a multiple of 4)] [columns=4096 (a multiple of 4)]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xgpu/ldesc.h>

#define WARP 32
#define WARPS 8         // warps per CTA
#define ROWS_PER_WARP 4 // rows sharing each load of x
#define LEVELS 256      // codebook entries (8-bit codes)
#define STEP (WARP * 4) // floats of x a warp covers per step

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
    fprintf(stderr, "ld_stream: %s\n", what);
    return 1;
}

// codes: rows x n bytes, row-major, read as words of four codes (code k in byte k).
__global__ void qgemv(const unsigned *codes, const float *book, const float *x, int rows,
                      int n, float *y)
{
    int lane = threadIdx.x % WARP;
    int r0 = (blockIdx.x * blockDim.x + threadIdx.x) / WARP * ROWS_PER_WARP;
    if (r0 >= rows)
        return; // whole warps leave together
    int words = n / 4;
    float acc[ROWS_PER_WARP] = {};
    for (int i = lane; i < words; i += WARP) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        for (int j = 0; j < ROWS_PER_WARP; j++) {
            unsigned q = codes[(size_t)(r0 + j) * words + i];
            acc[j] += book[q & 255] * v.x + book[q >> 8 & 255] * v.y +
                      book[q >> 16 & 255] * v.z + book[q >> 24] * v.w;
        }
    }
    for (int j = 0; j < ROWS_PER_WARP; j++) {
        float s = acc[j];
        for (int off = WARP / 2; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0)
            y[r0 + j] = s;
    }
}

// The three descriptors (specified after the copies, before the launch).
static cudaError_t describe(const unsigned *codes, const float *book, const float *x,
                            int rows, int n, int blocks)
{
    XLDTile tb = {{LEVELS, 1, 1}, {(uint32_t)blocks, 1, 1}};
    XLDTile tx = {{(uint32_t)n, 1, 1}, {(uint32_t)blocks, 1, 1}};
    XLDTile ta = {{(uint32_t)n, (uint32_t)rows, 1}, {(uint32_t)blocks, 1, 1}};
    cudaError_t e = LocalityDescriptor(qgemv, book, sizeof(float) * LEVELS, &tb, 0,
                                       XLD_INTER_THREAD, XLD_COACCESSED, XLD_IRREGULAR,
                                       XLD_MAP(1, 0, 0), 3, sizeof(float));
    if (e == cudaSuccess)
        e = LocalityDescriptor(qgemv, x, sizeof(float) * n, &tx, STEP, XLD_INTER_THREAD,
                               XLD_COACCESSED, XLD_REGULAR, XLD_MAP(1, 0, 0), 2,
                               sizeof(float));
    if (e == cudaSuccess)
        e = LocalityDescriptor(qgemv, codes, (size_t)rows * n, &ta, 0, XLD_NO_REUSE,
                               XLD_SHARING_NONE, XLD_PATTERN_NONE, XLD_MAP(1, 0, 0), 0, 1);
    return e;
}

// The runtime's record of the launch against what describe() specified.
static int check_launch(const unsigned *codes, const float *book, const float *x, int rows,
                        int n, int blocks)
{
    XLDescInfo d[4];
    uint64_t launch;
    int k = xgpuLDescLastLaunch((const void *)qgemv, d, 4, &launch);
    const XLDescInfo *b = &d[0], *v = &d[1], *a = &d[2];
    int ok = k == 3 && launch == 1 && xgpuLDescCount() == 3;
    for (int i = 0; ok && i < 3; i++)
        ok = d[i].tile.ctile[0] == (uint32_t)blocks && d[i].tile.ctile[1] == 1 &&
             d[i].s.map[0] == 1 && d[i].s.map[1] == 0 && strstr(d[i].kernel_name, "qgemv");
    ok = ok && b->s.locality == XLD_INTER_THREAD && b->s.sharing == XLD_COACCESSED &&
         b->s.pattern == XLD_IRREGULAR && b->s.priority == 3 &&
         b->base == (uint64_t)(uintptr_t)book && b->bytes == sizeof(float) * LEVELS &&
         b->tile.dtile[0] == LEVELS && v->s.locality == XLD_INTER_THREAD &&
         v->s.sharing == XLD_COACCESSED && v->s.pattern == XLD_REGULAR && v->stride == STEP &&
         v->s.priority == 2 && v->base == (uint64_t)(uintptr_t)x &&
         v->bytes == sizeof(float) * n && v->tile.dtile[0] == (uint32_t)n &&
         a->s.locality == XLD_NO_REUSE && a->s.sharing == XLD_SHARING_NONE &&
         a->s.pattern == XLD_PATTERN_NONE && a->s.priority == 0 && a->s.elem_size == 1 &&
         a->base == (uint64_t)(uintptr_t)codes && a->bytes == (uint64_t)rows * n &&
         a->tile.dtile[0] == (uint32_t)n && a->tile.dtile[1] == (uint32_t)rows;
    if (!ok)
        fprintf(stderr, "ld_stream: launch %llu recorded %d descriptors, not the ones "
                "specified\n", (unsigned long long)launch, k);
    return !ok;
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8; // 24 bits
}

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 1024, n = argc > 2 ? atoi(argv[2]) : 4096;
    if (rows < ROWS_PER_WARP || rows > 65536 || rows % ROWS_PER_WARP || n < 4 ||
        n > 65536 || n % 4) {
        fprintf(stderr, "usage: ld_stream [rows 4..65536, a multiple of 4 "
                "[columns 4..65536, a multiple of 4]]\n");
        return 2;
    }
    // Levels ((c - 127.5) / 128)^3: dense near 0, sparse towards +-1.
    float book[LEVELS];
    for (int c = 0; c < LEVELS; c++) {
        double t = (c - 127.5) / 128.0;
        book[c] = (float)(t * t * t);
    }
    size_t bytes = (size_t)rows * n;
    unsigned char *codes = (unsigned char *)malloc(bytes);
    float *x = (float *)malloc(sizeof(float) * n), *got = (float *)malloc(sizeof(float) * rows);
    if (!codes || !x || !got)
        return fail("out of host memory");
    unsigned seed = 9001u;
    for (size_t i = 0; i < bytes; i++)
        codes[i] = (unsigned char)(lcg(&seed) >> 16);
    for (int i = 0; i < n; i++)
        x[i] = lcg(&seed) / 8388608.0f - 1.0f;
    unsigned *dcodes;
    float *dbook, *dx, *dy;
    if (cudaMalloc((void **)&dcodes, bytes) || cudaMalloc((void **)&dbook, sizeof book) ||
        cudaMalloc((void **)&dx, sizeof(float) * n) ||
        cudaMalloc((void **)&dy, sizeof(float) * rows) ||
        cudaMemcpy(dcodes, codes, bytes, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dbook, book, sizeof book, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice))
        return fail("setup failed");
    int threads = WARP * WARPS, warps = rows / ROWS_PER_WARP;
    int blocks = (warps + WARPS - 1) / WARPS;
    if (describe(dcodes, dbook, dx, rows, n, blocks) != cudaSuccess)
        return fail("LocalityDescriptor failed");
    qgemv<<<blocks, threads>>>(dcodes, dbook, dx, rows, n, dy);
    if (cudaGetLastError() != cudaSuccess)
        return fail("launch failed");
    int bad = check_launch(dcodes, dbook, dx, rows, n, blocks);
    if (cudaMemcpy(got, dy, sizeof(float) * rows, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    // A lane adds n / 128 steps of four products in sequence, then five shuffle steps
    // combine the lanes; each operation rounds by at most 2^-24 of the running magnitude,
    // so 1e-7 * (n / 32 + 16) * sum of |book * x| bounds the float result's error.
    double t0 = cpu_seconds();
    int wrong = 0;
    double sum = 0.0;
    for (int r = 0; r < rows; r++) {
        double s = 0.0, mag = 0.0;
        for (int c = 0; c < n; c++) {
            double p = (double)book[codes[(size_t)r * n + c]] * x[c];
            s += p;
            mag += fabs(p);
        }
        sum += got[r];
        if (fabs(got[r] - s) > 1e-7 * (n / 32 + 16) * mag && wrong++ < 5)
            fprintf(stderr, "ld_stream: y[%d] = %.9g, expected %.9g\n", r, (double)got[r], s);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("ld_stream %d x %d codes, y sum %.6f\n", rows, n, sum);
    cudaFree(dcodes), cudaFree(dbook), cudaFree(dx), cudaFree(dy);
    free(codes), free(x), free(got);
    if (wrong)
        fprintf(stderr, "ld_stream: %d rows differ from the CPU\n", wrong);
    bad |= wrong != 0;
    printf("ld_stream: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
