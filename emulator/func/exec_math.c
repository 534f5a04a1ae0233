/*
 * exec_math.c - math1 and math2: the XMath functions, computed with the host C library
 * in the instruction's precision (f32: sinf, powf, ...; f64: sin, pow, ...).
 *
 * Two tables indexed by XMath give the float and the double function; the few that C
 * lacks are defined here from exactly-rounded operations: rsqrt = 1 / sqrt(x),
 * rcp = 1 / x. round rounds half away from zero (round), rint to nearest even (rint, in
 * the default rounding mode). Results are bit-identical to the host library's, which is
 * what docs/isa.md documents as the accuracy.
 */
#define _GNU_SOURCE /* exp10, exp10f, lgamma_r, lgammaf_r */
#include <math.h>
#include <string.h>
#include "func/exec.h"

typedef float (*MathF1)(float);
typedef double (*MathD1)(double);
typedef float (*MathF2)(float, float);
typedef double (*MathD2)(double, double);

static float rsqrt_f(float v) { return 1.0f / sqrtf(v); }
static double rsqrt_d(double v) { return 1.0 / sqrt(v); }
static float rcp_f(float v) { return 1.0f / v; }
static double rcp_d(double v) { return 1.0 / v; }
static float lgamma_f(float v) { int sg; return lgammaf_r(v, &sg); }
static double lgamma_d(double v) { int sg; return lgamma_r(v, &sg); }

static const MathF1 unary_f[XMATH_FIRST_BINARY] = {
    [XMATH_SIN] = sinf, [XMATH_COS] = cosf, [XMATH_TAN] = tanf, [XMATH_ASIN] = asinf,
    [XMATH_ACOS] = acosf, [XMATH_ATAN] = atanf, [XMATH_SINH] = sinhf, [XMATH_COSH] = coshf,
    [XMATH_TANH] = tanhf, [XMATH_ASINH] = asinhf, [XMATH_ACOSH] = acoshf,
    [XMATH_ATANH] = atanhf, [XMATH_EXP] = expf, [XMATH_EXP2] = exp2f, [XMATH_EXP10] = exp10f,
    [XMATH_EXPM1] = expm1f, [XMATH_LOG] = logf, [XMATH_LOG2] = log2f, [XMATH_LOG10] = log10f,
    [XMATH_LOG1P] = log1pf, [XMATH_CBRT] = cbrtf, [XMATH_RSQRT] = rsqrt_f, [XMATH_RCP] = rcp_f,
    [XMATH_FLOOR] = floorf, [XMATH_CEIL] = ceilf, [XMATH_TRUNC] = truncf,
    [XMATH_ROUND] = roundf, [XMATH_RINT] = rintf, [XMATH_ERF] = erff, [XMATH_ERFC] = erfcf,
    [XMATH_LGAMMA] = lgamma_f, [XMATH_TGAMMA] = tgammaf,
};

static const MathD1 unary_d[XMATH_FIRST_BINARY] = {
    [XMATH_SIN] = sin, [XMATH_COS] = cos, [XMATH_TAN] = tan, [XMATH_ASIN] = asin,
    [XMATH_ACOS] = acos, [XMATH_ATAN] = atan, [XMATH_SINH] = sinh, [XMATH_COSH] = cosh,
    [XMATH_TANH] = tanh, [XMATH_ASINH] = asinh, [XMATH_ACOSH] = acosh, [XMATH_ATANH] = atanh,
    [XMATH_EXP] = exp, [XMATH_EXP2] = exp2, [XMATH_EXP10] = exp10, [XMATH_EXPM1] = expm1,
    [XMATH_LOG] = log, [XMATH_LOG2] = log2, [XMATH_LOG10] = log10, [XMATH_LOG1P] = log1p,
    [XMATH_CBRT] = cbrt, [XMATH_RSQRT] = rsqrt_d, [XMATH_RCP] = rcp_d, [XMATH_FLOOR] = floor,
    [XMATH_CEIL] = ceil, [XMATH_TRUNC] = trunc, [XMATH_ROUND] = round, [XMATH_RINT] = rint,
    [XMATH_ERF] = erf, [XMATH_ERFC] = erfc, [XMATH_LGAMMA] = lgamma_d, [XMATH_TGAMMA] = tgamma,
};

#define BIN(i) [XMATH_##i - XMATH_FIRST_BINARY]
static const MathF2 binary_f[XMATH_COUNT - XMATH_FIRST_BINARY] = {
    BIN(POW) = powf, BIN(ATAN2) = atan2f, BIN(FMOD) = fmodf, BIN(HYPOT) = hypotf,
    BIN(REMAINDER) = remainderf, BIN(COPYSIGN) = copysignf, BIN(FDIM) = fdimf,
    BIN(NEXTAFTER) = nextafterf,
};
static const MathD2 binary_d[XMATH_COUNT - XMATH_FIRST_BINARY] = {
    BIN(POW) = pow, BIN(ATAN2) = atan2, BIN(FMOD) = fmod, BIN(HYPOT) = hypot,
    BIN(REMAINDER) = remainder, BIN(COPYSIGN) = copysign, BIN(FDIM) = fdim,
    BIN(NEXTAFTER) = nextafter,
};

static inline float bits_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double bits_d(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
static inline uint32_t f_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t d_bits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }

/* The last source: its register, or the immediate's raw bits (XF_IMM). */
#define SRC32(row) ((in->flags & XF_IMM) ? (uint32_t)in->imm : R32(row))
#define SRC64(row) ((in->flags & XF_IMM) ? (uint64_t)in->imm : r64(w, (row), l))

static int math1_f32(EXEC_ARGS)
{
    (void)x;
    MathF1 f = unary_f[in->sub];
    LANES R32(in->d) = f_bits(f(bits_f(SRC32(in->s0))));
    return EXEC_NEXT;
}

static int math1_f64(EXEC_ARGS)
{
    (void)x;
    MathD1 f = unary_d[in->sub];
    LANES w64(w, in->d, l, d_bits(f(bits_d(SRC64(in->s0)))));
    return EXEC_NEXT;
}

static int math2_f32(EXEC_ARGS)
{
    (void)x;
    MathF2 f = binary_f[in->sub - XMATH_FIRST_BINARY];
    LANES R32(in->d) = f_bits(f(bits_f(R32(in->s0)), bits_f(SRC32(in->s1))));
    return EXEC_NEXT;
}

static int math2_f64(EXEC_ARGS)
{
    (void)x;
    MathD2 f = binary_d[in->sub - XMATH_FIRST_BINARY];
    LANES w64(w, in->d, l, d_bits(f(bits_d(r64(w, in->s0, l)), bits_d(SRC64(in->s1)))));
    return EXEC_NEXT;
}

static int pick_math(const XInsn *xi, EmuInsn *o, unsigned lo, unsigned hi, EmuExecFn f32,
                     EmuExecFn f64)
{
    if (xi->sub < lo || xi->sub >= hi || (xi->type != XT_F32 && xi->type != XT_F64))
        return -1;
    o->fn = xi->type == XT_F32 ? f32 : f64;
    o->kind = EK_PLAIN;
    return 0;
}

int emu_pick_math1(const XInsn *xi, EmuInsn *o)
{
    return pick_math(xi, o, 0, XMATH_FIRST_BINARY, math1_f32, math1_f64);
}

int emu_pick_math2(const XInsn *xi, EmuInsn *o)
{
    return pick_math(xi, o, XMATH_FIRST_BINARY, XMATH_COUNT, math2_f32, math2_f64);
}
