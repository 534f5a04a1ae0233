/*
 * 780-pitch: two-dimensional device memory in libxgpurt. cudaMallocPitch rounds rows up
 * to 512 bytes; cudaMemcpy2D moves odd-width rectangles between tight host rows, pitched
 * device rows and back, in every direction, without touching the padding; cudaMemset2D
 * sets only the rectangle; a width beyond a pitch is CUDA's error code.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "xgpu/cuda/cuda_runtime_api.h"

enum { W = 37, H = 5, HPITCH = 41 };

static unsigned char pattern(size_t r, size_t c)
{
    return (unsigned char)(r * 31 + c * 7 + 1);
}

Test(pitch, malloc_pitch_rounds_rows)
{
    void *d;
    size_t pitch = 0;
    cr_assert_eq(cudaMallocPitch(&d, &pitch, W, H), cudaSuccess);
    cr_assert_eq(pitch, 512u);
    cr_assert_not_null(d);
    cr_assert_eq(cudaMallocPitch(&d, &pitch, 513, 3), cudaSuccess);
    cr_assert_eq(pitch, 1024u);
    cr_assert_eq(cudaMallocPitch(&d, &pitch, 1024, 2), cudaSuccess);
    cr_assert_eq(pitch, 1024u);
    cr_assert_eq(cudaMallocPitch(&d, NULL, 16, 2), cudaErrorInvalidValue);
    cr_assert_eq(cudaMallocPitch(&d, &pitch, 16, 0), cudaSuccess);
    cr_assert_null(d);
}

Test(pitch, odd_width_round_trip)
{
    unsigned char src[H][W], back[H][HPITCH], full[H * 512];
    for (size_t r = 0; r < H; r++)
        for (size_t c = 0; c < W; c++)
            src[r][c] = pattern(r, c);
    memset(back, 0xEE, sizeof back);
    void *d1, *d2;
    size_t p1, p2;
    cr_assert_eq(cudaMallocPitch(&d1, &p1, W, H), cudaSuccess);
    cr_assert_eq(cudaMallocPitch(&d2, &p2, W + 600, H), cudaSuccess);
    cr_assert_eq(cudaMemset(d1, 0xAA, p1 * H), cudaSuccess);

    cr_assert_eq(cudaMemcpy2D(d1, p1, src, W, W, H, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy2D(d2, p2, d1, p1, W, H, cudaMemcpyDeviceToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy2D(back, HPITCH, d2, p2, W, H, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t r = 0; r < H; r++) {
        for (size_t c = 0; c < W; c++)
            cr_assert_eq(back[r][c], pattern(r, c), "(%zu, %zu)", r, c);
        for (size_t c = W; c < HPITCH; c++)
            cr_assert_eq(back[r][c], 0xEE, "host padding (%zu, %zu) untouched", r, c);
    }
    /* The device padding kept its memset value. */
    cr_assert_eq(cudaMemcpy(full, d1, p1 * H, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t r = 0; r < H; r++) {
        cr_assert_eq(full[r * p1 + W - 1], pattern(r, W - 1));
        cr_assert_eq(full[r * p1 + W], 0xAA, "row %zu padding", r);
        cr_assert_eq(full[r * p1 + p1 - 1], 0xAA);
    }
    /* Host to host, and direction inferred from the pointers. */
    unsigned char hh[H][W];
    cr_assert_eq(cudaMemcpy2D(hh, W, back, HPITCH, W, H, cudaMemcpyHostToHost), cudaSuccess);
    cr_assert_eq(memcmp(hh, src, sizeof src), 0);
    memset(back, 0, sizeof back);
    cr_assert_eq(cudaMemcpy2D(back, HPITCH, d1, p1, W, H, cudaMemcpyDefault), cudaSuccess);
    cr_assert_eq(back[H - 1][W - 1], pattern(H - 1, W - 1));
}

Test(pitch, async_copy_and_set_2d)
{
    cudaStream_t s;
    void *d;
    size_t p;
    unsigned char full[3 * 512];
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaMallocPitch(&d, &p, 13, 3), cudaSuccess);
    cr_assert_eq(cudaMemset2D(d, p, 0x11, p, 3), cudaSuccess);
    cr_assert_eq(cudaMemset2DAsync(d, p, 0x22, 13, 3, s), cudaSuccess);
    cr_assert_eq(cudaMemset2D((char *)d + 1, p, 0x33, 5, 2), cudaSuccess);
    cr_assert_eq(cudaMemcpy2DAsync(full, p, d, p, p, 3, cudaMemcpyDeviceToHost, s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    for (size_t r = 0; r < 3; r++)
        for (size_t c = 0; c < p; c++) {
            unsigned char want = c >= 13 ? 0x11 : (r < 2 && c >= 1 && c < 6) ? 0x33 : 0x22;
            cr_assert_eq(full[r * p + c], want, "(%zu, %zu): %#x", r, c, full[r * p + c]);
        }
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
    cr_assert_eq(cudaMemcpy2DAsync(full, p, d, p, 13, 3, cudaMemcpyDeviceToHost, s),
                 cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaMemset2DAsync(d, p, 0, 13, 3, s), cudaErrorInvalidResourceHandle);
}

Test(pitch, errors)
{
    void *d;
    size_t p;
    unsigned char h[128] = {0};
    cr_assert_eq(cudaMallocPitch(&d, &p, 16, 4), cudaSuccess);
    cr_assert_eq(cudaMemcpy2D(d, p, h, 8, 16, 4, cudaMemcpyHostToDevice),
                 cudaErrorInvalidPitchValue, "width beyond the source pitch");
    cr_assert_eq(cudaMemcpy2D(h, 8, d, p, 16, 4, cudaMemcpyDeviceToHost),
                 cudaErrorInvalidPitchValue);
    cr_assert_eq(cudaMemcpy2D(d, p, h, 16, 16, 4, (enum cudaMemcpyKind)9),
                 cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaMemset2D(d, 8, 0, 16, 4), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy2D(d, p, h, 16, 16, 5, cudaMemcpyHostToDevice), cudaErrorInvalidValue,
                 "the fifth row is past the allocation (4 x 512 bytes)");
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "not sticky");
    cr_assert_eq(cudaMemcpy2D(d, p, h, 16, 16, 4, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy2D(d, p, h, 16, 0, 4, cudaMemcpyHostToDevice), cudaSuccess);
}
