// barneshut: the force phase of a 2D Barnes-Hut n-body step, the tree walk GPU codes
// spend their time in. The host builds a quadtree over generated bodies (at most LEAF
// bodies per leaf; each node holds its centre of mass, total mass and width) and orders
// the bodies as the leaves are, so that the threads of a warp walk nearby paths. On the
// device every thread walks the tree for its body with an explicit stack in shared memory:
// a node far enough away (width^2 < theta^2 d^2) acts through its centre of mass, a near
// leaf body by body, a near inner node pushes its children. The stack holds `depth`
// entries per thread, so the scratchpad per block is threads x depth x 4 bytes: both are
// chosen at run time (the resource specification), and a stack that overflows is
// reported, not ignored. Each thread's walk depends only on the data, so the instructions
// executed do not depend on timing. The accelerations are checked against the same walk
// on the CPU (the device may contract a*b+c into an FMA, hence a tolerance).
// Usage: barneshut [bodies [threads_per_block 32..1024 [stack depth 8..128]]]
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LEAF 4
#define THETA 0.5f
#define EPS2 1e-4f

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
    fprintf(stderr, "barneshut: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// A node: centre of mass (x, y), mass m and width w; first >= 0 is its first child (the
// children are contiguous, count of them), first < 0 a leaf of bodies -first - 1 onwards.
struct Node {
    float x, y, m, w;
    int first, count;
};

// What one body's walk adds, in the same order on the device and on the CPU.
__host__ __device__ static inline void pull(float px, float py, float qx, float qy, float m,
                                            float *ax, float *ay)
{
    float dx = qx - px, dy = qy - py, d2 = dx * dx + dy * dy + EPS2;
    float inv = 1.0f / sqrtf(d2), s = m * inv * inv * inv;
    *ax += s * dx;
    *ay += s * dy;
}

__global__ void forces(int n, const float *bx, const float *by, const float *bm,
                       const Node *node, int depth, float *ax, float *ay, int *overflow)
{
    extern __shared__ int stack[]; // entry k of thread t at k * blockDim.x + t: no conflicts
    int i = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x, step = blockDim.x;
    if (i >= n)
        return;
    float px = bx[i], py = by[i], sx = 0.0f, sy = 0.0f;
    int sp = 1;
    stack[t] = 0;
    while (sp > 0) {
        Node nd = node[stack[--sp * step + t]];
        float dx = nd.x - px, dy = nd.y - py;
        if (nd.w * nd.w < THETA * THETA * (dx * dx + dy * dy)) {
            pull(px, py, nd.x, nd.y, nd.m, &sx, &sy);
        } else if (nd.first < 0) {
            for (int b = -nd.first - 1; b < -nd.first - 1 + nd.count; b++)
                if (b != i)
                    pull(px, py, bx[b], by[b], bm[b], &sx, &sy);
        } else if (sp + nd.count > depth) {
            *overflow = 1;
            break;
        } else {
            for (int c = 0; c < nd.count; c++)
                stack[sp++ * step + t] = nd.first + c;
        }
    }
    ax[i] = sx;
    ay[i] = sy;
}

// The tree: built top-down over a square, children of a node stored contiguously.
struct Tree {
    Node *node;
    int count, cap, *order, *scratch;
    const float *x, *y, *m;
};

static int add_nodes(Tree *t, int k)
{
    if (t->count + k > t->cap) {
        t->cap = 2 * (t->count + k);
        t->node = (Node *)realloc(t->node, sizeof(Node) * t->cap);
    }
    t->count += k;
    return t->count - k;
}

// Fills node k for bodies order[lo, hi) in the square at (cx, cy) of width w.
static void build(Tree *t, int k, int lo, int hi, float cx, float cy, float w)
{
    double m = 0, x = 0, y = 0;
    for (int i = lo; i < hi; i++) {
        int b = t->order[i];
        m += t->m[b], x += t->m[b] * t->x[b], y += t->m[b] * t->y[b];
    }
    Node nd = {(float)(x / m), (float)(y / m), (float)m, w, -lo - 1, hi - lo};
    if (hi - lo <= LEAF || w < 1e-6f) {
        t->node[k] = nd;
        return;
    }
    // partition into quadrants 0..3 (x >= cx is bit 0, y >= cy bit 1), stably
    int start[5] = {lo}, n = 0;
    for (int q = 0; q < 4; q++) {
        for (int i = lo; i < hi; i++) {
            int b = t->order[i];
            if ((t->x[b] >= cx) + 2 * (t->y[b] >= cy) == q)
                t->scratch[lo + n++] = b;
        }
        start[q + 1] = lo + n;
    }
    for (int i = lo; i < hi; i++)
        t->order[i] = t->scratch[i];
    int used = 0, quad[4];
    for (int q = 0; q < 4; q++)
        if (start[q + 1] > start[q])
            quad[used++] = q;
    int first = add_nodes(t, used);
    nd.first = first, nd.count = used;
    t->node[k] = nd;
    for (int c = 0; c < used; c++) {
        int q = quad[c];
        float h = w / 4;
        build(t, first + c, start[q], start[q + 1], cx + (q & 1 ? h : -h), cy + (q & 2 ? h : -h),
              w / 2);
    }
}

// The same walk on the CPU, with an unbounded stack.
static void walk(const Node *node, int n, const float *x, const float *y, const float *m, int i,
                 int *stack, float *ax, float *ay)
{
    float sx = 0, sy = 0;
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        Node nd = node[stack[--sp]];
        float dx = nd.x - x[i], dy = nd.y - y[i];
        if (nd.w * nd.w < THETA * THETA * (dx * dx + dy * dy)) {
            pull(x[i], y[i], nd.x, nd.y, nd.m, &sx, &sy);
        } else if (nd.first < 0) {
            for (int b = -nd.first - 1; b < -nd.first - 1 + nd.count; b++)
                if (b != i)
                    pull(x[i], y[i], x[b], y[b], m[b], &sx, &sy);
        } else {
            for (int c = 0; c < nd.count; c++)
                stack[sp++] = nd.first + c;
        }
    }
    (void)n;
    *ax = sx, *ay = sy;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16384, threads = argc > 2 ? atoi(argv[2]) : 128;
    int depth = argc > 3 ? atoi(argv[3]) : 32;
    if (n < 2 || n > (1 << 22) || threads < 32 || threads > 1024 || threads % 32 || depth < 8 ||
        depth > 128) {
        fprintf(stderr, "usage: barneshut [bodies 2..2^22 [threads_per_block 32..1024, a "
                        "multiple of 32 [stack depth 8..128]]]\n");
        return 2;
    }
    // bodies in a few clusters of a unit square, so that the tree is uneven
    float *x0 = (float *)malloc(sizeof(float) * n), *y0 = (float *)malloc(sizeof(float) * n);
    float *m0 = (float *)malloc(sizeof(float) * n);
    unsigned seed = 31337;
    for (int i = 0; i < n; i++) {
        float r[4];
        for (int k = 0; k < 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (float)(seed >> 8) / 16777216.0f;
        }
        int c = i % 5;
        float cx = 0.2f + 0.15f * c, cy = 0.8f - 0.12f * c, spread = 0.05f + 0.04f * c;
        x0[i] = cx + spread * (r[0] - 0.5f) * (1 + r[2]);
        y0[i] = cy + spread * (r[1] - 0.5f) * (1 + r[2]);
        m0[i] = 0.5f + r[3];
    }
    Tree t = {NULL, 0, 0, (int *)malloc(sizeof(int) * n), (int *)malloc(sizeof(int) * n), x0,
              y0, m0};
    for (int i = 0; i < n; i++)
        t.order[i] = i;
    add_nodes(&t, 1);
    build(&t, 0, 0, n, 0.5f, 0.5f, 1.0f);
    // the bodies in leaf order; the leaves' body indices already refer to that order
    float *x = (float *)malloc(sizeof(float) * n), *y = (float *)malloc(sizeof(float) * n);
    float *m = (float *)malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++)
        x[i] = x0[t.order[i]], y[i] = y0[t.order[i]], m[i] = m0[t.order[i]];
    float *dx, *dy, *dm, *dax, *day;
    Node *dnode;
    int *doverflow, overflow = 0;
    if (check(cudaMalloc(&dx, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dy, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dm, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dax, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&day, sizeof(float) * n), "cudaMalloc") ||
        check(cudaMalloc(&dnode, sizeof(Node) * t.count), "cudaMalloc") ||
        check(cudaMalloc(&doverflow, sizeof(int)), "cudaMalloc"))
        return 1;
    if (check(cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dy, y, sizeof(float) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dm, m, sizeof(float) * n, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dnode, t.node, sizeof(Node) * t.count, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemset(doverflow, 0, sizeof(int)), "cudaMemset"))
        return 1;
    size_t smem = sizeof(int) * (size_t)threads * depth;
    forces<<<(n + threads - 1) / threads, threads, smem>>>(n, dx, dy, dm, dnode, depth, dax, day,
                                                           doverflow);
    float *ax = (float *)malloc(sizeof(float) * n), *ay = (float *)malloc(sizeof(float) * n);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(ax, dax, sizeof(float) * n, cudaMemcpyDeviceToHost), "copy") ||
        check(cudaMemcpy(ay, day, sizeof(float) * n, cudaMemcpyDeviceToHost), "copy") ||
        check(cudaMemcpy(&overflow, doverflow, sizeof(int), cudaMemcpyDeviceToHost), "copy"))
        return 1;
    int bad = 0;
    if (overflow) {
        fprintf(stderr, "barneshut: a walk needed more than %d stack entries\n", depth);
        bad = 1;
    }
    int *stack = (int *)malloc(sizeof(int) * (4 * t.count + 1));
    double t0 = cpu_seconds();
    for (int i = 0; i < n && !overflow; i++) {
        float rx, ry;
        walk(t.node, n, x, y, m, i, stack, &rx, &ry);
        float tol = 1e-3f * sqrtf(rx * rx + ry * ry) + 1e-3f;
        if ((fabsf(ax[i] - rx) > tol || fabsf(ay[i] - ry) > tol) && bad++ < 5)
            fprintf(stderr, "barneshut: body %d: (%g, %g), expected (%g, %g)\n", i, ax[i], ay[i],
                    rx, ry);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("barneshut %d bodies, %d tree nodes, %d threads per block, %d stack entries per "
           "thread (%zu bytes of shared memory)\n",
           n, t.count, threads, depth, smem);
    printf("barneshut: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(dx), cudaFree(dy), cudaFree(dm), cudaFree(dax), cudaFree(day), cudaFree(dnode);
    cudaFree(doverflow);
    free(x0), free(y0), free(m0), free(x), free(y), free(m), free(ax), free(ay), free(stack);
    free(t.node), free(t.order), free(t.scratch);
    return bad ? 1 : 0;
}
