// cuda_runtime.h alone brings in what NVIDIA's does for host code: <string.h>, <time.h>,
// <stdlib.h>, <stdio.h>, <math.h>, <limits.h>, <stddef.h> and, in C++, <new>. This file
// includes nothing else and uses each of them, on the host and in a kernel.
#include <cuda_runtime.h>

struct Rec {
    char tag[8];
    int value;
};

__global__ void fill(Rec *r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        r[i].value = (int)sqrt((double)(i * i)) + INT_MAX / INT_MAX; /* i + 1 */
}

int main()
{
    int bad = 0;
    srand((unsigned)time(NULL));
    int r = rand();
    bad += r < 0 || r > RAND_MAX;

    const int n = 64;
    Rec *h = (Rec *)malloc(n * sizeof(Rec));
    memset(h, 0, n * sizeof(Rec));
    strncpy(h[0].tag, "first", sizeof h[0].tag);
    memcpy(h[1].tag, h[0].tag, sizeof h[0].tag);
    bad += strcmp(h[1].tag, "first") != 0 || strlen(h[1].tag) != 5;
    bad += offsetof(Rec, value) != 8;

    Rec *d;
    cudaMalloc((void **)&d, n * sizeof(Rec));
    cudaMemcpy(d, h, n * sizeof(Rec), cudaMemcpyHostToDevice);
    fill<<<2, 32>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(Rec), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i].value != i + 1;
    bad += strcmp(h[0].tag, "first") != 0;

    /* <new>: placement new into host memory */
    double *x = new (malloc(sizeof(double))) double(fabs(-2.5) + floor(0.5));
    bad += *x != 2.5;
    free(x);

    clock_t c = clock(); /* <time.h>'s host clock beside the device clock() */
    bad += c == (clock_t)-1;
    cudaFree(d);
    free(h);
    printf("hdr_libc: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
