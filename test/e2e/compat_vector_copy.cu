// A ushort4 copied into a uchar4: at -O2 the optimizer makes one <4 x i16> load and one
// <4 x i8> store of it, which the lowering splits into element accesses.
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void k(const unsigned int *in, unsigned int *out)
{
    int i = threadIdx.x;
    ushort4 v = ((const ushort4 *)in)[i];
    ((uchar4 *)out)[i] = make_uchar4(v.x, v.y, v.z, v.w);
}
int main()
{
    unsigned short h[8] = {1, 2, 3, 4, 5, 6, 250, 255};
    unsigned char o[8];
    unsigned int *d, *e;
    cudaMalloc((void **)&d, sizeof h);
    cudaMalloc((void **)&e, sizeof o);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    k<<<1, 2>>>(d, e);
    cudaMemcpy(o, e, sizeof o, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += o[i] != (unsigned char)h[i];
    printf("compat_vector_copy: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
