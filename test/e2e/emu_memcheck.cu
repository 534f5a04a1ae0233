// Invalid accesses for emu.memcheck (test 341). argv[1] picks the case:
//   halo   - a benchmark pattern: each thread reads J[threadIdx.x - 64], which for the
//            first 64 threads lies just before the first cudaMalloc allocation, and
//            overwrites the value right after; the output never depends on the bad read.
//   shared - a misaligned 4-byte load from a __shared__ char array: *(int *)(s + 2).
//   local  - a store below a local array: p[-3].
//   printf - a printf whose format needs more arguments than the call passes.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void halo(const float *J, float *out, int n)
{
    int i = threadIdx.x;
    float west = J[i - 64]; // out of bounds for i < 64
    if (i < 64)
        west = 0.0f;        // the boundary value overwrites it
    if (i < n)
        out[i] = J[i] + west;
}

__global__ void shared_misaligned(int *out)
{
    __shared__ char s[256];
    for (int j = 0; j < 8; j++) // 32 threads x 8 bytes
        s[threadIdx.x * 8 + j] = (char)(threadIdx.x * 8 + j);
    __syncthreads();
    out[threadIdx.x] = *(int *)(s + 2);
}

__global__ void local_below(int *out, int k)
{
    int p[16];
    for (int j = 0; j < 16; j++)
        p[j] = j * k;
    p[k - 3] = 7; // k = 0: p[-3]
    out[threadIdx.x] = p[(threadIdx.x + k) & 15];
}

__global__ void printf_short(int a)
{
    printf("a = %d, b = %d\n", a); // the second conversion has no argument
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "halo";
    const int n = 256;
    float *J, *out;
    int *iout;
    cudaMalloc(&J, n * sizeof(float)); // the first allocation: nothing mapped before it
    cudaMalloc(&out, n * sizeof(float));
    cudaMalloc(&iout, n * sizeof(int));
    float h[n], r[n];
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    cudaMemcpy(J, h, sizeof h, cudaMemcpyHostToDevice);
    if (strcmp(which, "halo") == 0)
        halo<<<1, n>>>(J, out, n);
    else if (strcmp(which, "shared") == 0)
        shared_misaligned<<<1, 32>>>(iout);
    else if (strcmp(which, "local") == 0)
        local_below<<<1, 32>>>(iout, 0);
    else
        printf_short<<<1, 1>>>(5);
    cudaError_t e = cudaDeviceSynchronize();
    printf("status: %s\n", cudaGetErrorName(e));
    if (e != cudaSuccess)
        return 1;
    if (strcmp(which, "halo") == 0) {
        cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; i++) {
            float want = h[i] + (i < 64 ? 0.0f : h[i - 64]);
            if (r[i] != want) {
                printf("FAIL: out[%d] = %g, want %g\n", i, r[i], want);
                return 1;
            }
        }
    }
    printf("PASS\n");
    return 0;
}
