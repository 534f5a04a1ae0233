// nqueens: counts the placements of N non-attacking queens on an N x N board. The host
// places the queens of the first rows (three unless told) in every valid way; each GPU thread takes one
// such prefix and searches the rest depth first, with its stack (the column and diagonal
// masks and the untried columns of each row) in shared memory, as GPU N-queens solvers
// keep it. The resource specification is chosen at run time: the threads per block, and
// so the shared memory per block (threads x rows left x 16 bytes); the rows the host
// places set how many searches there are. The count is checked against a CPU search and
// the known numbers of solutions.
// Usage: nqueens [N 5..14 [threads_per_block 32..1024, a multiple of 32 [rows placed 1..5]]]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
    fprintf(stderr, "nqueens: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

// prefix[3 i .. 3 i + 2]: the column, left-diagonal and right-diagonal masks after the
// first rows of prefix i (n - rows of them). Stack entry (level, field) of thread t is at
// stack[(level * 4 + field) * blockDim.x + t], so a warp's accesses fall in distinct banks.
__global__ void search(const unsigned *prefix, int count, int n, int rows,
                       unsigned long long *solutions)
{
    extern __shared__ unsigned stack[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t, b = blockDim.x;
    unsigned full = (1u << n) - 1;
    unsigned long long found = 0;
    if (i < count) {
        int top = 0;
        unsigned c = prefix[3 * i], l = prefix[3 * i + 1], r = prefix[3 * i + 2];
        stack[0 * b + t] = c;
        stack[1 * b + t] = l;
        stack[2 * b + t] = r;
        stack[3 * b + t] = ~(c | l | r) & full;
        while (top >= 0) {
            unsigned avail = stack[(top * 4 + 3) * b + t];
            if (!avail) {
                top--;
                continue;
            }
            unsigned bit = avail & (0u - avail);
            stack[(top * 4 + 3) * b + t] = avail ^ bit;
            if (top == rows - 1) {
                found++;
                continue;
            }
            c = stack[(top * 4 + 0) * b + t] | bit;
            l = ((stack[(top * 4 + 1) * b + t] | bit) << 1) & full;
            r = (stack[(top * 4 + 2) * b + t] | bit) >> 1;
            top++;
            stack[(top * 4 + 0) * b + t] = c;
            stack[(top * 4 + 1) * b + t] = l;
            stack[(top * 4 + 2) * b + t] = r;
            stack[(top * 4 + 3) * b + t] = ~(c | l | r) & full;
        }
    }
    if (found)
        atomicAdd(solutions, found);
}

// The CPU reference: the same search, recursive.
static unsigned long long count_cpu(unsigned full, unsigned c, unsigned l, unsigned r)
{
    if (c == full)
        return 1;
    unsigned long long k = 0;
    for (unsigned avail = ~(c | l | r) & full; avail; avail &= avail - 1) {
        unsigned bit = avail & (0u - avail);
        k += count_cpu(full, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1);
    }
    return k;
}

// Every valid placement of the first `left` rows (after the masks c, l, r), as masks for
// the row after them, in column order; returns how many it appended at out + 3 k.
static int prefixes(unsigned full, int left, unsigned c, unsigned l, unsigned r, unsigned *out,
                    int k)
{
    if (!left) {
        out[3 * k] = c, out[3 * k + 1] = l, out[3 * k + 2] = r;
        return k + 1;
    }
    for (unsigned avail = ~(c | l | r) & full; avail; avail &= avail - 1) {
        unsigned bit = avail & (0u - avail);
        k = prefixes(full, left - 1, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1, out, k);
    }
    return k;
}

int main(int argc, char **argv)
{
    static const unsigned long long known[15] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724,
                                                 2680, 14200, 73712, 365596};
    int n = argc > 1 ? atoi(argv[1]) : 10, threads = argc > 2 ? atoi(argv[2]) : 128;
    int placed = argc > 3 ? atoi(argv[3]) : 3;
    if (n < 5 || n > 14 || threads < 32 || threads > 1024 || threads % 32 || placed < 1 ||
        placed > 5) {
        fprintf(stderr, "usage: nqueens [N 5..14 [threads_per_block 32..1024, a multiple "
                        "of 32 [rows placed 1..5]]]\n");
        return 2;
    }
    size_t most = 1;
    for (int i = 0; i < placed; i++)
        most *= n;
    unsigned *pre = (unsigned *)malloc(sizeof(unsigned) * 3 * most);
    int count = prefixes((1u << n) - 1, placed, 0, 0, 0, pre, 0);
    unsigned *dpre;
    unsigned long long *dsol, sol = 0;
    if (check(cudaMalloc(&dpre, sizeof(unsigned) * 3 * count), "cudaMalloc") ||
        check(cudaMalloc(&dsol, sizeof sol), "cudaMalloc") ||
        check(cudaMemcpy(dpre, pre, sizeof(unsigned) * 3 * count, cudaMemcpyHostToDevice),
              "cudaMemcpy") ||
        check(cudaMemset(dsol, 0, sizeof sol), "cudaMemset"))
        return 1;
    size_t shared = sizeof(unsigned) * 4 * (n - placed) * threads;
    search<<<(count + threads - 1) / threads, threads, shared>>>(dpre, count, n, n - placed,
                                                                 dsol);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "search") ||
        check(cudaMemcpy(&sol, dsol, sizeof sol, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;
    double t0 = cpu_seconds();
    unsigned long long ref = count_cpu((1u << n) - 1, 0, 0, 0);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    int ok = sol == ref && ref == known[n];
    printf("nqueens %d: %llu solutions from %d prefixes, %d threads per block, %zu shared "
           "bytes\n", n, sol, count, threads, shared);
    printf("nqueens: %s\n", ok ? "PASS" : "FAIL");
    if (!ok)
        fprintf(stderr, "nqueens: expected %llu (the CPU counted %llu)\n", known[n], ref);
    cudaFree(dpre);
    cudaFree(dsol);
    free(pre);
    return ok ? 0 : 1;
}
