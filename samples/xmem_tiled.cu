// xmem_tiled: a tiled matrix multiply C = A * B annotated with XMem atoms. The work runs
// in phases, one launch per band of TILE rows of C; around each phase the host maps the
// band of A that the phase reads (Atom2DMap of its TILE-row block) to the atom of the A
// tiles and activates it, maps all of B to the atom of the B tiles (read column-wise,
// stride N floats), and deactivates and unmaps after the phase. The program checks C
// against a double-precision CPU reference and, through the runtime's query API, that
// the runtime holds its atoms: stable IDs (CreateAtom in the phase loop returns the same
// ID every time), the attributes written below, the mapped ranges and the active state.
// The matrices are N x N with N fixed at compile time, since an atom's stride attribute is a
// compile-time constant. Usage: xmem_tiled
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xgpu/xmem.h>

#define TILE 16
#define N 64

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// One band of TILE rows of C, starting at row0.
__global__ void band_matmul(const float *A, const float *B, float *C, int row0)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = row0 + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < N; t += TILE) {
        as[threadIdx.y][threadIdx.x] = A[row * N + t + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

static int fail(const char *what)
{
    fprintf(stderr, "xmem_tiled: %s\n", what);
    return 1;
}

// The runtime's view of one atom against what the program declared and did.
static int check_atom(AtomID id, unsigned props, int pattern, long long stride, int rw,
                      int active, size_t nranges, unsigned long long bytes)
{
    XAtomInfo in;
    if (xgpuAtomQuery(id, &in) != cudaSuccess)
        return fail("xgpuAtomQuery failed");
    int ok = in.attrs.value_props == props && in.attrs.pattern == pattern &&
             in.attrs.stride == stride && in.attrs.rw == rw && in.attrs.elem_size == 4 &&
             in.created && in.active == active && in.nranges == nranges &&
             in.mapped_bytes == bytes && in.line > 0;
    if (!ok)
        fprintf(stderr, "xmem_tiled: atom %u: props %x pattern %u stride %lld rw %u active %d "
                "ranges %zu bytes %llu\n", id, in.attrs.value_props, in.attrs.pattern,
                (long long)in.attrs.stride, in.attrs.rw, in.active, in.nranges,
                (unsigned long long)in.mapped_bytes);
    return !ok;
}

int main(void)
{
    size_t bytes = sizeof(float) * N * N;
    float *A = (float *)malloc(bytes), *B = (float *)malloc(bytes), *C = (float *)malloc(bytes);
    unsigned seed = 2024;
    for (int i = 0; i < N * N; i++) {
        A[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 1023) / 512.0f - 1.0f;
        B[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 1023) / 512.0f - 1.0f;
    }
    float *dA, *dB, *dC;
    if (cudaMalloc((void **)&dA, bytes) || cudaMalloc((void **)&dB, bytes) ||
        cudaMalloc((void **)&dC, bytes) || cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice))
        return fail("setup failed");

    // B tiles: read down columns, N floats apart; C: written once, row-major.
    AtomID b_atom = CreateAtom({XMEM_F32, XMEM_REGULAR, (int64_t)sizeof(float) * N,
                                XMEM_READ_ONLY, 200, 255, 4});
    AtomID c_atom = CreateAtom(XMEM_ATTRS(XMEM_F32, XMEM_REGULAR, 4, XMEM_WRITE_ONLY, 50, 0, 4));
    int bad = 0;
    if (Atom2DMap(b_atom, dB, sizeof(float) * N, sizeof(float) * N, N, 1) ||
        AtomMap(c_atom, dC, bytes, 1) || AtomActivate(b_atom))
        return fail("map failed");
    AtomID a_first = XMEM_NO_ATOM;
    dim3 block(TILE, TILE), grid(N / TILE);
    for (int row0 = 0; row0 < N; row0 += TILE) {
        // The A tiles of this phase: a static atom, the same ID every iteration.
        AtomID a_atom = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 255, 128, 4});
        if (row0 == 0)
            a_first = a_atom;
        bad |= a_atom != a_first;
        const float *band = dA + (size_t)row0 * N;
        if (Atom2DMap(a_atom, band, sizeof(float) * N, sizeof(float) * N, TILE, 1) ||
            AtomActivate(a_atom))
            return fail("phase map failed");
        unsigned long long band_bytes = sizeof(float) * N * TILE;
        bad |= check_atom(a_atom, XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 1, 1, band_bytes);
        bad |= xgpuAtomLookup(band) != a_atom || xgpuAtomLookup(band + N * TILE - 1) != a_atom;
        bad |= row0 > 0 && xgpuAtomLookup(band - 1) != XMEM_NO_ATOM;
        band_matmul<<<grid, block>>>(dA, dB, dC, row0);
        if (AtomDeactivate(a_atom) || AtomUnmap(a_atom, band, band_bytes))
            return fail("phase unmap failed");
        bad |= check_atom(a_atom, XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 0, 0, 0);
    }
    if (cudaGetLastError() || cudaDeviceSynchronize() ||
        cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost))
        return fail("kernel failed");

    // The atom table: three atoms, IDs in call-site order, B and C still mapped.
    bad |= xgpuAtomCount() != 3 || b_atom != 0 || c_atom != 1 || a_first != 2;
    bad |= check_atom(b_atom, XMEM_F32, XMEM_REGULAR, 256, XMEM_READ_ONLY, 1, 1, bytes);
    bad |= check_atom(c_atom, XMEM_F32, XMEM_REGULAR, 4, XMEM_WRITE_ONLY, 0, 1, bytes);
    bad |= xgpuAtomLookup(dA) != XMEM_NO_ATOM || xgpuAtomLookup(dC + 5) != c_atom;
    uint8_t ast[32];
    xgpuAtomStatus(ast);
    bad |= ast[0] != 1; // only the B atom (ID 0) is active
    if (bad)
        fprintf(stderr, "xmem_tiled: the runtime's atom state is not what the program did\n");

    double t0 = cpu_seconds();
    int wrong = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < N; k++)
                ref += (double)A[i * N + k] * B[k * N + j];
            if (fabs(C[i * N + j] - ref) > 1e-3 * (1 + fabs(ref)) && wrong++ < 5)
                fprintf(stderr, "xmem_tiled: C[%d][%d] = %f, expected %f\n", i, j,
                        C[i * N + j], ref);
        }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("xmem_tiled N=%d phases=%d atoms=%d\n", N, N / TILE, xgpuAtomCount());
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
    free(B);
    free(C);
    bad |= wrong != 0;
    printf("xmem_tiled: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
