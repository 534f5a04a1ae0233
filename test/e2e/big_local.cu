// Each thread keeps a 400 KB local array (legal: under CUDA's 512 KiB per thread) and
// touches one byte of every page; blocks of 1024 threads hold 400 MB of local memory
// each, which the emulator keeps in host memory for every resident block. Run with
// argument B (blocks): prints the launch's and the synchronization's error names.
#include <cstdio>
#include <cstdlib>

__global__ void deep(int *out, int pick)
{
    volatile char frame[400000];
    for (int i = 0; i < 400000; i += 4096)
        frame[i] = (char)(i >> 12);
    out[blockIdx.x * blockDim.x + threadIdx.x] = frame[pick];
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 1, threads = 1024;
    int *out = NULL;
    cudaMalloc(&out, (size_t)blocks * threads * sizeof(int));
    deep<<<blocks, threads>>>(out, 8192);
    cudaError_t launch = cudaGetLastError(), sync = cudaDeviceSynchronize();
    printf("launch %s sync %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
    return 0;
}
