// xmem_tile: XMem's tiling experiment (ISCA 2018, use case 1: cache management). A float
// array is processed in `tiles` consecutive tiles of `tile_kb` KB, one launch per tile. In
// each launch every CTA re-reads the whole tile `reps` times straight from global memory
// (no shared-memory staging), each thread striding over it with four loads in flight, and
// accumulates a weighted sum (pass r weighs the tile by r + 1), so every L1 sees the tile
// cyclically: a tile that fits hits from its second pass on, one larger than the L1
// thrashes it under LRU and hits nothing. CTA b starts each pass at chunk b * chunks / grid
// of the tile (a chunk is 1 KB, one float per thread) and wraps around; CTAs go out round
// robin, so the two CTAs an SM holds (b and b + SMs) stay about half a tile apart and do not
// hit each other's fresh lines: the reuse an L1 sees is the tile's, one tile apart.
// Around each launch the host maps the tile to one atom (created in the tile loop: float,
// REGULAR with stride 4, read only, intensity 255, reuse 255), activates it, and afterwards
// deactivates and unmaps it. With xmem.mode = cache the caches pin the part of an active,
// reused atom that fits (docs/xmem.md), so a tile larger than the L1 keeps hitting in that
// part instead of thrashing. The per-CTA results go to a second atom (write only, reuse 0:
// streamed past the caches), mapped and active throughout.
// The tile's values are small integers, so every sum is exact in any order: the program
// checks each CTA's result exactly against a CPU reference and, through the runtime's
// query API, that during each phase the tile atom is active and maps exactly that tile.
// Usage: xmem_tile [tile_kb=8] [reps=8] [tiles=4]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xgpu/xmem.h>

#define THREADS 256     // threads per CTA
#define CTAS_PER_SM 2   // CTAs per launch: this many per SM, enough to fill the GPU

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// One pass of a thread over `chunks` consecutive chunks of the tile (a chunk is THREADS
// floats, 8 lines; the thread reads its float of each), four loads in flight at a time.
__device__ float pass(const float *p, int chunks)
{
    float s = 0.0f;
    int c = 0;
    for (; c + 4 <= chunks; c += 4, p += 4 * THREADS)
        s += (p[0] + p[THREADS]) + (p[2 * THREADS] + p[3 * THREADS]);
    for (; c < chunks; c++, p += THREADS)
        s += *p;
    return s;
}

// out[blockIdx.x] = sum over r < reps of (r + 1) * sum(tile[0..n)), n a multiple of
// THREADS. A pass starts at the CTA's own chunk c0 and wraps around. Each thread keeps an
// exact float partial (the host bounds it below 2^24); the CTA adds the partials as
// integers.
__global__ void tile_dot(const float *tile, int n, int reps, unsigned *out)
{
    __shared__ unsigned part[THREADS];
    int chunks = n / THREADS, c0 = (int)((long long)blockIdx.x * chunks / gridDim.x);
    const float *mine = tile + threadIdx.x;
    float acc = 0.0f;
    for (int r = 0; r < reps; r++)
        acc += (float)(r + 1) * (pass(mine + c0 * THREADS, chunks - c0) + pass(mine, c0));
    part[threadIdx.x] = (unsigned)acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

static int fail(const char *what)
{
    fprintf(stderr, "xmem_tile: %s\n", what);
    return 1;
}

// The runtime's view of the tile atom during (active, one range of the tile) or after
// (inactive, nothing mapped) a phase.
static int check_tile_atom(AtomID id, const float *tile, size_t bytes, int active)
{
    XAtomInfo in;
    XAtomRange r = {0, 0};
    uint8_t ast[32];
    if (xgpuAtomQuery(id, &in) != cudaSuccess)
        return fail("atom query failed");
    xgpuAtomStatus(ast);
    int nr = xgpuAtomRanges(id, &r, 1);
    int bit = ast[id / 8] >> (id % 8) & 1;
    const char *end = (const char *)tile + bytes;
    int ok = in.created && in.active == active && bit == active &&
             in.attrs.value_props == XMEM_F32 && in.attrs.pattern == XMEM_REGULAR &&
             in.attrs.stride == 4 && in.attrs.rw == XMEM_READ_ONLY &&
             in.attrs.intensity == 255 && in.attrs.reuse == 255 && in.attrs.elem_size == 4;
    if (active)
        ok = ok && in.nranges == 1 && nr == 1 && in.mapped_bytes == bytes &&
             r.base == (uint64_t)(uintptr_t)tile && r.bytes == bytes &&
             xgpuAtomLookup(tile) == id && xgpuAtomLookup(end - 1) == id &&
             xgpuAtomLookup(end) != id && xgpuAtomLookup((const char *)tile - 1) != id;
    else
        ok = ok && in.nranges == 0 && nr == 0 && in.mapped_bytes == 0 &&
             xgpuAtomLookup(tile) != id;
    if (!ok)
        fprintf(stderr, "xmem_tile: tile atom %u: active %d (AST bit %d), %zu ranges, %llu "
                "bytes mapped; expected active %d and %s\n", id, in.active, bit, in.nranges,
                (unsigned long long)in.mapped_bytes, active,
                active ? "exactly the current tile mapped" : "nothing mapped");
    return !ok;
}

int main(int argc, char **argv)
{
    int tile_kb = argc > 1 ? atoi(argv[1]) : 8, reps = argc > 2 ? atoi(argv[2]) : 8;
    int tiles = argc > 3 ? atoi(argv[3]) : 4;
    if (tile_kb < 1 || tile_kb > 4096 || reps < 1 || reps > 256 || tiles < 1 || tiles > 256) {
        fprintf(stderr, "usage: xmem_tile [tile_kb 1..4096 [reps 1..256 [tiles 1..256]]]\n");
        return 1;
    }
    int n = tile_kb * 256; // floats per tile, a multiple of THREADS
    // Every value is at most 15: a CTA's result stays below 2^32 and a thread's partial
    // (1/THREADS of it) below 2^24, so both are exact.
    if ((double)reps * (reps + 1) / 2 * 15 * n >= 4294967296.0)
        return fail("reps * (reps + 1) * tile_kb must stay below 2236962 (exact sums)");

    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0))
        return fail("no device");
    int grid = CTAS_PER_SM * prop.multiProcessorCount;

    size_t total = (size_t)n * tiles, tile_bytes = sizeof(float) * n;
    size_t out_bytes = sizeof(unsigned) * grid * tiles;
    float *h = (float *)malloc(sizeof(float) * total);
    unsigned *res = (unsigned *)malloc(out_bytes);
    unsigned seed = 4242;
    for (size_t i = 0; i < total; i++)
        h[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 15);
    float *d;
    unsigned *dout;
    if (cudaMalloc((void **)&d, sizeof(float) * total) || cudaMalloc((void **)&dout, out_bytes) ||
        cudaMemcpy(d, h, sizeof(float) * total, cudaMemcpyHostToDevice) ||
        cudaMemset(dout, 0, out_bytes))
        return fail("setup failed");

    // The results: written once, never read back by the device.
    AtomID out_atom = CreateAtom(XMEM_ATTRS(XMEM_I32, XMEM_REGULAR, 4, XMEM_WRITE_ONLY, 1, 0, 4));
    if (AtomMap(out_atom, dout, out_bytes, 1) || AtomActivate(out_atom))
        return fail("map of the output failed");

    int bad = 0;
    AtomID first = XMEM_NO_ATOM;
    for (int t = 0; t < tiles; t++) {
        // This phase's tile: a static atom, the same ID every iteration.
        AtomID tile_atom = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 255, 255, 4});
        if (t == 0)
            first = tile_atom;
        bad |= tile_atom != first || tile_atom == XMEM_NO_ATOM;
        const float *tile = d + (size_t)t * n;
        if (AtomMap(tile_atom, tile, tile_bytes, 1) || AtomActivate(tile_atom))
            return fail("phase map failed");
        bad |= check_tile_atom(tile_atom, tile, tile_bytes, 1);
        tile_dot<<<grid, THREADS>>>(tile, n, reps, dout + (size_t)t * grid);
        if (AtomDeactivate(tile_atom) || AtomUnmap(tile_atom, tile, tile_bytes))
            return fail("phase unmap failed");
        bad |= check_tile_atom(tile_atom, tile, tile_bytes, 0);
    }
    if (cudaGetLastError() || cudaDeviceSynchronize() ||
        cudaMemcpy(res, dout, out_bytes, cudaMemcpyDeviceToHost))
        return fail("kernel failed");
    bad |= xgpuAtomCount() != 2 || xgpuAtomLookup(dout + 3) != out_atom;
    if (bad)
        fprintf(stderr, "xmem_tile: the runtime's atom state is not what the program did\n");

    double t0 = cpu_seconds();
    int wrong = 0;
    for (int t = 0; t < tiles; t++) {
        unsigned long long sum = 0;
        for (int i = 0; i < n; i++)
            sum += (unsigned long long)h[(size_t)t * n + i];
        unsigned long long ref = sum * reps * (reps + 1) / 2;
        for (int b = 0; b < grid; b++)
            if (res[(size_t)t * grid + b] != ref && wrong++ < 5)
                fprintf(stderr, "xmem_tile: tile %d CTA %d: %u, expected %llu\n", t, b,
                        res[(size_t)t * grid + b], ref);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("xmem_tile tile=%dKB reps=%d tiles=%d ctas=%d atoms=%d\n", tile_kb, reps, tiles,
           grid, xgpuAtomCount());
    cudaFree(d);
    cudaFree(dout);
    free(h);
    free(res);
    bad |= wrong != 0;
    printf("xmem_tile: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
