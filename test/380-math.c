/*
 * 380-math.c - math1 / math2: every XMath function in f32 and f64 against the host C
 * library (the documented accuracy: bit-identical results), over ordinary arguments and
 * the special values NaN, +-inf, +-0, and the immediate forms.
 */
#define _GNU_SOURCE /* exp10, exp10f */
#include <math.h>
#include <stdint.h>
#include "300-emu-util.h"

static float rsqrtf_(float v) { return 1.0f / sqrtf(v); }
static double rsqrt_(double v) { return 1.0 / sqrt(v); }
static float rcpf_(float v) { return 1.0f / v; }
static double rcp_(double v) { return 1.0 / v; }

/* The host's functions, by XMath. */
static const struct {
    unsigned fn;
    float (*f1)(float);
    double (*d1)(double);
    float (*f2)(float, float);
    double (*d2)(double, double);
} host[] = {
    {XMATH_SIN, sinf, sin, 0, 0},       {XMATH_COS, cosf, cos, 0, 0},
    {XMATH_TAN, tanf, tan, 0, 0},       {XMATH_ASIN, asinf, asin, 0, 0},
    {XMATH_ACOS, acosf, acos, 0, 0},    {XMATH_ATAN, atanf, atan, 0, 0},
    {XMATH_SINH, sinhf, sinh, 0, 0},    {XMATH_COSH, coshf, cosh, 0, 0},
    {XMATH_TANH, tanhf, tanh, 0, 0},    {XMATH_ASINH, asinhf, asinh, 0, 0},
    {XMATH_ACOSH, acoshf, acosh, 0, 0}, {XMATH_ATANH, atanhf, atanh, 0, 0},
    {XMATH_EXP, expf, exp, 0, 0},       {XMATH_EXP2, exp2f, exp2, 0, 0},
    {XMATH_EXP10, exp10f, exp10, 0, 0}, {XMATH_EXPM1, expm1f, expm1, 0, 0},
    {XMATH_LOG, logf, log, 0, 0},       {XMATH_LOG2, log2f, log2, 0, 0},
    {XMATH_LOG10, log10f, log10, 0, 0}, {XMATH_LOG1P, log1pf, log1p, 0, 0},
    {XMATH_CBRT, cbrtf, cbrt, 0, 0},    {XMATH_RSQRT, rsqrtf_, rsqrt_, 0, 0},
    {XMATH_RCP, rcpf_, rcp_, 0, 0},     {XMATH_FLOOR, floorf, floor, 0, 0},
    {XMATH_CEIL, ceilf, ceil, 0, 0},    {XMATH_TRUNC, truncf, trunc, 0, 0},
    {XMATH_ROUND, roundf, round, 0, 0}, {XMATH_RINT, rintf, rint, 0, 0},
    {XMATH_ERF, erff, erf, 0, 0},       {XMATH_ERFC, erfcf, erfc, 0, 0},
    {XMATH_LGAMMA, lgammaf, lgamma, 0, 0}, {XMATH_TGAMMA, tgammaf, tgamma, 0, 0},
    {XMATH_POW, 0, 0, powf, pow},       {XMATH_ATAN2, 0, 0, atan2f, atan2},
    {XMATH_FMOD, 0, 0, fmodf, fmod},    {XMATH_HYPOT, 0, 0, hypotf, hypot},
    {XMATH_REMAINDER, 0, 0, remainderf, remainder},
    {XMATH_COPYSIGN, 0, 0, copysignf, copysign},
    {XMATH_FDIM, 0, 0, fdimf, fdim},    {XMATH_NEXTAFTER, 0, 0, nextafterf, nextafter},
};

static const double args[] = {
    0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.5, 0.1, 0.75,
    -0.3, 7.25, 100.0, -100.0, 1e-30, 12345.678, 1e30, 0.999, 2.0, -3.0, 40.0, 1e-310,
};
#define NARGS (sizeof args / sizeof args[0])

/* Launches one thread per argument pair: out[i] = fn(a[i], b[i]) in type t. */
static void run_fn(EmuDevice *d, unsigned fn, int f64, const double *a, const double *b,
                   size_t n, uint64_t *out)
{
    const char *t = f64 ? "f64" : "f32";
    unsigned sz = f64 ? 8 : 4;
    char src[1024], op[64];
    if (fn < XMATH_FIRST_BINARY)
        snprintf(op, sizeof op, "math1.%s.%s r10, r6", xisa_math_names[fn], t);
    else
        snprintf(op, sizeof op, "math2.%s.%s r10, r6, r8", xisa_math_names[fn], t);
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n  s2r r0, %%tid.x\n  mul.u32 r1, r0, %u\n"
             "  cvt.u64.u32 r2, r1\n  ld.param.u64 r4, [0]\n  add.u64 r4, r4, r2\n"
             "  ld.global.%s r6, [r4]\n  ld.global.%s r8, [r4+%zu]\n  %s\n"
             "  st.global.%s [r4+%zu], r10\n  exit\n",
             3 * sz, t, t, (size_t)sz, op, t, 2 * (size_t)sz);
    EmuModule *m = t_load(d, src);
    uint8_t *host_buf = calloc(n, 3 * sz);
    for (size_t i = 0; i < n; i++) {
        if (f64) {
            memcpy(host_buf + i * 24, &a[i], 8);
            memcpy(host_buf + i * 24 + 8, &b[i], 8);
        } else {
            float fa = (float)a[i], fb = (float)b[i];
            memcpy(host_buf + i * 12, &fa, 4);
            memcpy(host_buf + i * 12 + 4, &fb, 4);
        }
    }
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, n * 3 * sz, &buf), EMU_OK);
    emu_copy_to_device(d, buf, host_buf, n * 3 * sz);
    EmuFault f;
    EmuStatus s = t_launch(d, m, "k", DIM(1, 1, 1), DIM((uint32_t)n, 1, 1), &buf, 8, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s\n%s", emu_status_name(s), f.message, src);
    emu_copy_from_device(d, host_buf, buf, n * 3 * sz);
    for (size_t i = 0; i < n; i++) {
        out[i] = 0;
        memcpy(&out[i], host_buf + i * 3 * sz + 2 * sz, sz);
    }
    emu_free(d, buf);
    free(host_buf);
}

static void expect_same_f32(float got, float want, const char *what, double a, double b)
{
    if (isnan(want))
        cr_expect(isnan(got), "%s(%g, %g): %a, want NaN", what, a, b, got);
    else
        cr_expect_eq(t_fbits(got), t_fbits(want), "%s(%g, %g) f32: %a, want %a", what, a, b,
                     got, want);
}

static void expect_same_f64(double got, double want, const char *what, double a, double b)
{
    if (isnan(want))
        cr_expect(isnan(got), "%s(%g, %g): %a, want NaN", what, a, b, got);
    else
        cr_expect_eq(t_dbits(got), t_dbits(want), "%s(%g, %g) f64: %a, want %a", what, a, b,
                     got, want);
}

Test(math, every_function_matches_the_host_library)
{
    /* binary functions: every argument against a rotation of the list, plus x op x */
    double a[2 * NARGS], b[2 * NARGS];
    for (size_t i = 0; i < NARGS; i++) {
        a[i] = args[i], b[i] = args[(i * 7 + 3) % NARGS];
        a[NARGS + i] = args[i], b[NARGS + i] = args[i];
    }
    uint64_t out[2 * NARGS];
    EmuDevice *d = t_dev();
    cr_assert_eq(sizeof host / sizeof host[0], XMATH_COUNT);
    for (size_t k = 0; k < sizeof host / sizeof host[0]; k++) {
        unsigned fn = host[k].fn;
        cr_assert_eq(fn, k, "table order");
        size_t n = fn < XMATH_FIRST_BINARY ? NARGS : 2 * NARGS;
        for (int f64 = 0; f64 < 2; f64++) {
            run_fn(d, fn, f64, a, b, n, out);
            for (size_t i = 0; i < n; i++) {
                if (f64) {
                    double want = host[k].d1 ? host[k].d1(a[i]) : host[k].d2(a[i], b[i]);
                    expect_same_f64(t_bitsd(out[i]), want, xisa_math_names[fn], a[i], b[i]);
                } else {
                    float fa = (float)a[i], fb = (float)b[i];
                    float want = host[k].f1 ? host[k].f1(fa) : host[k].f2(fa, fb);
                    expect_same_f32(t_bitsf(out[i]), want, xisa_math_names[fn], a[i], b[i]);
                }
            }
        }
    }
    emu_destroy(d);
}

Test(math, special_values_and_rounding_modes)
{
    EmuDevice *d = t_dev();
    /* round: half away from zero; rint: half to even */
    cr_expect_eq(t_bitsf(t_eval(d, "  math1.round.f32 r10, 0f40200000\n  mov.u32 r11, 0\n")),
                 3.0f);
    cr_expect_eq(t_bitsf(t_eval(d, "  math1.rint.f32 r10, 0f40200000\n  mov.u32 r11, 0\n")),
                 2.0f);
    cr_expect_eq(t_bitsd(t_eval(d, "  math1.round.f64 r10, 0dC004000000000000\n")), -3.0);
    cr_expect_eq(t_bitsd(t_eval(d, "  math1.rint.f64 r10, 0dC004000000000000\n")), -2.0);
    /* rsqrt(+0) = +inf, rcp(-0) = -inf, log(0) = -inf, sqrt of a negative is NaN */
    cr_expect_eq(t_bitsf(t_eval(d, "  math1.rsqrt.f32 r10, 0f00000000\n  mov.u32 r11, 0\n")),
                 INFINITY);
    cr_expect_eq(t_bitsd(t_eval(d, "  math1.rcp.f64 r10, 0d8000000000000000\n")), -INFINITY);
    cr_expect_eq(t_bitsd(t_eval(d, "  math1.log.f64 r10, 0d0000000000000000\n")), -INFINITY);
    cr_expect(isnan(t_bitsf(t_eval(d, "  math1.rsqrt.f32 r10, 0fBF800000\n  mov.u32 r11, 0\n"))));
    /* pow(x, 0) = 1 even for NaN; pow with an immediate exponent */
    cr_expect_eq(t_bitsd(t_eval(d, "  mov.f64 r2, 0d7FF8000000000000\n"
                                   "  math2.pow.f64 r10, r2, 0d0000000000000000\n")), 1.0);
    cr_expect_eq(t_bitsf(t_eval(d, "  mov.f32 r2, 0f40000000\n"
                                   "  math2.pow.f32 r10, r2, 0f41200000\n  mov.u32 r11, 0\n")),
                 1024.0f);
    /* f32 precision: sinf, not (float)sin */
    float x = 1e10f;
    cr_expect_eq(t_bitsf(t_eval(d, "  mov.f32 r2, 0f%08X\n  math1.sin.f32 r10, r2\n"
                                   "  mov.u32 r11, 0\n", t_fbits(x))), sinf(x));
    /* copysign and nextafter touch the sign and the last bit exactly */
    cr_expect_eq(t_eval(d, "  mov.f64 r2, 0d3FF0000000000000\n"
                           "  math2.copysign.f64 r10, r2, 0d8000000000000000\n"),
                 t_dbits(-1.0));
    cr_expect_eq(t_eval(d, "  mov.f64 r2, 0d3FF0000000000000\n"
                           "  math2.nextafter.f64 r10, r2, 0d4000000000000000\n"),
                 t_dbits(1.0) + 1);
    emu_destroy(d);
}
