// Racy programs whose results depend on how warps and CTAs interleave (test 391):
//   inc  - one block of 32x8 threads; every thread does x[0] += 1.0f sixteen times
//          (a read-modify-write race: the lanes of a warp store the same value, so a warp
//          adds at most 1 per iteration; warps that interleave lose each other's adds).
//          The compiler keeps x[0] in a register: one load, 16 adds, one store, longer
//          than functional mode's default quantum of 16 warp instructions;
//   peek - two blocks of 256 threads write 1s to their half of out[], meet at
//          __syncthreads, then block 0 adds up both halves: 512 when block 1 has already
//          written its half, 256 when it has not started.
// Prints the result; the test compares modes and quanta.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void inc(float *x)
{
    for (int k = 0; k < 16; k++)
        x[0] += 1.0f;
}

__global__ void peek(int *out, int *sum)
{
    int t = threadIdx.x;
    out[blockIdx.x * 256 + t] = 1;
    __syncthreads();
    if (blockIdx.x == 0)
        atomicAdd(sum, out[t] + out[256 + t]);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "inc";
    if (strcmp(which, "inc") == 0) {
        float *x, h = 0;
        cudaMalloc(&x, 4);
        cudaMemset(x, 0, 4);
        inc<<<1, dim3(32, 8)>>>(x);
        cudaMemcpy(&h, x, 4, cudaMemcpyDeviceToHost);
        printf("inc: %g\n", h);
    } else {
        int *out, *sum, h = 0;
        cudaMalloc(&out, 512 * sizeof(int));
        cudaMalloc(&sum, sizeof(int));
        cudaMemset(out, 0, 512 * sizeof(int));
        cudaMemset(sum, 0, sizeof(int));
        peek<<<2, 256>>>(out, sum);
        cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost);
        printf("peek: %d\n", h);
    }
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
