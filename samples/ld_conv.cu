// ld_conv: a 5x5 convolution of a float image (binomial smoothing taps in __constant__
// memory, edges clamped), annotated with a Locality Descriptor. Each thread of
// a 32 x 8 CTA computes one output straight from global memory, relying on the caches for
// the reuse (no shared-memory tile): it reads a 5 x 5 window, so a CTA reads its own
// 32 x 8 pixels plus a two-pixel halo that belongs to its neighbours. Neighbouring CTAs
// therefore read overlapping data: the rows above and below it (four of the twelve rows a
// CTA reads) and the end sectors of the lines left and right of it (a warp's row of 32
// floats is one 128-byte line). In launch order, the CTA below is a whole grid row later
// and the one beside it is dispatched to another SM, so each overlap is fetched again from
// the L2; a cluster of 2 x 2 neighbouring CTAs on one SM would fetch it once, and a line's
// neighbour (the next line) is what the CTA beside it reads.
// The image's descriptor says so: INTER_THREAD, NEARBY, a C-Tile of 2 x 2 CTAs and its
// D-Tile of 64 x 16 pixels (plus the halo it shares with the neighbouring tiles), map
// (1,2,0): C-Tiles walk the D-Tiles along x first, then y. The pattern is NONE and the
// stride 0: a nearby structure's prefetch is next-line, which needs no stride (the API asks
// for one only with REGULAR). The output is only stored (write-through, no allocation in
// the L1) and gets no descriptor.
// The program checks the output against the CPU and, through the runtime's query API, that
// the launch recorded the descriptor it specified.
// Usage: ld_conv [width=512] [height=512]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xgpu/ldesc.h>

#define BX 32 // CTA width: one warp per row
#define BY 8  // CTA height
#define R 2   // filter radius
#define TAPS (2 * R + 1)
#define CX 2 // C-Tile: 2 x 2 CTAs
#define CY 2

__constant__ float taps[TAPS][TAPS];

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
    fprintf(stderr, "ld_conv: %s\n", what);
    return 1;
}

__global__ void conv5x5(const float *in, int w, int h, float *out)
{
    int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    if (x >= w || y >= h)
        return;
    int cols[TAPS];
    for (int d = 0; d < TAPS; d++)
        cols[d] = min(max(x + d - R, 0), w - 1);
    float s = 0.0f;
    for (int dy = 0; dy < TAPS; dy++) {
        const float *row = in + (size_t)min(max(y + dy - R, 0), h - 1) * w;
        for (int dx = 0; dx < TAPS; dx++)
            s += taps[dy][dx] * row[cols[dx]];
    }
    out[(size_t)y * w + x] = s;
}

// The image's descriptor (specified after the copy, before the launch): rows of w
// elements (the stride), so a D-Tile is a 2D block of the image.
static cudaError_t describe(const float *in, int w, int h)
{
    XLDTile tile = {{CX * BX, CY * BY, 1}, {CX, CY, 1}};
    return LocalityDescriptor(conv5x5, in, sizeof(float) * w * h, &tile, w, XLD_INTER_THREAD,
                              XLD_NEARBY, XLD_PATTERN_NONE, XLD_MAP(1, 2, 0), 2,
                              sizeof(float));
}

// The runtime's record of the launch against what describe() specified.
static int check_launch(const float *in, int w, int h)
{
    XLDescInfo d[2];
    uint64_t launch;
    int n = xgpuLDescLastLaunch((const void *)conv5x5, d, 2, &launch);
    int ok = n == 1 && launch == 1 && d->s.locality == XLD_INTER_THREAD &&
             d->s.sharing == XLD_NEARBY && d->s.pattern == XLD_PATTERN_NONE &&
             d->s.map[0] == 1 && d->s.map[1] == 2 && d->s.map[2] == 0 && d->s.priority == 2 &&
             d->s.elem_size == sizeof(float) && d->base == (uint64_t)(uintptr_t)in &&
             d->bytes == sizeof(float) * w * h && d->stride == w &&
             d->tile.dtile[0] == CX * BX && d->tile.dtile[1] == CY * BY &&
             d->tile.dtile[2] == 1 && d->tile.ctile[0] == CX && d->tile.ctile[1] == CY &&
             d->tile.ctile[2] == 1 && strstr(d->kernel_name, "conv5x5") &&
             xgpuLDescCount() == 1;
    if (!ok)
        fprintf(stderr, "ld_conv: launch %llu recorded %d descriptors, not the one "
                "specified\n", (unsigned long long)launch, n);
    return !ok;
}

static int clamp(int v, int hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

int main(int argc, char **argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 512, h = argc > 2 ? atoi(argv[2]) : 512;
    if (w < 1 || w > 8192 || h < 1 || h > 8192) {
        fprintf(stderr, "usage: ld_conv [width 1..8192 [height 1..8192]]\n");
        return 2;
    }
    // Binomial weights (1 4 6 4 1) x (1 4 6 4 1) / 256: exact in float, summing to 1.
    static const float b[TAPS] = {1, 4, 6, 4, 1};
    float k[TAPS][TAPS];
    for (int i = 0; i < TAPS; i++)
        for (int j = 0; j < TAPS; j++)
            k[i][j] = b[i] * b[j] / 256.0f;
    size_t px = (size_t)w * h;
    float *img = (float *)malloc(sizeof(float) * px), *got = (float *)malloc(sizeof(float) * px);
    if (!img || !got)
        return fail("out of host memory");
    unsigned seed = 31337u;
    for (size_t i = 0; i < px; i++) {
        seed = seed * 1103515245u + 12345u;
        img[i] = (float)(seed >> 8) / 16777216.0f;
    }
    float *din, *dout;
    if (cudaMalloc((void **)&din, sizeof(float) * px) ||
        cudaMalloc((void **)&dout, sizeof(float) * px) ||
        cudaMemcpyToSymbol(taps, k, sizeof k) ||
        cudaMemcpy(din, img, sizeof(float) * px, cudaMemcpyHostToDevice))
        return fail("setup failed");
    if (describe(din, w, h) != cudaSuccess)
        return fail("LocalityDescriptor failed");
    dim3 grid((w + BX - 1) / BX, (h + BY - 1) / BY), block(BX, BY);
    conv5x5<<<grid, block>>>(din, w, h, dout);
    if (cudaGetLastError() != cudaSuccess)
        return fail("launch failed");
    int bad = check_launch(din, w, h);
    if (cudaMemcpy(got, dout, sizeof(float) * px, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    // The CPU sums the same taps in the same order in float. The device may contract
    // a*b+c into an FMA, so an output may differ by 1e-5 * (1 + sum of |tap * pixel|);
    // the taps are positive and sum to 1 and the pixels lie in [0, 1), so 2e-5 bounds it.
    double t0 = cpu_seconds();
    size_t wrong = 0;
    double sum = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int dy = 0; dy < TAPS; dy++)
                for (int dx = 0; dx < TAPS; dx++)
                    s += k[dy][dx] * img[(size_t)clamp(y + dy - R, h - 1) * w +
                                         clamp(x + dx - R, w - 1)];
            float g = got[(size_t)y * w + x];
            sum += g;
            if (fabsf(g - s) > 2e-5f && wrong++ < 5)
                fprintf(stderr, "ld_conv: (%d, %d) = %.9g, expected %.9g\n", x, y, (double)g,
                        (double)s);
        }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("ld_conv %d x %d, 5x5 taps, mean %.6f\n", w, h, sum / px);
    cudaFree(din);
    cudaFree(dout);
    free(img);
    free(got);
    if (wrong)
        fprintf(stderr, "ld_conv: %zu outputs differ from the CPU\n", wrong);
    bad |= wrong != 0;
    printf("ld_conv: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
