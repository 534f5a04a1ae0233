/*
 * cooperative_groups/reduce.h - cg::reduce and its operators.
 *
 * reduce(group, value, op) gives every thread of a tile or coalesced group the
 * combination of all the group's values. A tile of N lanes combines by butterfly
 * (log2 N shuffles); a coalesced group by a tree over its ranks, then a broadcast from
 * rank 0. The order of combination is fixed, so results are deterministic (for floats
 * it may differ from a sequential sum in the last bits, as on CUDA).
 */
#ifndef XGPU_CUDA_CG_REDUCE_H
#define XGPU_CUDA_CG_REDUCE_H

#include "../cooperative_groups.h"

#if defined(__CUDA__) && defined(__cplusplus)

namespace cooperative_groups {

template <class T> struct plus {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a ^ b; }
};

template <unsigned N, class T, class Op>
static __device__ __forceinline__ T reduce(const thread_block_tile<N> &g, T v, Op op)
{
    for (unsigned d = N / 2; d > 0; d /= 2)
        v = op(v, g.shfl_xor(v, d));
    return v;
}

template <class T, class Op>
static __device__ __forceinline__ T reduce(const coalesced_group &g, T v, Op op)
{
    unsigned n = (unsigned)g.size(), r = (unsigned)g.thread_rank();
    for (unsigned d = 1; d < n; d *= 2) {
        T other = g.shfl(v, r + d < n ? r + d : r);
        if (r % (2 * d) == 0 && r + d < n)
            v = op(v, other);
    }
    return g.shfl(v, 0);
}

/* Inclusive and exclusive scans over a tile (Hillis-Steele, in rank order). */
template <unsigned N, class T, class Op>
static __device__ __forceinline__ T inclusive_scan(const thread_block_tile<N> &g, T v, Op op)
{
    unsigned r = (unsigned)g.thread_rank();
    for (unsigned d = 1; d < N; d *= 2) {
        T other = g.shfl_up(v, d);
        if (r >= d)
            v = op(other, v);
    }
    return v;
}
template <unsigned N, class T>
static __device__ __forceinline__ T inclusive_scan(const thread_block_tile<N> &g, T v)
{
    return inclusive_scan(g, v, plus<T>());
}
template <unsigned N, class T, class Op>
static __device__ __forceinline__ T exclusive_scan(const thread_block_tile<N> &g, T v, Op op)
{
    T inc = inclusive_scan(g, v, op), prev = g.shfl_up(inc, 1);
    return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned N, class T>
static __device__ __forceinline__ T exclusive_scan(const thread_block_tile<N> &g, T v)
{
    return exclusive_scan(g, v, plus<T>());
}

} // namespace cooperative_groups

#endif
#endif
