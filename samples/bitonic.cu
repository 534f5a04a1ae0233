// bitonic: bitonic sort of 2^k unsigned keys. Every (size, stride) step of the sorting
// network with a stride of at least BLOCK is one launch doing global-memory
// compare-and-swap (one thread per element; the thread with the lower index of a pair
// does the swap). Once the stride drops below BLOCK, one launch finishes all remaining
// strides of that run size in shared memory, each block on its own BLOCK-element slice
// with a barrier between strides; the first launch sorts every slice the same way.
// Checked exactly against qsort.
// Usage: bitonic [log2 of the key count]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK 256

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "bitonic: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// Orders keys[i] and keys[i ^ stride] for the element pair whose lower index is i; the
// direction alternates between runs of `size` elements.
__global__ void bitonic_global(unsigned *keys, unsigned size, unsigned stride)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = i ^ stride;
    if (j <= i)
        return;
    unsigned a = keys[i], b = keys[j];
    bool up = (i & size) == 0;
    if ((a > b) == up) {
        keys[i] = b;
        keys[j] = a;
    }
}

// All strides below BLOCK for one run size, inside a block's slice of BLOCK elements.
// With size < BLOCK this also covers every smaller run size first (size = 0 asks for the
// full sort of each slice, sizes 2 .. BLOCK).
__global__ void bitonic_shared(unsigned *keys, unsigned size)
{
    __shared__ unsigned s[BLOCK];
    unsigned t = threadIdx.x, base = blockIdx.x * BLOCK;
    s[t] = keys[base + t];
    __syncthreads();
    unsigned first = size ? size : 2, last = size ? size : BLOCK;
    for (unsigned sz = first; sz <= last; sz <<= 1)
        for (unsigned stride = (sz < BLOCK ? sz : BLOCK) >> 1; stride > 0; stride >>= 1) {
            unsigned p = t ^ stride;
            if (p > t) {
                unsigned a = s[t], b = s[p];
                bool up = ((base + t) & sz) == 0;
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    keys[base + t] = s[t];
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int logn = argc > 1 ? atoi(argv[1]) : 17;
    if (logn < 8 || logn > 26) {
        fprintf(stderr, "usage: bitonic [log2 of the key count, 8..26]\n");
        return 2;
    }
    unsigned n = 1u << logn;
    size_t bytes = sizeof(unsigned) * n;
    unsigned *keys = (unsigned *)malloc(bytes), *out = (unsigned *)malloc(bytes);
    unsigned seed = 7;
    for (unsigned i = 0; i < n; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        keys[i] = seed % (4 * n); // some duplicates
    }
    unsigned *dkeys;
    if (check(cudaMalloc(&dkeys, bytes), "cudaMalloc") ||
        check(cudaMemcpy(dkeys, keys, bytes, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;
    unsigned blocks = n / BLOCK;
    int launches = 1;
    bitonic_shared<<<blocks, BLOCK>>>(dkeys, 0);
    for (unsigned size = 2 * BLOCK; size <= n; size <<= 1) {
        for (unsigned stride = size >> 1; stride >= BLOCK; stride >>= 1, launches++)
            bitonic_global<<<blocks, BLOCK>>>(dkeys, size, stride);
        bitonic_shared<<<blocks, BLOCK>>>(dkeys, size);
        launches++;
    }
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel") ||
        check(cudaMemcpy(out, dkeys, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;

    double t0 = cpu_seconds();
    qsort(keys, n, sizeof(unsigned), cmp_unsigned);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int bad = 0;
    for (unsigned i = 0; i < n; i++)
        if (out[i] != keys[i] && bad++ < 5)
            fprintf(stderr, "bitonic: key[%u] = %u, expected %u\n", i, out[i], keys[i]);
    printf("bitonic n=%u launches=%d\n", n, launches);
    if (bad)
        fprintf(stderr, "bitonic: %d keys out of place\n", bad);
    cudaFree(dkeys);
    free(keys);
    free(out);
    printf("bitonic: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
