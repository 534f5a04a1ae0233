/*
 * cuda_fp16.h - the minimum of CUDA's half-precision type that warp matrix programs need.
 *
 * __half (alias half) is a 16-bit IEEE binary16 value held as its bits. It converts to
 * and from float (__float2half rounds to nearest even, as CUDA's does), and nothing
 * more: xgpu has no f16 arithmetic, so the conversions are integer code that works the
 * same on the host and on the device and never produces LLVM's `half` type. Arithmetic on
 * half values is written on floats (__half2float, compute, __float2half). __half2 is a
 * pair, low element first, as CUDA lays it out.
 */
#ifndef XGPU_CUDA_FP16_H
#define XGPU_CUDA_FP16_H

#include "host_defines.h"

#if defined(__cplusplus)

static __host__ __device__ __inline__ unsigned short __xgpu_f32_to_f16(float f)
{
    unsigned x;
    __builtin_memcpy(&x, &f, 4);
    unsigned sign = (x >> 16) & 0x8000u, ex = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (ex == 0xffu)
        return (unsigned short)(sign | 0x7c00u | (man ? 0x200u : 0u));
    int e = (int)ex - 112;
    if (e >= 31)
        return (unsigned short)(sign | 0x7c00u);
    unsigned full = man | (ex ? 0x800000u : 0u), shift = 13, h = (unsigned)e << 10;
    if (e <= 0) { /* subnormal result (or zero) */
        if (e < -10)
            return (unsigned short)sign;
        shift = (unsigned)(14 - e);
        h = 0;
    } else {
        full &= 0x7fffffu;
    }
    unsigned rem = full & ((1u << shift) - 1), half = 1u << (shift - 1);
    h += full >> shift;
    if (rem > half || (rem == half && (h & 1u)))
        h++;
    return (unsigned short)(sign | h);
}

static __host__ __device__ __inline__ float __xgpu_f16_to_f32(unsigned short h)
{
    unsigned sign = (unsigned)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    unsigned bits = sign;
    if (ex == 0x1fu) {
        bits |= 0x7f800000u | (man << 13);
    } else if (ex) {
        bits |= ((ex + 112u) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        unsigned e = 113;
        while (!(man & 0x400u)) {
            man <<= 1;
            e--;
        }
        bits |= (e << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

struct __half {
    unsigned short __x;
    __half() = default;
    __host__ __device__ __half(float f) : __x(__xgpu_f32_to_f16(f)) {}
    __host__ __device__ operator float() const { return __xgpu_f16_to_f32(__x); }
};
typedef struct __half half;

struct __align__(4) __half2 {
    __half x, y;
};
typedef struct __half2 half2;

static __host__ __device__ __inline__ __half __float2half(float f) { return __half(f); }
static __host__ __device__ __inline__ __half __float2half_rn(float f) { return __half(f); }
static __host__ __device__ __inline__ float __half2float(__half h)
{
    return __xgpu_f16_to_f32(h.__x);
}
static __host__ __device__ __inline__ unsigned short __half_as_ushort(__half h) { return h.__x; }
static __host__ __device__ __inline__ __half __ushort_as_half(unsigned short u)
{
    __half h;
    h.__x = u;
    return h;
}
static __host__ __device__ __inline__ __half2 __floats2half2_rn(float a, float b)
{
    __half2 r;
    r.x = __half(a);
    r.y = __half(b);
    return r;
}

#endif /* __cplusplus */
#endif
