// bounds: three kernels whose speed has a simple first-principles limit, for comparing
// the timing model with the bounds of a preset (bench/bounds.py):
//   stream  - every thread sums a strided slice of a large array: DRAM-bandwidth bound
//   fma     - every thread runs 8 independent FMA chains: issue / fp32-pipe bound
//   shared  - every thread re-reads conflict-free shared memory: shared-memory bound
// usage: bounds stream|fma|shared   (prints the work done and PASS/FAIL)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void stream(const float *in, float *out, int n)
{
    float acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += in[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void fma_chains(float *out, int iters)
{
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5,
          a6 = a0 + 6, a7 = a0 + 7;
    for (int i = 0; i < iters; i++) {
        a0 = a0 * 0.999f + 0.5f; a1 = a1 * 0.999f + 0.5f; a2 = a2 * 0.999f + 0.5f;
        a3 = a3 * 0.999f + 0.5f; a4 = a4 * 0.999f + 0.5f; a5 = a5 * 0.999f + 0.5f;
        a6 = a6 * 0.999f + 0.5f; a7 = a7 * 0.999f + 0.5f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

__global__ void shared_reads(float *out, int iters)
{
    __shared__ float s[1024];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float acc = 0;
    unsigned j = threadIdx.x;
    for (int i = 0; i < iters; i++) {
        acc += s[j];
        acc += s[j ^ 32];
        acc += s[j ^ 64];
        acc += s[j ^ 128];
        j = (j + 256) & 1023;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "stream";
    const int blocks = 80, threads = 256, total = blocks * threads;
    float *out;
    cudaMalloc((void **)&out, total * sizeof(float));
    float *host = (float *)malloc(total * sizeof(float));
    int ok = 1;
    if (!strcmp(which, "stream")) {
        const int n = 1 << 22;
        float *in, *h = (float *)malloc(n * sizeof(float));
        for (int i = 0; i < n; i++)
            h[i] = 1.0f;
        cudaMalloc((void **)&in, n * sizeof(float));
        cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);
        stream<<<blocks, threads>>>(in, out, n);
        cudaMemcpy(host, out, total * sizeof(float), cudaMemcpyDeviceToHost);
        double sum = 0;
        for (int i = 0; i < total; i++)
            sum += host[i];
        ok = sum == n;
        printf("stream: %d floats read (%d bytes)\n", n, n * 4);
    } else if (!strcmp(which, "fma")) {
        const int iters = 256;
        fma_chains<<<blocks, threads>>>(out, iters);
        cudaMemcpy(host, out, total * sizeof(float), cudaMemcpyDeviceToHost);
        ok = host[0] > 0;
        printf("fma: %d threads x %d FMAs\n", total, iters * 8);
    } else if (!strcmp(which, "shared")) {
        const int iters = 256;
        shared_reads<<<blocks, threads>>>(out, iters);
        cudaMemcpy(host, out, total * sizeof(float), cudaMemcpyDeviceToHost);
        ok = host[0] > 0;
        printf("shared: %d warps x %d shared loads\n", total / 32, iters * 4);
    } else {
        fprintf(stderr, "usage: bounds stream|fma|shared\n");
        return 2;
    }
    printf("bounds %s: %s\n", which, ok ? "PASS" : "FAIL");
    return !ok;
}
