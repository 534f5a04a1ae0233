/*
 * cooperative_groups.h - CUDA's cooperative groups over xgpu's warp and block primitives.
 *
 * Groups are small values: a thread block, a grid, a tile of a warp (static
 * thread_block_tile<N> or a dynamic tile of a thread_group), and the coalesced group of
 * the lanes active at the call. A tile of N threads (N a power of two up to 32) is N
 * consecutive lanes of one warp, so its collectives are warp shuffles and votes with
 * width N and the tile's lane mask; tiles of a block larger than a warp are not
 * supported (as on CUDA, where they need the block to be split by warps). A coalesced
 * group's ranks are its lanes in order; its shuffle takes a rank. labeled_partition and
 * binary_partition split a tile or coalesced group into coalesced groups by a label or a
 * predicate (one ballot per bit of the label). sync() is __syncthreads
 * for a block, a warp barrier for a tile or coalesced group, and a grid-wide barrier for a
 * grid (docs/cuda-support.md says which launches may use it).
 *
 * cg::reduce (cooperative_groups/reduce.h) combines with cg::plus, less, greater,
 * bit_and, bit_or, bit_xor: a butterfly over a tile, a rank-ordered tree over a
 * coalesced group; every thread of the group gets the result.
 */
#ifndef XGPU_CUDA_COOPERATIVE_GROUPS_H
#define XGPU_CUDA_COOPERATIVE_GROUPS_H
#define _COOPERATIVE_GROUPS_H_ /* CUDA's own guard: programs test it */

#include "cuda_runtime.h"

#if defined(__CUDA__) && defined(__cplusplus)

#define XGPU_CG static __device__ __forceinline__
#define XGPU_CGM __device__ __forceinline__

extern "C" __device__ void __xgpu_grid_sync(void);

namespace cooperative_groups {

namespace __xgpu {
XGPU_CG unsigned lane(void) { return __nvvm_read_ptx_sreg_laneid(); }
XGPU_CG unsigned long long block_threads(void)
{
    return (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
}
XGPU_CG unsigned long long block_rank(void)
{
    return ((unsigned long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
/* A value of any size through 32-bit shuffles, lane by lane of the source. */
template <class T, class F> XGPU_CG T shuffle(T v, F f)
{
    enum { words = (sizeof(T) + 3) / 4 };
    int w[words];
    __builtin_memset(w, 0, sizeof w);
    __builtin_memcpy(w, &v, sizeof v);
    for (int i = 0; i < words; i++)
        w[i] = f(w[i]);
    T r;
    __builtin_memcpy(&r, w, sizeof r);
    return r;
}
} // namespace __xgpu

/* A group known only at run time: its size, the calling thread's rank and, for groups
 * within a warp, the lane mask. */
class thread_group {
public:
    XGPU_CGM void sync() const
    {
        if (kind_ == block_kind)
            __syncthreads();
        else
            __syncwarp(mask_);
    }
    XGPU_CGM unsigned long long size() const { return size_; }
    XGPU_CGM unsigned long long num_threads() const { return size_; }
    XGPU_CGM unsigned long long thread_rank() const { return rank_; }
    XGPU_CGM bool is_valid() const { return size_ != 0; }

    enum { block_kind, warp_kind };
    /* (xgpu's: CUDA programs obtain groups from the functions below) */
    XGPU_CGM thread_group(int kind, unsigned long long size, unsigned long long rank, unsigned mask)
        : kind_(kind), mask_(mask), size_(size), rank_(rank) {}

protected:
    int kind_;
    unsigned mask_;
    unsigned long long size_, rank_;
};

class thread_block : public thread_group {
public:
    XGPU_CGM thread_block() : thread_group(block_kind, __xgpu::block_threads(), __xgpu::block_rank(), ~0u) {}
    XGPU_CGM void sync() const { __syncthreads(); }
    XGPU_CGM dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    XGPU_CGM dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    XGPU_CGM dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    XGPU_CGM dim3 dim_threads() const { return group_dim(); }
};

XGPU_CG thread_block this_thread_block() { return thread_block(); }

class grid_group {
public:
    XGPU_CGM void sync() const { __xgpu_grid_sync(); }
    XGPU_CGM unsigned long long num_blocks() const
    {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    }
    XGPU_CGM unsigned long long block_rank() const
    {
        return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    }
    XGPU_CGM unsigned long long size() const { return num_blocks() * __xgpu::block_threads(); }
    XGPU_CGM unsigned long long num_threads() const { return size(); }
    XGPU_CGM unsigned long long thread_rank() const
    {
        return block_rank() * __xgpu::block_threads() + __xgpu::block_rank();
    }
    XGPU_CGM bool is_valid() const { return true; }
    XGPU_CGM dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    XGPU_CGM dim3 dim_blocks() const { return group_dim(); }
    XGPU_CGM dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};

XGPU_CG grid_group this_grid() { return grid_group(); }

/* N consecutive lanes of a warp (N = 1, 2, 4, 8, 16 or 32). */
template <unsigned N> class thread_block_tile : public thread_group {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "xgpu: thread_block_tile sizes are powers of two up to 32");

public:
    XGPU_CGM thread_block_tile()
        : thread_group(warp_kind, N, __xgpu::lane() % N,
                       (N == 32 ? ~0u : ((1u << (N & 31)) - 1u)) << (__xgpu::lane() / N * N)) {}
    XGPU_CGM void sync() const { __syncwarp(mask_); }
    XGPU_CGM unsigned long long size() const { return N; }
    XGPU_CGM unsigned long long num_threads() const { return N; }
    XGPU_CGM unsigned long long thread_rank() const { return __xgpu::lane() % N; }
    XGPU_CGM unsigned long long meta_group_rank() const
    {
        return __xgpu::block_rank() / N;
    }
    XGPU_CGM unsigned long long meta_group_size() const
    {
        return (__xgpu::block_threads() + N - 1) / N;
    }
    template <class T> XGPU_CGM T shfl(T v, int src) const
    {
        unsigned m = mask_;
        return __xgpu::shuffle(v, [=](int w) { return __shfl_sync(m, w, src, (int)N); });
    }
    template <class T> XGPU_CGM T shfl_up(T v, unsigned d) const
    {
        unsigned m = mask_;
        return __xgpu::shuffle(v, [=](int w) { return __shfl_up_sync(m, w, d, (int)N); });
    }
    template <class T> XGPU_CGM T shfl_down(T v, unsigned d) const
    {
        unsigned m = mask_;
        return __xgpu::shuffle(v, [=](int w) { return __shfl_down_sync(m, w, d, (int)N); });
    }
    template <class T> XGPU_CGM T shfl_xor(T v, unsigned x) const
    {
        unsigned m = mask_;
        return __xgpu::shuffle(v, [=](int w) { return __shfl_xor_sync(m, w, (int)x, (int)N); });
    }
    XGPU_CGM unsigned ballot(int pred) const
    {
        return __ballot_sync(mask_, pred) >> (__xgpu::lane() / N * N);
    }
    XGPU_CGM int any(int pred) const { return ballot(pred) != 0; }
    XGPU_CGM int all(int pred) const
    {
        return ballot(pred) == (N == 32 ? ~0u : (1u << (N & 31)) - 1u);
    }
    /* The ranks of the tile holding the same value, as a mask of ranks. */
    template <class T> XGPU_CGM unsigned match_any(T v) const
    {
        return __match_any_sync(mask_, v) >> (__xgpu::lane() / N * N);
    }
    template <class T> XGPU_CGM unsigned match_all(T v, int &pred) const
    {
        return __match_all_sync(mask_, v, &pred) >> (__xgpu::lane() / N * N);
    }
    /* (xgpu's: the lanes of the warp the tile holds) */
    XGPU_CGM unsigned lane_mask() const { return mask_; }
};

/* Static tiles of a block or of a larger tile. */
template <unsigned N> XGPU_CG thread_block_tile<N> tiled_partition(const thread_block &)
{
    return thread_block_tile<N>();
}
template <unsigned N, unsigned M>
XGPU_CG thread_block_tile<N> tiled_partition(const thread_block_tile<M> &)
{
    static_assert(N <= M, "xgpu: a tile is partitioned into smaller tiles");
    return thread_block_tile<N>();
}

/* A dynamic tile: tilesz must be a power of two up to 32, else the result is invalid
 * (size 0). */
XGPU_CG thread_group tiled_partition(const thread_group &parent, unsigned tilesz)
{
    (void)parent;
    if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)))
        return thread_group(thread_group::warp_kind, 0, 0, 0);
    unsigned l = __xgpu::lane();
    unsigned m = (tilesz == 32 ? ~0u : (1u << tilesz) - 1u) << (l / tilesz * tilesz);
    return thread_group(thread_group::warp_kind, tilesz, l % tilesz, m);
}

/* The lanes of the warp active at coalesced_threads(); ranks in lane order. */
class coalesced_group : public thread_group {
public:
    XGPU_CGM explicit coalesced_group(unsigned mask)
        : thread_group(warp_kind, __popc(mask), __popc(mask & __lanemask_lt()), mask) {}
    XGPU_CGM void sync() const { __syncwarp(mask_); }
    XGPU_CGM unsigned long long meta_group_rank() const { return 0; }
    XGPU_CGM unsigned long long meta_group_size() const { return 1; }
    /* The lane of rank r. */
    XGPU_CGM int lane_of(unsigned r) const
    {
        unsigned m = mask_;
        for (unsigned i = 0; i < r && m; i++)
            m &= m - 1;
        return m ? __ffs((int)m) - 1 : 0;
    }
    template <class T> XGPU_CGM T shfl(T v, unsigned rank) const
    {
        unsigned m = mask_;
        int src = lane_of(rank);
        return __xgpu::shuffle(v, [=](int w) { return __shfl_sync(m, w, src); });
    }
    template <class T> XGPU_CGM T shfl_down(T v, unsigned d) const
    {
        unsigned r = (unsigned)rank_ + d < size_ ? (unsigned)rank_ + d : (unsigned)rank_;
        return shfl(v, r);
    }
    template <class T> XGPU_CGM T shfl_up(T v, unsigned d) const
    {
        return shfl(v, (unsigned)rank_ >= d ? (unsigned)rank_ - d : (unsigned)rank_);
    }
    XGPU_CGM unsigned ballot(int pred) const { return compact(__ballot_sync(mask_, pred)); }
    XGPU_CGM int any(int pred) const { return __any_sync(mask_, pred); }
    XGPU_CGM int all(int pred) const { return __all_sync(mask_, pred); }
    /* The ranks of the group holding the same value, as a mask of ranks. */
    template <class T> XGPU_CGM unsigned match_any(T v) const
    {
        return compact(__match_any_sync(mask_, v));
    }
    template <class T> XGPU_CGM unsigned match_all(T v, int &pred) const
    {
        return compact(__match_all_sync(mask_, v, &pred));
    }
    /* (xgpu's: the lanes of the warp the group holds) */
    XGPU_CGM unsigned lane_mask() const { return mask_; }

private:
    /* A mask of lanes as a mask of the group's ranks. */
    XGPU_CGM unsigned compact(unsigned lanes) const
    {
        unsigned r = 0, k = 0;
        for (unsigned m = mask_; m; m &= m - 1, k++)
            if (lanes & (m & (0u - m)))
                r |= 1u << k;
        return r;
    }
};

XGPU_CG coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/* The threads of a warp-sized or smaller group split by a label (or a predicate): each
 * thread gets the coalesced group of the threads of its group with the same label, ranks
 * in lane order. */
XGPU_CG coalesced_group labeled_partition(const coalesced_group &g, int label)
{
    return coalesced_group(__match_any_sync(g.lane_mask(), label));
}
template <unsigned N>
XGPU_CG coalesced_group labeled_partition(const thread_block_tile<N> &g, int label)
{
    return coalesced_group(__match_any_sync(g.lane_mask(), label));
}
XGPU_CG coalesced_group binary_partition(const coalesced_group &g, bool pred)
{
    unsigned m = g.lane_mask(), yes = __ballot_sync(m, pred);
    return coalesced_group(pred ? yes : m & ~yes);
}
template <unsigned N>
XGPU_CG coalesced_group binary_partition(const thread_block_tile<N> &g, bool pred)
{
    unsigned m = g.lane_mask(), yes = __ballot_sync(m, pred);
    return coalesced_group(pred ? yes : m & ~yes);
}

template <class Group> XGPU_CG void sync(const Group &g) { g.sync(); }
template <class Group> XGPU_CG unsigned long long thread_rank(const Group &g)
{
    return g.thread_rank();
}
template <class Group> XGPU_CG unsigned long long group_size(const Group &g) { return g.size(); }

} // namespace cooperative_groups

#undef XGPU_CGM
#undef XGPU_CG

#endif
#endif
