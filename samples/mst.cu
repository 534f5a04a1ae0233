// mst: minimum spanning tree of a generated weighted graph by Boruvka's algorithm, as GPU
// graph codes run it. Each round, every edge whose ends lie in different components
// offers itself to both components with atomicMin on a key (weight, edge id) -- unique,
// so every component has one cheapest edge and no cycle other than a mutual pair can
// form. Each component root then hooks onto the component across its cheapest edge (of
// a mutual pair, the smaller root stays a root), marks the edge, and pointer jumping
// relabels every vertex with its new root. The host repeats until a round hooks nothing.
// No kernel uses the value an atomic returns, so the work done -- and the instructions
// executed -- do not depend on the order in which the atomics land. The total weight and
// the edge count must equal a CPU Kruskal's exactly. The resource specification is chosen
// at run time: the threads per block.
// Usage: mst [vertices [average degree [threads_per_block 32..1024]]]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE 0x7fffffff
#define EDGE_BITS 21 // a key is weight << EDGE_BITS | edge id: weights < 1024, edges < 2^21
#define EDGE_MASK ((1 << EDGE_BITS) - 1)

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
    fprintf(stderr, "mst: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

__global__ void reset(int n, int *best)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        best[v] = NONE;
}

// Every edge between two components offers its key to both of their roots.
__global__ void cheapest(int m, const int *eu, const int *ev, const int *ew, const int *comp,
                         int *best)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) {
        int cu = comp[eu[e]], cv = comp[ev[e]];
        if (cu != cv) {
            int key = ew[e] << EDGE_BITS | e;
            atomicMin(&best[cu], key);
            atomicMin(&best[cv], key);
        }
    }
}

// A root hooks onto the root across its cheapest edge. Of a mutual pair (both chose the
// same edge) the smaller root stays; that edge is marked once either way.
__global__ void hook(int n, const int *eu, const int *ev, const int *comp, const int *best,
                     int *parent, int *in_tree, int *hooked)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n || comp[c] != c)
        return;
    parent[c] = c;
    if (best[c] == NONE)
        return;
    int e = best[c] & EDGE_MASK, cu = comp[eu[e]];
    int other = cu == c ? comp[ev[e]] : cu;
    if (best[other] == best[c] && c < other)
        return; // the other root hooks onto this one
    parent[c] = other;
    in_tree[e] = 1;
    *hooked = 1;
}

// Pointer jumping: every vertex follows its old root's chain of hooks to the new root.
__global__ void relabel(int n, const int *parent, int *comp_old, int *comp)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        int r = comp_old[v];
        while (parent[r] != r)
            r = parent[r];
        comp[v] = r;
    }
}

// The CPU reference: Kruskal with the same unique keys and a union-find.
static int find(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

static int key_less(const void *a, const void *b)
{
    long ka = *(const long *)a, kb = *(const long *)b;
    return (ka > kb) - (ka < kb);
}

static long kruskal(int n, int m, const int *eu, const int *ev, const int *ew, int *edges)
{
    long *key = (long *)malloc(sizeof(long) * m), total = 0;
    int *uf = (int *)malloc(sizeof(int) * n);
    for (int e = 0; e < m; e++)
        key[e] = (long)ew[e] << EDGE_BITS | e;
    qsort(key, m, sizeof(long), key_less);
    for (int i = 0; i < n; i++)
        uf[i] = i;
    *edges = 0;
    for (int i = 0; i < m; i++) {
        int e = (int)(key[i] & EDGE_MASK), a = find(uf, eu[e]), b = find(uf, ev[e]);
        if (a != b) {
            uf[a] = b;
            total += ew[e];
            ++*edges;
        }
    }
    free(key), free(uf);
    return total;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000, degree = argc > 2 ? atoi(argv[2]) : 4;
    int threads = argc > 3 ? atoi(argv[3]) : 256;
    if (n < 2 || degree < 1 || degree > 64 || (long)n * degree > EDGE_MASK || threads < 32 ||
        threads > 1024 || threads % 32) {
        fprintf(stderr, "usage: mst [vertices >= 2 [average degree 1..64, vertices x degree < "
                        "2^21 [threads_per_block 32..1024, a multiple of 32]]]\n");
        return 2;
    }
    // each vertex: an edge to the next (the graph is connected) and degree - 1 random ones
    int m = n * degree;
    int *eu = (int *)malloc(sizeof(int) * m), *ev = (int *)malloc(sizeof(int) * m);
    int *ew = (int *)malloc(sizeof(int) * m), *in_tree = (int *)calloc(m, sizeof(int));
    int *comp = (int *)malloc(sizeof(int) * n);
    unsigned seed = 777;
    for (int v = 0, e = 0; v < n; v++)
        for (int k = 0; k < degree; k++, e++) {
            seed = seed * 1664525u + 1013904223u;
            eu[e] = v;
            ev[e] = k == 0 ? (v + 1) % n : (int)((seed >> 8) % (unsigned)n);
            seed = seed * 1664525u + 1013904223u;
            ew[e] = 1 + (int)((seed >> 16) % 1000);
        }
    for (int v = 0; v < n; v++)
        comp[v] = v;
    int *deu, *dev, *dew, *dcomp, *dold, *dbest, *dparent, *dtree, *dhooked;
    if (check(cudaMalloc(&deu, sizeof(int) * m), "cudaMalloc") ||
        check(cudaMalloc(&dev, sizeof(int) * m), "cudaMalloc") ||
        check(cudaMalloc(&dew, sizeof(int) * m), "cudaMalloc") ||
        check(cudaMalloc(&dtree, sizeof(int) * m), "cudaMalloc") ||
        check(cudaMalloc(&dcomp, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dold, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dbest, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dparent, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dhooked, sizeof(int)), "cudaMalloc"))
        return 1;
    if (check(cudaMemcpy(deu, eu, sizeof(int) * m, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dev, ev, sizeof(int) * m, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dew, ew, sizeof(int) * m, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dcomp, comp, sizeof(int) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemset(dtree, 0, sizeof(int) * m), "cudaMemset"))
        return 1;
    int vblocks = (n + threads - 1) / threads, eblocks = (m + threads - 1) / threads;
    int rounds = 0, hooked = 1;
    while (hooked && rounds < 64) {
        hooked = 0;
        if (check(cudaMemset(dhooked, 0, sizeof(int)), "cudaMemset"))
            return 1;
        reset<<<vblocks, threads>>>(n, dbest);
        cheapest<<<eblocks, threads>>>(m, deu, dev, dew, dcomp, dbest);
        hook<<<vblocks, threads>>>(n, deu, dev, dcomp, dbest, dparent, dtree, dhooked);
        int *t = dold;
        dold = dcomp, dcomp = t;
        relabel<<<vblocks, threads>>>(n, dparent, dold, dcomp);
        if (check(cudaGetLastError(), "launch") ||
            check(cudaMemcpy(&hooked, dhooked, sizeof(int), cudaMemcpyDeviceToHost), "copy"))
            return 1;
        rounds++;
    }
    if (check(cudaMemcpy(in_tree, dtree, sizeof(int) * m, cudaMemcpyDeviceToHost), "copy"))
        return 1;
    long total = 0;
    int edges = 0;
    for (int e = 0; e < m; e++)
        if (in_tree[e])
            total += ew[e], edges++;
    double t0 = cpu_seconds();
    int ref_edges;
    long ref_total = kruskal(n, m, eu, ev, ew, &ref_edges);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int bad = total != ref_total || edges != ref_edges;
    if (bad)
        fprintf(stderr, "mst: %d edges of weight %ld, expected %d of weight %ld\n", edges, total,
                ref_edges, ref_total);
    printf("mst %d vertices, degree %d, %d rounds, %d edges of weight %ld, %d threads per block\n",
           n, degree, rounds, edges, total, threads);
    printf("mst: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(deu), cudaFree(dev), cudaFree(dew), cudaFree(dtree), cudaFree(dcomp);
    cudaFree(dold), cudaFree(dbest), cudaFree(dparent), cudaFree(dhooked);
    free(eu), free(ev), free(ew), free(in_tree), free(comp);
    return bad ? 1 : 0;
}
