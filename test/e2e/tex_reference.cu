// Texture references: tex1Dfetch on linear memory (float, int, uchar4 as normalized
// float), tex2D on pitched memory with point and linear filtering, normalized coordinates
// with wrap, clamp, unbind and rebind. Expected values are worked out by hand from the
// fetch rules (docs/textures.md).
#include <cuda_runtime.h>
#include <stdio.h>
#include <math.h>

texture<float, 1, cudaReadModeElementType> tf;
texture<int, 1> ti;
texture<uchar4, 1, cudaReadModeNormalizedFloat> tu;
texture<float, 2, cudaReadModeElementType> t2;

__global__ void fetch1(float *o, int n)
{
    int i = threadIdx.x;
    o[i] = tex1Dfetch(tf, i - 1);                  // -1 and n read 0
    o[32 + i] = (float)tex1Dfetch(ti, i);
    float4 c = tex1Dfetch(tu, i & 3);
    o[64 + i] = c.x + 10 * c.w;
}

__global__ void fetch2(float *o, float x, float y)
{
    o[threadIdx.x] = tex2D(t2, x + threadIdx.x, y);
}

static int bad;
static void expect(const char *what, float got, float want)
{
    if (fabsf(got - want) > 1e-5f * (1 + fabsf(want))) {
        printf("%s: got %.7g, expected %.7g\n", what, got, want);
        bad++;
    }
}

int main()
{
    const int n = 8;
    float hf[n], o[96];
    int hi[32];
    uchar4 hu[4] = {{0, 0, 0, 255}, {255, 0, 0, 0}, {51, 0, 0, 102}, {128, 0, 0, 0}};
    for (int i = 0; i < n; i++) hf[i] = 1.5f * i;
    for (int i = 0; i < 32; i++) hi[i] = -1000 * i;
    float *df, *dout; int *di; uchar4 *du;
    cudaMalloc((void **)&df, sizeof hf); cudaMalloc((void **)&di, sizeof hi);
    cudaMalloc((void **)&du, sizeof hu); cudaMalloc((void **)&dout, sizeof o);
    cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice);
    cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice);
    cudaMemcpy(du, hu, sizeof hu, cudaMemcpyHostToDevice);
    size_t off = 1;
    cudaBindTexture(&off, tf, df, sizeof hf);
    cudaBindTexture(NULL, ti, di, sizeof hi);
    cudaBindTexture(NULL, tu, du, sizeof hu);
    fetch1<<<1, 32>>>(dout, n);
    cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost);
    expect("offset", (float)off, 0);
    expect("tex1Dfetch(-1)", o[0], 0);
    for (int i = 1; i <= n; i++) expect("tex1Dfetch float", o[i], i - 1 < n ? 1.5f * (i - 1) : 0);
    expect("tex1Dfetch(n)", o[n + 1], 0);
    for (int i = 0; i < 32; i++) expect("tex1Dfetch int", o[32 + i], -1000.0f * i);
    float unorm[4] = {0 + 10 * 1.0f, 1.0f, 0.2f + 10 * 0.4f, 128 / 255.0f};
    for (int i = 0; i < 32; i++) expect("tex1Dfetch uchar4 normalized", o[64 + i], unorm[i & 3]);

    // 2D: a 4 x 3 float image in pitched memory; element (x, y) = 10 y + x
    float img[3][4];
    for (int y = 0; y < 3; y++) for (int x = 0; x < 4; x++) img[y][x] = 10 * y + x;
    float *dimg; size_t pitch;
    cudaMallocPitch((void **)&dimg, &pitch, 4 * sizeof(float), 3);
    cudaMemcpy2D(dimg, pitch, img, sizeof img[0], sizeof img[0], 3, cudaMemcpyHostToDevice);
    t2.filterMode = cudaFilterModePoint;
    cudaBindTexture2D(NULL, t2, dimg, 4, 3, pitch);
    fetch2<<<1, 6>>>(dout, -0.5f, 1.7f);             // x = -0.5 .. 4.5: clamped at both ends
    cudaMemcpy(o, dout, 6 * sizeof(float), cudaMemcpyDeviceToHost);
    float point[6] = {10, 10, 11, 12, 13, 13};
    for (int i = 0; i < 6; i++) expect("tex2D point clamp", o[i], point[i]);

    t2.filterMode = cudaFilterModeLinear;              // rebinding reads the new attributes
    cudaBindTexture2D(NULL, t2, dimg, 4, 3, pitch);
    fetch2<<<1, 3>>>(dout, 1.0f, 1.5f);               // x = 1, 2, 3 (halfway), y = 1.5 (texel 1)
    cudaMemcpy(o, dout, 3 * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 3; i++) expect("tex2D linear halfway", o[i], 10 + 0.5f + i);
    fetch2<<<1, 1>>>(dout, 0.8f, 0.5f);               // x - 0.5 = 0.3: fraction 77/256
    cudaMemcpy(o, dout, sizeof(float), cudaMemcpyDeviceToHost);
    expect("tex2D linear 8-bit fraction", o[0], 77.0f / 256.0f);

    t2.normalized = 1;                                 // normalized coordinates, wrap
    t2.filterMode = cudaFilterModePoint;
    t2.addressMode[0] = t2.addressMode[1] = cudaAddressModeWrap;
    cudaBindTexture2D(NULL, t2, dimg, 4, 3, pitch);
    fetch2<<<1, 1>>>(dout, 1.375f, 0.5f);             // x 0.375 -> 1.5, y 0.5 -> 1.5
    cudaMemcpy(o, dout, sizeof(float), cudaMemcpyDeviceToHost);
    expect("tex2D normalized wrap", o[0], 11);

    int ok = cudaUnbindTexture(tf) == cudaSuccess && cudaBindTexture(NULL, tf, df, sizeof hf) == cudaSuccess;
    if (!ok) { printf("unbind/rebind failed\n"); bad++; }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error: %s\n", cudaGetErrorString(e)); bad++; }
    printf("tex_reference: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
