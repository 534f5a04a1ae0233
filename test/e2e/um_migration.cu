// Unified memory residency, for the timing model's migration cost: the program runs four
// kernels whose page faults test/941-unified-memory-timing.c checks in the statistics.
//   1. scale: x written by the host, out never touched  -> x's pages migrate, out's fault
//      without a copy (populated on the device)
//   2. scale again, nothing written by the host         -> no fault
//   3. x prefetched to the device after a host write    -> no fault
//   4. x prefetched to the host (cudaCpuDeviceId)       -> x's pages migrate back
// argv[1]: elements (default 1 << 16).
#include <cstdio>
#include <cstdlib>

__global__ void scale(int n, const float *x, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * x[i];
}

static int fail(const char *what, cudaError_t e)
{
    printf("FAIL: %s: %s\n", what, cudaGetErrorName(e));
    return 1;
}

#define TRY(what, call)                                                                    \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            return fail(what, e_);                                                         \
    } while (0)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
    size_t bytes = n * sizeof(float);
    float *x, *out;
    TRY("cudaMallocManaged x", cudaMallocManaged(&x, bytes));
    TRY("cudaMallocManaged out", cudaMallocManaged(&out, bytes));
    for (int i = 0; i < n; i++)
        x[i] = (float)i;
    for (int round = 1; round <= 4; round++) {
        if (round == 3) {
            x[0] = -1.0f;
            TRY("prefetch to device", cudaMemPrefetchAsync(x, bytes, 0, 0));
        }
        if (round == 4)
            TRY("prefetch to host", cudaMemPrefetchAsync(x, bytes, cudaCpuDeviceId, 0));
        scale<<<32, 256>>>(n, x, out);
        TRY("synchronize", cudaDeviceSynchronize());
        float want0 = round >= 3 ? -2.0f : 0.0f;
        if (out[0] != want0 || out[n - 1] != 2.0f * (n - 1)) {
            printf("FAIL: round %d: out[0] = %g, out[n-1] = %g\n", round, out[0], out[n - 1]);
            return 1;
        }
    }
    TRY("cudaFree x", cudaFree(x));
    TRY("cudaFree out", cudaFree(out));
    printf("PASS\n");
    return 0;
}
