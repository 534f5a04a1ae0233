// hotspot: 2D transient thermal simulation of a chip (Rodinia hotspot-like). Each cell's
// temperature moves by the heat from its power source, the lateral flow to its four
// neighbours (a cell on the chip's edge sees itself past the edge, i.e. no flow) and the
// vertical flow to the ambient. The stencil runs with a pyramid (ghost-zone) scheme: a
// 16x16 block loads a tile of temperatures and powers into shared memory and advances it
// PYRAMID steps in place; each step the valid region shrinks by one cell on every side,
// so a block writes back only its inner (16 - 2*PYRAMID)^2 cells, and neighbouring blocks'
// tiles overlap by 2*PYRAMID cells. Launches alternate between two temperature buffers.
// The CPU reference runs the same model in double precision; results are compared with a
// relative tolerance of 1e-5 (the device computes in float and may contract into FMAs).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK 16

/* The chip model (SI units). */
#define CHIP_THICKNESS 0.0005
#define CHIP_SIDE 0.016
#define FACTOR_CHIP 0.5
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100.0
#define MAX_POWER_DENSITY 3.0e6
#define PRECISION 0.001
#define AMBIENT 80.0

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            fprintf(stderr, "hotspot: %s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* The update coefficients, derived once on the host. */
struct Coeffs {
    float step_div_cap; /* time step / thermal capacitance */
    float rx_inv, ry_inv, rz_inv;
    float ambient;
};

__device__ __forceinline__ int clamp_index(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* Advances the grid `steps` (<= halo) time steps from src into dst. Block (bx, by) owns
 * the output cells [by*inner, by*inner + inner) x [bx*inner, ...), inner = BLOCK - 2*halo;
 * its tile starts halo cells before them. */
__global__ void hotspot_pyramid(int steps, int halo, const float *power, const float *src,
                                float *dst, int rows, int cols, Coeffs c)
{
    __shared__ float temp[BLOCK][BLOCK];
    __shared__ float pw[BLOCK][BLOCK];
    __shared__ float next[BLOCK][BLOCK];
    int tx = threadIdx.x, ty = threadIdx.y;
    int inner = BLOCK - 2 * halo;
    int y0 = blockIdx.y * inner - halo, x0 = blockIdx.x * inner - halo;
    int gy = y0 + ty, gx = x0 + tx;
    /* The part of the tile that lies on the chip. */
    int ymin = y0 < 0 ? -y0 : 0, xmin = x0 < 0 ? -x0 : 0;
    int ymax = y0 + BLOCK > rows ? rows - 1 - y0 : BLOCK - 1;
    int xmax = x0 + BLOCK > cols ? cols - 1 - x0 : BLOCK - 1;
    bool on_chip = ty >= ymin && ty <= ymax && tx >= xmin && tx <= xmax;
    if (on_chip) {
        temp[ty][tx] = src[gy * cols + gx];
        pw[ty][tx] = power[gy * cols + gx];
    }
    __syncthreads();
    int n = clamp_index(ty - 1, ymin, ymax), s = clamp_index(ty + 1, ymin, ymax);
    int w = clamp_index(tx - 1, xmin, xmax), e = clamp_index(tx + 1, xmin, xmax);
    bool computed = false;
    for (int i = 0; i < steps; i++) {
        computed = false;
        if (on_chip && tx >= i + 1 && tx <= BLOCK - i - 2 && ty >= i + 1 && ty <= BLOCK - i - 2) {
            float t = temp[ty][tx];
            next[ty][tx] = t + c.step_div_cap * (pw[ty][tx] +
                                                 (temp[s][tx] + temp[n][tx] - 2.0f * t) * c.ry_inv +
                                                 (temp[ty][e] + temp[ty][w] - 2.0f * t) * c.rx_inv +
                                                 (c.ambient - t) * c.rz_inv);
            computed = true;
        }
        __syncthreads();
        if (i == steps - 1)
            break;
        if (computed)
            temp[ty][tx] = next[ty][tx];
        __syncthreads();
    }
    bool owned = tx >= halo && tx < BLOCK - halo && ty >= halo && ty < BLOCK - halo;
    if (computed && owned)
        dst[gy * cols + gx] = next[ty][tx];
}

static void cpu_step(const float *power, const double *src, double *dst, int rows, int cols,
                     const double *k)
{
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++) {
            int n = r > 0 ? r - 1 : r, s = r < rows - 1 ? r + 1 : r;
            int w = q > 0 ? q - 1 : q, e = q < cols - 1 ? q + 1 : q;
            double t = src[r * cols + q];
            dst[r * cols + q] = t + k[0] * (power[r * cols + q] +
                                            (src[s * cols + q] + src[n * cols + q] - 2.0 * t) * k[2] +
                                            (src[r * cols + e] + src[r * cols + w] - 2.0 * t) * k[1] +
                                            (AMBIENT - t) * k[3]);
        }
}

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 256;
    int cols = argc > 2 ? atoi(argv[2]) : 256;
    int iterations = argc > 3 ? atoi(argv[3]) : 24;
    int pyramid = argc > 4 ? atoi(argv[4]) : 2;
    if (rows <= 0 || cols <= 0 || iterations <= 0 || pyramid <= 0 || 2 * pyramid >= BLOCK) {
        fprintf(stderr, "usage: hotspot [ROWS COLS ITERATIONS > 0] [PYRAMID 1..%d]\n",
                BLOCK / 2 - 1);
        return 2;
    }
    size_t cells = (size_t)rows * cols;
    float *power = (float *)malloc(sizeof(float) * cells);
    float *temp = (float *)malloc(sizeof(float) * cells);
    unsigned seed = 31337;
    for (size_t i = 0; i < cells; i++) {
        seed = seed * 1664525u + 1013904223u;
        temp[i] = 323.0f + (float)((seed >> 8) % 2000) / 100.0f;
        seed = seed * 1664525u + 1013904223u;
        /* A few hot units on a mostly cool die. */
        power[i] = (seed >> 28) == 0 ? 0.8f : (float)((seed >> 8) % 1000) / 10000.0f;
    }
    double cell_h = CHIP_SIDE / rows, cell_w = CHIP_SIDE / cols;
    double cap = FACTOR_CHIP * SPEC_HEAT_SI * CHIP_THICKNESS * cell_w * cell_h;
    double rx = cell_w / (2.0 * K_SI * CHIP_THICKNESS * cell_h);
    double ry = cell_h / (2.0 * K_SI * CHIP_THICKNESS * cell_w);
    double rz = CHIP_THICKNESS / (K_SI * cell_h * cell_w);
    double max_slope = MAX_POWER_DENSITY / (FACTOR_CHIP * CHIP_THICKNESS * SPEC_HEAT_SI);
    double step = PRECISION / max_slope;
    double k[4] = {step / cap, 1.0 / rx, 1.0 / ry, 1.0 / rz};
    Coeffs c = {(float)k[0], (float)k[1], (float)k[2], (float)k[3], (float)AMBIENT};

    float *dpower, *dtemp[2];
    CHECK(cudaMalloc(&dpower, sizeof(float) * cells));
    CHECK(cudaMalloc(&dtemp[0], sizeof(float) * cells));
    CHECK(cudaMalloc(&dtemp[1], sizeof(float) * cells));
    CHECK(cudaMemcpy(dpower, power, sizeof(float) * cells, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dtemp[0], temp, sizeof(float) * cells, cudaMemcpyHostToDevice));
    int inner = BLOCK - 2 * pyramid;
    dim3 block(BLOCK, BLOCK), grid((cols + inner - 1) / inner, (rows + inner - 1) / inner);
    int cur = 0, launches = 0;
    for (int t = 0; t < iterations; t += pyramid) {
        int steps = iterations - t < pyramid ? iterations - t : pyramid;
        hotspot_pyramid<<<grid, block>>>(steps, pyramid, dpower, dtemp[cur], dtemp[1 - cur],
                                         rows, cols, c);
        cur = 1 - cur;
        launches++;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float *out = (float *)malloc(sizeof(float) * cells);
    CHECK(cudaMemcpy(out, dtemp[cur], sizeof(float) * cells, cudaMemcpyDeviceToHost));

    double *ref = (double *)malloc(sizeof(double) * cells);
    double *scratch = (double *)malloc(sizeof(double) * cells);
    for (size_t i = 0; i < cells; i++)
        ref[i] = temp[i];
    double t0 = cpu_seconds();
    for (int t = 0; t < iterations; t++) {
        cpu_step(power, ref, scratch, rows, cols, k);
        double *swap = ref;
        ref = scratch;
        scratch = swap;
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0;
    double max_rel = 0;
    for (size_t i = 0; i < cells; i++) {
        double rel = fabs(out[i] - ref[i]) / fabs(ref[i]);
        if (rel > max_rel || rel != rel)
            max_rel = rel;
        if (!(rel <= 1e-5)) {
            if (bad < 5)
                fprintf(stderr, "hotspot: T[%zu][%zu] = %.7g, expected %.7g\n", i / cols,
                        i % cols, out[i], ref[i]);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "hotspot: %d of %zu cells differ\n", bad, cells);
    printf("hotspot %dx%d, %d steps, pyramid %d, %d launches, max relative error %.2g\n", rows,
           cols, iterations, pyramid, launches, max_rel);
    cudaFree(dpower);
    cudaFree(dtemp[0]);
    cudaFree(dtemp[1]);
    free(power);
    free(temp);
    free(out);
    free(ref);
    free(scratch);
    printf("hotspot: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
