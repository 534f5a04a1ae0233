// relu: one layer's element-wise tail, as inference runs it after a convolution: for a
// batch of feature maps, y = max(0, x * scale[c] + shift[c]) per channel c, then the
// fraction of positive activations per channel. The input is itself the output of an
// earlier ReLU, so most of it is zero: a bandwidth-bound stream of zero-heavy floats, the
// kind of data line compressors shrink. Checked exactly against the CPU: inputs, scales and
// shifts are short dyadic fractions, so every product is exact in float and an FMA gives
// the same result as a product and a sum.
// Usage: relu [channels [pixels per channel [passes]]]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
    fprintf(stderr, "relu: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// blockIdx.y is the channel; the blocks along x stride over its pixels.
__global__ void affine_relu(int pixels, const float *x, const float *scale, const float *shift,
                            float *y)
{
    int c = blockIdx.y;
    float a = scale[c], b = shift[c];
    const float *xc = x + (size_t)c * pixels;
    float *yc = y + (size_t)c * pixels;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += gridDim.x * blockDim.x) {
        float v = xc[i] * a + b;
        yc[i] = v > 0.0f ? v : 0.0f;
    }
}

// One block per channel counts its positive activations.
__global__ void density(int pixels, const float *y, int *positive)
{
    __shared__ int count;
    if (threadIdx.x == 0)
        count = 0;
    __syncthreads();
    int mine = 0;
    for (int i = threadIdx.x; i < pixels; i += blockDim.x)
        mine += y[(size_t)blockIdx.x * pixels + i] > 0.0f;
    atomicAdd(&count, mine);
    __syncthreads();
    if (threadIdx.x == 0)
        positive[blockIdx.x] = count;
}

int main(int argc, char **argv)
{
    int channels = argc > 1 ? atoi(argv[1]) : 64, pixels = argc > 2 ? atoi(argv[2]) : 16384;
    int passes = argc > 3 ? atoi(argv[3]) : 2;
    if (channels < 1 || channels > 4096 || pixels < 1 || (long)channels * pixels > (1L << 26) ||
        passes < 1 || passes > 100) {
        fprintf(stderr, "usage: relu [channels 1..4096 [pixels per channel, channels x pixels "
                        "<= 2^26 [passes 1..100]]]\n");
        return 2;
    }
    int n = channels * pixels;
    float *x = (float *)malloc(sizeof(float) * n), *y = (float *)malloc(sizeof(float) * n);
    float *scale = (float *)malloc(sizeof(float) * channels);
    float *shift = (float *)malloc(sizeof(float) * channels);
    int *positive = (int *)malloc(sizeof(int) * channels);
    unsigned seed = 2024;
    // an earlier ReLU's output: about 70% zeros, in runs, positive values below 4
    for (int i = 0, run = 0, zero = 1; i < n; i++, run--) {
        seed = seed * 1664525u + 1013904223u;
        if (run <= 0) {
            zero = (seed >> 8) % 10 < 7;
            run = 1 + (int)((seed >> 16) % 24);
            seed = seed * 1664525u + 1013904223u;
        }
        x[i] = zero ? 0.0f : (float)((seed >> 8) & 0xffff) / 16384.0f;
    }
    for (int c = 0; c < channels; c++) {
        scale[c] = 0.5f + (float)(c % 50) / 64.0f; // 7 significant bits
        shift[c] = c % 3 == 0 ? -0.25f : 0.0f;
    }
    float *dx, *dy, *dscale, *dshift;
    int *dpos;
    if (check(cudaMalloc(&dx, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dy, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dscale, sizeof(float) * channels), "cudaMalloc") ||
        check(cudaMalloc(&dshift, sizeof(float) * channels), "cudaMalloc") ||
        check(cudaMalloc(&dpos, sizeof(int) * channels), "cudaMalloc"))
        return 1;
    if (check(cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dscale, scale, sizeof(float) * channels, cudaMemcpyHostToDevice),
              "copy") ||
        check(cudaMemcpy(dshift, shift, sizeof(float) * channels, cudaMemcpyHostToDevice),
              "copy"))
        return 1;
    int per = (pixels + 255) / 256 < 8 ? (pixels + 255) / 256 : 8;
    for (int p = 0; p < passes; p++)
        affine_relu<<<dim3(per, channels), 256>>>(pixels, dx, dscale, dshift, dy);
    density<<<channels, 256>>>(pixels, dy, dpos);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost), "copy") ||
        check(cudaMemcpy(positive, dpos, sizeof(int) * channels, cudaMemcpyDeviceToHost),
              "copy"))
        return 1;
    double t0 = cpu_seconds();
    int bad = 0;
    long total = 0;
    for (int c = 0; c < channels; c++) {
        int pos = 0;
        for (int i = 0; i < pixels; i++) {
            float v = x[c * pixels + i] * scale[c] + shift[c], r = v > 0.0f ? v : 0.0f;
            pos += r > 0.0f;
            if (y[c * pixels + i] != r && bad++ < 5)
                fprintf(stderr, "relu: y[%d] = %g, expected %g\n", c * pixels + i,
                        y[c * pixels + i], r);
        }
        if (positive[c] != pos && bad++ < 5)
            fprintf(stderr, "relu: channel %d: %d positive, expected %d\n", c, positive[c], pos);
        total += pos;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("relu %d channels x %d pixels, %d passes, %.1f%% positive\n", channels, pixels,
           passes, 100.0 * total / n);
    printf("relu: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(dx), cudaFree(dy), cudaFree(dscale), cudaFree(dshift), cudaFree(dpos);
    free(x), free(y), free(scale), free(shift), free(positive);
    return bad ? 1 : 0;
}
