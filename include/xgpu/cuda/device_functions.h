/*
 * device_functions.h - CUDA's device intrinsics for xgpu: fences and barriers with a
 * reduction, warp shuffles and votes, bit manipulation, integer helpers, conversions and
 * reinterpretations, read-only loads, memcpy and memset, __trap, printf and assert.
 *
 * Each is a static __device__ __forceinline__ function over a clang NVVM builtin (whose
 * LLVM intrinsic the xgpu compiler maps onto one instruction: shfl, vote, actmask,
 * barred, prmt, membar) or plain C that clang turns into ordinary IR. The shuffles take
 * CUDA's width argument: lanes are split into segments of `width` (a power of two <= 32)
 * and the lane operand is relative to the segment; it is encoded like PTX shfl.sync's c
 * operand ((32 - width) << 8 in bits 8-12, the clamp lane in bits 0-4: 31 for idx, down
 * and xor, 0 for up). 64-bit and double shuffles are two 32-bit shuffles.
 *
 * Device assert: a failing assert prints "file:line: function: Assertion `expr' failed."
 * through device printf and traps, which ends the kernel with a launch failure; __trap()
 * ends it the same way. Device memcpy and memset are clang's builtins (llvm.memcpy and
 * llvm.memset, which the compiler expands into loads and stores), overloading the host's
 * <string.h> functions.
 * Outside clang's CUDA mode this header declares nothing.
 */
#ifndef XGPU_CUDA_DEVICE_FUNCTIONS_H
#define XGPU_CUDA_DEVICE_FUNCTIONS_H
#define __DEVICE_FUNCTIONS_H__ /* CUDA's own guard: programs test it */

#include "host_defines.h"

#if defined(__CUDA__) && defined(__cplusplus)
#include <assert.h>
#include <stddef.h>
#include <string.h>

#define XGPU_DDEV static __device__ __forceinline__

extern "C" {
__device__ int vprintf(const char *format, const char *args);
__device__ int printf(const char *format, ...);
/* glibc's assert() calls __assert_fail; this is its device side. */
XGPU_DDEV void __assert_fail(const char *expr, const char *file, unsigned int line,
                             const char *function)
{
    printf("%s:%u: %s: Assertion `%s' failed.\n", file, line, function, expr);
    __builtin_trap();
}
}

XGPU_DDEV void __trap(void) { __builtin_trap(); }
XGPU_DDEV void *memcpy(void *dst, const void *src, size_t n)
{
    return __builtin_memcpy(dst, src, n);
}
XGPU_DDEV void *memset(void *dst, int c, size_t n) { return __builtin_memset(dst, c, n); }
namespace std { using ::memcpy; using ::memset; }

/* ---- fences, barriers, clocks ------------------------------------------------------- */

XGPU_DDEV void __threadfence_block(void) { __nvvm_membar_cta(); }
XGPU_DDEV void __threadfence(void) { __nvvm_membar_gl(); }
XGPU_DDEV void __threadfence_system(void) { __nvvm_membar_sys(); }
/* A warp barrier (the wsync instruction): with independent thread scheduling the lanes of
 * mask wait for one another; it also orders their memory accesses (docs/emulator.md). */
XGPU_DDEV void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
XGPU_DDEV int __syncthreads_count(int pred) { return __nvvm_bar0_popc(pred); }
XGPU_DDEV int __syncthreads_and(int pred) { return __nvvm_bar0_and(pred); }
XGPU_DDEV int __syncthreads_or(int pred) { return __nvvm_bar0_or(pred); }
XGPU_DDEV long clock(void) { return (long)__nvvm_read_ptx_sreg_clock(); }
XGPU_DDEV long long clock64(void) { return __nvvm_read_ptx_sreg_clock64(); }

/* ---- warp shuffles and votes --------------------------------------------------------- */

#define XGPU_SHFL_C(width, clamp) ((((32 - (int)(width)) & 31) << 8) | (clamp))

/* One mode: name, builtin mode, clamp; int, unsigned, float, 64-bit and double. */
#define XGPU_SHFL(NAME, MODE, CLAMP, LANE_T)                                               \
    XGPU_DDEV int NAME(unsigned mask, int v, LANE_T l, int w = 32)                         \
    {                                                                                      \
        return __nvvm_shfl_sync_##MODE##_i32(mask, v, (int)l, XGPU_SHFL_C(w, CLAMP));      \
    }                                                                                      \
    XGPU_DDEV unsigned NAME(unsigned mask, unsigned v, LANE_T l, int w = 32)               \
    {                                                                                      \
        return (unsigned)NAME(mask, (int)v, l, w);                                         \
    }                                                                                      \
    XGPU_DDEV float NAME(unsigned mask, float v, LANE_T l, int w = 32)                     \
    {                                                                                      \
        return __nvvm_shfl_sync_##MODE##_f32(mask, v, (int)l, XGPU_SHFL_C(w, CLAMP));      \
    }                                                                                      \
    XGPU_DDEV long long NAME(unsigned mask, long long v, LANE_T l, int w = 32)             \
    {                                                                                      \
        unsigned lo = (unsigned)NAME(mask, (int)v, l, w);                                  \
        unsigned hi = (unsigned)NAME(mask, (int)(v >> 32), l, w);                          \
        return (long long)(((unsigned long long)hi << 32) | lo);                           \
    }                                                                                      \
    XGPU_DDEV unsigned long long NAME(unsigned mask, unsigned long long v, LANE_T l,       \
                                      int w = 32)                                          \
    {                                                                                      \
        return (unsigned long long)NAME(mask, (long long)v, l, w);                         \
    }                                                                                      \
    XGPU_DDEV long NAME(unsigned mask, long v, LANE_T l, int w = 32)                       \
    {                                                                                      \
        return (long)NAME(mask, (long long)v, l, w);                                       \
    }                                                                                      \
    XGPU_DDEV unsigned long NAME(unsigned mask, unsigned long v, LANE_T l, int w = 32)     \
    {                                                                                      \
        return (unsigned long)NAME(mask, (long long)v, l, w);                              \
    }                                                                                      \
    XGPU_DDEV double NAME(unsigned mask, double v, LANE_T l, int w = 32)                   \
    {                                                                                      \
        long long b = NAME(mask, __builtin_bit_cast(long long, v), l, w);                  \
        return __builtin_bit_cast(double, b);                                              \
    }
XGPU_SHFL(__shfl_sync, idx, 31, int)
XGPU_SHFL(__shfl_up_sync, up, 0, unsigned)
XGPU_SHFL(__shfl_down_sync, down, 31, unsigned)
XGPU_SHFL(__shfl_xor_sync, bfly, 31, int)
#undef XGPU_SHFL

/* The pre-CUDA-9 forms: all lanes of the warp. */
template <class T> XGPU_DDEV T __shfl(T v, int l, int w = 32) { return __shfl_sync(~0u, v, l, w); }
template <class T> XGPU_DDEV T __shfl_up(T v, unsigned d, int w = 32)
{
    return __shfl_up_sync(~0u, v, d, w);
}
template <class T> XGPU_DDEV T __shfl_down(T v, unsigned d, int w = 32)
{
    return __shfl_down_sync(~0u, v, d, w);
}
template <class T> XGPU_DDEV T __shfl_xor(T v, int m, int w = 32)
{
    return __shfl_xor_sync(~0u, v, m, w);
}

XGPU_DDEV unsigned __ballot_sync(unsigned mask, int pred)
{
    return __nvvm_vote_ballot_sync(mask, pred != 0);
}
XGPU_DDEV int __any_sync(unsigned mask, int pred) { return __nvvm_vote_any_sync(mask, pred != 0); }
XGPU_DDEV int __all_sync(unsigned mask, int pred) { return __nvvm_vote_all_sync(mask, pred != 0); }
XGPU_DDEV int __uni_sync(unsigned mask, int pred) { return __nvvm_vote_uni_sync(mask, pred != 0); }
XGPU_DDEV unsigned __activemask(void) { return __nvvm_activemask(); }
XGPU_DDEV unsigned __ballot(int pred) { return __ballot_sync(__activemask(), pred); }
XGPU_DDEV int __any(int pred) { return __any_sync(__activemask(), pred); }
XGPU_DDEV int __all(int pred) { return __all_sync(__activemask(), pred); }
XGPU_DDEV unsigned __lanemask_lt(void) { return (1u << __nvvm_read_ptx_sreg_laneid()) - 1u; }

/* __match_any_sync: the lanes of mask whose value equals this lane's, found bit by bit
 * with one ballot per bit of the value; __match_all_sync: mask if every lane of mask holds
 * the same value (*pred = 1), else 0. */
template <class T> XGPU_DDEV unsigned __xgpu_match_any(unsigned mask, T value)
{
    unsigned long long bits = 0;
    __builtin_memcpy(&bits, &value, sizeof value);
    unsigned same = mask;
    for (unsigned b = 0; b < 8 * sizeof value; b++) {
        int set = (int)((bits >> b) & 1u);
        unsigned vote = __ballot_sync(mask, set);
        same &= set ? vote : ~vote;
    }
    return same;
}
#define XGPU_MATCH(T)                                                                      \
    XGPU_DDEV unsigned __match_any_sync(unsigned mask, T value)                              \
    {                                                                                      \
        return __xgpu_match_any(mask, value);                                              \
    }                                                                                      \
    XGPU_DDEV unsigned __match_all_sync(unsigned mask, T value, int *pred)                   \
    {                                                                                      \
        int all = __xgpu_match_any(mask, value) == mask;                                   \
        *pred = all;                                                                       \
        return all ? mask : 0u;                                                            \
    }
XGPU_MATCH(int)
XGPU_MATCH(unsigned)
XGPU_MATCH(long)
XGPU_MATCH(unsigned long)
XGPU_MATCH(long long)
XGPU_MATCH(unsigned long long)
XGPU_MATCH(float)
XGPU_MATCH(double)
#undef XGPU_MATCH

/* ---- bits ---------------------------------------------------------------------------- */

XGPU_DDEV int __popc(unsigned x) { return __builtin_popcount(x); }
XGPU_DDEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
XGPU_DDEV int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
XGPU_DDEV int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
XGPU_DDEV int __ffs(int x) { return __builtin_ffs(x); }
XGPU_DDEV int __ffsll(long long x) { return __builtin_ffsll(x); }
XGPU_DDEV unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
XGPU_DDEV unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
XGPU_DDEV unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    return (unsigned)__nvvm_prmt((int)x, (int)y, (int)s);
}
XGPU_DDEV unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s & 31)) >> 32);
}
XGPU_DDEV unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}

/* ---- integer arithmetic ----------------------------------------------------------------- */

XGPU_DDEV int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
XGPU_DDEV unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffffu) * (y & 0xffffffu); }
XGPU_DDEV int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
XGPU_DDEV unsigned __umulhi(unsigned x, unsigned y)
{
    return (unsigned)(((unsigned long long)x * y) >> 32);
}
XGPU_DDEV unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    unsigned long long xl = x & 0xffffffffu, xh = x >> 32, yl = y & 0xffffffffu, yh = y >> 32;
    unsigned long long ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
    unsigned long long mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
XGPU_DDEV long long __mul64hi(long long x, long long y)
{
    unsigned long long h = __umul64hi((unsigned long long)x, (unsigned long long)y);
    if (x < 0)
        h -= (unsigned long long)y;
    if (y < 0)
        h -= (unsigned long long)x;
    return (long long)h;
}
XGPU_DDEV unsigned __sad(int x, int y, unsigned z)
{
    return z + (unsigned)(x > y ? (long long)x - y : (long long)y - x);
}
XGPU_DDEV unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
XGPU_DDEV int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
XGPU_DDEV int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
XGPU_DDEV unsigned __uhadd(unsigned x, unsigned y)
{
    return (unsigned)(((unsigned long long)x + y) >> 1);
}
XGPU_DDEV unsigned __urhadd(unsigned x, unsigned y)
{
    return (unsigned)(((unsigned long long)x + y + 1) >> 1);
}

/* ---- conversions and reinterpretations ---------------------------------------------- */

XGPU_DDEV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
XGPU_DDEV unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
XGPU_DDEV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
XGPU_DDEV float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
XGPU_DDEV long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
XGPU_DDEV double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
XGPU_DDEV int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
XGPU_DDEV int __double2loint(double x) { return (int)__double_as_longlong(x); }
XGPU_DDEV double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) |
                                            (unsigned)lo));
}

/* Float to integer with an explicit rounding: rn nearest even, rz toward zero, ru up,
 * rd down. */
#define XGPU_F2I(FROM, F, TO, T)                                                           \
    XGPU_DDEV T __##F##2##TO##_rn(FROM x) { return (T)__builtin_rint(x); }                 \
    XGPU_DDEV T __##F##2##TO##_rz(FROM x) { return (T)x; }                                 \
    XGPU_DDEV T __##F##2##TO##_ru(FROM x) { return (T)__builtin_ceil(x); }                 \
    XGPU_DDEV T __##F##2##TO##_rd(FROM x) { return (T)__builtin_floor(x); }
XGPU_F2I(float, float, int, int)
XGPU_F2I(float, float, uint, unsigned)
XGPU_F2I(float, float, ll, long long)
XGPU_F2I(float, float, ull, unsigned long long)
XGPU_F2I(double, double, int, int)
XGPU_F2I(double, double, uint, unsigned)
XGPU_F2I(double, double, ll, long long)
XGPU_F2I(double, double, ull, unsigned long long)
#undef XGPU_F2I
XGPU_DDEV float __int2float_rn(int x) { return (float)x; }
XGPU_DDEV float __uint2float_rn(unsigned x) { return (float)x; }
XGPU_DDEV float __ll2float_rn(long long x) { return (float)x; }
XGPU_DDEV float __ull2float_rn(unsigned long long x) { return (float)x; }
XGPU_DDEV double __int2double_rn(int x) { return (double)x; }
XGPU_DDEV double __uint2double_rn(unsigned x) { return (double)x; }
XGPU_DDEV double __ll2double_rn(long long x) { return (double)x; }
XGPU_DDEV double __ull2double_rn(unsigned long long x) { return (double)x; }
XGPU_DDEV float __double2float_rn(double x) { return (float)x; }

/* ---- loads through the read-only path: ordinary global loads on xgpu ----------------- */

template <class T> XGPU_DDEV T __ldg(const T *p) { return *p; }
template <class T> XGPU_DDEV T __ldcg(const T *p) { return *p; }
template <class T> XGPU_DDEV T __ldca(const T *p) { return *p; }
template <class T> XGPU_DDEV T __ldcs(const T *p) { return *p; }
template <class T> XGPU_DDEV T __ldlu(const T *p) { return *p; }
template <class T> XGPU_DDEV T __ldcv(const T *p) { return *p; }
template <class T> XGPU_DDEV void __stwb(T *p, T v) { *p = v; }
template <class T> XGPU_DDEV void __stcg(T *p, T v) { *p = v; }
template <class T> XGPU_DDEV void __stcs(T *p, T v) { *p = v; }
template <class T> XGPU_DDEV void __stwt(T *p, T v) { *p = v; }

#undef XGPU_DDEV
#endif /* __CUDA__ && __cplusplus */

#endif
