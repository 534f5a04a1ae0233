// bfs: breadth-first search over a generated random graph in CSR form, in the style of
// Rodinia's bfs. Each level takes two launches: the first expands every node of the
// frontier mask (writing level+1 into unvisited neighbours and marking them in an
// "updating" mask), the second turns the updating mask into the next frontier and raises
// a flag in device memory. The host repeats until the flag stays down. All frontier nodes
// of one level write the same value, so the races in the first kernel are benign and the
// levels must equal a CPU queue-based BFS exactly.
// Usage: bfs [nodes] [average degree]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    fprintf(stderr, "bfs: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// Fixed-seed xorshift generator, so every run sees the same graph.
static unsigned rng_next(unsigned *s)
{
    unsigned x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

__global__ void bfs_expand(const int *offsets, const int *edges, char *frontier,
                           char *updating, const char *visited, int *level, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v])
        return;
    frontier[v] = 0;
    int next = level[v] + 1;
    for (int e = offsets[v]; e < offsets[v + 1]; e++) {
        int w = edges[e];
        if (!visited[w]) {
            level[w] = next;
            updating[w] = 1;
        }
    }
}

__global__ void bfs_advance(char *frontier, char *updating, char *visited, int *changed, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !updating[v])
        return;
    frontier[v] = 1;
    visited[v] = 1;
    updating[v] = 0;
    *changed = 1;
}

// Undirected random graph with n * degree / 2 uniformly random edges (so each node has
// `degree` neighbours on average); most nodes are reachable from node 0.
static void make_graph(int n, int degree, int **offsets_out, int **edges_out, int *m_out)
{
    unsigned seed = 12345;
    int pairs = n * degree / 2;
    int *src = (int *)malloc(sizeof(int) * 2 * pairs), *dst = src + pairs;
    for (int i = 0; i < pairs; i++) {
        src[i] = (int)((unsigned long long)rng_next(&seed) * n >> 32);
        dst[i] = (int)((unsigned long long)rng_next(&seed) * n >> 32);
    }
    int *offsets = (int *)calloc(n + 1, sizeof(int));
    for (int i = 0; i < pairs; i++) {
        offsets[src[i] + 1]++;
        offsets[dst[i] + 1]++;
    }
    for (int v = 0; v < n; v++)
        offsets[v + 1] += offsets[v];
    int m = offsets[n];
    int *edges = (int *)malloc(sizeof(int) * (m ? m : 1));
    int *fill = (int *)malloc(sizeof(int) * n);
    memcpy(fill, offsets, sizeof(int) * n);
    for (int i = 0; i < pairs; i++) {
        edges[fill[src[i]]++] = dst[i];
        edges[fill[dst[i]]++] = src[i];
    }
    free(fill);
    free(src);
    *offsets_out = offsets;
    *edges_out = edges;
    *m_out = m;
}

static void cpu_bfs(const int *offsets, const int *edges, int n, int *level)
{
    int *queue = (int *)malloc(sizeof(int) * n);
    for (int v = 0; v < n; v++)
        level[v] = -1;
    int head = 0, tail = 0;
    level[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int v = queue[head++];
        for (int e = offsets[v]; e < offsets[v + 1]; e++)
            if (level[edges[e]] < 0) {
                level[edges[e]] = level[v] + 1;
                queue[tail++] = edges[e];
            }
    }
    free(queue);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    int degree = argc > 2 ? atoi(argv[2]) : 6;
    if (n <= 0 || degree < 0) {
        fprintf(stderr, "usage: bfs [nodes > 0] [average degree >= 0]\n");
        return 2;
    }
    int *offsets, *edges, m;
    make_graph(n, degree, &offsets, &edges, &m);

    int *level = (int *)malloc(sizeof(int) * n);
    char *mask = (char *)calloc(n, 1);
    for (int v = 0; v < n; v++)
        level[v] = -1;
    level[0] = 0;
    mask[0] = 1;

    int *doff, *dedges, *dlevel, *dchanged;
    char *dfrontier, *dupdating, *dvisited;
    if (check(cudaMalloc(&doff, sizeof(int) * (n + 1)), "cudaMalloc") ||
        check(cudaMalloc(&dedges, sizeof(int) * (m ? m : 1)), "cudaMalloc") ||
        check(cudaMalloc(&dlevel, sizeof(int) * n), "cudaMalloc") ||
        check(cudaMalloc(&dchanged, sizeof(int)), "cudaMalloc") ||
        check(cudaMalloc(&dfrontier, n), "cudaMalloc") ||
        check(cudaMalloc(&dupdating, n), "cudaMalloc") ||
        check(cudaMalloc(&dvisited, n), "cudaMalloc"))
        return 1;
    cudaMemcpy(doff, offsets, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dedges, edges, sizeof(int) * m, cudaMemcpyHostToDevice);
    cudaMemcpy(dlevel, level, sizeof(int) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dfrontier, mask, n, cudaMemcpyHostToDevice);
    cudaMemcpy(dvisited, mask, n, cudaMemcpyHostToDevice);
    cudaMemset(dupdating, 0, n);

    int blocks = (n + BLOCK - 1) / BLOCK, levels = 0, changed;
    do {
        changed = 0;
        cudaMemcpy(dchanged, &changed, sizeof changed, cudaMemcpyHostToDevice);
        bfs_expand<<<blocks, BLOCK>>>(doff, dedges, dfrontier, dupdating, dvisited, dlevel, n);
        bfs_advance<<<blocks, BLOCK>>>(dfrontier, dupdating, dvisited, dchanged, n);
        if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel"))
            return 1;
        cudaMemcpy(&changed, dchanged, sizeof changed, cudaMemcpyDeviceToHost);
        levels++;
    } while (changed);
    cudaMemcpy(level, dlevel, sizeof(int) * n, cudaMemcpyDeviceToHost);

    int *ref = (int *)malloc(sizeof(int) * n);
    double t0 = cpu_seconds();
    cpu_bfs(offsets, edges, n, ref);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = 0, reached = 0, depth = 0;
    for (int v = 0; v < n; v++) {
        if (ref[v] >= 0)
            reached++;
        if (ref[v] > depth)
            depth = ref[v];
        if (level[v] != ref[v] && bad++ < 5)
            fprintf(stderr, "bfs: level[%d] = %d, expected %d\n", v, level[v], ref[v]);
    }
    printf("bfs nodes=%d edges=%d reached=%d depth=%d iterations=%d\n", n, m, reached, depth,
           levels);
    if (bad)
        fprintf(stderr, "bfs: %d mismatching levels\n", bad);
    cudaFree(doff);
    cudaFree(dedges);
    cudaFree(dlevel);
    cudaFree(dchanged);
    cudaFree(dfrontier);
    cudaFree(dupdating);
    cudaFree(dvisited);
    free(offsets);
    free(edges);
    free(level);
    free(mask);
    free(ref);
    printf("bfs: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
