// ld_state: per-channel magnitude histograms of a stream of 32-bit samples, annotated with
// Locality Descriptors. Thread t owns channel t: each step it reads the channel's next
// record of RECORD samples and counts each sample in one of BINS classes of magnitude
// (floor(log2 v) / 4: a base-16 log histogram, as telemetry keeps for latencies or sizes)
// in the channel's own histogram in global memory, BINS words = one 32-byte sector per
// thread. The bin depends on the data, so the histogram cannot live in registers, and it
// must outlive the kernel: the stream comes in two batches, one launch each, and the
// second launch continues the first's counts. The samples are record-major (sample k of
// step s of every channel side by side), so a warp's read is one line, used once.
// Each step a warp streams RECORD lines of samples past its 8 lines of histograms, which it
// then reads and writes RECORD times: with a few warps per SM the stream between two steps
// outgrows a 16 KB - 32 KB L1 and evicts the histograms that the next step needs again.
// Descriptors: the histograms are INTRA_THREAD (each thread rereads only its own words; no
// sharing, no pattern), D-Tile of BINS x BLOCK words (a CTA's threads' histograms,
// contiguous), C-Tile of one CTA, priority 3: worth pinning. Each batch of samples is
// NO_REUSE, priority 0: read once, so it may bypass the L1; a NO_REUSE structure's tiles
// carry nothing (bypassing needs no tile): the whole batch and the whole grid. The
// histograms' descriptor is specified once and stays in force; the batch's is
// re-specified before the second launch.
// The program checks every histogram exactly against the CPU and, through the runtime's
// query API, that each launch recorded the descriptors it specified.
// Usage: ld_state [channels=4096] [steps=32 (even; half per launch)]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xgpu/ldesc.h>

#define BINS 8    // classes per histogram: BINS words, one sector
#define RECORD 16 // samples per channel and step
#define BLOCK 128

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
    fprintf(stderr, "ld_state: %s\n", what);
    return 1;
}

__global__ void classify(const unsigned *samples, int channels, int steps, unsigned *hist)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= channels)
        return;
    unsigned *h = hist + (size_t)t * BINS;
    for (int s = 0; s < steps; s++) {
        unsigned v[RECORD];
        for (int k = 0; k < RECORD; k++)
            v[k] = samples[((size_t)s * RECORD + k) * channels + t];
        for (int k = 0; k < RECORD; k++)
            h[(31 - __clz(v[k] | 1)) / 4]++;
    }
}

// The descriptors of one launch: the batch's before every launch, the histograms' before
// the first launch only (they stay in force).
static cudaError_t describe(const unsigned *batch, int channels, int steps,
                            const unsigned *hist, int blocks, int first)
{
    XLDTile all = {{(uint32_t)channels, (uint32_t)(RECORD * steps), 1},
                   {(uint32_t)blocks, 1, 1}};
    cudaError_t e = LocalityDescriptor(classify, batch,
                                       sizeof(unsigned) * channels * RECORD * steps, &all, 0,
                                       XLD_NO_REUSE, XLD_SHARING_NONE, XLD_PATTERN_NONE,
                                       XLD_MAP(1, 0, 0), 0, sizeof(unsigned));
    if (e != cudaSuccess || !first)
        return e;
    XLDTile own = {{BINS, BLOCK, 1}, {1, 1, 1}};
    return LocalityDescriptor(classify, hist, sizeof(unsigned) * BINS * channels, &own, 0,
                              XLD_INTRA_THREAD, XLD_SHARING_NONE, XLD_PATTERN_NONE,
                              XLD_MAP(1, 0, 0), 3, sizeof(unsigned));
}

// The runtime's record of launch `expect` against what describe() specified, in the order
// they were first specified: the batch, then the histograms.
static int check_launch(uint64_t expect, const unsigned *batch, int channels, int steps,
                        const unsigned *hist, int blocks)
{
    XLDescInfo d[4];
    uint64_t launch;
    int n = xgpuLDescLastLaunch((const void *)classify, d, 4, &launch);
    const XLDescInfo *b = &d[0], *h = &d[1];
    int ok = n == 2 && launch == expect && xgpuLDescCount() == 2 &&
             b->s.locality == XLD_NO_REUSE && b->s.sharing == XLD_SHARING_NONE &&
             b->s.pattern == XLD_PATTERN_NONE && b->s.priority == 0 &&
             b->base == (uint64_t)(uintptr_t)batch &&
             b->bytes == sizeof(unsigned) * channels * RECORD * steps &&
             b->tile.dtile[1] == (uint32_t)(RECORD * steps) &&
             b->tile.ctile[0] == (uint32_t)blocks && h->s.locality == XLD_INTRA_THREAD &&
             h->s.sharing == XLD_SHARING_NONE && h->s.pattern == XLD_PATTERN_NONE &&
             h->s.priority == 3 && h->s.map[0] == 1 && h->s.map[1] == 0 &&
             h->s.elem_size == sizeof(unsigned) && h->base == (uint64_t)(uintptr_t)hist &&
             h->bytes == sizeof(unsigned) * BINS * channels && h->tile.dtile[0] == BINS &&
             h->tile.dtile[1] == BLOCK && h->tile.ctile[0] == 1 && h->tile.ctile[1] == 1 &&
             h->stride == 0 && strstr(h->kernel_name, "classify");
    if (!ok)
        fprintf(stderr, "ld_state: launch %llu recorded %d descriptors, not the ones "
                "specified\n", (unsigned long long)launch, n);
    return !ok;
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8; // 24 bits
}

// 0..m-1 from the generator's high bits (its low bits repeat with short periods).
static unsigned below(unsigned *s, unsigned m)
{
    return (unsigned)((unsigned long long)lcg(s) * m >> 24);
}

int main(int argc, char **argv)
{
    int channels = argc > 1 ? atoi(argv[1]) : 4096, steps = argc > 2 ? atoi(argv[2]) : 32;
    if (channels < 1 || channels > (1 << 20) || steps < 2 || steps > 4096 || steps % 2 ||
        (size_t)channels * steps > ((size_t)1 << 21)) {
        fprintf(stderr, "usage: ld_state [channels 1..1048576 [steps 2..4096, even]] "
                "(channels * steps <= 2^21)\n");
        return 2;
    }
    // A sample of channel t: 32 random bits shifted right by fewer than 8 + t % 24 places,
    // so the channels' histograms differ.
    size_t count = (size_t)channels * steps * RECORD;
    unsigned *in = (unsigned *)malloc(sizeof(unsigned) * count);
    unsigned *got = (unsigned *)malloc(sizeof(unsigned) * BINS * channels);
    unsigned *ref = (unsigned *)calloc((size_t)BINS * channels, sizeof(unsigned));
    if (!in || !got || !ref)
        return fail("out of host memory");
    unsigned seed = 4242u;
    for (size_t i = 0; i < count; i++) {
        unsigned hi = lcg(&seed) << 8, lo = lcg(&seed);
        in[i] = (hi ^ lo) >> below(&seed, 8 + i % channels % 24);
    }
    unsigned *din, *dhist;
    if (cudaMalloc((void **)&din, sizeof(unsigned) * count) ||
        cudaMalloc((void **)&dhist, sizeof(unsigned) * BINS * channels) ||
        cudaMemset(dhist, 0, sizeof(unsigned) * BINS * channels) ||
        cudaMemcpy(din, in, sizeof(unsigned) * count, cudaMemcpyHostToDevice))
        return fail("setup failed");
    int blocks = (channels + BLOCK - 1) / BLOCK, half = steps / 2, bad = 0;
    for (int l = 0; l < 2; l++) {
        const unsigned *batch = din + (size_t)l * half * RECORD * channels;
        if (describe(batch, channels, half, dhist, blocks, l == 0) != cudaSuccess)
            return fail("LocalityDescriptor failed");
        classify<<<blocks, BLOCK>>>(batch, channels, half, dhist);
        if (cudaGetLastError() != cudaSuccess)
            return fail("launch failed");
        bad |= check_launch((uint64_t)l + 1, batch, channels, half, dhist, blocks);
    }
    if (cudaMemcpy(got, dhist, sizeof(unsigned) * BINS * channels, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    double t0 = cpu_seconds();
    for (size_t i = 0; i < count; i++) {
        unsigned v = in[i] | 1, lg = 0;
        while (v >>= 1)
            lg++;
        ref[i % channels * BINS + lg / 4]++;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int wrong = 0;
    size_t counted = 0;
    for (int i = 0; i < BINS * channels; i++) {
        counted += got[i];
        if (got[i] != ref[i] && wrong++ < 5)
            fprintf(stderr, "ld_state: channel %d class %d = %u, expected %u\n", i / BINS,
                    i % BINS, got[i], ref[i]);
    }
    printf("ld_state %d channels, %d steps of %d samples, %zu samples counted\n", channels,
           steps, RECORD, counted);
    cudaFree(din);
    cudaFree(dhist);
    free(in), free(got), free(ref);
    if (wrong)
        fprintf(stderr, "ld_state: %d counts differ from the CPU\n", wrong);
    bad |= wrong != 0;
    printf("ld_state: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
