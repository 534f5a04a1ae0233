/*
 * cuda_fp16.h - CUDA's half precision: __half and __half2, their conversions, arithmetic,
 * comparisons, math functions and C++ operators, on the host and on the device.
 *
 * __half (alias half) is an IEEE binary16 value held as its 16 bits; __half2 (half2) is a
 * pair, low element (x) first, 4-byte aligned, as CUDA lays them out. xgpu has no f16
 * instructions, so nothing here produces LLVM's `half` type: conversions are integer code
 * and arithmetic goes through float. The results are CUDA's correctly rounded ones:
 *   - + - * / and sqrt: the float result (exact inputs, one float rounding) rounded once
 *     to half is the correctly rounded half result, since float's 24 bits are at least
 *     2 * 11 + 2;
 *   - fma: computed in double, where the product of two halves is exact; for finite
 *     operands whose exact result is below half's overflow threshold, that result has at
 *     most 53 significant bits (its bits span from 2^-48 to below 2^17), so the double sum
 *     is exact and the one rounding to half is correct; past the threshold the double
 *     sum still rounds to the same infinity or largest finite value.
 * Conversions to half round to nearest even unless the name says _rz, _rd or _ru
 * (double and 64-bit integers convert directly, without an intermediate float).
 * Conversions to integers saturate to the type's range, NaN giving 0. The _sat forms
 * clamp the result to [0, 1] (NaN to +0). __heq, __hne, __hlt, ... are ordered (false
 * when an operand is NaN), __hequ, __hneu, ... unordered (true); operator!= is __hneu, the
 * other operators the ordered forms. The other math functions (hexp, hlog, hsin, ...)
 * are the float function rounded to half. A NaN result is the canonical 0x7fff where
 * CUDA specifies it (__hmax_nan, __hfma_relu), otherwise a quiet NaN.
 *
 * __half converts implicitly from float, double and the integer types and to float. The
 * functions taking __half are exact overloads, so __hadd(half, half) is the half addition
 * while __hadd(int, int) stays the integer intrinsic; mixing a __half with a float in an
 * operator is ambiguous, as with CUDA (convert one side explicitly).
 */
#ifndef XGPU_CUDA_FP16_H
#define XGPU_CUDA_FP16_H
#define __CUDA_FP16_H__ /* CUDA's own guard: programs test it */

#include "host_defines.h"
#include "vector_types.h"
#include "math_functions.h"

#if defined(__cplusplus)

#if defined(__CUDA__)
#include "device_functions.h"
#endif

#if __cplusplus >= 201402L
#define XGPU_H_CONSTEXPR constexpr
#else
#define XGPU_H_CONSTEXPR
#endif
#define XGPU_HF static __host__ __device__ __inline__
#define XGPU_HFC static __host__ __device__ __inline__ XGPU_H_CONSTEXPR

/* ---- bit-level conversions ------------------------------------------------------------ */

enum { __XGPU_RN, __XGPU_RZ, __XGPU_RD, __XGPU_RU }; /* nearest even, zero, down, up */

/* Rounds (-1)^sign * m * 2^(e - 63) to binary16 bits (sign is 0 or 0x8000). m must have
 * its top bit set when the value is in half's normal range. */
XGPU_HFC unsigned short __xgpu_f16_round(unsigned sign, int e, unsigned long long m, int mode)
{
    if (!m)
        return (unsigned short)sign;
    int keep = mode == __XGPU_RZ || (mode == __XGPU_RD && !sign) || (mode == __XGPU_RU && sign);
    unsigned short over = (unsigned short)(sign | (keep ? 0x7bffu : 0x7c00u));
    if (e > 15)
        return over;
    int shift = e >= -14 ? 53 : 39 - e; /* bits below the result's last place */
    if (shift > 63) {                    /* far below the smallest subnormal: keep a sticky bit */
        int d = shift - 63;
        m = d > 63 ? 1 : (m >> d) | ((m & ((1ull << d) - 1)) != 0);
        shift = 63;
    }
    unsigned long long q = m >> shift, rem = m & ((1ull << shift) - 1), mid = 1ull << (shift - 1);
    int up = mode == __XGPU_RN ? (rem > mid || (rem == mid && (q & 1)))
           : mode == __XGPU_RZ ? 0
           : mode == __XGPU_RD ? (sign && rem)
                               : (!sign && rem);
    q += (unsigned long long)up;
    unsigned bits = (unsigned)q + (e >= -14 ? (unsigned)(e + 14) << 10 : 0u);
    return bits >= 0x7c00u ? over : (unsigned short)(sign | bits);
}

XGPU_HFC unsigned short __xgpu_f32_to_f16(float f, int mode)
{
    unsigned x = __builtin_bit_cast(unsigned, f);
    unsigned sign = (x >> 16) & 0x8000u, ex = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (ex == 0xffu)
        return (unsigned short)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    if (!ex)
        return __xgpu_f16_round(sign, -126, (unsigned long long)man << 40, mode);
    return __xgpu_f16_round(sign, (int)ex - 127, (unsigned long long)(man | 0x800000u) << 40,
                            mode);
}

XGPU_HFC unsigned short __xgpu_f64_to_f16(double f, int mode)
{
    unsigned long long x = __builtin_bit_cast(unsigned long long, f);
    unsigned sign = (unsigned)(x >> 48) & 0x8000u, ex = (unsigned)(x >> 52) & 0x7ffu;
    unsigned long long man = x & 0xfffffffffffffull;
    if (ex == 0x7ffu)
        return (unsigned short)(sign | 0x7c00u | (man ? 0x200u | (unsigned)(man >> 42) : 0u));
    if (!ex)
        return __xgpu_f16_round(sign, -1022, man << 11, mode);
    return __xgpu_f16_round(sign, (int)ex - 1023, (man | (1ull << 52)) << 11, mode);
}

XGPU_HFC unsigned short __xgpu_u64_to_f16(unsigned sign, unsigned long long v, int mode)
{
    if (!v)
        return 0;
    int lz = __builtin_clzll(v);
    return __xgpu_f16_round(sign, 63 - lz, v << lz, mode);
}

XGPU_HFC unsigned short __xgpu_i64_to_f16(long long v, int mode)
{
    return v < 0 ? __xgpu_u64_to_f16(0x8000u, 0ull - (unsigned long long)v, mode)
                 : __xgpu_u64_to_f16(0, (unsigned long long)v, mode);
}

XGPU_HFC float __xgpu_f16_to_f32(unsigned short h)
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
    return __builtin_bit_cast(float, bits);
}

/* ---- the types ------------------------------------------------------------------------ */

typedef struct __half_raw {
    unsigned short x;
} __half_raw;

typedef struct __half2_raw {
    unsigned short x, y;
} __half2_raw;

struct __half {
    unsigned short __x;

    __half() = default;
    __host__ __device__ XGPU_H_CONSTEXPR __half(const __half_raw &r) : __x(r.x) {}
    __host__ __device__ XGPU_H_CONSTEXPR __half(float f) : __x(__xgpu_f32_to_f16(f, __XGPU_RN)) {}
    __host__ __device__ XGPU_H_CONSTEXPR __half(double f) : __x(__xgpu_f64_to_f16(f, __XGPU_RN)) {}
#define XGPU_HALF_FROM(T)                                                                  \
    __host__ __device__ XGPU_H_CONSTEXPR __half(T v)                                       \
        : __x(__xgpu_i64_to_f16((long long)v, __XGPU_RN)) {}
    XGPU_HALF_FROM(short)
    XGPU_HALF_FROM(unsigned short)
    XGPU_HALF_FROM(int)
    XGPU_HALF_FROM(unsigned int)
    XGPU_HALF_FROM(long)
    XGPU_HALF_FROM(long long)
#undef XGPU_HALF_FROM
    __host__ __device__ XGPU_H_CONSTEXPR __half(unsigned long v)
        : __x(__xgpu_u64_to_f16(0, v, __XGPU_RN)) {}
    __host__ __device__ XGPU_H_CONSTEXPR __half(unsigned long long v)
        : __x(__xgpu_u64_to_f16(0, v, __XGPU_RN)) {}

    __host__ __device__ XGPU_H_CONSTEXPR operator float() const { return __xgpu_f16_to_f32(__x); }
    __host__ __device__ XGPU_H_CONSTEXPR operator __half_raw() const { return __half_raw{__x}; }
    __host__ __device__ __half &operator=(const __half_raw &r)
    {
        __x = r.x;
        return *this;
    }
};
typedef struct __half half;

struct __align__(4) __half2 {
    __half x, y;

    __half2() = default;
    __host__ __device__ XGPU_H_CONSTEXPR __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __host__ __device__ XGPU_H_CONSTEXPR __half2(const __half2_raw &r)
        : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    __host__ __device__ XGPU_H_CONSTEXPR operator __half2_raw() const
    {
        return __half2_raw{x.__x, y.__x};
    }
    __host__ __device__ __half2 &operator=(const __half2_raw &r)
    {
        x.__x = r.x;
        y.__x = r.y;
        return *this;
    }
};
typedef struct __half2 half2;

/* ---- conversions ---------------------------------------------------------------------- */

XGPU_HFC __half __xgpu_h(unsigned short bits) { return __half(__half_raw{bits}); }

XGPU_HFC float __half2float(__half h) { return __xgpu_f16_to_f32(h.__x); }
XGPU_HFC __half __float2half(float f) { return __xgpu_h(__xgpu_f32_to_f16(f, __XGPU_RN)); }
XGPU_HFC __half __float2half_rn(float f) { return __xgpu_h(__xgpu_f32_to_f16(f, __XGPU_RN)); }
XGPU_HFC __half __float2half_rz(float f) { return __xgpu_h(__xgpu_f32_to_f16(f, __XGPU_RZ)); }
XGPU_HFC __half __float2half_rd(float f) { return __xgpu_h(__xgpu_f32_to_f16(f, __XGPU_RD)); }
XGPU_HFC __half __float2half_ru(float f) { return __xgpu_h(__xgpu_f32_to_f16(f, __XGPU_RU)); }
XGPU_HFC __half __double2half(double f) { return __xgpu_h(__xgpu_f64_to_f16(f, __XGPU_RN)); }

XGPU_HFC short __half_as_short(__half h) { return (short)h.__x; }
XGPU_HFC unsigned short __half_as_ushort(__half h) { return h.__x; }
XGPU_HFC __half __short_as_half(short s) { return __xgpu_h((unsigned short)s); }
XGPU_HFC __half __ushort_as_half(unsigned short u) { return __xgpu_h(u); }

/* Integer to half, in each rounding. */
#define XGPU_I2H(NAME, T, CONV)                                                            \
    XGPU_HFC __half __##NAME##2half_rn(T v) { return __xgpu_h(CONV(v, __XGPU_RN)); }       \
    XGPU_HFC __half __##NAME##2half_rz(T v) { return __xgpu_h(CONV(v, __XGPU_RZ)); }       \
    XGPU_HFC __half __##NAME##2half_rd(T v) { return __xgpu_h(CONV(v, __XGPU_RD)); }       \
    XGPU_HFC __half __##NAME##2half_ru(T v) { return __xgpu_h(CONV(v, __XGPU_RU)); }
#define XGPU_U2F16(v, m) __xgpu_u64_to_f16(0, (unsigned long long)(v), m)
#define XGPU_S2F16(v, m) __xgpu_i64_to_f16((long long)(v), m)
XGPU_I2H(short, short, XGPU_S2F16)
XGPU_I2H(ushort, unsigned short, XGPU_U2F16)
XGPU_I2H(int, int, XGPU_S2F16)
XGPU_I2H(uint, unsigned int, XGPU_U2F16)
XGPU_I2H(ll, long long, XGPU_S2F16)
XGPU_I2H(ull, unsigned long long, XGPU_U2F16)
#undef XGPU_I2H
#undef XGPU_U2F16
#undef XGPU_S2F16

/* Half to integer: rounded in float (exact: every half is a float), then saturated. */
XGPU_HF float __xgpu_f16_rounded(__half h, int mode)
{
    float f = __half2float(h);
    return mode == __XGPU_RN ? rintf(f)
         : mode == __XGPU_RZ ? truncf(f)
         : mode == __XGPU_RD ? floorf(f)
                             : ceilf(f);
}
#define XGPU_H2I(NAME, T, LO, HI)                                                          \
    XGPU_HF T __xgpu_half2##NAME(__half h, int mode)                                       \
    {                                                                                      \
        float f = __xgpu_f16_rounded(h, mode);                                             \
        return f != f ? (T)0 : f <= (float)(LO) ? (T)(LO) : f >= (float)(HI) ? (T)(HI) : (T)f; \
    }                                                                                      \
    XGPU_HF T __half2##NAME##_rn(__half h) { return __xgpu_half2##NAME(h, __XGPU_RN); }    \
    XGPU_HF T __half2##NAME##_rz(__half h) { return __xgpu_half2##NAME(h, __XGPU_RZ); }    \
    XGPU_HF T __half2##NAME##_rd(__half h) { return __xgpu_half2##NAME(h, __XGPU_RD); }    \
    XGPU_HF T __half2##NAME##_ru(__half h) { return __xgpu_half2##NAME(h, __XGPU_RU); }
XGPU_H2I(short, short, -32768, 32767)
XGPU_H2I(ushort, unsigned short, 0, 65535)
XGPU_H2I(int, int, -2147483647 - 1, 2147483647)
XGPU_H2I(uint, unsigned int, 0, 4294967295u)
XGPU_H2I(ll, long long, -9223372036854775807ll - 1, 9223372036854775807ll)
XGPU_H2I(ull, unsigned long long, 0, 18446744073709551615ull)
XGPU_H2I(char, signed char, -128, 127)
XGPU_H2I(uchar, unsigned char, 0, 255)
#undef XGPU_H2I

/* Pairs. */
XGPU_HFC __half2 make_half2(__half x, __half y) { return __half2(x, y); }
XGPU_HFC __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
XGPU_HFC __half2 __half2half2(__half h) { return __half2(h, h); }
XGPU_HFC __half2 __float2half2_rn(float f) { return __half2(__float2half(f), __float2half(f)); }
XGPU_HFC __half2 __floats2half2_rn(float lo, float hi)
{
    return __half2(__float2half(lo), __float2half(hi));
}
XGPU_HF __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
XGPU_HF float2 __half22float2(__half2 h)
{
    float2 f;
    f.x = __half2float(h.x);
    f.y = __half2float(h.y);
    return f;
}
XGPU_HFC float __low2float(__half2 h) { return __half2float(h.x); }
XGPU_HFC float __high2float(__half2 h) { return __half2float(h.y); }
XGPU_HFC __half __low2half(__half2 h) { return h.x; }
XGPU_HFC __half __high2half(__half2 h) { return h.y; }
XGPU_HFC __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
XGPU_HFC __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
XGPU_HFC __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
XGPU_HFC __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
XGPU_HFC __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }

/* ---- arithmetic ----------------------------------------------------------------------- */

#define XGPU_HNAN __xgpu_h(0x7fffu) /* CUDA's canonical NaN */

XGPU_HF float __xgpu_sat(float f) { return f >= 1.0f ? 1.0f : f > 0.0f ? f : 0.0f; }
XGPU_HF double __xgpu_satd(double f) { return f >= 1.0 ? 1.0 : f > 0.0 ? f : 0.0; }
XGPU_HF double __xgpu_fma(__half a, __half b, __half c)
{
    return (double)__half2float(a) * (double)__half2float(b) + (double)__half2float(c);
}

/* One binary operation through float: its plain, _rn (never contracted) and _sat forms. */
#define XGPU_HOP(NAME, OP)                                                                 \
    XGPU_HF __half NAME(__half a, __half b)                                                \
    {                                                                                      \
        return __float2half(__half2float(a) OP __half2float(b));                           \
    }                                                                                      \
    XGPU_HF __half NAME##_rn(__half a, __half b) { return NAME(a, b); }                    \
    XGPU_HF __half NAME##_sat(__half a, __half b)                                          \
    {                                                                                      \
        return __float2half(__xgpu_sat(__half2float(a) OP __half2float(b)));               \
    }
XGPU_HOP(__hadd, +)
XGPU_HOP(__hsub, -)
XGPU_HOP(__hmul, *)
#undef XGPU_HOP
XGPU_HF __half __hdiv(__half a, __half b)
{
    return __float2half(__half2float(a) / __half2float(b));
}
XGPU_HF __half __hfma(__half a, __half b, __half c)
{
    return __xgpu_h(__xgpu_f64_to_f16(__xgpu_fma(a, b, c), __XGPU_RN));
}
XGPU_HF __half __hfma_sat(__half a, __half b, __half c)
{
    return __xgpu_h(__xgpu_f64_to_f16(__xgpu_satd(__xgpu_fma(a, b, c)), __XGPU_RN));
}
XGPU_HF __half __hfma_relu(__half a, __half b, __half c)
{
    double r = __xgpu_fma(a, b, c);
    return r != r ? XGPU_HNAN : __xgpu_h(__xgpu_f64_to_f16(r > 0.0 ? r : 0.0, __XGPU_RN));
}
XGPU_HFC __half __hneg(__half a) { return __xgpu_h((unsigned short)(a.__x ^ 0x8000u)); }
XGPU_HFC __half __habs(__half a) { return __xgpu_h((unsigned short)(a.__x & 0x7fffu)); }

/* ---- comparisons ---------------------------------------------------------------------- */

XGPU_HFC bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
XGPU_HFC int __hisinf(__half a) { return a.__x == 0x7c00u ? 1 : a.__x == 0xfc00u ? -1 : 0; }

/* Ordered NAME (false on NaN) and unordered NAME##u (true on NaN) from a float relation. */
#define XGPU_HCMP(NAME, OP)                                                                \
    XGPU_HFC bool NAME(__half a, __half b) { return __half2float(a) OP __half2float(b); }   \
    XGPU_HFC bool NAME##u(__half a, __half b)                                              \
    {                                                                                      \
        return __hisnan(a) || __hisnan(b) || __half2float(a) OP __half2float(b);           \
    }
XGPU_HCMP(__heq, ==)
XGPU_HCMP(__hlt, <)
XGPU_HCMP(__hle, <=)
XGPU_HCMP(__hgt, >)
XGPU_HCMP(__hge, >=)
#undef XGPU_HCMP
XGPU_HFC bool __hne(__half a, __half b) { return !__hisnan(a) && !__hisnan(b) && !__heq(a, b); }
XGPU_HFC bool __hneu(__half a, __half b) { return !__heq(a, b); }

/* Maximum and minimum: a NaN operand gives the other one (the _nan forms give NaN), and
 * +0 is above -0. */
XGPU_HF __half __xgpu_hpick(__half a, __half b, bool max, bool nan)
{
    if (__hisnan(a) || __hisnan(b))
        return nan || (__hisnan(a) && __hisnan(b)) ? XGPU_HNAN : __hisnan(a) ? b : a;
    float x = __half2float(a), y = __half2float(b);
    if (x == y) /* equal, or zeros of different signs */
        return (a.__x & 0x8000u) == (max ? 0u : 0x8000u) ? a : b;
    return (x > y) == max ? a : b;
}
XGPU_HF __half __hmax(__half a, __half b) { return __xgpu_hpick(a, b, true, false); }
XGPU_HF __half __hmin(__half a, __half b) { return __xgpu_hpick(a, b, false, false); }
XGPU_HF __half __hmax_nan(__half a, __half b) { return __xgpu_hpick(a, b, true, true); }
XGPU_HF __half __hmin_nan(__half a, __half b) { return __xgpu_hpick(a, b, false, true); }

/* ---- math functions: the float function, rounded to half --------------------------------- */

/* hNAME on a half and h2NAME on each element of a pair. */
#define XGPU_HMATH(NAME, F)                                                                \
    XGPU_HF __half h##NAME(__half a) { return __float2half(F(__half2float(a))); }          \
    XGPU_HF __half2 h2##NAME(__half2 a) { return __half2(h##NAME(a.x), h##NAME(a.y)); }
#define XGPU_HRCP(x) (1.0f / (x))
#define XGPU_HRSQRT(x) (1.0f / sqrtf(x))
XGPU_HMATH(sqrt, sqrtf)
XGPU_HMATH(rsqrt, XGPU_HRSQRT)
XGPU_HMATH(rcp, XGPU_HRCP)
XGPU_HMATH(exp, expf)
XGPU_HMATH(exp2, exp2f)
XGPU_HMATH(exp10, exp10f)
XGPU_HMATH(log, logf)
XGPU_HMATH(log2, log2f)
XGPU_HMATH(log10, log10f)
XGPU_HMATH(sin, sinf)
XGPU_HMATH(cos, cosf)
XGPU_HMATH(ceil, ceilf)
XGPU_HMATH(floor, floorf)
XGPU_HMATH(trunc, truncf)
XGPU_HMATH(rint, rintf)
#undef XGPU_HMATH
#undef XGPU_HRCP
#undef XGPU_HRSQRT

/* ---- half2: element-wise forms ---------------------------------------------------------- */

#define XGPU_H2OP(NAME2, NAME)                                                             \
    XGPU_HF __half2 NAME2(__half2 a, __half2 b) { return __half2(NAME(a.x, b.x), NAME(a.y, b.y)); }
#define XGPU_H2OP3(NAME2, NAME)                                                            \
    XGPU_HF __half2 NAME2(__half2 a, __half2 b, __half2 c)                                 \
    {                                                                                      \
        return __half2(NAME(a.x, b.x, c.x), NAME(a.y, b.y, c.y));                          \
    }
XGPU_H2OP(__hadd2, __hadd)
XGPU_H2OP(__hsub2, __hsub)
XGPU_H2OP(__hmul2, __hmul)
XGPU_H2OP(__hadd2_rn, __hadd)
XGPU_H2OP(__hsub2_rn, __hsub)
XGPU_H2OP(__hmul2_rn, __hmul)
XGPU_H2OP(__hadd2_sat, __hadd_sat)
XGPU_H2OP(__hsub2_sat, __hsub_sat)
XGPU_H2OP(__hmul2_sat, __hmul_sat)
XGPU_H2OP(__h2div, __hdiv)
XGPU_H2OP(__hmax2, __hmax)
XGPU_H2OP(__hmin2, __hmin)
XGPU_H2OP(__hmax2_nan, __hmax_nan)
XGPU_H2OP(__hmin2_nan, __hmin_nan)
XGPU_H2OP3(__hfma2, __hfma)
XGPU_H2OP3(__hfma2_sat, __hfma_sat)
XGPU_H2OP3(__hfma2_relu, __hfma_relu)
#undef XGPU_H2OP
#undef XGPU_H2OP3
XGPU_HFC __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
XGPU_HFC __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
XGPU_HFC __half __xgpu_hbool(bool b) { return __xgpu_h(b ? 0x3c00u : 0u); } /* 1.0 or 0.0 */
XGPU_HFC __half2 __hisnan2(__half2 a)
{
    return __half2(__xgpu_hbool(__hisnan(a.x)), __xgpu_hbool(__hisnan(a.y)));
}

/* Each comparison C of halves gives, on pairs: C##2 (1.0 or 0.0 per element), C##2_mask
 * (0xffff or 0 per element), and __hb...2 (true when both elements compare true). */
#define XGPU_H2CMP(C, B)                                                                   \
    XGPU_HFC __half2 C##2(__half2 a, __half2 b)                                            \
    {                                                                                      \
        return __half2(__xgpu_hbool(C(a.x, b.x)), __xgpu_hbool(C(a.y, b.y)));              \
    }                                                                                      \
    XGPU_HFC unsigned C##2_mask(__half2 a, __half2 b)                                      \
    {                                                                                      \
        return (C(a.x, b.x) ? 0xffffu : 0u) | (C(a.y, b.y) ? 0xffff0000u : 0u);            \
    }                                                                                      \
    XGPU_HFC bool B##2(__half2 a, __half2 b) { return C(a.x, b.x) && C(a.y, b.y); }
XGPU_H2CMP(__heq, __hbeq)
XGPU_H2CMP(__hne, __hbne)
XGPU_H2CMP(__hlt, __hblt)
XGPU_H2CMP(__hle, __hble)
XGPU_H2CMP(__hgt, __hbgt)
XGPU_H2CMP(__hge, __hbge)
XGPU_H2CMP(__hequ, __hbequ)
XGPU_H2CMP(__hneu, __hbneu)
XGPU_H2CMP(__hltu, __hbltu)
XGPU_H2CMP(__hleu, __hbleu)
XGPU_H2CMP(__hgtu, __hbgtu)
XGPU_H2CMP(__hgeu, __hbgeu)
#undef XGPU_H2CMP

/* ---- C++ operators ------------------------------------------------------------------------ */

#define XGPU_HOPS(T, ADD, SUB, MUL, DIV, ONE)                                              \
    XGPU_HF T operator+(const T &a, const T &b) { return ADD(a, b); }                      \
    XGPU_HF T operator-(const T &a, const T &b) { return SUB(a, b); }                      \
    XGPU_HF T operator*(const T &a, const T &b) { return MUL(a, b); }                      \
    XGPU_HF T operator/(const T &a, const T &b) { return DIV(a, b); }                      \
    XGPU_HF T &operator+=(T &a, const T &b) { return a = ADD(a, b); }                      \
    XGPU_HF T &operator-=(T &a, const T &b) { return a = SUB(a, b); }                      \
    XGPU_HF T &operator*=(T &a, const T &b) { return a = MUL(a, b); }                      \
    XGPU_HF T &operator/=(T &a, const T &b) { return a = DIV(a, b); }                      \
    XGPU_HF T &operator++(T &a) { return a = ADD(a, ONE); }                                \
    XGPU_HF T &operator--(T &a) { return a = SUB(a, ONE); }                                \
    XGPU_HF T operator++(T &a, int) { T old = a; a = ADD(a, ONE); return old; }            \
    XGPU_HF T operator--(T &a, int) { T old = a; a = SUB(a, ONE); return old; }
XGPU_HOPS(__half, __hadd, __hsub, __hmul, __hdiv, __xgpu_h(0x3c00u))
XGPU_HOPS(__half2, __hadd2, __hsub2, __hmul2, __h2div, __half2half2(__xgpu_h(0x3c00u)))
#undef XGPU_HOPS
XGPU_HFC __half operator+(const __half &a) { return a; }
XGPU_HFC __half operator-(const __half &a) { return __hneg(a); }
XGPU_HFC __half2 operator+(const __half2 &a) { return a; }
XGPU_HFC __half2 operator-(const __half2 &a) { return __hneg2(a); }
XGPU_HFC bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
XGPU_HFC bool operator!=(const __half &a, const __half &b) { return __hneu(a, b); }
XGPU_HFC bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
XGPU_HFC bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
XGPU_HFC bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
XGPU_HFC bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }
XGPU_HFC bool operator==(const __half2 &a, const __half2 &b) { return __hbeq2(a, b); }
XGPU_HFC bool operator!=(const __half2 &a, const __half2 &b) { return __hbneu2(a, b); }
XGPU_HFC bool operator<(const __half2 &a, const __half2 &b) { return __hblt2(a, b); }
XGPU_HFC bool operator<=(const __half2 &a, const __half2 &b) { return __hble2(a, b); }
XGPU_HFC bool operator>(const __half2 &a, const __half2 &b) { return __hbgt2(a, b); }
XGPU_HFC bool operator>=(const __half2 &a, const __half2 &b) { return __hbge2(a, b); }

/* ---- warp shuffles of halves and pairs (device code): the 16 or 32 bits moved as an int */

#if defined(__CUDA__)
#define XGPU_HSHFL(NAME, LANE_T)                                                           \
    static __device__ __inline__ __half NAME(unsigned mask, __half v, LANE_T l, int w = 32) \
    {                                                                                      \
        return __xgpu_h((unsigned short)NAME(mask, (int)v.__x, l, w));                     \
    }                                                                                      \
    static __device__ __inline__ __half2 NAME(unsigned mask, __half2 v, LANE_T l, int w = 32) \
    {                                                                                      \
        unsigned r = (unsigned)NAME(mask, (int)(v.x.__x | ((unsigned)v.y.__x << 16)), l, w); \
        return __half2(__xgpu_h((unsigned short)r), __xgpu_h((unsigned short)(r >> 16)));   \
    }
XGPU_HSHFL(__shfl_sync, int)
XGPU_HSHFL(__shfl_up_sync, unsigned)
XGPU_HSHFL(__shfl_down_sync, unsigned)
XGPU_HSHFL(__shfl_xor_sync, int)
#undef XGPU_HSHFL
#endif

#undef XGPU_HNAN
#undef XGPU_HF
#undef XGPU_HFC

#endif /* __cplusplus */
#endif
