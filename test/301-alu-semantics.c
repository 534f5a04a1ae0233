/*
 * 301-alu-semantics.c - integer, floating-point, compare, select, convert and
 * special-register instructions against isa.def's one-line semantics, edge cases first:
 * wrap-around, division by zero, shifts >= width, NaN compares, float->int saturation.
 * Each case runs a one-thread snippet through the emulator (t_eval) in both the register
 * and the immediate form of the last source.
 */
#include <math.h>
#include <stdint.h>
#include "300-emu-util.h"

static EmuDevice *dev;

static void setup(void) { dev = t_dev(); }
static void teardown(void) { emu_destroy(dev); }

TestSuite(alu, .init = setup, .fini = teardown);

/* Binary op on 32-bit operands; both forms must agree. */
static uint32_t bin32(const char *op, uint32_t a, uint32_t b)
{
    uint64_t r = t_eval(dev, "mov.u32 r4, 0x%x\nmov.u32 r5, 0x%x\n%s r10, r4, r5", a, b, op);
    uint64_t i = t_eval(dev, "mov.u32 r4, 0x%x\n%s r10, r4, 0x%x", a, op, b);
    cr_assert_eq(r, i, "%s: register form 0x%llx, immediate form 0x%llx", op,
                 (unsigned long long)r, (unsigned long long)i);
    cr_assert_eq(r >> 32, 0, "%s wrote the odd register", op);
    return (uint32_t)r;
}

static uint64_t bin64(const char *op, uint64_t a, uint64_t b)
{
    uint64_t r = t_eval(dev, "mov.u64 r4, 0x%llx\nmov.u64 r6, 0x%llx\n%s r10, r4, r6",
                        (unsigned long long)a, (unsigned long long)b, op);
    uint64_t i = t_eval(dev, "mov.u64 r4, 0x%llx\n%s r10, r4, 0x%llx", (unsigned long long)a,
                        op, (unsigned long long)b);
    cr_assert_eq(r, i, "%s: register and immediate forms differ", op);
    return r;
}

static uint32_t un32(const char *op, uint32_t a)
{
    return (uint32_t)t_eval(dev, "mov.u32 r4, 0x%x\n%s r10, r4", a, op);
}

static uint64_t un64(const char *op, uint64_t a)
{
    return t_eval(dev, "mov.u64 r4, 0x%llx\n%s r10, r4", (unsigned long long)a, op);
}

Test(alu, integer_arithmetic_wraps)
{
    cr_expect_eq(bin32("add.u32", 0xffffffffu, 1), 0);
    cr_expect_eq(bin32("add.s32", 0x7fffffffu, 1), 0x80000000u);
    cr_expect_eq(bin64("add.s64", INT64_MAX, 1), (uint64_t)INT64_MIN);
    cr_expect_eq(bin64("add.u64", 0xffffffffull, 1), 0x100000000ull);
    cr_expect_eq(bin32("sub.u32", 0, 1), 0xffffffffu);
    cr_expect_eq(bin64("sub.u64", 0x100000000ull, 1), 0xffffffffull);
    cr_expect_eq(bin32("mul.u32", 0x10000, 0x10000), 0);
    cr_expect_eq(bin32("mul.s32", (uint32_t)-3, 7), (uint32_t)-21);
    cr_expect_eq(bin64("mul.u64", 0x100000000ull, 0x100000001ull), 0x100000000ull);
    cr_expect_eq(bin32("mulhi.u32", 0xffffffffu, 0xffffffffu), 0xfffffffeu);
    cr_expect_eq(bin32("mulhi.s32", (uint32_t)-1, (uint32_t)-1), 0);
    cr_expect_eq(bin32("mulhi.s32", (uint32_t)-2, 3), 0xffffffffu);
    cr_expect_eq(bin64("mulhi.u64", UINT64_MAX, 2), 1);
    cr_expect_eq(bin64("mulhi.s64", (uint64_t)-1, 2), UINT64_MAX);
    cr_expect_eq(un32("neg.s32", 5), (uint32_t)-5);
    cr_expect_eq(un32("abs.s32", (uint32_t)-5), 5);
    cr_expect_eq(un32("abs.s32", 0x80000000u), 0x80000000u);
    cr_expect_eq(un64("abs.s64", (uint64_t)-7), 7);
    cr_expect_eq(un64("neg.s64", 1), UINT64_MAX);
}

Test(alu, division_by_zero_and_overflow)
{
    cr_expect_eq(bin32("div.u32", 7, 0), 0xffffffffu);
    cr_expect_eq(bin32("div.s32", 7, 0), 0xffffffffu);
    cr_expect_eq(bin64("div.u64", 7, 0), UINT64_MAX);
    cr_expect_eq(bin32("rem.u32", 7, 0), 7);
    cr_expect_eq(bin64("rem.s64", (uint64_t)-7, 0), (uint64_t)-7);
    cr_expect_eq(bin32("div.s32", (uint32_t)-7, 2), (uint32_t)-3);
    cr_expect_eq(bin32("div.u32", (uint32_t)-7, 2), 0x7ffffffcu);
    cr_expect_eq(bin32("rem.s32", (uint32_t)-7, 2), (uint32_t)-1);
    cr_expect_eq(bin32("div.s32", 0x80000000u, (uint32_t)-1), 0x80000000u);
    cr_expect_eq(bin32("rem.s32", 0x80000000u, (uint32_t)-1), 0);
    cr_expect_eq(bin64("div.s64", (uint64_t)INT64_MIN, UINT64_MAX), (uint64_t)INT64_MIN);
}

Test(alu, logic_and_shifts)
{
    cr_expect_eq(bin32("and.u32", 0xff00ff00u, 0x0ff00ff0u), 0x0f000f00u);
    cr_expect_eq(bin32("or.u32", 0xf0, 0x0f), 0xff);
    cr_expect_eq(bin32("xor.u32", 0xff, 0x0f), 0xf0);
    cr_expect_eq(un32("not.u32", 0), 0xffffffffu);
    cr_expect_eq(un64("not.u64", 0), UINT64_MAX);
    cr_expect_eq(bin32("shl.u32", 1, 31), 0x80000000u);
    cr_expect_eq(bin32("shl.u32", 1, 32), 0);
    cr_expect_eq(bin32("shl.u32", 1, 1000), 0);
    cr_expect_eq(bin32("shr.u32", 0x80000000u, 31), 1);
    cr_expect_eq(bin32("shr.u32", 0x80000000u, 40), 0);
    cr_expect_eq(bin32("shr.s32", (uint32_t)-8, 1), (uint32_t)-4);
    cr_expect_eq(bin32("shr.s32", (uint32_t)-8, 40), 0xffffffffu);
    cr_expect_eq(bin32("shr.s32", 8, 40), 0);
    /* 64-bit shifts take a 32-bit count */
    uint64_t r = t_eval(dev, "mov.u64 r4, 1\nmov.u32 r6, 40\nshl.u64 r10, r4, r6");
    cr_expect_eq(r, 1ull << 40);
    cr_expect_eq(t_eval(dev, "mov.u64 r4, 1\nshl.u64 r10, r4, 64"), 0);
    cr_expect_eq(t_eval(dev, "mov.u64 r4, 0x8000000000000000\nshr.s64 r10, r4, 63"), UINT64_MAX);
    cr_expect_eq(t_eval(dev, "mov.u64 r4, 0x8000000000000000\nshr.s64 r10, r4, 99"), UINT64_MAX);
    cr_expect_eq(t_eval(dev, "mov.u64 r4, 0x8000000000000000\nshr.u64 r10, r4, 63"), 1);
}

Test(alu, min_max_and_bit_counts)
{
    cr_expect_eq(bin32("min.s32", (uint32_t)-1, 1), (uint32_t)-1);
    cr_expect_eq(bin32("min.u32", (uint32_t)-1, 1), 1);
    cr_expect_eq(bin32("max.s32", (uint32_t)-1, 1), 1);
    cr_expect_eq(bin32("max.u32", (uint32_t)-1, 1), 0xffffffffu);
    cr_expect_eq(bin64("min.s64", (uint64_t)-5, 3), (uint64_t)-5);
    cr_expect_eq(bin64("max.u64", (uint64_t)-5, 3), (uint64_t)-5);
    cr_expect_eq(un32("popc.u32", 0xf0f0), 8);
    cr_expect_eq(un64("popc.u64", UINT64_MAX), 64);
    cr_expect_eq(un32("clz.u32", 0), 32);
    cr_expect_eq(un32("clz.u32", 1), 31);
    cr_expect_eq(un64("clz.u64", 1), 63);
    cr_expect_eq(un64("clz.u64", 0), 64);
    cr_expect_eq(un32("brev.u32", 1), 0x80000000u);
    cr_expect_eq(un32("brev.u32", 0x12345678u), 0x1e6a2c48u);
    cr_expect_eq(un64("brev.u64", 1), 1ull << 63);
}

static float fbin(const char *op, float a, float b)
{
    return t_bitsf(t_eval(dev, "mov.f32 r4, 0f%08X\nmov.f32 r5, 0f%08X\n%s r10, r4, r5",
                          t_fbits(a), t_fbits(b), op));
}

static double dbin(const char *op, double a, double b)
{
    return t_bitsd(t_eval(dev, "mov.f64 r4, 0d%016llX\n%s r10, r4, 0d%016llX",
                          (unsigned long long)t_dbits(a), op, (unsigned long long)t_dbits(b)));
}

Test(alu, floating_point)
{
    cr_expect_eq(fbin("fadd.f32", 1.5f, 2.25f), 3.75f);
    cr_expect_eq(fbin("fsub.f32", 1.5f, 2.25f), -0.75f);
    cr_expect_eq(fbin("fmul.f32", 1.5f, -2.0f), -3.0f);
    cr_expect_eq(fbin("fdiv.f32", 1.0f, 3.0f), 1.0f / 3.0f);
    cr_expect(isinf(fbin("fdiv.f32", 1.0f, 0.0f)));
    cr_expect_eq(fbin("frem.f32", 5.5f, 2.0f), 1.5f);
    cr_expect_eq(fbin("fmin.f32", NAN, 1.0f), 1.0f);
    cr_expect_eq(fbin("fmax.f32", 1.0f, NAN), 1.0f);
    cr_expect_eq(fbin("fmin.f32", -2.0f, 1.0f), -2.0f);
    cr_expect_eq(dbin("fadd.f64", 0.1, 0.2), 0.1 + 0.2);
    cr_expect_eq(dbin("fdiv.f64", 1.0, 3.0), 1.0 / 3.0);
    cr_expect_eq(dbin("fmax.f64", NAN, -1.0), -1.0);
    cr_expect_eq(dbin("frem.f64", -7.0, 2.0), -1.0);
    /* fneg flips the sign of zero; fabs clears it */
    cr_expect_eq(t_eval(dev, "mov.f32 r4, 0f00000000\nfneg.f32 r10, r4"), 0x80000000u);
    cr_expect_eq(t_eval(dev, "mov.f32 r4, 0fC0000000\nfabs.f32 r10, r4"), t_fbits(2.0f));
    cr_expect_eq(t_bitsf(t_eval(dev, "mov.f32 r4, 0f40000000\nfsqrt.f32 r10, r4")), sqrtf(2.0f));
    cr_expect_eq(t_bitsd(t_eval(dev, "mov.f64 r4, 0d4000000000000000\nfsqrt.f64 r10, r4")),
                 sqrt(2.0));
    cr_expect(isnan(t_bitsf(t_eval(dev, "mov.f32 r4, 0fBF800000\nfsqrt.f32 r10, r4"))));
}

Test(alu, ffma_rounds_once)
{
    /* (1 + 2^-23)^2 - (1 + 2^-22) is 2^-46 fused, 0 when the product is rounded first */
    float a = 1.0f + 0x1p-23f, c = -(1.0f + 0x1p-22f);
    float r = t_bitsf(t_eval(dev, "mov.f32 r4, 0f%08X\nmov.f32 r5, 0f%08X\nffma.f32 r10, r4, r4, r5",
                             t_fbits(a), t_fbits(c)));
    cr_expect_eq(r, 0x1p-46f);
    double da = 1.0 + 0x1p-52, dc = -(1.0 + 0x1p-51);
    double dr = t_bitsd(t_eval(dev, "mov.f64 r4, 0d%016llX\nffma.f64 r10, r4, r4, 0d%016llX",
                               (unsigned long long)t_dbits(da), (unsigned long long)t_dbits(dc)));
    cr_expect_eq(dr, 0x1p-104);
}

static uint32_t setf(const char *cmp, float a, float b)
{
    return (uint32_t)t_eval(dev, "mov.f32 r4, 0f%08X\nset.%s.f32 r10, r4, 0f%08X", t_fbits(a),
                            cmp, t_fbits(b));
}

Test(alu, compares)
{
    cr_expect_eq(bin32("set.lt.s32", (uint32_t)-1, 1), 1);
    cr_expect_eq(bin32("set.lt.u32", (uint32_t)-1, 1), 0);
    cr_expect_eq(bin32("set.ge.u32", 5, 5), 1);
    cr_expect_eq(bin32("set.ne.u32", 5, 5), 0);
    cr_expect_eq(bin64("set.gt.s64", 1, (uint64_t)-1), 1);
    cr_expect_eq(bin64("set.gt.u64", 1, (uint64_t)-1), 0);
    cr_expect_eq(bin64("set.eq.u64", 1ull << 40, 1), 0);
    /* ordered compares are false with a NaN, unordered ones true */
    const char *ordered[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    const char *unordered[] = {"neu", "ltu", "leu", "gtu", "geu", "equ"};
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(setf(ordered[i], NAN, 1.0f), 0, "%s with NaN", ordered[i]);
        cr_expect_eq(setf(unordered[i], 1.0f, NAN), 1, "%s with NaN", unordered[i]);
    }
    cr_expect_eq(setf("lt", 1.0f, 2.0f), 1);
    cr_expect_eq(setf("ltu", 2.0f, 1.0f), 0);
    cr_expect_eq(setf("ne", 1.0f, 2.0f), 1);
    cr_expect_eq(setf("equ", 2.0f, 2.0f), 1);
    cr_expect_eq(setf("neu", 2.0f, 2.0f), 0);
    cr_expect_eq(setf("num", 1.0f, 2.0f), 1);
    cr_expect_eq(setf("num", 1.0f, NAN), 0);
    cr_expect_eq(setf("nan", NAN, 2.0f), 1);
    cr_expect_eq(setf("nan", 1.0f, 2.0f), 0);
    cr_expect_eq(t_eval(dev, "mov.f64 r4, 0d7FF8000000000000\nset.nan.f64 r10, r4, r4"), 1);
    cr_expect_eq(t_eval(dev, "mov.f64 r4, 0d3FF0000000000000\nset.le.f64 r10, r4, r4"), 1);
}

Test(alu, select)
{
    cr_expect_eq(t_eval(dev, "mov.u32 r4, 11\nmov.u32 r5, 22\nmov.u32 r6, 1\nsel.u32 r10, r4, r5, r6"), 11);
    cr_expect_eq(t_eval(dev, "mov.u32 r4, 11\nmov.u32 r5, 22\nsel.u32 r10, r4, r5, 0"), 22);
    cr_expect_eq(t_eval(dev, "mov.u64 r4, 0x100000001\nmov.u64 r6, 2\nmov.u32 r8, 7\n"
                             "sel.u64 r10, r4, r6, r8"), 0x100000001ull);
}

static uint64_t cvt(const char *types, uint64_t v)
{
    return t_eval(dev, "mov.u64 r4, 0x%llx\ncvt.%s r10, r4", (unsigned long long)v, types);
}

Test(alu, cvt_integer_widths)
{
    cr_expect_eq(cvt("s32.s8", 0xff), 0xffffffffu);
    cr_expect_eq(cvt("u32.u8", 0x1ff), 0xff);
    cr_expect_eq(cvt("s32.s16", 0x8000), 0xffff8000u);
    cr_expect_eq(cvt("u32.u16", 0x18000), 0x8000);
    cr_expect_eq(cvt("s8.s32", 300), 44);
    cr_expect_eq(cvt("s8.s32", 200), 0xffffffc8u);
    cr_expect_eq(cvt("u8.s32", 0xffffffff), 0xff);
    cr_expect_eq(cvt("u16.s32", 0xffffffff), 0xffff);
    cr_expect_eq(cvt("s64.s32", 0xffffffff), UINT64_MAX);
    cr_expect_eq(cvt("u64.u32", 0xffffffff), 0xffffffffull);
    cr_expect_eq(cvt("s64.s8", 0x80), 0xffffffffffffff80ull);
    cr_expect_eq(cvt("u32.u64", 0x123456789ull), 0x23456789u);
    cr_expect_eq(cvt("s32.s64", 0xfffffffff0000000ull), 0xf0000000u);
}

Test(alu, cvt_float_int)
{
    cr_expect_eq(t_bitsf(cvt("f32.s32", 0xfffffffd)), -3.0f);
    cr_expect_eq(t_bitsf(cvt("f32.u32", 0xffffffff)), 4294967296.0f);
    cr_expect_eq(t_bitsf(cvt("f32.s8", 0xff)), -1.0f);
    cr_expect_eq(t_bitsd(cvt("f64.s64", UINT64_MAX)), -1.0);
    cr_expect_eq(t_bitsd(cvt("f64.u64", 1ull << 63)), 9223372036854775808.0);
    cr_expect_eq(cvt("s32.f32", t_fbits(3.9f)), 3);
    cr_expect_eq(cvt("s32.f32", t_fbits(-3.9f)), (uint32_t)-3);
    cr_expect_eq(cvt("s32.f32", t_fbits(1e10f)), 0x7fffffffu);
    cr_expect_eq(cvt("s32.f32", t_fbits(-1e10f)), 0x80000000u);
    cr_expect_eq(cvt("s32.f32", t_fbits(NAN)), 0);
    cr_expect_eq(cvt("u32.f32", t_fbits(-1.0f)), 0);
    cr_expect_eq(cvt("u32.f32", t_fbits(1e20f)), 0xffffffffu);
    cr_expect_eq(cvt("u8.f32", t_fbits(300.0f)), 255);
    cr_expect_eq(cvt("s8.f32", t_fbits(-300.0f)), 0xffffff80u);
    cr_expect_eq(cvt("s16.f32", t_fbits(40000.0f)), 0x7fff);
    cr_expect_eq(cvt("s64.f64", t_dbits(1e30)), (uint64_t)INT64_MAX);
    cr_expect_eq(cvt("s64.f64", t_dbits(-1e30)), (uint64_t)INT64_MIN);
    cr_expect_eq(cvt("u64.f64", t_dbits(-5.0)), 0);
    cr_expect_eq(cvt("u64.f64", t_dbits(1e30)), UINT64_MAX);
    cr_expect_eq(cvt("u64.f32", t_fbits(NAN)), 0);
    cr_expect_eq(cvt("s64.f64", t_dbits(-123.75)), (uint64_t)-123);
}

Test(alu, cvt_float_float)
{
    cr_expect_eq(t_bitsd(cvt("f64.f32", t_fbits(1.5f))), 1.5);
    cr_expect_eq(t_bitsf(cvt("f32.f64", t_dbits(0.1))), 0.1f);
    cr_expect(isinf(t_bitsf(cvt("f32.f64", t_dbits(1e300)))));
    cr_expect_eq(cvt("f32.f32", t_fbits(2.5f)), t_fbits(2.5f));
}

Test(alu, moves_and_immediates)
{
    cr_expect_eq(t_eval(dev, "mov.u64 r10, 0x123456789abcdef0"), 0x123456789abcdef0ull);
    cr_expect_eq(t_eval(dev, "mov.u32 r10, -1"), 0xffffffffu, "32-bit mov leaves r11 alone");
    cr_expect_eq(t_eval(dev, "mov.f64 r10, 0d3FF8000000000000"), t_dbits(1.5));
    cr_expect_eq(t_eval(dev, "mov.u32 r4, 9\nmov.u32 r10, r4"), 9);
    cr_expect_eq(t_eval(dev, "mov.u32 r10, 5\nadd.u32 r10, r10, rz"), 5);
    cr_expect_eq(t_eval(dev, "mov.u32 r10, 5\nmov.u32 rz, 7\nadd.u32 r10, r10, rz"), 5,
                 "writes to rz are dropped");
}

Test(alu, special_registers)
{
    /* every thread writes tid.x | tid.y<<8 | laneid<<16 | warpid<<24 and its ctaid */
    EmuModule *m = t_load(dev,
        ".kernel sr\n.param 8\n"
        "  s2r r0, %tid.x\n  s2r r1, %tid.y\n  s2r r2, %laneid\n  s2r r3, %warpid\n"
        "  shl.u32 r1, r1, 8\n  shl.u32 r2, r2, 16\n  shl.u32 r3, r3, 24\n"
        "  or.u32 r0, r0, r1\n  or.u32 r0, r0, r2\n  or.u32 r0, r0, r3\n"
        "  s2r r4, %ctaid.x\n  s2r r5, %ntid.x\n  s2r r6, %ntid.y\n  mul.u32 r7, r5, r6\n"
        "  s2r r8, %tid.y\n  mul.u32 r8, r8, r5\n  s2r r9, %tid.x\n  add.u32 r8, r8, r9\n"
        "  mul.u32 r9, r4, r7\n  add.u32 r8, r8, r9\n"
        "  cvt.u64.u32 r10, r8\n  shl.u64 r10, r10, 3\n  ld.param.u64 r12, [0]\n"
        "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r0\n"
        "  s2r r14, %nctaid.x\n  shl.u32 r14, r14, 16\n  or.u32 r14, r14, r4\n"
        "  st.global.u32 [r12+4], r14\n  exit\n");
    uint64_t out;
    cr_assert_eq(emu_malloc(dev, 2 * 48 * 8, &out), EMU_OK);
    cr_assert_eq(t_launch(dev, m, "sr", DIM(2, 1, 1), DIM(8, 6, 1), &out, 8, NULL), EMU_OK);
    uint32_t v[2 * 48 * 2];
    emu_copy_from_device(dev, v, out, sizeof v);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t t = 0; t < 48; t++) {
            uint32_t *e = &v[(c * 48 + t) * 2];
            uint32_t want = (t % 8) | (t / 8) << 8 | (t % 32) << 16 | (t / 32) << 24;
            cr_expect_eq(e[0], want, "cta %u thread %u: 0x%x", c, t, e[0]);
            cr_expect_eq(e[1], 2u << 16 | c);
        }
}

Test(alu, clock_counts_warp_instructions)
{
    /* functional clock = instructions the warp executed before the s2r */
    cr_expect_eq(t_eval(dev, "nop\nnop\ns2r r10, %%clock"), 2);
    cr_expect_eq(t_eval(dev, "nop\ns2r r10, %%clock64"), 1);
}
