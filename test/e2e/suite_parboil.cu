// A program written as Parboil's are (histo, sgemm-like): event timing, __launch_bounds__,
// shared-memory atomics, a ushort4 -> uchar4 conversion kernel, cudaMemset, a cache
// preference, and a CPU comparison.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 256
__global__ void __launch_bounds__(256) histo_kernel(const unsigned char *in, int n, unsigned int *bins)
{
    __shared__ unsigned int local[BINS];
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

__global__ void histo_final(const unsigned int *bins, unsigned int *packed)
{
    int i = threadIdx.x;
    ushort4 v = make_ushort4(bins[4 * i] & 0xff, bins[4 * i + 1] & 0xff, bins[4 * i + 2] & 0xff, bins[4 * i + 3] & 0xff);
    ((uchar4 *)packed)[i] = make_uchar4(v.x, v.y, v.z, v.w);
}

int main()
{
    const int n = 50000;
    unsigned char *h = (unsigned char *)malloc(n);
    for (int i = 0; i < n; i++) h[i] = (unsigned char)((i * 2654435761u) >> 24);
    unsigned char *d;
    unsigned int *bins, *packed, hb[BINS], hp[BINS / 4];
    cudaMalloc((void **)&d, n);
    cudaMalloc((void **)&bins, sizeof hb);
    cudaMalloc((void **)&packed, sizeof hp);
    cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
    cudaMemset(bins, 0, sizeof hb);
    cudaFuncSetCacheConfig(histo_kernel, cudaFuncCachePreferShared);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);
    histo_kernel<<<8, 256>>>(d, n, bins);
    histo_final<<<1, BINS / 4>>>(bins, packed);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    printf("GPU time: %f ms\n", ms);
    cudaMemcpy(hb, bins, sizeof hb, cudaMemcpyDeviceToHost);
    cudaMemcpy(hp, packed, sizeof hp, cudaMemcpyDeviceToHost);
    unsigned ref[BINS];
    memset(ref, 0, sizeof ref);
    for (int i = 0; i < n; i++) ref[h[i]]++;
    int bad = 0;
    for (int i = 0; i < BINS; i++) {
        bad += hb[i] != ref[i];
        bad += ((unsigned char *)hp)[i] != (unsigned char)(ref[i] & 0xff);
    }
    printf("suite_parboil: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
