// dct8x8: the 2-D DCT-II of an image in 8x8 tiles, as JPEG encoders compute it. A block
// of 64 x T threads transforms T tiles: each thread loads one pixel into shared memory,
// the rows are transformed (one output coefficient per thread), then the columns. The
// resource specification is chosen at run time: T tiles per block (threads 64 x T,
// shared memory 2 x 64 x T floats plus the cosine table), so Zorua-style studies can sweep
// it without recompiling. The CPU reference runs in double; coefficients agree within
// 1e-3 (float, a different summation order, cosf within a few ulp).
// Usage: dct8x8 [width height [tiles_per_block 1..16]] (width, height multiples of 8)
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PI 3.14159265358979323846

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "dct8x8: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// The dynamic shared memory: the cosine table c[u][x] = a(u) cos((2x + 1) u pi / 16),
// then per tile the pixels and the row-transformed tile.
__global__ void dct_tiles(const float *img, float *coef, int width, int tiles)
{
    extern __shared__ float sh[];
    float *cosine = sh, *pix = sh + 64, *rows = pix + blockDim.x; /* 64 per tile */
    int t = threadIdx.x, tile = t / 64, y = (t % 64) / 8, x = t % 8;
    int id = blockIdx.x * (blockDim.x / 64) + tile;
    int per_row = width / 8;
    int tx = id % per_row, ty = id / per_row;
    if (t < 64) {
        int u = t / 8, k = t % 8;
        float a = u == 0 ? 0.35355339f : 0.5f; // sqrt(1/8), sqrt(2/8)
        cosine[t] = a * cosf((float)((2 * k + 1) * u) * (float)(PI / 16));
    }
    float *p = pix + tile * 64, *r = rows + tile * 64;
    if (id < tiles)
        p[y * 8 + x] = img[(ty * 8 + y) * width + tx * 8 + x];
    __syncthreads();
    if (id < tiles) { // row y, frequency u = x
        float s = 0;
        for (int k = 0; k < 8; k++)
            s += cosine[x * 8 + k] * p[y * 8 + k];
        r[y * 8 + x] = s;
    }
    __syncthreads();
    if (id < tiles) { // column x, frequency v = y
        float s = 0;
        for (int k = 0; k < 8; k++)
            s += cosine[y * 8 + k] * r[k * 8 + x];
        coef[(ty * 8 + y) * width + tx * 8 + x] = s;
    }
}

int main(int argc, char **argv)
{
    int width = argc > 2 ? atoi(argv[1]) : 256, height = argc > 2 ? atoi(argv[2]) : 256;
    int per_block = argc > 3 ? atoi(argv[3]) : 4;
    if (width <= 0 || height <= 0 || width % 8 || height % 8 || per_block < 1 ||
        per_block > 16) {
        fprintf(stderr, "usage: dct8x8 [width height [tiles_per_block 1..16]] "
                        "(width, height positive multiples of 8)\n");
        return 2;
    }
    int n = width * height, tiles = n / 64;
    float *img = (float *)malloc(sizeof(float) * n), *out = (float *)malloc(sizeof(float) * n);
    unsigned seed = 12345;
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        img[i] = (float)(seed >> 24) - 128.0f;
    }
    float *dimg, *dcoef;
    if (check(cudaMalloc(&dimg, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dcoef, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMemcpy(dimg, img, sizeof(float) * n, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;
    int threads = 64 * per_block, blocks = (tiles + per_block - 1) / per_block;
    size_t shared = sizeof(float) * (64 + 2 * 64 * per_block);
    dct_tiles<<<blocks, threads, shared>>>(dimg, dcoef, width, tiles);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "dct_tiles") ||
        check(cudaMemcpy(out, dcoef, sizeof(float) * n, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;
    double t0 = cpu_seconds();
    int bad = 0;
    double c[8][8];
    for (int u = 0; u < 8; u++)
        for (int k = 0; k < 8; k++)
            c[u][k] = (u ? sqrt(2.0 / 8) : sqrt(1.0 / 8)) * cos((2 * k + 1) * u * PI / 16);
    for (int ty = 0; ty < height / 8 && bad < 5; ty++)
        for (int tx = 0; tx < width / 8; tx++)
            for (int v = 0; v < 8; v++)
                for (int u = 0; u < 8; u++) {
                    double s = 0;
                    for (int y = 0; y < 8; y++)
                        for (int x = 0; x < 8; x++)
                            s += c[v][y] * c[u][x] * img[(ty * 8 + y) * width + tx * 8 + x];
                    float got = out[(ty * 8 + v) * width + tx * 8 + u];
                    if (fabs(got - s) > 1e-3 * (1 + fabs(s)) && bad++ < 5)
                        fprintf(stderr, "tile (%d,%d) coefficient (%d,%d): %g, expected %g\n",
                                tx, ty, u, v, got, s);
                }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("dct8x8 %dx%d, %d tiles per block of %d threads, %zu shared bytes\n", width,
           height, per_block, threads, shared);
    printf("dct8x8: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(dimg);
    cudaFree(dcoef);
    free(img);
    free(out);
    return bad ? 1 : 0;
}
