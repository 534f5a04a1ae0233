// Grid groups: this_grid().sync() in a cooperative launch is a real grid-wide barrier
// (each phase reads what other blocks wrote in the phase before), grid ranks and sizes,
// a plain launch of the same kernel that fits, and a cooperative launch with more blocks
// than the device holds at once refused with cudaErrorCooperativeLaunchTooLarge.
#include <cooperative_groups.h>
#include <stdio.h>
namespace cg = cooperative_groups;

__global__ void phases(int *a, int *b, int n, unsigned long long *info)
{
    cg::grid_group g = cg::this_grid();
    int i = (int)g.thread_rank();
    if (i == 0) {
        info[0] = g.size();
        info[1] = g.num_blocks();
        info[2] = g.is_valid();
    }
    for (int round = 0; round < 3; round++) {
        if (i < n) a[i] = i + round * 1000;
        g.sync();
        if (i < n) b[i] = a[(i + 97 * (round + 1)) % n];   // another block's element
        g.sync();
    }
    if (i < n) a[i] = b[n - 1 - i];
}

int main()
{
    int n = 2048, *a, *b, h[2048], bad = 0;
    unsigned long long *dinfo, info[3];
    cudaMalloc((void **)&a, n * 4); cudaMalloc((void **)&b, n * 4); cudaMalloc((void **)&dinfo, sizeof info);
    void *args[] = {&a, &b, &n, &dinfo};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)phases, dim3(8), dim3(256), args, 0, 0);
    cudaError_t s = cudaDeviceSynchronize();
    cudaMemcpy(h, a, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(info, dinfo, sizeof info, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
        int j = n - 1 - i;
        bad += h[i] != (j + 97 * 3) % n + 2000;
    }
    if (e || s || info[0] != 2048 || info[1] != 8 || info[2] != 1) {
        printf("cooperative launch: %s / %s, size %llu blocks %llu\n", cudaGetErrorName(e),
               cudaGetErrorName(s), info[0], info[1]);
        bad++;
    }
    phases<<<4, 512>>>(a, b, n, dinfo);                     // fits: a plain launch works too
    cudaMemcpy(h, a, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) bad += h[i] != ((n - 1 - i) + 97 * 3) % n + 2000;
    int dev = 0, coop = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    e = cudaLaunchCooperativeKernel((void *)phases, dim3(100000), dim3(256), args, 0, 0);
    if (!coop || e != cudaErrorCooperativeLaunchTooLarge) {
        printf("attribute %d, too large a grid: %s\n", coop, cudaGetErrorName(e));
        bad++;
    }
    cudaGetLastError();
    printf("cg_grid: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
