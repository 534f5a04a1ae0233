// ld_stencil: a bank of four 3x3 filters (blur, sharpen, Sobel x, Sobel y) applied to one
// float image, annotated with a Locality Descriptor. The grid is
// ceil(w / STRIP) x ceil(h / ROWS) x FILTERS CTAs of STRIP threads: CTA (bx, by, f) applies
// filter f to the tile of STRIP columns and ROWS rows at (bx, by), each thread walking down
// its column one row at a time (nine loads per output from rows y - 1, y, y + 1; edges are
// clamped). The FILTERS CTAs that differ only in z read the same tile of the image, and
// they are a whole filter plane apart in launch order, so run in that order they land on
// different SMs (and, for a large image, at different times) and each fetches the tile
// again; on one SM together they would fetch it once. The image's descriptor says so: INTER_THREAD, COACCESSED, REGULAR
// with a stride of one row (each thread's next output reads one row further down), a C-Tile
// of (1, 1, FILTERS) CTAs and its D-Tile, the STRIP x ROWS tile of the image (plus the
// one-pixel halo it shares with the neighbouring tiles); the C-Tiles walk the D-Tiles
// along x first, then y, and z walks no data: map (1,2,0). The outputs are only stored
// (write-through, no allocation in the L1) and get no descriptor.
// The program checks the outputs against the CPU and, through the runtime's query API, that
// the launch recorded the descriptor it specified.
// Usage: ld_stencil [width=384] [height=384]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xgpu/ldesc.h>

#define STRIP 128 // columns per CTA (one per thread)
#define ROWS 16   // rows per thread
#define FILTERS 4

__constant__ float taps[FILTERS][9];

static const float host_taps[FILTERS][9] = {
    {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f},
    {0, -1, 0, -1, 5, -1, 0, -1, 0},
    {-1, 0, 1, -2, 0, 2, -1, 0, 1},
    {-1, -2, -1, 0, 0, 0, 1, 2, 1},
};

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
    fprintf(stderr, "ld_stencil: %s\n", what);
    return 1;
}

__global__ void filter_bank(const float *img, int w, int h, float *out)
{
    int x = blockIdx.x * STRIP + threadIdx.x, y0 = blockIdx.y * ROWS, f = blockIdx.z;
    if (x >= w)
        return;
    int cols[3] = {max(x - 1, 0), x, min(x + 1, w - 1)};
    const float *k = taps[f];
    float *o = out + (size_t)f * w * h;
    for (int y = y0; y < min(y0 + ROWS, h); y++) {
        float s = 0.0f;
        for (int dy = 0; dy < 3; dy++) {
            const float *row = img + (size_t)min(max(y + dy - 1, 0), h - 1) * w;
            for (int dx = 0; dx < 3; dx++)
                s += k[dy * 3 + dx] * row[cols[dx]];
        }
        o[(size_t)y * w + x] = s;
    }
}

// The image's descriptor (specified after the copy, before the launch).
static cudaError_t describe(const float *img, int w, int h)
{
    XLDTile tile = {{STRIP, ROWS, 1}, {1, 1, FILTERS}};
    return LocalityDescriptor(filter_bank, img, sizeof(float) * w * h, &tile, w,
                              XLD_INTER_THREAD, XLD_COACCESSED, XLD_REGULAR, XLD_MAP(1, 2, 0),
                              2, sizeof(float));
}

// The runtime's record of the launch against what describe() specified.
static int check_launch(const float *img, int w, int h)
{
    XLDescInfo d[2];
    uint64_t launch;
    int n = xgpuLDescLastLaunch((const void *)filter_bank, d, 2, &launch);
    int ok = n == 1 && launch == 1 && d->s.locality == XLD_INTER_THREAD &&
             d->s.sharing == XLD_COACCESSED && d->s.pattern == XLD_REGULAR &&
             d->s.map[0] == 1 && d->s.map[1] == 2 && d->s.map[2] == 0 && d->s.priority == 2 &&
             d->s.elem_size == sizeof(float) && d->base == (uint64_t)(uintptr_t)img &&
             d->bytes == sizeof(float) * w * h && d->stride == w &&
             d->tile.dtile[0] == STRIP && d->tile.dtile[1] == ROWS && d->tile.dtile[2] == 1 &&
             d->tile.ctile[0] == 1 && d->tile.ctile[1] == 1 && d->tile.ctile[2] == FILTERS &&
             strstr(d->kernel_name, "filter_bank") && xgpuLDescCount() == 1;
    if (!ok)
        fprintf(stderr, "ld_stencil: launch %llu recorded %d descriptors, not the one "
                "specified\n", (unsigned long long)launch, n);
    return !ok;
}

// Filter f at (x, y) in the kernel's order of operations.
static float filter_at(const float *img, int w, int h, int f, int x, int y)
{
    int cols[3] = {x > 0 ? x - 1 : 0, x, x + 1 < w ? x + 1 : w - 1};
    float s = 0.0f;
    for (int dy = 0; dy < 3; dy++) {
        int r = y + dy - 1 < 0 ? 0 : y + dy - 1 >= h ? h - 1 : y + dy - 1;
        for (int dx = 0; dx < 3; dx++)
            s += host_taps[f][dy * 3 + dx] * img[(size_t)r * w + cols[dx]];
    }
    return s;
}

int main(int argc, char **argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 384, h = argc > 2 ? atoi(argv[2]) : 384;
    if (w < 1 || w > 8192 || h < 1 || h > 8192) {
        fprintf(stderr, "usage: ld_stencil [width 1..8192 [height 1..8192]]\n");
        return 2;
    }
    size_t px = (size_t)w * h;
    float *img = (float *)malloc(sizeof(float) * px);
    float *got = (float *)malloc(sizeof(float) * px * FILTERS);
    if (!img || !got)
        return fail("out of host memory");
    unsigned seed = 12345u;
    for (size_t i = 0; i < px; i++) {
        seed = seed * 1103515245u + 12345u;
        img[i] = (float)(seed >> 8) / 16777216.0f;
    }
    float *dimg, *dout;
    if (cudaMalloc((void **)&dimg, sizeof(float) * px) ||
        cudaMalloc((void **)&dout, sizeof(float) * px * FILTERS) ||
        cudaMemcpyToSymbol(taps, host_taps, sizeof host_taps) ||
        cudaMemcpy(dimg, img, sizeof(float) * px, cudaMemcpyHostToDevice))
        return fail("setup failed");
    if (describe(dimg, w, h) != cudaSuccess)
        return fail("LocalityDescriptor failed");
    dim3 grid((w + STRIP - 1) / STRIP, (h + ROWS - 1) / ROWS, FILTERS), block(STRIP);
    filter_bank<<<grid, block>>>(dimg, w, h, dout);
    if (cudaGetLastError() != cudaSuccess)
        return fail("launch failed");
    int bad = check_launch(dimg, w, h);
    if (cudaMemcpy(got, dout, sizeof(float) * px * FILTERS, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    // The device may contract a*b+c into an FMA: each output may differ from the CPU's
    // (same order, separate multiply and add) by 1e-5 * (1 + the filter's sum of |taps|),
    // which bounds the sum of |tap * pixel| since the pixels lie in [0, 1).
    double t0 = cpu_seconds();
    size_t wrong = 0;
    double sum = 0.0;
    for (int f = 0; f < FILTERS; f++) {
        float mag = 0.0f;
        for (int t = 0; t < 9; t++)
            mag += fabsf(host_taps[f][t]);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float ref = filter_at(img, w, h, f, x, y), g = got[f * px + (size_t)y * w + x];
                sum += g;
                if (fabsf(g - ref) > 1e-5f * (1.0f + mag) && wrong++ < 5)
                    fprintf(stderr, "ld_stencil: filter %d at (%d, %d) = %g, expected %g\n",
                            f, x, y, (double)g, (double)ref);
            }
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("ld_stencil %d x %d, %d filters, checksum %.3f\n", w, h, FILTERS, sum);
    cudaFree(dimg);
    cudaFree(dout);
    free(img);
    free(got);
    if (wrong)
        fprintf(stderr, "ld_stencil: %zu outputs differ from the CPU\n", wrong);
    bad |= wrong != 0;
    printf("ld_stencil: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
