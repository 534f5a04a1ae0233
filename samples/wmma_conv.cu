// wmma_conv: a 3x3 convolution layer (same padding, stride 1) as an implicit GEMM on
// tensor cores, followed by bias and ReLU. The input X is CI x H x W (half), the filters
// F are CO x CI x 3 x 3 (half), the output Y is CO x H x W (float). As a matrix product,
// Y[co][p] = sum_k F[co][k] * X'[k][p] with k = ci*9 + ky*3 + kx and p = y*W + x, where
// X' (the im2col matrix, K x H*W) is never stored: per 16-wide step of K each block of
// four warps gathers the 16 x 64 slice it needs into shared memory (zeros outside the
// image), column-major, and each warp multiplies the block's 16 filter rows (read
// straight from global memory, ldm K) by its 16 pixels. The bias enters as the
// accumulator's initial value (a 16x16 tile of the bias broadcast along the pixels, read
// with load_matrix_sync), ReLU is applied element-wise on the fragment. The CPU
// reference convolves the same half-rounded data in double; results agree within
// 1e-3 * (1 + |ref|).
#include <cuda_runtime.h>
#include <mma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

using namespace nvcuda;

#define PT 64 /* pixels per block (16 per warp) */

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
            fprintf(stderr, "wmma_conv: %s:%d: %s\n", __FILE__, __LINE__,               \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Grid: (H*W / 64, CO / 16); 128 threads. bias16 is CO x 16: row co holds bias[co]. */
__global__ void conv_wmma(int ci, int h, int w, const half *x, const half *f,
                          const float *bias16, float *y)
{
    __shared__ half xs[PT * 16]; /* pixel-major: xs[p * 16 + kk], column-major 16 x 64 */
    int warp = threadIdx.x / 32, k = ci * 9, npix = h * w;
    int co0 = blockIdx.y * 16, p0 = blockIdx.x * PT;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, bias16 + co0 * 16, 16, wmma::mem_row_major);
    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int i = threadIdx.x; i < PT * 16; i += blockDim.x) {
            int p = p0 + i / 16, kk = k0 + i % 16;
            int c = kk / 9, ky = kk % 9 / 3 - 1, kx = kk % 3 - 1;
            int yy = p / w + ky, xx = p % w + kx;
            bool in = yy >= 0 && yy < h && xx >= 0 && xx < w;
            xs[i] = in ? x[(c * h + yy) * w + xx] : __float2half(0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::load_matrix_sync(fa, f + (size_t)co0 * k + k0, k);
        wmma::load_matrix_sync(fb, xs + warp * 16 * 16, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    for (int i = 0; i < acc.num_elements; i++)
        acc.x[i] = fmaxf(acc.x[i], 0.0f);
    wmma::store_matrix_sync(y + (size_t)co0 * npix + p0 + warp * 16, acc, npix,
                            wmma::mem_row_major);
}

static float next_value(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)((*seed >> 9) % 2001) / 1000.0f - 1.0f;
}

int main(int argc, char **argv)
{
    int ci = argc > 1 ? atoi(argv[1]) : 16;
    int co = argc > 2 ? atoi(argv[2]) : 32;
    int h = argc > 3 ? atoi(argv[3]) : 16;
    int w = argc > 4 ? atoi(argv[4]) : 16;
    if (ci <= 0 || co <= 0 || h <= 0 || w <= 0 || ci % 16 || co % 16 || (h * w) % PT) {
        fprintf(stderr, "usage: wmma_conv [CI CO: multiples of 16] [H W: H*W a multiple "
                        "of 64]\n");
        return 2;
    }
    int k = ci * 9, npix = h * w;
    size_t sx = (size_t)ci * npix, sf = (size_t)co * k, sy = (size_t)co * npix;
    half *X = (half *)malloc(sizeof(half) * sx);
    half *F = (half *)malloc(sizeof(half) * sf);
    float *bias = (float *)malloc(sizeof(float) * co);
    float *bias16 = (float *)malloc(sizeof(float) * co * 16);
    float *Y = (float *)malloc(sizeof(float) * sy);
    unsigned seed = 4242;
    for (size_t i = 0; i < sx; i++)
        X[i] = __float2half(next_value(&seed));
    for (size_t i = 0; i < sf; i++)
        F[i] = __float2half(next_value(&seed) * 0.25f);
    for (int i = 0; i < co; i++) {
        bias[i] = next_value(&seed) * 0.5f;
        for (int j = 0; j < 16; j++)
            bias16[i * 16 + j] = bias[i];
    }

    half *dX, *dF;
    float *dB, *dY;
    CHECK(cudaMalloc(&dX, sizeof(half) * sx));
    CHECK(cudaMalloc(&dF, sizeof(half) * sf));
    CHECK(cudaMalloc(&dB, sizeof(float) * co * 16));
    CHECK(cudaMalloc(&dY, sizeof(float) * sy));
    CHECK(cudaMemcpy(dX, X, sizeof(half) * sx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dF, F, sizeof(half) * sf, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, bias16, sizeof(float) * co * 16, cudaMemcpyHostToDevice));
    conv_wmma<<<dim3(npix / PT, co / 16), 128>>>(ci, h, w, dX, dF, dB, dY);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(Y, dY, sizeof(float) * sy, cudaMemcpyDeviceToHost));

    double t0 = cpu_seconds();
    int bad = 0;
    for (int o = 0; o < co; o++)
        for (int yy = 0; yy < h; yy++)
            for (int xx = 0; xx < w; xx++) {
                double s = bias[o];
                for (int c = 0; c < ci; c++)
                    for (int ky = -1; ky <= 1; ky++)
                        for (int kx = -1; kx <= 1; kx++) {
                            int sy_ = yy + ky, sx_ = xx + kx;
                            if (sy_ < 0 || sy_ >= h || sx_ < 0 || sx_ >= w)
                                continue;
                            size_t fi = (size_t)o * k + c * 9 + (ky + 1) * 3 + kx + 1;
                            s += (double)__half2float(F[fi]) *
                                 __half2float(X[((size_t)c * h + sy_) * w + sx_]);
                        }
                double ref = s > 0.0 ? s : 0.0;
                float got = Y[((size_t)o * h + yy) * w + xx];
                if (!(fabs(got - ref) <= 1e-3 * (1.0 + fabs(ref)))) {
                    if (bad < 5)
                        fprintf(stderr, "wmma_conv: Y[%d][%d][%d] = %.7g, expected %.7g\n", o,
                                yy, xx, got, ref);
                    bad++;
                }
            }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    if (bad)
        fprintf(stderr, "wmma_conv: %d of %zu outputs differ\n", bad, sy);
    printf("wmma_conv %dx%dx%d -> %d channels\n", ci, h, w, co);
    cudaFree(dX);
    cudaFree(dF);
    cudaFree(dB);
    cudaFree(dY);
    free(X);
    free(F);
    free(bias);
    free(bias16);
    free(Y);
    printf("wmma_conv: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
