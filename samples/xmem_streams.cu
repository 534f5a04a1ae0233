// xmem_streams: memory-bound kernels that stream several arrays at once, annotated with
// XMem atoms for XMem's DRAM placement use case. Three input arrays A, B, C and an output
// D of n floats each; two kernels run `reps` times each: add (D = A + B) and triad
// (D = A + 2B - C). Every array is one atom: the inputs are read-only, REGULAR with a
// 4-byte stride, reuse 0 (read once per launch) and access intensity 200 (the program's
// hottest data); D is write-only with intensity 160. All four are active for the whole
// run, so XMem's memory controller may give each hot atom banks of its own instead of
// interleaving the arrays' rows in the same banks (docs/xmem.md). The program checks D
// against the CPU after every launch (small integers: exact) and, through the query API,
// that each array maps to its atom. Usage: xmem_streams [n] [reps]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xgpu/xmem.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void add(const float *a, const float *b, float *d, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        d[i] = a[i] + b[i];
}

__global__ void triad(const float *a, const float *b, const float *c, float *d, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        d[i] = a[i] + 2.0f * b[i] - c[i];
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "xmem_streams: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

static int compare(const float *got, const float *ref, int n, const char *kernel, int rep)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (got[i] != ref[i] && bad++ < 5)
            fprintf(stderr, "xmem_streams: %s %d: d[%d] = %g, expected %g\n", kernel, rep, i,
                    got[i], ref[i]);
    return bad;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20, reps = argc > 2 ? atoi(argv[2]) : 2;
    if (n <= 0 || reps <= 0) {
        fprintf(stderr, "usage: xmem_streams [n > 0] [reps > 0]\n");
        return 2;
    }
    size_t bytes = (size_t)n * sizeof(float);
    float *h[4], *d[4], *ref = (float *)malloc(bytes);
    for (int k = 0; k < 4; k++) {
        h[k] = (float *)malloc(bytes);
        if (!h[k] || !ref || check(cudaMalloc((void **)&d[k], bytes), "cudaMalloc"))
            return 1;
    }
    unsigned seed = 12345;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            h[k][i] = (float)((seed >> 16) % 2001) - 1000.0f; // small integers: exact sums
        }
    for (int k = 0; k < 3; k++)
        cudaMemcpy(d[k], h[k], bytes, cudaMemcpyHostToDevice);

    // One atom per array, all active for the whole run.
    AtomID in[3], out;
    for (int k = 0; k < 3; k++)
        in[k] = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 200, 0, 4});
    out = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_WRITE_ONLY, 160, 0, 4});
    AtomID ids[4] = {in[0], in[1], in[2], out};
    for (int k = 0; k < 4; k++)
        if (check(AtomMap(ids[k], d[k], bytes, 1), "AtomMap") ||
            check(AtomActivate(ids[k]), "AtomActivate"))
            return 1;
    for (int k = 0; k < 4; k++)
        if (xgpuAtomLookup((const char *)d[k] + bytes / 2) != ids[k]) {
            fprintf(stderr, "xmem_streams: array %d does not map to atom %d\n", k, ids[k]);
            return 1;
        }

    int block = 256, grid = 120; // a grid-stride loop over 8 CTAs per SM of 15 SMs
    int bad = 0;
    double cpu = 0;
    for (int r = 0; r < reps && !bad; r++) {
        add<<<grid, block>>>(d[0], d[1], d[3], n);
        if (check(cudaDeviceSynchronize(), "add"))
            return 1;
        cudaMemcpy(h[3], d[3], bytes, cudaMemcpyDeviceToHost);
        double t0 = cpu_seconds();
        for (int i = 0; i < n; i++)
            ref[i] = h[0][i] + h[1][i];
        cpu += cpu_seconds() - t0;
        bad += compare(h[3], ref, n, "add", r);
        triad<<<grid, block>>>(d[0], d[1], d[2], d[3], n);
        if (check(cudaDeviceSynchronize(), "triad"))
            return 1;
        cudaMemcpy(h[3], d[3], bytes, cudaMemcpyDeviceToHost);
        t0 = cpu_seconds();
        for (int i = 0; i < n; i++)
            ref[i] = h[0][i] + 2.0f * h[1][i] - h[2][i];
        cpu += cpu_seconds() - t0;
        bad += compare(h[3], ref, n, "triad", r);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu);
    for (int k = 0; k < 4; k++) {
        AtomDeactivate(ids[k]);
        AtomUnmap(ids[k], d[k], bytes);
        cudaFree(d[k]);
        free(h[k]);
    }
    free(ref);
    printf("xmem_streams n=%d reps=%d: %s\n", n, reps, bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
