// A program written as PolyBench-ACC's CUDA versions are (2mm, mvt-like): <cuda.h> and the
// C headers, DATA_TYPE, gettimeofday timing, device selection through the properties,
// 2D blocks, grids sized with ceil() on floats, cudaThreadSynchronize, and a comparison
// with the CPU by percent difference.
#include <unistd.h>
#include <stdio.h>
#include <time.h>
#include <sys/time.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <cuda.h>

#define PERCENT_DIFF_ERROR_THRESHOLD 0.05
#define GPU_DEVICE 0
#define NI 96
#define NJ 80
#define NK 72
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8
typedef float DATA_TYPE;

double rtclock()
{
    struct timezone Tzp;
    struct timeval Tp;
    int stat = gettimeofday(&Tp, &Tzp);
    if (stat != 0) printf("Error return from gettimeofday: %d", stat);
    return (Tp.tv_sec + Tp.tv_usec * 1.0e-6);
}

float absVal(float a) { return a < 0 ? a * -1 : a; }

float percentDiff(double val1, double val2)
{
    if ((absVal(val1) < 0.01) && (absVal(val2) < 0.01)) return 0.0f;
    return 100.0f * (absVal(absVal(val1 - val2) / absVal(val1 + 0.00000001f)));
}

void init_array(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *x)
{
    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NK; k++) A[i * NK + k] = ((DATA_TYPE)i * k) / NI;
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++) B[k * NJ + j] = ((DATA_TYPE)k * (j + 1)) / NJ;
    for (int i = 0; i < NJ; i++) x[i] = (DATA_TYPE)i / NJ;
}

__global__ void mm_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < NI) && (j < NJ)) {
        c[i * NJ + j] = 0;
        for (int k = 0; k < NK; k++) c[i * NJ + j] += 1.5f * a[i * NK + k] * b[k * NJ + j];
    }
}

__global__ void mv_kernel(DATA_TYPE *c, DATA_TYPE *x, DATA_TYPE *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < NI) {
        DATA_TYPE s = 0;
        for (int j = 0; j < NJ; j++) s += c[i * NJ + j] * x[j];
        y[i] = s;
    }
}

void GPU_argv_init()
{
    cudaDeviceProp deviceProp;
    cudaGetDeviceProperties(&deviceProp, GPU_DEVICE);
    printf("setting device %d with name %s\n", GPU_DEVICE, deviceProp.name);
    cudaSetDevice(GPU_DEVICE);
}

int main(int argc, char *argv[])
{
    DATA_TYPE *A = (DATA_TYPE *)malloc(NI * NK * sizeof(DATA_TYPE));
    DATA_TYPE *B = (DATA_TYPE *)malloc(NK * NJ * sizeof(DATA_TYPE));
    DATA_TYPE *C = (DATA_TYPE *)malloc(NI * NJ * sizeof(DATA_TYPE));
    DATA_TYPE *x = (DATA_TYPE *)malloc(NJ * sizeof(DATA_TYPE));
    DATA_TYPE *y = (DATA_TYPE *)malloc(NI * sizeof(DATA_TYPE));
    DATA_TYPE *y_gpu = (DATA_TYPE *)malloc(NI * sizeof(DATA_TYPE));
    init_array(A, B, x);
    GPU_argv_init();
    DATA_TYPE *A_gpu, *B_gpu, *C_gpu, *x_gpu, *yg;
    cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NI * NK);
    cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * NK * NJ);
    cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * NI * NJ);
    cudaMalloc((void **)&x_gpu, sizeof(DATA_TYPE) * NJ);
    cudaMalloc((void **)&yg, sizeof(DATA_TYPE) * NI);
    cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NI * NK, cudaMemcpyHostToDevice);
    cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * NK * NJ, cudaMemcpyHostToDevice);
    cudaMemcpy(x_gpu, x, sizeof(DATA_TYPE) * NJ, cudaMemcpyHostToDevice);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)ceil(((float)NJ) / ((float)block.x)), (size_t)ceil(((float)NI) / ((float)block.y)));
    dim3 block1(DIM_THREAD_BLOCK_X * DIM_THREAD_BLOCK_Y, 1);
    dim3 grid1((size_t)ceil(((float)NI) / ((float)block1.x)), 1);
    double t_start = rtclock();
    mm_kernel<<<grid, block>>>(A_gpu, B_gpu, C_gpu);
    cudaThreadSynchronize();
    mv_kernel<<<grid1, block1>>>(C_gpu, x_gpu, yg);
    cudaThreadSynchronize();
    double t_end = rtclock();
    fprintf(stdout, "GPU Runtime: %0.6lfs\n", t_end - t_start);
    cudaMemcpy(y_gpu, yg, sizeof(DATA_TYPE) * NI, cudaMemcpyDeviceToHost);
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            C[i * NJ + j] = 0;
            for (int k = 0; k < NK; k++) C[i * NJ + j] += 1.5f * A[i * NK + k] * B[k * NJ + j];
        }
    int fail = 0;
    for (int i = 0; i < NI; i++) {
        DATA_TYPE s = 0;
        for (int j = 0; j < NJ; j++) s += C[i * NJ + j] * x[j];
        y[i] = s;
        if (percentDiff(y[i], y_gpu[i]) > PERCENT_DIFF_ERROR_THRESHOLD) fail++;
    }
    printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of %4.2f Percent: %d\n",
           PERCENT_DIFF_ERROR_THRESHOLD, fail);
    cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu); cudaFree(x_gpu); cudaFree(yg);
    cudaThreadExit();
    printf("suite_polybench: %s\n", fail ? "FAIL" : "PASS");
    return fail != 0;
}
