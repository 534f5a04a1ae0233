// reduction: sum of an integer array. Each block reduces a slice in shared memory with a
// tree of barriers; a second launch reduces the per-block partial sums.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef BLOCK /* threads per block; xgpu-cc -DBLOCK=N changes it (a power of two, 64..1024) */
#define BLOCK 256
#endif

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void reduce(const int *in, long long *out, int n)
{
    __shared__ long long s[BLOCK];
    int t = threadIdx.x;
    long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        acc += in[i];
    s[t] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__global__ void reduce_partials(long long *partials, int count)
{
    __shared__ long long s[BLOCK];
    int t = threadIdx.x;
    long long acc = 0;
    for (int i = t; i < count; i += blockDim.x)
        acc += partials[i];
    s[t] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partials[0] = s[0];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
    int blocks = 64;
    if (n <= 0) {
        fprintf(stderr, "usage: reduction [N > 0]\n");
        return 2;
    }
    int *in = (int *)malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        in[i] = (i * 2654435761u) % 2001 - 1000;
    double t0 = cpu_seconds();
    long long ref = 0;
    for (int i = 0; i < n; i++)
        ref += in[i];
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int *din;
    long long *dpart, sum = 0;
    cudaMalloc((void **)&din, sizeof(int) * n);
    cudaMalloc((void **)&dpart, sizeof(long long) * blocks);
    cudaMemcpy(din, in, sizeof(int) * n, cudaMemcpyHostToDevice);
    reduce<<<blocks, BLOCK>>>(din, dpart, n);
    reduce_partials<<<1, BLOCK>>>(dpart, blocks);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "reduction: %s\n", cudaGetErrorString(e));
        return 1;
    }
    cudaMemcpy(&sum, dpart, sizeof sum, cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dpart);
    free(in);
    int ok = sum == ref;
    if (!ok)
        fprintf(stderr, "reduction: got %lld, expected %lld\n", sum, ref);
    printf("reduction n=%d: %s\n", n, ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
