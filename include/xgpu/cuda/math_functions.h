/*
 * math_functions.h - CUDA's device math library for xgpu.
 *
 * Every float and double function of CUDA's math API that xgpu supports is declared
 * here for device code, next to the host's own <math.h>/<cmath> declarations: clang's
 * CUDA mode lets a __device__ overload coexist with a host function of the same
 * signature, so host code keeps calling libm while device code calls these. Each is a
 * static __device__ __forceinline__ function that either
 *   - calls an extern "C" __device__ function __xgpu_<name> (double) or __xgpu_<name>f
 *     (float), which the compiler turns into one math1/math2 instruction (XMath; the
 *     emulator evaluates it with the host C library in the instruction's precision), or
 *   - uses a clang builtin whose LLVM intrinsic maps onto an instruction (sqrt -> fsqrt,
 *     fabs, fmin, fmax, fma, floor/ceil/trunc/round/rint -> math1, copysign -> bits), or
 *   - is built from those (sincos, sinpi, frexp, ldexp, modf, lround, ...).
 * The C++ float overloads (sin(float), ...) are declared too, and brought into namespace
 * std, so std::sin(x) works on the device. CUDA's fast intrinsics (__sinf, __expf, ...)
 * map onto the same instructions: on xgpu they are as accurate as the full functions.
 *
 * The other C++ overloads resolve as CUDA's do: pow(float, int) is float and
 * pow(double, int) double; a one-argument function of an integer is the double function;
 * two- and three-argument functions of mixed float, double and integer arguments convert
 * them to double unless all are float. These are device templates over a small promotion
 * trait: in host code they are not viable, so the host's own <cmath> overloads decide.
 * Outside clang's CUDA mode this header only includes <math.h>.
 */
#ifndef XGPU_CUDA_MATH_FUNCTIONS_H
#define XGPU_CUDA_MATH_FUNCTIONS_H
#define __MATH_FUNCTIONS_H__ /* CUDA's own guard: programs test it */

#include "host_defines.h"
#include <math.h>

#if defined(__CUDA__) && defined(__cplusplus)
#include <cmath>
#include <cstdlib>
#include <stdlib.h>

#define XGPU_MDEV static __device__ __forceinline__

/* One-operand functions that are one math1 instruction: name, __xgpu_ suffix. */
#define XGPU_MATH1(F, X)                                                                   \
    extern "C" __device__ double __xgpu_##X(double);                                       \
    extern "C" __device__ float __xgpu_##X##f(float);                                      \
    XGPU_MDEV double F(double a) { return __xgpu_##X(a); }                                 \
    XGPU_MDEV float F##f(float a) { return __xgpu_##X##f(a); }                             \
    XGPU_MDEV float F(float a) { return __xgpu_##X##f(a); }                                \
    namespace std { using ::F; using ::F##f; }

/* Two-operand functions that are one math2 instruction. */
#define XGPU_MATH2(F, X)                                                                   \
    extern "C" __device__ double __xgpu_##X(double, double);                               \
    extern "C" __device__ float __xgpu_##X##f(float, float);                               \
    XGPU_MDEV double F(double a, double b) { return __xgpu_##X(a, b); }                    \
    XGPU_MDEV float F##f(float a, float b) { return __xgpu_##X##f(a, b); }                 \
    XGPU_MDEV float F(float a, float b) { return __xgpu_##X##f(a, b); }                    \
    namespace std { using ::F; using ::F##f; }

/* Functions with an LLVM intrinsic (clang builtin) that isel maps to an instruction. */
#define XGPU_BUILTIN1(F)                                                                   \
    XGPU_MDEV double F(double a) { return __builtin_##F(a); }                              \
    XGPU_MDEV float F##f(float a) { return __builtin_##F##f(a); }                          \
    XGPU_MDEV float F(float a) { return __builtin_##F##f(a); }                             \
    namespace std { using ::F; using ::F##f; }
#define XGPU_BUILTIN2(F)                                                                   \
    XGPU_MDEV double F(double a, double b) { return __builtin_##F(a, b); }                 \
    XGPU_MDEV float F##f(float a, float b) { return __builtin_##F##f(a, b); }              \
    XGPU_MDEV float F(float a, float b) { return __builtin_##F##f(a, b); }                 \
    namespace std { using ::F; using ::F##f; }

XGPU_MATH1(sin, sin)
XGPU_MATH1(cos, cos)
XGPU_MATH1(tan, tan)
XGPU_MATH1(asin, asin)
XGPU_MATH1(acos, acos)
XGPU_MATH1(atan, atan)
XGPU_MATH1(sinh, sinh)
XGPU_MATH1(cosh, cosh)
XGPU_MATH1(tanh, tanh)
XGPU_MATH1(asinh, asinh)
XGPU_MATH1(acosh, acosh)
XGPU_MATH1(atanh, atanh)
XGPU_MATH1(exp, exp)
XGPU_MATH1(exp2, exp2)
XGPU_MATH1(exp10, exp10)
XGPU_MATH1(expm1, expm1)
XGPU_MATH1(log, log)
XGPU_MATH1(log2, log2)
XGPU_MATH1(log10, log10)
XGPU_MATH1(log1p, log1p)
XGPU_MATH1(cbrt, cbrt)
XGPU_MATH1(rsqrt, rsqrt)
XGPU_MATH1(erf, erf)
XGPU_MATH1(erfc, erfc)
XGPU_MATH1(lgamma, lgamma)
XGPU_MATH1(tgamma, tgamma)
XGPU_MATH2(pow, pow)
XGPU_MATH2(atan2, atan2)
XGPU_MATH2(fmod, fmod)
XGPU_MATH2(hypot, hypot)
XGPU_MATH2(remainder, remainder)
XGPU_MATH2(fdim, fdim)
XGPU_MATH2(nextafter, nextafter)
XGPU_BUILTIN1(sqrt)
XGPU_BUILTIN1(fabs)
XGPU_BUILTIN1(floor)
XGPU_BUILTIN1(ceil)
XGPU_BUILTIN1(trunc)
XGPU_BUILTIN1(round)
XGPU_BUILTIN1(rint)
XGPU_BUILTIN1(nearbyint)
XGPU_BUILTIN2(fmin)
XGPU_BUILTIN2(fmax)
XGPU_BUILTIN2(copysign)
#undef XGPU_MATH1
#undef XGPU_MATH2
#undef XGPU_BUILTIN1
#undef XGPU_BUILTIN2

XGPU_MDEV double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
XGPU_MDEV float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
XGPU_MDEV float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
XGPU_MDEV double rcbrt(double a) { return 1.0 / cbrt(a); }
XGPU_MDEV float rcbrtf(float a) { return 1.0f / cbrtf(a); }
namespace std { using ::fma; using ::fmaf; }

/* sin(pi x), cos(pi x): reduced to [-1, 1] first so large arguments stay exact. */
XGPU_MDEV double sinpi(double x) { return sin(3.14159265358979323846 * remainder(x, 2.0)); }
XGPU_MDEV float sinpif(float x) { return sinf(3.14159265f * remainderf(x, 2.0f)); }
XGPU_MDEV double cospi(double x) { return cos(3.14159265358979323846 * remainder(x, 2.0)); }
XGPU_MDEV float cospif(float x) { return cosf(3.14159265f * remainderf(x, 2.0f)); }
XGPU_MDEV void sincos(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
XGPU_MDEV void sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
XGPU_MDEV void sincos(float x, float *s, float *c) { sincosf(x, s, c); }
XGPU_MDEV void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
XGPU_MDEV void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }

/* Rounding to integers. */
XGPU_MDEV long lround(double x) { return (long)round(x); }
XGPU_MDEV long lroundf(float x) { return (long)roundf(x); }
XGPU_MDEV long long llround(double x) { return (long long)round(x); }
XGPU_MDEV long long llroundf(float x) { return (long long)roundf(x); }
XGPU_MDEV long lrint(double x) { return (long)rint(x); }
XGPU_MDEV long lrintf(float x) { return (long)rintf(x); }
XGPU_MDEV long long llrint(double x) { return (long long)rint(x); }
XGPU_MDEV long long llrintf(float x) { return (long long)rintf(x); }
namespace std { using ::lround; using ::llround; using ::lrint; using ::llrint; }

/* Exponent handling, on the bits: 2^n as a double is exact for -1022 <= n <= 1023. */
XGPU_MDEV double __xgpu_pow2i(int n)
{
    return __builtin_bit_cast(double, (unsigned long long)(n + 1023) << 52);
}
XGPU_MDEV double ldexp(double x, int n)
{
    for (int i = 0; i < 3 && (n > 1023 || n < -1022); i++) {
        int step = n > 0 ? 1023 : -1022;
        x *= __xgpu_pow2i(step);
        n -= step;
    }
    return x * __xgpu_pow2i(n < -1022 ? -1022 : n > 1023 ? 1023 : n);
}
XGPU_MDEV float ldexpf(float x, int n) { return (float)ldexp((double)x, n); }
XGPU_MDEV float ldexp(float x, int n) { return ldexpf(x, n); }
XGPU_MDEV double scalbn(double x, int n) { return ldexp(x, n); }
XGPU_MDEV float scalbnf(float x, int n) { return ldexpf(x, n); }
XGPU_MDEV double frexp(double x, int *e)
{
    if (x == 0.0 || x != x || fabs(x) == __builtin_inf()) {
        *e = 0;
        return x + x;
    }
    int extra = 0;
    if (fabs(x) < 2.2250738585072014e-308) { /* subnormal: scale into the normal range */
        x *= 18014398509481984.0;           /* 2^54 */
        extra = -54;
    }
    unsigned long long b = __builtin_bit_cast(unsigned long long, x);
    *e = (int)((b >> 52) & 0x7ff) - 1022 + extra;
    b = (b & ~(0x7ffull << 52)) | (1022ull << 52);
    return __builtin_bit_cast(double, b);
}
XGPU_MDEV float frexpf(float x, int *e) { return (float)frexp((double)x, e); }
XGPU_MDEV float frexp(float x, int *e) { return frexpf(x, e); }
XGPU_MDEV double modf(double x, double *ip)
{
    *ip = trunc(x);
    return fabs(x) == __builtin_inf() ? copysign(0.0, x) : x - *ip;
}
XGPU_MDEV float modff(float x, float *ip)
{
    *ip = truncf(x);
    return fabsf(x) == __builtin_inff() ? copysignf(0.0f, x) : x - *ip;
}
XGPU_MDEV float modf(float x, float *ip) { return modff(x, ip); }
XGPU_MDEV int ilogb(double x) { int e; frexp(x, &e); return e - 1; }
XGPU_MDEV int ilogbf(float x) { int e; frexpf(x, &e); return e - 1; }
XGPU_MDEV double logb(double x) { return (double)ilogb(x); }
XGPU_MDEV float logbf(float x) { return (float)ilogbf(x); }
namespace std { using ::ldexp; using ::frexp; using ::modf; using ::scalbn; using ::ilogb; using ::logb; }

/* Integer absolute values (the host's abs/labs/llabs are host functions). */
XGPU_MDEV int abs(int a) { return a < 0 ? -a : a; }
XGPU_MDEV long labs(long a) { return a < 0 ? -a : a; }
XGPU_MDEV long long llabs(long long a) { return a < 0 ? -a : a; }
XGPU_MDEV long abs(long a) { return labs(a); }
XGPU_MDEV long long abs(long long a) { return llabs(a); }
namespace std { using ::abs; using ::labs; using ::llabs; }

/* CUDA's fast intrinsics: the same instructions as the full functions. */
XGPU_MDEV float __sinf(float x) { return sinf(x); }
XGPU_MDEV float __cosf(float x) { return cosf(x); }
XGPU_MDEV float __tanf(float x) { return tanf(x); }
XGPU_MDEV void __sincosf(float x, float *s, float *c) { sincosf(x, s, c); }
XGPU_MDEV float __expf(float x) { return expf(x); }
XGPU_MDEV float __exp10f(float x) { return exp10f(x); }
XGPU_MDEV float __logf(float x) { return logf(x); }
XGPU_MDEV float __log2f(float x) { return log2f(x); }
XGPU_MDEV float __log10f(float x) { return log10f(x); }
XGPU_MDEV float __powf(float x, float y) { return powf(x, y); }
XGPU_MDEV float __fdividef(float x, float y) { return x / y; }
XGPU_MDEV double __fdivide(double x, double y) { return x / y; }
/* Explicitly rounded arithmetic: xgpu rounds to nearest even; the other modes are given
 * the same (round-to-nearest) result. */
#define XGPU_ROUNDED(M)                                                                    \
    XGPU_MDEV float __fadd_##M(float a, float b) { return a + b; }                         \
    XGPU_MDEV float __fsub_##M(float a, float b) { return a - b; }                         \
    XGPU_MDEV float __fmul_##M(float a, float b) { return a * b; }                         \
    XGPU_MDEV float __fdiv_##M(float a, float b) { return a / b; }                         \
    XGPU_MDEV float __fmaf_##M(float a, float b, float c) { return fmaf(a, b, c); }        \
    XGPU_MDEV float __frcp_##M(float a) { return 1.0f / a; }                               \
    XGPU_MDEV float __fsqrt_##M(float a) { return sqrtf(a); }                              \
    XGPU_MDEV double __dadd_##M(double a, double b) { return a + b; }                      \
    XGPU_MDEV double __dsub_##M(double a, double b) { return a - b; }                      \
    XGPU_MDEV double __dmul_##M(double a, double b) { return a * b; }                      \
    XGPU_MDEV double __ddiv_##M(double a, double b) { return a / b; }                      \
    XGPU_MDEV double __fma_##M(double a, double b, double c) { return fma(a, b, c); }      \
    XGPU_MDEV double __drcp_##M(double a) { return 1.0 / a; }                              \
    XGPU_MDEV double __dsqrt_##M(double a) { return sqrt(a); }
XGPU_ROUNDED(rn)
XGPU_ROUNDED(rz)
XGPU_ROUNDED(ru)
XGPU_ROUNDED(rd)
#undef XGPU_ROUNDED
XGPU_MDEV float __frsqrt_rn(float a) { return rsqrtf(a); }
XGPU_MDEV float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; }
XGPU_MDEV float fdividef(float x, float y) { return x / y; }

/* min/max of CUDA's math API under their own names. */
XGPU_MDEV unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
XGPU_MDEV unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
XGPU_MDEV long long llmin(long long a, long long b) { return a < b ? a : b; }
XGPU_MDEV long long llmax(long long a, long long b) { return a > b ? a : b; }
XGPU_MDEV unsigned long long ullmin(unsigned long long a, unsigned long long b)
{
    return a < b ? a : b;
}
XGPU_MDEV unsigned long long ullmax(unsigned long long a, unsigned long long b)
{
    return a > b ? a : b;
}

/* ---- integer and mixed-type arguments ------------------------------------------------ */

/* The type an argument computes in (type): double for the integers and double, float for
 * float; int_type (double) for the integers only. Any other type has neither, which
 * removes the templates below from overloading. */
template <class T> struct __xgpu_fp {};
#define XGPU_FP(T, R) template <> struct __xgpu_fp<T> { typedef R type; typedef R int_type; };
XGPU_FP(bool, double)
XGPU_FP(char, double)
XGPU_FP(signed char, double)
XGPU_FP(unsigned char, double)
XGPU_FP(short, double)
XGPU_FP(unsigned short, double)
XGPU_FP(int, double)
XGPU_FP(unsigned int, double)
XGPU_FP(long, double)
XGPU_FP(unsigned long, double)
XGPU_FP(long long, double)
XGPU_FP(unsigned long long, double)
#undef XGPU_FP
template <> struct __xgpu_fp<float> { typedef float type; };
template <> struct __xgpu_fp<double> { typedef double type; };

/* float only when every argument is float. */
template <class A, class B, class C = float> struct __xgpu_fp_pick { typedef double type; };
template <> struct __xgpu_fp_pick<float, float, float> { typedef float type; };
template <class A, class B, class C = float>
struct __xgpu_fp3 : __xgpu_fp_pick<typename __xgpu_fp<A>::type, typename __xgpu_fp<B>::type,
                                   typename __xgpu_fp<C>::type> {};

XGPU_MDEV float pow(float a, int b) { return powf(a, (float)b); }
XGPU_MDEV double pow(double a, int b) { return pow(a, (double)b); }

/* F(integer) is F(double). */
#define XGPU_INT1(F)                                                                       \
    template <class T>                                                                     \
    XGPU_MDEV typename __xgpu_fp<T>::int_type F(T a)                                       \
    {                                                                                      \
        return F((double)a);                                                               \
    }                                                                                      \
    namespace std { using ::F; }
/* F(a, b) on two arithmetic arguments not both of one floating type. */
#define XGPU_MIXED2(F)                                                                     \
    template <class A, class B>                                                            \
    XGPU_MDEV typename __xgpu_fp3<A, B>::type F(A a, B b)                                  \
    {                                                                                      \
        typedef typename __xgpu_fp3<A, B>::type R;                                         \
        return F((R)a, (R)b);                                                              \
    }                                                                                      \
    namespace std { using ::F; }
XGPU_INT1(sin) XGPU_INT1(cos) XGPU_INT1(tan) XGPU_INT1(asin) XGPU_INT1(acos)
XGPU_INT1(atan) XGPU_INT1(sinh) XGPU_INT1(cosh) XGPU_INT1(tanh) XGPU_INT1(asinh)
XGPU_INT1(acosh) XGPU_INT1(atanh) XGPU_INT1(exp) XGPU_INT1(exp2) XGPU_INT1(expm1)
XGPU_INT1(log) XGPU_INT1(log2) XGPU_INT1(log10) XGPU_INT1(log1p) XGPU_INT1(cbrt)
XGPU_INT1(erf) XGPU_INT1(erfc) XGPU_INT1(lgamma) XGPU_INT1(tgamma) XGPU_INT1(sqrt)
XGPU_INT1(fabs) XGPU_INT1(floor) XGPU_INT1(ceil) XGPU_INT1(trunc) XGPU_INT1(round)
XGPU_INT1(rint) XGPU_INT1(nearbyint)
XGPU_MIXED2(pow) XGPU_MIXED2(atan2) XGPU_MIXED2(fmod) XGPU_MIXED2(hypot)
XGPU_MIXED2(remainder) XGPU_MIXED2(fdim) XGPU_MIXED2(nextafter) XGPU_MIXED2(fmin)
XGPU_MIXED2(fmax) XGPU_MIXED2(copysign)
#undef XGPU_INT1
#undef XGPU_MIXED2

template <class A, class B, class C>
XGPU_MDEV typename __xgpu_fp3<A, B, C>::type fma(A a, B b, C c)
{
    typedef typename __xgpu_fp3<A, B, C>::type R;
    return fma((R)a, (R)b, (R)c);
}
namespace std { using ::fma; }

#undef XGPU_MDEV
#endif /* __CUDA__ && __cplusplus */

#endif
