// Device functions, 64-bit integer and double arithmetic, loops with per-thread trip
// counts, a struct passed by value, and a __device__ table with an initializer.
#include <cuda_runtime.h>
#include <stdio.h>

struct Params {
    int scale;
    double offset;
    long long modulus;
};

__device__ int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

__device__ unsigned long long collatz_steps(unsigned long long x)
{
    unsigned long long steps = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        steps++;
    }
    return steps;
}

__global__ void work(long long *out, double *dout, Params p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long s = collatz_steps((unsigned long long)i + 1);
    long long v = ((long long)s * p.scale + table[i & 7]) % p.modulus;
    out[i] = v;
    dout[i] = (double)v * 0.5 + p.offset;
}

static unsigned long long host_steps(unsigned long long x)
{
    unsigned long long s = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        s++;
    }
    return s;
}

int main(void)
{
    const int n = 1000;
    static const int tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
    Params p = {1000003, 0.25, 1000000007LL};
    long long *d;
    double *dd;
    static long long h[1000];
    static double hd[1000];
    cudaMalloc((void **)&d, n * sizeof(long long));
    cudaMalloc((void **)&dd, n * sizeof(double));
    work<<<(n + 127) / 128, 128>>>(d, dd, p, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        long long v = ((long long)host_steps(i + 1) * p.scale + tab[i & 7]) % p.modulus;
        if (h[i] != v || hd[i] != (double)v * 0.5 + p.offset)
            bad++;
    }
    printf("int64_devfn: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
