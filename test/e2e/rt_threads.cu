// Four host threads share the runtime: each allocates, launches, copies back, checks
// and frees, 200 times (argv[1] overrides the count). Launches of different threads
// interleave, so each thread's <<<>>> configuration must stay its own. Prints bad=N
// (wrong results or failed calls, over all threads) and PASS when N is 0.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>

__global__ void fill(int *v, int n, int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = seed + i;
}

enum { THREADS = 4, N = 96 };
static int rounds = 200;
static int bad[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, h[N];
    for (int r = 0; r < rounds; r++) {
        int *d = nullptr, seed = t * 100000 + r * 100;
        if (cudaMalloc(&d, N * sizeof(int)) != cudaSuccess) {
            bad[t]++;
            continue;
        }
        fill<<<(N + 31) / 32, 32>>>(d, N, seed);
        if (cudaGetLastError() != cudaSuccess)
            bad[t]++;
        if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
            bad[t]++;
        for (int i = 0; i < N; i++)
            if (h[i] != seed + i) {
                bad[t]++;
                break;
            }
        if (cudaFree(d) != cudaSuccess)
            bad[t]++;
    }
    return nullptr;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], nullptr, worker, (void *)t);
    int total = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], nullptr);
        total += bad[t];
    }
    size_t free_b, total_b;
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b != total_b) // every allocation was freed
        total++;
    printf("bad=%d\n", total);
    if (total == 0)
        printf("PASS\n");
    return total != 0;
}
