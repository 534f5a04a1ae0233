/*
 * native_ref - the CPU reference for bench/functional.py: the same work as a sample's
 * kernels, written as plain C loops and timed here. Prints seconds per run.
 *   native_ref vecadd N
 *   native_ref matmul M N K
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Keeps the optimizer from deleting the work. */
static volatile float sink;

static void vecadd(int n, const float *a, const float *b, float *c)
{
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

static void matmul(int M, int N, int K, const float *A, const float *B, float *C)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++)
                acc += A[i * K + k] * B[k * N + j];
            C[i * N + j] = acc;
        }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "vecadd")) {
        int n = atoi(argv[2]);
        float *a = calloc(n, 4), *b = calloc(n, 4), *c = calloc(n, 4);
        for (int i = 0; i < n; i++)
            a[i] = i, b[i] = 2 * i;
        int reps = 0;
        double t0 = now(), t;
        do {
            vecadd(n, a, b, c);
            sink = c[reps % n];
            reps++;
        } while ((t = now() - t0) < 0.3);
        printf("%.9f\n", t / reps);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "matmul")) {
        int M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
        float *A = calloc((size_t)M * K, 4), *B = calloc((size_t)K * N, 4),
              *C = calloc((size_t)M * N, 4);
        for (int i = 0; i < M * K; i++)
            A[i] = i % 7;
        for (int i = 0; i < K * N; i++)
            B[i] = i % 5;
        int reps = 0;
        double t0 = now(), t;
        do {
            matmul(M, N, K, A, B, C);
            sink = C[reps % (M * N)];
            reps++;
        } while ((t = now() - t0) < 0.3);
        printf("%.9f\n", t / reps);
        return 0;
    }
    fprintf(stderr, "usage: native_ref vecadd N | matmul M N K\n");
    return 2;
}
