// A program in the style of NVIDIA's CUDA samples: it tests CUDA's header guards and
// version macros the way the samples' common helpers do, sizes its launches with the
// occupancy calculator, and splits warps with labeled and binary partitions. Run on the
// gtx480 preset (1536 threads, 8 blocks and 48 KB of shared memory per SM, 15 SMs), where
// the occupancy figures below follow by hand from those limits; it brackets the work with
// the profiler's marks, writes one launch with spaces inside the chevrons as nvcc accepts
// it, and checks that a dynamic shared array after a static byte is whole. Prints
// "samples_style: PASS".
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#ifndef __CUDA_RUNTIME_H__
#error "__CUDA_RUNTIME_H__ is CUDA's guard of cuda_runtime.h"
#endif
#if !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_API_H__) || !defined(__VECTOR_TYPES_H__)
#error "CUDA's guards of driver_types.h, cuda_runtime_api.h and vector_types.h"
#endif
#if !defined(_COOPERATIVE_GROUPS_H_)
#error "CUDA's guard of cooperative_groups.h"
#endif
#if !defined(CUDART_VERSION) || CUDART_VERSION < 11000 || !defined(CUDA_VERSION)
#error "CUDART_VERSION and CUDA_VERSION give a CUDA 11 or later runtime"
#endif

// As the samples' helpers do: an error checker that exists only when the runtime's
// types are there.
#ifdef __DRIVER_TYPES_H__
#define check(call) checkAt((call), #call, __LINE__)
static void checkAt(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorName(e));
        exit(1);
    }
}
#endif

static int failures = 0;
#define expect(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            printf("line %d: expected %s\n", __LINE__, #cond);                             \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

__global__ void fill(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 1.0f;
}

// Each warp splits its lanes by lane % 3 and by parity; every lane writes the size and
// rank of its groups, the sum over its group computed with cg::reduce, and the lanes
// holding the same label found by the tile's match_any.
__global__ void partitions(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int lane = (int)warp.thread_rank();
    cg::coalesced_group by3 = cg::labeled_partition(warp, lane % 3);
    cg::coalesced_group odd = cg::binary_partition(warp, lane & 1);
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group again = cg::labeled_partition(active, lane % 3);
    int *o = out + 6 * (blockIdx.x * blockDim.x + threadIdx.x);
    o[0] = (int)by3.size();
    o[1] = (int)by3.thread_rank();
    o[2] = cg::reduce(by3, lane, cg::plus<int>());
    o[3] = (int)odd.size();
    o[4] = (int)odd.thread_rank();
    o[5] = again.size() == by3.size() ? (int)warp.match_any(lane % 3) : -1;
}

// Under divergence: only lanes below 20 take part; they split by lane / 8.
__global__ void partitions_divergent(int *out)
{
    int lane = threadIdx.x % 32;
    int size = -1;
    if (lane < 20) {
        cg::coalesced_group g = cg::labeled_partition(cg::coalesced_threads(), lane / 8);
        size = (int)g.size();
    }
    out[threadIdx.x] = size;
}

// One static byte before a dynamic array (as a reduction's "am I last" flag is): the
// dynamic array starts 16-byte aligned, and every element of it belongs to the block.
__global__ void flag_and_dynamic(float *out)
{
    __shared__ bool last;
    extern __shared__ float part[];
    if (threadIdx.x == 0)
        last = true;
    part[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = last ? part[blockDim.x - 1 - threadIdx.x] : -1.0f;
}

static void shared_layout(void)
{
    const int n = 128;
    float *d = NULL, h[n];
    check(cudaMalloc(&d, sizeof h));
    flag_and_dynamic<<<1, n, n * sizeof(float)>>>(d);
    check(cudaGetLastError());
    check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        expect(h[i] == (float)(n - 1 - i));
    check(cudaFree(d));
}

static void occupancy(void)
{
    int grid = 0, block = 0, blocks = 0;
    // The whole SM (1536 threads) is first reached by two blocks of 768.
    check(cudaOccupancyMaxPotentialBlockSize(&grid, &block, fill, 0, 0));
    expect(block == 768 && grid == 2 * 15);
    // Within 200 threads: 200 (224 in whole warps) gives 6 blocks, 192 gives 8 = 1536.
    check(cudaOccupancyMaxPotentialBlockSize(&grid, &block, fill, 0, 200));
    expect(block == 192 && grid == 8 * 15);
    // Within 160: 160 gives the block limit of 8 (1280 threads); nothing smaller does better.
    check(cudaOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, fill, 0, 160,
                                                      cudaOccupancyDefault));
    expect(block == 160 && grid == 8 * 15);
    // 40 bytes of shared memory per thread: 1024 threads fit once (1024); 608 threads take
    // 24320 bytes, two blocks fit in 48 KB (1216 threads), and no size beats that (640:
    // one; 384: three, 1152; 192: six, 1152).
    check(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        &grid, &block, fill, [](int threads) { return (size_t)threads * 40; }));
    expect(block == 608 && grid == 2 * 15);
    // Three blocks of 256 share 48 KB: 16 KB each, and one byte more leaves room for two.
    size_t smem = 0;
    check(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, fill, 3, 256));
    expect(smem == 16384);
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, smem));
    expect(blocks == 3);
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, smem + 1));
    expect(blocks == 2);
    // Nine blocks of 128 exceed the block limit: no room at all.
    check(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, fill, 9, 128));
    expect(smem == 0);

    // A launch sized by the calculator runs.
    int n = 100000;
    float *d = NULL;
    check(cudaOccupancyMaxPotentialBlockSize(&grid, &block, fill));
    check(cudaMalloc(&d, n * sizeof(float)));
    fill << < (n + block - 1) / block, block >> > (d, n); // spaced, as some samples write it
    check(cudaGetLastError());
    float last = 0;
    check(cudaMemcpy(&last, d + n - 1, sizeof last, cudaMemcpyDeviceToHost));
    expect(last == 1.0f);
    check(cudaFree(d));
}

static void groups(void)
{
    const int threads = 64;
    int *d = NULL, h[threads * 6];
    check(cudaMalloc(&d, sizeof h));
    partitions<<<1, threads>>>(d);
    check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < threads; t++) {
        int lane = t % 32, label = lane % 3, *o = h + 6 * t;
        int size = 0, rank = 0, sum = 0;
        unsigned same = 0;
        for (int l = 0; l < 32; l++)
            if (l % 3 == label) {
                size++;
                rank += l < lane;
                sum += l;
                same |= 1u << l;
            }
        expect(o[0] == size);
        expect(o[1] == rank);
        expect(o[2] == sum);
        expect(o[3] == 16);
        expect(o[4] == lane / 2);
        expect((unsigned)o[5] == same);
    }
    partitions_divergent<<<1, 32>>>(d);
    check(cudaMemcpy(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; t++)
        expect(h[t] == (t < 16 ? 8 : t < 20 ? 4 : -1));
    check(cudaFree(d));
}

int main(void)
{
    check(cudaProfilerStart());
    occupancy();
    groups();
    shared_layout();
    check(cudaProfilerStop());
    if (failures)
        return 1;
    printf("samples_style: PASS\n");
    return 0;
}
