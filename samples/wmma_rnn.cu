// wmma_rnn: an Elman RNN layer over a short sequence, h_t = tanh(x_t W + h_{t-1} U + b),
// for a batch of sequences, with the products on tensor cores. x_t is B x I, h_t is
// B x Hd (both half, row-major), W is I x Hd and U is Hd x Hd (half, row-major), b has
// Hd floats. One launch per time step: a block of four warps computes 16 sequences x 64
// hidden units, each warp one 16x16 tile; the accumulator starts from the bias (a 16-row
// broadcast of b read with load_matrix_sync), takes x_t W (K = I) and h_{t-1} U (K = Hd)
// with mma_sync, goes through tanh element-wise on the fragment, and is stored to shared
// memory to be rounded to half into h_t. The CPU reference runs the same recurrence from
// the same half-rounded weights, rounding each h_t to half as the device does; every
// element of every h_t must agree within 4e-3 (half's resolution near 1 is 1e-3).
#include <cuda_runtime.h>
#include <mma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

using namespace nvcuda;

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
            fprintf(stderr, "wmma_rnn: %s:%d: %s\n", __FILE__, __LINE__,                \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Grid: (Hd / 64, B / 16); 128 threads. b16 is 16 x Hd (b in every row). */
__global__ void rnn_step(int in, int hd, const half *x, const half *hprev, const half *w,
                         const half *u, const float *b16, half *hnext)
{
    __shared__ float tile[4][16 * 16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int r0 = blockIdx.y * 16, c0 = blockIdx.x * 64 + warp * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::load_matrix_sync(acc, b16 + c0, hd, wmma::mem_row_major);
    for (int k = 0; k < in; k += 16) {
        wmma::load_matrix_sync(fa, x + (size_t)r0 * in + k, in);
        wmma::load_matrix_sync(fb, w + (size_t)k * hd + c0, hd);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int k = 0; k < hd; k += 16) {
        wmma::load_matrix_sync(fa, hprev + (size_t)r0 * hd + k, hd);
        wmma::load_matrix_sync(fb, u + (size_t)k * hd + c0, hd);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; i++)
        acc.x[i] = tanhf(acc.x[i]);
    wmma::store_matrix_sync(tile[warp], acc, 16, wmma::mem_row_major);
    __syncthreads();
    for (int i = lane; i < 256; i += 32)
        hnext[(size_t)(r0 + i / 16) * hd + c0 + i % 16] = __float2half(tile[warp][i]);
}

static float next_value(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)((*seed >> 9) % 2001) / 1000.0f - 1.0f;
}

int main(int argc, char **argv)
{
    int batch = argc > 1 ? atoi(argv[1]) : 32;
    int in = argc > 2 ? atoi(argv[2]) : 32;
    int hd = argc > 3 ? atoi(argv[3]) : 64;
    int steps = argc > 4 ? atoi(argv[4]) : 4;
    if (batch <= 0 || in <= 0 || hd <= 0 || steps <= 0 || batch % 16 || in % 16 || hd % 64) {
        fprintf(stderr, "usage: wmma_rnn [B I: multiples of 16] [Hd: multiple of 64] "
                        "[steps]\n");
        return 2;
    }
    size_t sx = (size_t)steps * batch * in, sh = (size_t)batch * hd;
    half *X = (half *)malloc(sizeof(half) * sx);
    half *W = (half *)malloc(sizeof(half) * in * hd);
    half *U = (half *)malloc(sizeof(half) * hd * hd);
    float *b16 = (float *)malloc(sizeof(float) * 16 * hd);
    half *H = (half *)malloc(sizeof(half) * (steps + 1) * sh);
    unsigned seed = 99;
    for (size_t i = 0; i < sx; i++)
        X[i] = __float2half(next_value(&seed));
    for (int i = 0; i < in * hd; i++)
        W[i] = __float2half(next_value(&seed) * 0.3f);
    for (int i = 0; i < hd * hd; i++)
        U[i] = __float2half(next_value(&seed) * 0.15f);
    for (int j = 0; j < hd; j++) {
        float bj = next_value(&seed) * 0.2f;
        for (int r = 0; r < 16; r++)
            b16[r * hd + j] = bj;
    }
    for (size_t i = 0; i < sh; i++)
        H[i] = __float2half(0.0f);

    half *dX, *dW, *dU, *dH;
    float *dB;
    CHECK(cudaMalloc(&dX, sizeof(half) * sx));
    CHECK(cudaMalloc(&dW, sizeof(half) * in * hd));
    CHECK(cudaMalloc(&dU, sizeof(half) * hd * hd));
    CHECK(cudaMalloc(&dB, sizeof(float) * 16 * hd));
    CHECK(cudaMalloc(&dH, sizeof(half) * (steps + 1) * sh));
    CHECK(cudaMemcpy(dX, X, sizeof(half) * sx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dW, W, sizeof(half) * in * hd, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dU, U, sizeof(half) * hd * hd, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, b16, sizeof(float) * 16 * hd, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dH, H, sizeof(half) * sh, cudaMemcpyHostToDevice));
    for (int t = 0; t < steps; t++)
        rnn_step<<<dim3(hd / 64, batch / 16), 128>>>(in, hd, dX + (size_t)t * batch * in,
                                                     dH + t * sh, dW, dU, dB,
                                                     dH + (t + 1) * sh);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    half *out = (half *)malloc(sizeof(half) * (steps + 1) * sh);
    CHECK(cudaMemcpy(out, dH, sizeof(half) * (steps + 1) * sh, cudaMemcpyDeviceToHost));

    double t0 = cpu_seconds();
    for (int t = 0; t < steps; t++)
        for (int r = 0; r < batch; r++)
            for (int j = 0; j < hd; j++) {
                double s = b16[j];
                for (int k = 0; k < in; k++)
                    s += (double)__half2float(X[((size_t)t * batch + r) * in + k]) *
                         __half2float(W[(size_t)k * hd + j]);
                for (int k = 0; k < hd; k++)
                    s += (double)__half2float(H[t * sh + (size_t)r * hd + k]) *
                         __half2float(U[(size_t)k * hd + j]);
                H[(t + 1) * sh + (size_t)r * hd + j] = __float2half((float)tanh(s));
            }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    for (size_t i = sh; i < (steps + 1) * sh; i++) {
        float got = __half2float(out[i]), ref = __half2float(H[i]);
        if (!(fabsf(got - ref) <= 4e-3f)) {
            if (bad < 5)
                fprintf(stderr, "wmma_rnn: h_%zu[%zu][%zu] = %.5g, expected %.5g\n", i / sh,
                        i % sh / hd, i % hd, got, ref);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "wmma_rnn: %d of %zu hidden values differ\n", bad, steps * sh);
    printf("wmma_rnn batch %d, input %d, hidden %d, %d steps\n", batch, in, hd, steps);
    cudaFree(dX);
    cudaFree(dW);
    cudaFree(dU);
    cudaFree(dB);
    cudaFree(dH);
    free(X);
    free(W);
    free(U);
    free(b16);
    free(H);
    free(out);
    printf("wmma_rnn: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
