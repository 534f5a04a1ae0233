// A 1D three-point stencil iterated with ping-pong buffers: many launches, boundary
// conditions by branch; compared with the CPU within a tolerance (the device may
// contract a*b+c into an FMA).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void step(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float left = i > 0 ? in[i - 1] : in[i];
    float right = i < n - 1 ? in[i + 1] : in[i];
    out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
}

int main(void)
{
    const int n = 777, iters = 20;
    float *h = (float *)malloc(n * sizeof(float)), *tmp = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        h[i] = (i % 17 == 0) ? 100.0f : (float)(i % 5);
    float *a, *b;
    cudaMalloc((void **)&a, n * sizeof(float));
    cudaMalloc((void **)&b, n * sizeof(float));
    cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int t = 0; t < iters; t++) {
        step<<<(n + 63) / 64, 64>>>(a, b, n);
        float *s = a;
        a = b;
        b = s;
        for (int i = 0; i < n; i++) {
            float l = i > 0 ? h[i - 1] : h[i], r = i < n - 1 ? h[i + 1] : h[i];
            tmp[i] = 0.25f * l + 0.5f * h[i] + 0.25f * r;
        }
        float *u = h;
        h = tmp;
        tmp = u;
    }
    float *res = (float *)malloc(n * sizeof(float));
    if (cudaMemcpy(res, a, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf("stencil_iter: FAIL (memcpy)\n");
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (fabsf(res[i] - h[i]) > 1e-4f * (1.0f + fabsf(h[i])))
            bad++;
    printf("stencil_iter: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
