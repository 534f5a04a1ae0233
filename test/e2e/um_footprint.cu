// Managed memory is held once: the host writes every byte of a large managed block, a
// kernel reads one word of every 4 KiB and writes a sum, and the process's peak resident
// size must not grow by the block's size over the launch (as it would if the device kept
// a second copy). Prints the block's size and the growth in KiB. argv[1]: MiB (64).
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>

__global__ void sample(const unsigned *x, size_t words, unsigned *sum)
{
    size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 1024; // 4 KiB apart
    if (i < words)
        atomicAdd(sum, x[i]);
}

static long peak_kib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss; // KiB on Linux
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64;
    size_t words = mib << 18;
    unsigned *x, *sum;
    if (cudaMallocManaged(&x, words * sizeof *x) != cudaSuccess ||
        cudaMallocManaged(&sum, sizeof *sum) != cudaSuccess) {
        printf("FAIL: cudaMallocManaged\n");
        return 1;
    }
    for (size_t i = 0; i < words; i++)
        x[i] = (unsigned)(i / 1024 % 7 + 1);
    *sum = 0;
    long before = peak_kib();
    size_t pieces = words / 1024;
    sample<<<(unsigned)((pieces + 255) / 256), 256>>>(x, words, sum);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("FAIL: launch\n");
        return 1;
    }
    unsigned want = 0;
    for (size_t p = 0; p < pieces; p++)
        want += x[p * 1024];
    long after = peak_kib();
    int ok = *sum == want;
    printf("size_kib: %zu\ngrowth_kib: %ld\n%s\n", mib << 10, after - before,
           ok ? "PASS" : "FAIL: wrong sum");
    cudaFree(x);
    cudaFree(sum);
    return ok ? 0 : 1;
}
