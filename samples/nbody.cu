// nbody: all-pairs gravitational n-body simulation in double precision. Each time step
// is two launches: the force kernel gives every thread one body and walks all bodies in
// tiles of BLOCK staged through shared memory, accumulating softened accelerations
// a_i += m_j * d / (|d|^2 + eps^2)^(3/2) (with rsqrt); the integrate kernel then advances
// velocities and positions (leapfrog, kick-drift).
// Check: the CPU runs the same steps in the same summation order. The device may
// contract a*b+c into an FMA and its rsqrt may differ from 1/sqrt in the last bits, so
// positions and velocities are compared with a relative tolerance of 1e-9 (relative to
// the largest magnitude of each quantity), far below the differences a wrong force
// would make and far above double rounding drift over a few steps.
// Usage: nbody [bodies] [steps]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK 128
#define EPS2 1e-4
#define DT 1e-3

struct Body {
    double x, y, z, m;
};

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
    fprintf(stderr, "nbody: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

__global__ void nbody_forces(const Body *pos, double *acc, int n)
{
    __shared__ Body tile[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    Body me = pos[i < n ? i : 0];
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int base = 0; base < n; base += BLOCK) {
        int j = base + threadIdx.x;
        if (j < n) {
            tile[threadIdx.x] = pos[j];
        } else {
            tile[threadIdx.x].x = tile[threadIdx.x].y = tile[threadIdx.x].z = 0.0;
            tile[threadIdx.x].m = 0.0;
        }
        __syncthreads();
        for (int k = 0; k < BLOCK; k++) {
            double dx = tile[k].x - me.x, dy = tile[k].y - me.y, dz = tile[k].z - me.z;
            double d2 = dx * dx + dy * dy + dz * dz + EPS2;
            double inv = rsqrt(d2);
            double s = tile[k].m * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        __syncthreads();
    }
    if (i < n) {
        acc[3 * i] = ax;
        acc[3 * i + 1] = ay;
        acc[3 * i + 2] = az;
    }
}

__global__ void nbody_integrate(Body *pos, double *vel, const double *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double vx = vel[3 * i] + DT * acc[3 * i];
    double vy = vel[3 * i + 1] + DT * acc[3 * i + 1];
    double vz = vel[3 * i + 2] + DT * acc[3 * i + 2];
    vel[3 * i] = vx;
    vel[3 * i + 1] = vy;
    vel[3 * i + 2] = vz;
    pos[i].x += DT * vx;
    pos[i].y += DT * vy;
    pos[i].z += DT * vz;
}

// The CPU reference: the same step, bodies in the same tile order (padding bodies have
// zero mass and contribute exactly zero).
static void cpu_step(Body *pos, double *vel, double *acc, int n)
{
    int padded = (n + BLOCK - 1) / BLOCK * BLOCK;
    for (int i = 0; i < n; i++) {
        double ax = 0.0, ay = 0.0, az = 0.0;
        for (int j = 0; j < padded; j++) {
            Body o = {0.0, 0.0, 0.0, 0.0};
            if (j < n)
                o = pos[j];
            double dx = o.x - pos[i].x, dy = o.y - pos[i].y, dz = o.z - pos[i].z;
            double d2 = dx * dx + dy * dy + dz * dz + EPS2;
            double inv = 1.0 / sqrt(d2);
            double s = o.m * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        acc[3 * i] = ax;
        acc[3 * i + 1] = ay;
        acc[3 * i + 2] = az;
    }
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++)
            vel[3 * i + c] += DT * acc[3 * i + c];
        pos[i].x += DT * vel[3 * i];
        pos[i].y += DT * vel[3 * i + 1];
        pos[i].z += DT * vel[3 * i + 2];
    }
}

// Counts entries of a and b (stride apart, count of them) that differ by more than
// tol times the largest magnitude in b.
static int compare(const char *what, const double *a, const double *b, int count, int stride,
                   double tol)
{
    double scale = 0.0;
    for (int i = 0; i < count; i++)
        scale = fmax(scale, fabs(b[i * stride]));
    int bad = 0;
    for (int i = 0; i < count; i++)
        if (!(fabs(a[i * stride] - b[i * stride]) <= tol * scale) && bad++ < 5)
            fprintf(stderr, "nbody: %s[%d] = %.17g, expected %.17g\n", what, i, a[i * stride],
                    b[i * stride]);
    return bad;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, steps = argc > 2 ? atoi(argv[2]) : 4;
    if (n <= 0 || steps < 0) {
        fprintf(stderr, "usage: nbody [bodies > 0] [steps >= 0]\n");
        return 2;
    }
    Body *pos = (Body *)malloc(sizeof(Body) * n), *ref = (Body *)malloc(sizeof(Body) * n);
    double *vel = (double *)calloc(3 * n, sizeof(double));
    double *refvel = (double *)calloc(3 * n, sizeof(double));
    double *acc = (double *)malloc(sizeof(double) * 3 * n);
    unsigned long long seed = 42;
    for (int i = 0; i < n; i++) {
        double r[4];
        for (int c = 0; c < 4; c++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            r[c] = (double)(seed >> 11) / 9007199254740992.0;
        }
        pos[i].x = 2 * r[0] - 1;
        pos[i].y = 2 * r[1] - 1;
        pos[i].z = 2 * r[2] - 1;
        pos[i].m = (0.5 + r[3]) / n;
        ref[i] = pos[i];
    }
    Body *dpos;
    double *dvel, *dacc;
    if (check(cudaMalloc(&dpos, sizeof(Body) * n), "cudaMalloc") ||
        check(cudaMalloc(&dvel, sizeof(double) * 3 * n), "cudaMalloc") ||
        check(cudaMalloc(&dacc, sizeof(double) * 3 * n), "cudaMalloc") ||
        check(cudaMemcpy(dpos, pos, sizeof(Body) * n, cudaMemcpyHostToDevice), "cudaMemcpy") ||
        check(cudaMemset(dvel, 0, sizeof(double) * 3 * n), "cudaMemset"))
        return 1;
    int blocks = (n + BLOCK - 1) / BLOCK;
    for (int s = 0; s < steps; s++) {
        nbody_forces<<<blocks, BLOCK>>>(dpos, dacc, n);
        nbody_integrate<<<blocks, BLOCK>>>(dpos, dvel, dacc, n);
    }
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel") ||
        check(cudaMemcpy(pos, dpos, sizeof(Body) * n, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
        check(cudaMemcpy(vel, dvel, sizeof(double) * 3 * n, cudaMemcpyDeviceToHost),
              "cudaMemcpy"))
        return 1;

    double t0 = cpu_seconds();
    for (int s = 0; s < steps; s++)
        cpu_step(ref, refvel, acc, n);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = compare("x", &pos[0].x, &ref[0].x, n, 4, 1e-9) +
              compare("y", &pos[0].y, &ref[0].y, n, 4, 1e-9) +
              compare("z", &pos[0].z, &ref[0].z, n, 4, 1e-9);
    for (int c = 0; c < 3; c++)
        bad += compare("v", vel + c, refvel + c, n, 3, 1e-9);
    printf("nbody bodies=%d steps=%d\n", n, steps);
    if (bad)
        fprintf(stderr, "nbody: %d values outside tolerance\n", bad);
    cudaFree(dpos);
    cudaFree(dvel);
    cudaFree(dacc);
    free(pos);
    free(ref);
    free(vel);
    free(refvel);
    free(acc);
    printf("nbody: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
