// Device printf: several threads of one warp (printed in lane order), many formats and
// argument types, strings from constant memory, output flushed at synchronization.
// 930-device-features.c compares the whole stdout with the expected text.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void lanes(int n)
{
    int t = threadIdx.x;
    if (t < n)
        printf("lane %d/%d: %5.2f %s %c\n", t, n, t * 0.25, t & 1 ? "odd" : "even", 'a' + t);
}

__global__ void formats(long long big, double d, float f, unsigned u)
{
    printf("%lld %llu %llx\n", big, (unsigned long long)big, (unsigned long long)big);
    printf("[%8.3f] [%-6d] [%06.1f] [%e] [%g]\n", d, 42, (double)f, d, 0.0001);
    printf("%u %x %X %o %%\n", u, u, u, 8u);
    printf("no arguments\n");
    printf("%s and %s\n", "first", "second");
}

int main(void)
{
    lanes<<<1, 32>>>(4);
    cudaDeviceSynchronize();
    printf("host between\n");
    formats<<<1, 1>>>(-1234567890123ll, 3.14159, 2.5f, 3735928559u);
    cudaDeviceSynchronize();
    printf("feat_printf: PASS\n");
    return 0;
}
