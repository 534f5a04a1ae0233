// sssp: single-source shortest paths over a generated weighted graph in CSR form, by
// frontier-based Bellman-Ford as GPU graph codes run it. Each round, every vertex of the
// frontier relaxes its out-edges with atomicMin on the neighbours' distances and marks
// those it improved for the next round; a block counts its improvements in shared memory
// and raises a flag in device memory once. The host repeats until a round improves
// nothing. Distances are integers, so they must equal a CPU Dijkstra exactly. The
// resource specification is chosen at run time: the threads per block.
// Usage: sssp [vertices [average degree [threads_per_block 32..1024]]]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INF 0x3fffffff

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
    fprintf(stderr, "sssp: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// One round: every frontier vertex relaxes its out-edges from its distance of the last
// round (old), so the round's result does not depend on the order of the atomics.
__global__ void relax(int n, const int *rowptr, const int *col, const int *weight,
                      const int *old, int *dist, const int *frontier)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && frontier[v]) {
        int d = old[v];
        for (int e = rowptr[v]; e < rowptr[v + 1]; e++)
            atomicMin(&dist[col[e]], d + weight[e]);
    }
}

// The vertices the round improved form the next frontier; a block counts them in shared
// memory and raises the flag once.
__global__ void advance(int n, int *old, const int *dist, int *next, int *changed)
{
    __shared__ int improved;
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        improved = 0;
    __syncthreads();
    int better = v < n && dist[v] < old[v];
    if (v < n)
        next[v] = better;
    if (better) {
        old[v] = dist[v];
        atomicAdd(&improved, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && improved)
        *changed = 1;
}

// The CPU reference: Dijkstra with a binary heap of (distance, vertex).
static void dijkstra(int n, const int *rowptr, const int *col, const int *weight, int *dist)
{
    int *heap = (int *)malloc(sizeof(int) * 2 * (rowptr[n] + 1)), len = 0;
    for (int i = 0; i < n; i++)
        dist[i] = INF;
    dist[0] = 0;
    heap[0] = 0, heap[1] = 0, len = 1;
    while (len) {
        int d = heap[0], v = heap[1];
        len--;
        heap[0] = heap[2 * len], heap[1] = heap[2 * len + 1];
        for (int i = 0;;) { // sift down
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < len && heap[2 * l] < heap[2 * m])
                m = l;
            if (r < len && heap[2 * r] < heap[2 * m])
                m = r;
            if (m == i)
                break;
            int t0 = heap[2 * i], t1 = heap[2 * i + 1];
            heap[2 * i] = heap[2 * m], heap[2 * i + 1] = heap[2 * m + 1];
            heap[2 * m] = t0, heap[2 * m + 1] = t1;
            i = m;
        }
        if (d > dist[v])
            continue;
        for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
            int u = col[e], nd = d + weight[e];
            if (nd >= dist[u])
                continue;
            dist[u] = nd;
            int i = len++; // sift up
            heap[2 * i] = nd, heap[2 * i + 1] = u;
            while (i && heap[2 * ((i - 1) / 2)] > heap[2 * i]) {
                int p = (i - 1) / 2, t0 = heap[2 * i], t1 = heap[2 * i + 1];
                heap[2 * i] = heap[2 * p], heap[2 * i + 1] = heap[2 * p + 1];
                heap[2 * p] = t0, heap[2 * p + 1] = t1;
                i = p;
            }
        }
    }
    free(heap);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000, degree = argc > 2 ? atoi(argv[2]) : 6;
    int threads = argc > 3 ? atoi(argv[3]) : 256;
    if (n < 2 || degree < 1 || degree > 64 || threads < 32 || threads > 1024 || threads % 32) {
        fprintf(stderr, "usage: sssp [vertices >= 2 [average degree 1..64 [threads_per_block "
                        "32..1024, a multiple of 32]]]\n");
        return 2;
    }
    // each vertex: an edge to the next (the graph is connected) and degree - 1 random ones
    int m = n * degree;
    int *rowptr = (int *)malloc(sizeof(int) * (n + 1)), *col = (int *)malloc(sizeof(int) * m);
    int *weight = (int *)malloc(sizeof(int) * m), *dist = (int *)malloc(sizeof(int) * n);
    int *ref = (int *)malloc(sizeof(int) * n);
    unsigned seed = 4242;
    for (int v = 0, e = 0; v < n; v++) {
        rowptr[v] = e;
        for (int k = 0; k < degree; k++, e++) {
            seed = seed * 1664525u + 1013904223u;
            col[e] = k == 0 ? (v + 1) % n : (int)((seed >> 8) % (unsigned)n);
            seed = seed * 1664525u + 1013904223u;
            weight[e] = 1 + (int)((seed >> 16) % 100);
        }
    }
    rowptr[n] = m;
    int *drow, *dcol, *dw, *ddist, *dold, *dfront, *dnext, *dchanged;
    if (check(cudaMalloc(&drow, sizeof(int) * (n + 1)), "cudaMalloc") ||
        check(cudaMalloc(&dcol, sizeof(int) * m), "cudaMalloc") ||
        check(cudaMalloc(&dw, sizeof(int) * m), "cudaMalloc") ||
        check(cudaMalloc(&ddist, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dold, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dfront, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dnext, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dchanged, sizeof(int)), "cudaMalloc"))
        return 1;
    for (int i = 0; i < n; i++)
        dist[i] = i ? INF : 0;
    int *front = (int *)calloc(n, sizeof(int));
    front[0] = 1;
    if (check(cudaMemcpy(drow, rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dcol, col, sizeof(int) * m, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dw, weight, sizeof(int) * m, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(ddist, dist, sizeof(int) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dold, dist, sizeof(int) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dfront, front, sizeof(int) * n, cudaMemcpyHostToDevice), "copy"))
        return 1;
    int blocks = (n + threads - 1) / threads, rounds = 0, changed = 1;
    while (changed && rounds < n) {
        changed = 0;
        if (check(cudaMemset(dchanged, 0, sizeof(int)), "cudaMemset"))
            return 1;
        relax<<<blocks, threads>>>(n, drow, dcol, dw, dold, ddist, dfront);
        advance<<<blocks, threads>>>(n, dold, ddist, dnext, dchanged);
        if (check(cudaGetLastError(), "launch") ||
            check(cudaMemcpy(&changed, dchanged, sizeof(int), cudaMemcpyDeviceToHost), "copy"))
            return 1;
        int *t = dfront;
        dfront = dnext, dnext = t;
        rounds++;
    }
    if (check(cudaMemcpy(dist, ddist, sizeof(int) * n, cudaMemcpyDeviceToHost), "copy"))
        return 1;
    double t0 = cpu_seconds();
    dijkstra(n, rowptr, col, weight, ref);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (dist[i] != ref[i] && bad++ < 5)
            fprintf(stderr, "sssp: dist[%d] = %d, expected %d\n", i, dist[i], ref[i]);
    printf("sssp %d vertices, degree %d, %d rounds, %d threads per block\n", n, degree, rounds,
           threads);
    printf("sssp: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(drow), cudaFree(dcol), cudaFree(dw), cudaFree(ddist), cudaFree(dold);
    cudaFree(dfront);
    cudaFree(dnext), cudaFree(dchanged);
    free(rowptr), free(col), free(weight), free(dist), free(ref), free(front);
    return bad ? 1 : 0;
}
