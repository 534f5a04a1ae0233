// Independent thread scheduling: a lock taken and released inside one warp (valid on
// sm_70 and later). Every lane spins on atomicCAS until it holds the lock, increments a
// plain counter in the critical section and releases the lock; with emu.simt = its every
// lane gets its turn (the counter ends at 32 per warp), where the pre-Volta stack
// (emu.simt = ipdom) would spin forever. Two warps of each of two blocks share one lock.
#include <stdio.h>

__global__ void k(int *lock, int *counter)
{
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {   // acquire
            *counter += 1;                  // critical section (not atomic)
            __threadfence();
            atomicExch(lock, 0);            // release
            done = true;
        }
    }
}

int main()
{
    int *l, *c, h = 0;
    cudaMalloc((void **)&l, 4);
    cudaMalloc((void **)&c, 4);
    cudaMemset(l, 0, 4);
    cudaMemset(c, 0, 4);
    k<<<2, 64>>>(l, c);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(&h, c, 4, cudaMemcpyDeviceToHost);
    printf("%s counter=%d (expect 128)\n", cudaGetErrorName(e), h);
    printf("its_spinlock: %s\n", e == cudaSuccess && h == 128 ? "PASS" : "FAIL");
    return !(e == cudaSuccess && h == 128);
}
