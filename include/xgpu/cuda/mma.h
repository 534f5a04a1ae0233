/*
 * mma.h - CUDA's warp matrix functions (nvcuda::wmma) for the 16x16x16 shape with half
 * A and B and half or float accumulators, on clang's sm_70 builtins.
 *
 * A fragment is a warp's share of one 16x16 matrix: every lane holds num_elements values
 * in x[]. Which elements a lane holds is unspecified in CUDA and so here (docs/isa.md
 * gives xgpu's mapping); code may only apply the same operation to every element (scale,
 * activation, conversion). The fragments of matrix_a and matrix_b have 16 elements per
 * lane, as on sm_70, of which x[8..15] repeat x[0..7]: xgpu's tensor steps read x[0..7]
 * only, so element-wise changes must be made to x[0..7] (or to all 16 alike). An
 * accumulator holds 8 elements per lane, float or half.
 *
 * load_matrix_sync, store_matrix_sync and mma_sync must be reached by all 32 lanes of the
 * warp with the same arguments (a tensor step with inactive lanes faults). Pointers must
 * be 4-byte aligned and ldm a multiple of 2 elements (CUDA asks for 32 bytes and 8). The
 * builtins' layout arguments must be constants: a run-time layout_t chooses between two
 * calls. Saturation (satf) is not supported.
 */
#ifndef XGPU_CUDA_MMA_H
#define XGPU_CUDA_MMA_H
#define __CUDA_MMA_H__ /* CUDA's own guard: programs test it */

#include "host_defines.h"
#include "cuda_fp16.h"

#if defined(__cplusplus)

namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;

enum layout_t { mem_row_major, mem_col_major };

template <typename T> struct __xgpu_is_col { enum { value = 0 }; };
template <> struct __xgpu_is_col<col_major> { enum { value = 1 }; };

/* Storage of a fragment: R 32-bit registers seen as N elements of type T. */
template <typename T, int N, int R> struct __xgpu_frag {
    enum { num_elements = N };
    typedef T element_type;
    union {
        T x[N];
        int __r[R];
    };
};

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class fragment;

template <typename Layout>
class fragment<matrix_a, 16, 16, 16, __half, Layout> : public __xgpu_frag<__half, 16, 8> {};
template <typename Layout>
class fragment<matrix_b, 16, 16, 16, __half, Layout> : public __xgpu_frag<__half, 16, 8> {};
template <>
class fragment<accumulator, 16, 16, 16, float, void> : public __xgpu_frag<float, 8, 8> {};
template <>
class fragment<accumulator, 16, 16, 16, __half, void> : public __xgpu_frag<__half, 8, 4> {};

template <typename T> struct __xgpu_same { typedef T type; };

/* The value converts to the element type (a float literal fills a half fragment). */
template <typename Use, int M, int N, int K, typename T, typename Layout>
static __device__ __inline__ void fill_fragment(fragment<Use, M, N, K, T, Layout> &f,
                                                const typename __xgpu_same<T>::type &v)
{
    for (int i = 0; i < f.num_elements; i++)
        f.x[i] = v;
}

template <typename Layout>
static __device__ __inline__ void
load_matrix_sync(fragment<matrix_a, 16, 16, 16, __half, Layout> &a, const __half *p, unsigned ldm)
{
    __hmma_m16n16k16_ld_a(a.__r, (const int *)p, ldm, __xgpu_is_col<Layout>::value);
}

template <typename Layout>
static __device__ __inline__ void
load_matrix_sync(fragment<matrix_b, 16, 16, 16, __half, Layout> &b, const __half *p, unsigned ldm)
{
    __hmma_m16n16k16_ld_b(b.__r, (const int *)p, ldm, __xgpu_is_col<Layout>::value);
}

static __device__ __inline__ void load_matrix_sync(fragment<accumulator, 16, 16, 16, float> &c,
                                                   const float *p, unsigned ldm, layout_t l)
{
    if (l == mem_col_major)
        __hmma_m16n16k16_ld_c_f32(c.x, p, ldm, 1);
    else
        __hmma_m16n16k16_ld_c_f32(c.x, p, ldm, 0);
}

static __device__ __inline__ void load_matrix_sync(fragment<accumulator, 16, 16, 16, __half> &c,
                                                   const __half *p, unsigned ldm, layout_t l)
{
    if (l == mem_col_major)
        __hmma_m16n16k16_ld_c_f16(c.__r, (const int *)p, ldm, 1);
    else
        __hmma_m16n16k16_ld_c_f16(c.__r, (const int *)p, ldm, 0);
}

static __device__ __inline__ void
store_matrix_sync(float *p, const fragment<accumulator, 16, 16, 16, float> &d, unsigned ldm,
                  layout_t l)
{
    if (l == mem_col_major)
        __hmma_m16n16k16_st_c_f32(p, (float *)d.x, ldm, 1);
    else
        __hmma_m16n16k16_st_c_f32(p, (float *)d.x, ldm, 0);
}

static __device__ __inline__ void
store_matrix_sync(__half *p, const fragment<accumulator, 16, 16, 16, __half> &d, unsigned ldm,
                  layout_t l)
{
    if (l == mem_col_major)
        __hmma_m16n16k16_st_c_f16((int *)p, (int *)d.__r, ldm, 1);
    else
        __hmma_m16n16k16_st_c_f16((int *)p, (int *)d.__r, ldm, 0);
}

/* The builtins' layout argument: 2 * (A column-major) + (B column-major). */
#define __XGPU_MMA_LAYOUT (__xgpu_is_col<LA>::value * 2 + __xgpu_is_col<LB>::value)

template <typename LA, typename LB>
static __device__ __inline__ void mma_sync(fragment<accumulator, 16, 16, 16, float> &d,
                                           const fragment<matrix_a, 16, 16, 16, __half, LA> &a,
                                           const fragment<matrix_b, 16, 16, 16, __half, LB> &b,
                                           const fragment<accumulator, 16, 16, 16, float> &c)
{
    __hmma_m16n16k16_mma_f32f32(d.x, a.__r, b.__r, c.x, __XGPU_MMA_LAYOUT, 0);
}

template <typename LA, typename LB>
static __device__ __inline__ void mma_sync(fragment<accumulator, 16, 16, 16, float> &d,
                                           const fragment<matrix_a, 16, 16, 16, __half, LA> &a,
                                           const fragment<matrix_b, 16, 16, 16, __half, LB> &b,
                                           const fragment<accumulator, 16, 16, 16, __half> &c)
{
    __hmma_m16n16k16_mma_f32f16(d.x, a.__r, b.__r, c.__r, __XGPU_MMA_LAYOUT, 0);
}

template <typename LA, typename LB>
static __device__ __inline__ void mma_sync(fragment<accumulator, 16, 16, 16, __half> &d,
                                           const fragment<matrix_a, 16, 16, 16, __half, LA> &a,
                                           const fragment<matrix_b, 16, 16, 16, __half, LB> &b,
                                           const fragment<accumulator, 16, 16, 16, float> &c)
{
    __hmma_m16n16k16_mma_f16f32(d.__r, a.__r, b.__r, c.x, __XGPU_MMA_LAYOUT, 0);
}

template <typename LA, typename LB>
static __device__ __inline__ void mma_sync(fragment<accumulator, 16, 16, 16, __half> &d,
                                           const fragment<matrix_a, 16, 16, 16, __half, LA> &a,
                                           const fragment<matrix_b, 16, 16, 16, __half, LB> &b,
                                           const fragment<accumulator, 16, 16, 16, __half> &c)
{
    __hmma_m16n16k16_mma_f16f16(d.__r, a.__r, b.__r, c.__r, __XGPU_MMA_LAYOUT, 0);
}

#undef __XGPU_MMA_LAYOUT

} /* namespace wmma */
} /* namespace nvcuda */

#endif /* __cplusplus */
#endif
