// ldesc_histo: a 256-bin histogram of a 2D image annotated with Locality Descriptors as in
// the paper's histo example. The grid is (X_LEN / X_TILE) x GY CTAs; CTA (bx, by) counts
// the X_TILE-wide column strip bx of the image, rows by, by + GY, ..., into a shared
// histogram and merges it into the global one. All CTAs of one grid column read the same
// strip, so the image's descriptor is INTER_THREAD, COACCESSED and REGULAR (a row apart)
// with D-Tile (X_TILE, Y_LEN, 1), C-Tile (1, gridDim.y, 1) and compute-data map (1,0,0).
// The bins, shared by the whole grid, get a second descriptor (IRREGULAR). Two images are
// counted (two launches); the image descriptor is re-specified between them. The program
// checks the histograms against the CPU and, through the runtime's query API, that the
// descriptors recorded for each launch are the ones it specified.
// Usage: ldesc_histo [scale] (both images' sides times scale, default 1)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xgpu/ldesc.h>

#define BINS 256
#define X_TILE 64 // pixels per strip (one per thread)
#define GY 4      // CTAs per grid column

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void histo(const unsigned char *img, int x_len, int y_len, unsigned *hist)
{
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    int x = blockIdx.x * X_TILE + threadIdx.x;
    for (int y = blockIdx.y; y < y_len; y += gridDim.y)
        atomicAdd(&local[img[(size_t)y * x_len + x]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b])
            atomicAdd(&hist[b], local[b]);
}

static int fail(const char *what)
{
    fprintf(stderr, "ldesc_histo: %s\n", what);
    return 1;
}

// Specifies the two descriptors of one launch on an x_len x y_len image.
static cudaError_t describe(const unsigned char *img, int x_len, int y_len, unsigned *hist,
                            dim3 grid)
{
    XLDTile strip = {{X_TILE, (uint32_t)y_len, 1}, {1, grid.y, 1}};
    cudaError_t e = LocalityDescriptor(histo, img, (size_t)x_len * y_len, &strip, x_len,
                                       XLD_INTER_THREAD, XLD_COACCESSED, XLD_REGULAR,
                                       XLD_MAP(1, 0, 0), 2, 1);
    XLDTile bins = {{BINS, 1, 1}, {grid.x, grid.y, 1}};
    if (e == cudaSuccess)
        e = LocalityDescriptor(histo, hist, BINS * sizeof(unsigned), &bins, 0,
                               XLD_INTER_THREAD, XLD_COACCESSED, XLD_IRREGULAR,
                               XLD_MAP(1, 2, 0), 1, sizeof(unsigned));
    return e;
}

// The runtime's record of the last launch against what describe() specified.
static int check_launch(uint64_t expect_launch, const unsigned char *img, int x_len,
                        int y_len, const unsigned *hist, dim3 grid)
{
    XLDescInfo d[4];
    uint64_t launch;
    int n = xgpuLDescLastLaunch((const void *)histo, d, 4, &launch);
    if (n != 2 || launch != expect_launch) {
        fprintf(stderr, "ldesc_histo: %d descriptors at launch %llu\n", n,
                (unsigned long long)launch);
        return 1;
    }
    const XLDescInfo *im = &d[0], *bi = &d[1];
    int ok = im->s.locality == XLD_INTER_THREAD && im->s.sharing == XLD_COACCESSED &&
             im->s.pattern == XLD_REGULAR && im->s.map[0] == 1 && im->s.map[1] == 0 &&
             im->s.map[2] == 0 && im->s.priority == 2 && im->s.elem_size == 1 &&
             im->base == (uint64_t)(uintptr_t)img && im->bytes == (uint64_t)x_len * y_len &&
             im->tile.dtile[0] == X_TILE && im->tile.dtile[1] == (uint32_t)y_len &&
             im->tile.dtile[2] == 1 && im->tile.ctile[0] == 1 && im->tile.ctile[1] == grid.y &&
             im->tile.ctile[2] == 1 && im->stride == x_len && strstr(im->kernel_name, "histo");
    ok = ok && bi->s.pattern == XLD_IRREGULAR && bi->s.map[1] == 2 && bi->s.priority == 1 &&
         bi->base == (uint64_t)(uintptr_t)hist && bi->tile.ctile[0] == grid.x &&
         im->site != bi->site && xgpuLDescCount() == 2;
    if (!ok)
        fprintf(stderr, "ldesc_histo: launch %llu: the recorded descriptors differ from the "
                "specified ones\n", (unsigned long long)launch);
    return !ok;
}

static void fill(unsigned char *img, size_t n, unsigned seed, int skew)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        img[i] = (unsigned char)(skew && (r & 1) ? 0x40 + (r >> 1) % 8 : r);
    }
}

static int count_on_cpu(const unsigned char *img, size_t n, const unsigned *got)
{
    unsigned ref[BINS];
    memset(ref, 0, sizeof ref);
    for (size_t i = 0; i < n; i++)
        ref[img[i]]++;
    int bad = 0;
    for (int b = 0; b < BINS; b++)
        if (got[b] != ref[b] && bad++ < 5)
            fprintf(stderr, "ldesc_histo: bin %d = %u, expected %u\n", b, got[b], ref[b]);
    return bad;
}

int main(int argc, char **argv)
{
    // Two images: 256 x 64 pixels, then 128 x 96 (a different strip count and height),
    // both sides times the scale.
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1 || scale > 64) {
        fprintf(stderr, "usage: ldesc_histo [scale 1..64]\n");
        return 2;
    }
    const int xs[2] = {256 * scale, 128 * scale}, ys[2] = {64 * scale, 96 * scale};
    unsigned char *img[2], *dimg[2];
    unsigned *dhist, got[2][BINS];
    if (cudaMalloc((void **)&dhist, sizeof got) || cudaMemset(dhist, 0, sizeof got))
        return fail("setup failed");
    for (int i = 0; i < 2; i++) {
        size_t n = (size_t)xs[i] * ys[i];
        img[i] = (unsigned char *)malloc(n);
        fill(img[i], n, 7u + i, i);
        if (cudaMalloc((void **)&dimg[i], n) ||
            cudaMemcpy(dimg[i], img[i], n, cudaMemcpyHostToDevice))
            return fail("setup failed");
    }
    int bad = xgpuLDescLastLaunch((const void *)histo, NULL, 0, NULL) != 0;
    for (int i = 0; i < 2; i++) {
        dim3 grid(xs[i] / X_TILE, GY), block(X_TILE);
        // After the copy and before the launch, as the descriptor's semantics require.
        if (describe(dimg[i], xs[i], ys[i], dhist + i * BINS, grid) != cudaSuccess)
            return fail("LocalityDescriptor failed");
        histo<<<grid, block>>>(dimg[i], xs[i], ys[i], dhist + i * BINS);
        if (cudaGetLastError() != cudaSuccess)
            return fail("launch failed");
        bad |= check_launch((uint64_t)i + 1, dimg[i], xs[i], ys[i], dhist + i * BINS, grid);
    }
    if (cudaDeviceSynchronize() || cudaMemcpy(got, dhist, sizeof got, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    double t0 = cpu_seconds();
    int wrong = 0;
    for (int i = 0; i < 2; i++)
        wrong += count_on_cpu(img[i], (size_t)xs[i] * ys[i], got[i]);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("ldesc_histo images=2 descriptors=%d\n", xgpuLDescCount());
    for (int i = 0; i < 2; i++) {
        cudaFree(dimg[i]);
        free(img[i]);
    }
    cudaFree(dhist);
    bad |= wrong != 0;
    printf("ldesc_histo: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
