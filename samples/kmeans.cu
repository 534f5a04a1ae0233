// kmeans: k-means clustering (Lloyd iterations) of generated points, in the style of
// Rodinia's kmeans: features are stored feature-major (feature f of point i at
// f * n + i) so that neighbouring threads read neighbouring words. Each iteration is
// three launches: kmeans_assign gives each point the nearest centroid (squared Euclidean
// distance, lowest index on ties); kmeans_accumulate sums the features and counts of each
// cluster, first per block in shared memory with atomicAdd, then into global sums with
// one atomicAdd per block and cluster; kmeans_update divides and resets the sums.
// Exactness: features are integers 0..255 stored as float, and n * 255 < 2^24, so every
// float sum is an exact integer whatever order the atomics happen in; new centroids are
// rounded to multiples of 1/4, so each difference, square and distance sum below is
// exact in float as well (at most 23 significant bits), and an FMA gives the same result
// as a separate multiply and add. Memberships and centroids must therefore equal the
// CPU's exactly.
// Usage: kmeans [points <= 65536] [clusters <= 32] [iterations]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIMS 8
#define MAXK 32
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
    fprintf(stderr, "kmeans: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// Nearest centroid of point i; shared by the device kernel and the CPU reference.
__host__ __device__ static int nearest(const float *features, int n, int i,
                                       const float *centroids, int k)
{
    int best = 0;
    float best_d = 0.0f;
    for (int c = 0; c < k; c++) {
        float d = 0.0f;
        for (int f = 0; f < DIMS; f++) {
            float diff = features[f * n + i] - centroids[c * DIMS + f];
            d += diff * diff;
        }
        if (c == 0 || d < best_d) {
            best = c;
            best_d = d;
        }
    }
    return best;
}

// The centroid of `count` points whose features sum to `sum`, on the 1/4 grid.
__host__ __device__ static float grid_mean(float sum, int count)
{
    return (float)(int)(sum / count * 4.0f + 0.5f) * 0.25f;
}

__global__ void kmeans_assign(const float *features, const float *centroids, int *member,
                              int n, int k)
{
    __shared__ float c[MAXK * DIMS];
    for (int j = threadIdx.x; j < k * DIMS; j += blockDim.x)
        c[j] = centroids[j];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        member[i] = nearest(features, n, i, c, k);
}

__global__ void kmeans_accumulate(const float *features, const int *member, float *sums,
                                  int *counts, int n, int k)
{
    __shared__ float s[MAXK * DIMS];
    __shared__ int cnt[MAXK];
    for (int j = threadIdx.x; j < k * DIMS; j += blockDim.x)
        s[j] = 0.0f;
    for (int j = threadIdx.x; j < k; j += blockDim.x)
        cnt[j] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = member[i];
        atomicAdd(&cnt[c], 1);
        for (int f = 0; f < DIMS; f++)
            atomicAdd(&s[c * DIMS + f], features[f * n + i]);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < k * DIMS; j += blockDim.x)
        if (s[j] != 0.0f)
            atomicAdd(&sums[j], s[j]);
    for (int j = threadIdx.x; j < k; j += blockDim.x)
        if (cnt[j])
            atomicAdd(&counts[j], cnt[j]);
}

// One block, one thread per (cluster, feature); an empty cluster keeps its centroid.
__global__ void kmeans_update(float *centroids, float *sums, int *counts, int k)
{
    int j = threadIdx.x;
    if (j < k * DIMS) {
        int count = counts[j / DIMS];
        if (count > 0)
            centroids[j] = grid_mean(sums[j], count);
        sums[j] = 0.0f;
    }
    __syncthreads(); // every thread has read its count before the counts are reset
    if (j < k)
        counts[j] = 0;
}

static void cpu_kmeans(const float *features, int n, int k, int iterations, float *centroids,
                       int *member)
{
    float sums[MAXK * DIMS];
    int counts[MAXK];
    for (int it = 0; it < iterations; it++) {
        memset(sums, 0, sizeof sums);
        memset(counts, 0, sizeof counts);
        for (int i = 0; i < n; i++) {
            int c = member[i] = nearest(features, n, i, centroids, k);
            counts[c]++;
            for (int f = 0; f < DIMS; f++)
                sums[c * DIMS + f] += features[f * n + i];
        }
        for (int j = 0; j < k * DIMS; j++)
            if (counts[j / DIMS] > 0)
                centroids[j] = grid_mean(sums[j], counts[j / DIMS]);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 32768, k = argc > 2 ? atoi(argv[2]) : 12;
    int iterations = argc > 3 ? atoi(argv[3]) : 8;
    if (n <= 0 || n > 65536 || k <= 0 || k > MAXK || k > n || iterations <= 0) {
        fprintf(stderr, "usage: kmeans [points 1..65536] [clusters 1..%d] [iterations > 0]\n",
                MAXK);
        return 2;
    }
    // Points scattered around k hidden centres; the first k points are the initial
    // centroids, as in Rodinia.
    float *features = (float *)malloc(sizeof(float) * DIMS * n);
    unsigned seed = 4242;
    int centre[MAXK][DIMS];
    for (int c = 0; c < k; c++)
        for (int f = 0; f < DIMS; f++) {
            seed = seed * 1664525u + 1013904223u;
            centre[c][f] = 40 + (seed >> 8) % 176;
        }
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        int c = (seed >> 8) % k;
        for (int f = 0; f < DIMS; f++) {
            seed = seed * 1664525u + 1013904223u;
            int v = centre[c][f] + (int)((seed >> 8) % 81) - 40;
            features[f * n + i] = (float)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    float init[MAXK * DIMS], got[MAXK * DIMS], ref[MAXK * DIMS];
    for (int c = 0; c < k; c++)
        for (int f = 0; f < DIMS; f++)
            init[c * DIMS + f] = features[f * n + c];

    float *dfeatures, *dcentroids, *dsums;
    int *dmember, *dcounts;
    if (check(cudaMalloc(&dfeatures, sizeof(float) * DIMS * n), "cudaMalloc") ||
        check(cudaMalloc(&dcentroids, sizeof(float) * k * DIMS), "cudaMalloc") ||
        check(cudaMalloc(&dsums, sizeof(float) * k * DIMS), "cudaMalloc") ||
        check(cudaMalloc(&dmember, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dcounts, sizeof(int) * k), "cudaMalloc") ||
        check(cudaMemcpy(dfeatures, features, sizeof(float) * DIMS * n,
                         cudaMemcpyHostToDevice), "cudaMemcpy") ||
        check(cudaMemcpy(dcentroids, init, sizeof(float) * k * DIMS, cudaMemcpyHostToDevice),
              "cudaMemcpy") ||
        check(cudaMemset(dsums, 0, sizeof(float) * k * DIMS), "cudaMemset") ||
        check(cudaMemset(dcounts, 0, sizeof(int) * k), "cudaMemset"))
        return 1;
    int blocks = (n + BLOCK - 1) / BLOCK;
    for (int it = 0; it < iterations; it++) {
        kmeans_assign<<<blocks, BLOCK>>>(dfeatures, dcentroids, dmember, n, k);
        kmeans_accumulate<<<blocks, BLOCK>>>(dfeatures, dmember, dsums, dcounts, n, k);
        kmeans_update<<<1, MAXK * DIMS>>>(dcentroids, dsums, dcounts, k);
    }
    int *member = (int *)malloc(sizeof(int) * n), *refmember = (int *)malloc(sizeof(int) * n);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel") ||
        check(cudaMemcpy(member, dmember, sizeof(int) * n, cudaMemcpyDeviceToHost),
              "cudaMemcpy") ||
        check(cudaMemcpy(got, dcentroids, sizeof(float) * k * DIMS, cudaMemcpyDeviceToHost),
              "cudaMemcpy"))
        return 1;

    memcpy(ref, init, sizeof(float) * k * DIMS);
    double t0 = cpu_seconds();
    cpu_kmeans(features, n, k, iterations, ref, refmember);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0, moved = 0;
    for (int i = 0; i < n; i++)
        if (member[i] != refmember[i] && bad++ < 5)
            fprintf(stderr, "kmeans: point %d in cluster %d, expected %d\n", i, member[i],
                    refmember[i]);
    for (int j = 0; j < k * DIMS; j++) {
        if (got[j] != ref[j] && bad++ < 10)
            fprintf(stderr, "kmeans: centroid %d feature %d = %g, expected %g\n", j / DIMS,
                    j % DIMS, got[j], ref[j]);
        moved += ref[j] != init[j];
    }
    printf("kmeans points=%d clusters=%d iterations=%d (%d centroid features moved)\n", n, k,
           iterations, moved);
    if (bad)
        fprintf(stderr, "kmeans: %d mismatches\n", bad);
    cudaFree(dfeatures);
    cudaFree(dcentroids);
    cudaFree(dsums);
    cudaFree(dmember);
    cudaFree(dcounts);
    free(features);
    free(member);
    free(refmember);
    printf("kmeans: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
