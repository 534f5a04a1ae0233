// Texture and surface objects on CUDA arrays: a 2D float array read with border, clamp
// and mirror addressing and bilinear filtering; a 3D array read with trilinear filtering
// (cudaMalloc3DArray, cudaMemcpy3D); tex1Dfetch<float4> on linear memory; a surface
// object written and read back, a surface reference, boundary modes; the descriptors read
// back; bad handles and formats rejected. Expected values are worked out by hand.
#include <cuda_runtime.h>
#include <stdio.h>
#include <math.h>

surface<void, 2> sref;

__global__ void sample2(float *o, cudaTextureObject_t t, float x, float y, float dx)
{
    o[threadIdx.x] = tex2D<float>(t, x + dx * threadIdx.x, y);
}
__global__ void sample3(float *o, cudaTextureObject_t t, float x, float y, float z)
{
    o[0] = tex3D<float>(t, x, y, z);
}
__global__ void fetch4(float *o, cudaTextureObject_t t)
{
    float4 v = tex1Dfetch<float4>(t, threadIdx.x);
    o[threadIdx.x] = v.x + v.y + v.z + v.w;
}
__global__ void surf(cudaSurfaceObject_t s, float *o)
{
    int x = threadIdx.x, y = threadIdx.y;
    surf2Dwrite(100.0f * y + x, s, x * 4, y);
    surf2Dwrite(-1.0f, s, 400, y, cudaBoundaryModeZero);       // dropped
    __syncthreads();
    float v = surf2Dread<float>(s, (3 - x) * 4, y);
    float z = surf2Dread<float>(s, 400, y, cudaBoundaryModeZero);
    float c = surf2Dread<float>(s, 400, y, cudaBoundaryModeClamp);
    o[y * 4 + x] = v + z;
    o[16 + y] = c;
}
__global__ void surfref(float *o)
{
    int x = threadIdx.x;
    float v;
    surf2Dwrite(7.0f + x, sref, x * 4, 1);
    surf2Dread(&v, sref, x * 4, 1);
    o[x] = v;
}

static int bad;
static void expect(const char *what, float got, float want)
{
    if (fabsf(got - want) > 1e-5f * (1 + fabsf(want))) {
        printf("%s: got %.7g, expected %.7g\n", what, got, want);
        bad++;
    }
}

static cudaTextureObject_t make2(cudaArray_t a, cudaTextureAddressMode am, cudaTextureFilterMode f,
                                 int norm)
{
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc t = {};
    t.addressMode[0] = t.addressMode[1] = am;
    t.filterMode = f;
    t.readMode = cudaReadModeElementType;
    t.normalizedCoords = norm;
    t.borderColor[0] = -5;
    cudaTextureObject_t o = 0;
    if (cudaCreateTextureObject(&o, &r, &t, NULL) != cudaSuccess) { printf("create failed\n"); bad++; }
    return o;
}

int main()
{
    float *d; cudaMalloc((void **)&d, 64 * sizeof(float));
    float o[64];
    // a 4 x 2 float array: element (x, y) = 10 y + x
    float img[2][4] = {{0, 1, 2, 3}, {10, 11, 12, 13}};
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    cudaMallocArray(&a, &fd, 4, 2);
    cudaMemcpy2DToArray(a, 0, 0, img, sizeof img[0], sizeof img[0], 2, cudaMemcpyHostToDevice);

    cudaTextureObject_t border = make2(a, cudaAddressModeBorder, cudaFilterModePoint, 0);
    sample2<<<1, 6>>>(d, border, -0.5f, 1.2f, 1.0f);    // x -0.5 .. 4.5
    cudaMemcpy(o, d, 6 * sizeof(float), cudaMemcpyDeviceToHost);
    float wb[6] = {-5, 10, 11, 12, 13, -5};
    for (int i = 0; i < 6; i++) expect("border", o[i], wb[i]);

    cudaTextureObject_t mirror = make2(a, cudaAddressModeMirror, cudaFilterModePoint, 1);
    sample2<<<1, 4>>>(d, mirror, 1.125f, 0.25f, 0.25f);  // x 1.125 .. 1.875 mirrors to .875 .. .125
    cudaMemcpy(o, d, 4 * sizeof(float), cudaMemcpyDeviceToHost);
    float wm[4] = {3, 2, 1, 0};
    for (int i = 0; i < 4; i++) expect("mirror", o[i], wm[i]);

    cudaTextureObject_t lin = make2(a, cudaAddressModeClamp, cudaFilterModeLinear, 0);
    sample2<<<1, 2>>>(d, lin, 1.0f, 1.0f, 2.5f);         // (1, 1): mean of 4 texels; (3.5, 1)
    cudaMemcpy(o, d, 2 * sizeof(float), cudaMemcpyDeviceToHost);
    expect("bilinear", o[0], (0 + 1 + 10 + 11) / 4.0f);
    expect("bilinear on a texel centre", o[1], (3 + 13) / 2.0f);

    cudaResourceDesc back;
    if (cudaGetTextureObjectResourceDesc(&back, lin) != cudaSuccess || back.res.array.array != a) {
        printf("resource desc not read back\n"); bad++;
    }
    cudaDestroyTextureObject(border);
    if (cudaDestroyTextureObject(border) != cudaErrorInvalidResourceHandle ||
        cudaDestroyTextureObject(12345) != cudaErrorInvalidResourceHandle) {
        printf("bad texture handles accepted\n"); bad++;
    }
    cudaGetLastError();

    // 3D: 2 x 2 x 2, element = 100 z + 10 y + x; the centre is the mean of all 8
    float vol[8];
    for (int i = 0; i < 8; i++) vol[i] = 100 * (i >> 2) + 10 * ((i >> 1) & 1) + (i & 1);
    cudaArray_t a3;
    cudaMalloc3DArray(&a3, &fd, make_cudaExtent(2, 2, 2));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(vol, 2 * sizeof(float), 2, 2);
    p.dstArray = a3;
    p.extent = make_cudaExtent(2, 2, 2);
    p.kind = cudaMemcpyHostToDevice;
    if (cudaMemcpy3D(&p) != cudaSuccess) { printf("cudaMemcpy3D failed\n"); bad++; }
    cudaResourceDesc r3 = {};
    r3.resType = cudaResourceTypeArray;
    r3.res.array.array = a3;
    cudaTextureDesc td = {};
    td.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t t3;
    cudaCreateTextureObject(&t3, &r3, &td, NULL);
    sample3<<<1, 1>>>(d, t3, 1.0f, 1.0f, 1.0f);
    cudaMemcpy(o, d, sizeof(float), cudaMemcpyDeviceToHost);
    expect("trilinear", o[0], (0 + 1 + 10 + 11 + 100 + 101 + 110 + 111) / 8.0f);

    // linear memory read as float4
    float4 lin4[32];
    for (int i = 0; i < 32; i++) lin4[i] = make_float4(i, 1, 2, 3);
    float4 *dl; cudaMalloc((void **)&dl, sizeof lin4);
    cudaMemcpy(dl, lin4, sizeof lin4, cudaMemcpyHostToDevice);
    cudaResourceDesc rl = {};
    rl.resType = cudaResourceTypeLinear;
    rl.res.linear.devPtr = dl;
    rl.res.linear.desc = cudaCreateChannelDesc<float4>();
    rl.res.linear.sizeInBytes = sizeof lin4;
    cudaTextureDesc tl = {};
    cudaTextureObject_t t4;
    cudaCreateTextureObject(&t4, &rl, &tl, NULL);
    fetch4<<<1, 32>>>(d, t4);
    cudaMemcpy(o, d, 32 * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; i++) expect("tex1Dfetch<float4>", o[i], i + 6.0f);

    // surfaces on a 4 x 4 float array
    cudaArray_t sa;
    cudaMallocArray(&sa, &fd, 4, 4, cudaArraySurfaceLoadStore);
    cudaResourceDesc rs = {};
    rs.resType = cudaResourceTypeArray;
    rs.res.array.array = sa;
    cudaSurfaceObject_t so;
    cudaCreateSurfaceObject(&so, &rs);
    surf<<<1, dim3(4, 4)>>>(so, d);
    cudaMemcpy(o, d, 20 * sizeof(float), cudaMemcpyDeviceToHost);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) expect("surface read back", o[y * 4 + x], 100.0f * y + 3 - x);
    for (int y = 0; y < 4; y++) expect("surface clamp", o[16 + y], 100.0f * y + 3);
    float back2[4][4];
    cudaMemcpy2DFromArray(back2, sizeof back2[0], sa, 0, 0, sizeof back2[0], 4, cudaMemcpyDeviceToHost);
    expect("array copied back", back2[2][1], 201);
    cudaBindSurfaceToArray(sref, sa);
    surfref<<<1, 4>>>(d);
    cudaMemcpy(o, d, 4 * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 4; i++) expect("surface reference", o[i], 7.0f + i);

    // rejected: a 3-channel format, linear filtering of integers
    cudaArray_t bad3;
    cudaChannelFormatDesc three = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
    if (cudaMallocArray(&bad3, &three, 4, 4) != cudaErrorInvalidChannelDescriptor) { printf("3 channels accepted\n"); bad++; }
    cudaChannelFormatDesc i8 = cudaCreateChannelDesc<int>();
    cudaArray_t ai;
    cudaMallocArray(&ai, &i8, 4);
    cudaResourceDesc ri = {};
    ri.resType = cudaResourceTypeArray;
    ri.res.array.array = ai;
    cudaTextureDesc tli = {};
    tli.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t tbad;
    if (cudaCreateTextureObject(&tbad, &ri, &tli, NULL) != cudaErrorInvalidFilterSetting) { printf("linear int accepted\n"); bad++; }
    tli.filterMode = cudaFilterModePoint;
    tli.readMode = cudaReadModeNormalizedFloat;
    if (cudaCreateTextureObject(&tbad, &ri, &tli, NULL) != cudaErrorInvalidNormSetting) { printf("normalized int32 accepted\n"); bad++; }
    texture<float, 1> unregistered;
    if (cudaBindTexture(NULL, unregistered, dl, 16) != cudaErrorInvalidTexture) { printf("unregistered reference bound\n"); bad++; }
    cudaGetLastError();
    cudaFreeArray(a); cudaFreeArray(a3); cudaFreeArray(sa); cudaFreeArray(ai);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error: %s\n", cudaGetErrorString(e)); bad++; }
    printf("tex_object: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
