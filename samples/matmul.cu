// matmul: C = A * B with TILE x TILE tiles staged in shared memory, on a 2D grid.
// Matrix sizes need not be multiples of the tile; edges are guarded.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TILE 16

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        int ak = t + threadIdx.x, bk = t + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

int main(int argc, char **argv)
{
    int M = argc > 1 ? atoi(argv[1]) : 96, N = argc > 2 ? atoi(argv[2]) : 80,
        K = argc > 3 ? atoi(argv[3]) : 72;
    if (M <= 0 || N <= 0 || K <= 0) {
        fprintf(stderr, "usage: matmul [M N K > 0]\n");
        return 2;
    }
    float *A = (float *)malloc(sizeof(float) * M * K), *B = (float *)malloc(sizeof(float) * K * N);
    float *C = (float *)malloc(sizeof(float) * M * N);
    unsigned seed = 12345;
    for (int i = 0; i < M * K; i++)
        A[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 1023) / 512.0f - 1.0f;
    for (int i = 0; i < K * N; i++)
        B[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 1023) / 512.0f - 1.0f;
    float *dA, *dB, *dC;
    cudaMalloc((void **)&dA, sizeof(float) * M * K);
    cudaMalloc((void **)&dB, sizeof(float) * K * N);
    cudaMalloc((void **)&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, A, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof(float) * K * N, cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "matmul: %s\n", cudaGetErrorString(e));
        return 1;
    }
    cudaMemcpy(C, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
    double *R = (double *)malloc(sizeof(double) * M * N);
    double t0 = cpu_seconds();
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < K; k++)
                ref += (double)A[i * K + k] * B[k * N + j];
            R[i * N + j] = ref;
        }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int bad = 0;
    for (int i = 0; i < M * N; i++)
        if (fabs(C[i] - R[i]) > 1e-3 * (1 + fabs(R[i])) && bad++ < 5)
            fprintf(stderr, "matmul: C[%d][%d] = %g, expected %g\n", i / N, i % N, C[i], R[i]);
    free(R);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
    free(B);
    free(C);
    printf("matmul %dx%dx%d: %s\n", M, N, K, bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
