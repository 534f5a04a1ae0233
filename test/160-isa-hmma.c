/*
 * 160-isa-hmma.c - the tensor step hmma in the ISA: every quadrant, layout and format
 * round-trips through the text form; its operands are single registers within the
 * timing model's limits (at most 6 sources and 2 destinations, 12 and 4 registers); the
 * unused slots of f16 forms must be rz; malformed encodings and text are rejected; and
 * the binary16 conversions the emulator uses round as IEEE says.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xgpu/isa.h"

static XInsn hmma(unsigned q, unsigned mod)
{
    XInsn in;
    memset(&in, 0, sizeof in);
    memset(in.dst, XREG_RZ, sizeof in.dst);
    memset(in.src, XREG_RZ, sizeof in.src);
    in.op = XOP_hmma;
    in.sub = (uint8_t)q;
    in.mod = (uint8_t)mod;
    in.dst[0] = 20;
    if (mod & XHMMA_D32)
        in.dst[1] = 21;
    for (unsigned i = 0; i < 5; i++)
        in.src[i] = (uint8_t)(3 + i);
    if (mod & XHMMA_C32)
        in.src[5] = 9;
    return in;
}

Test(isa_hmma, every_form_round_trips)
{
    for (unsigned q = 0; q < XHMMA_STEPS; q++)
        for (unsigned mod = 0; mod < XHMMA_MODS; mod++) {
            XInsn in = hmma(q, mod);
            char why[160], line[200], src[400];
            cr_assert_eq(xisa_validate(&in, 1, why, sizeof why), 0, "q%u mod %u: %s", q, mod, why);
            xisa_format(&in, NULL, 0, line, sizeof line);
            snprintf(src, sizeof src, ".kernel k\n    %s\n", line);
            XGpubin *g;
            cr_assert_eq(xasm_assemble(src, &g, why, sizeof why), 0, "'%s': %s", line, why);
            cr_assert_eq(memcmp(&g->text[0], &in, sizeof in), 0, "'%s' changed", line);
            xgpubin_free(g);
        }
}

Test(isa_hmma, text_form_names_quadrant_layouts_and_formats)
{
    XInsn in = hmma(3, XHMMA_ACOL | XHMMA_D32);
    char line[200];
    xisa_format(&in, NULL, 0, line, sizeof line);
    cr_assert_str_eq(line, "hmma.q3.col.row.f32.f16 r20, r21, r3, r4, r5, r6, r7, rz");
}

Test(isa_hmma, operands_fit_the_timing_limits)
{
    cr_assert_eq(xisa_ops[XOP_hmma].unit, XU_TENSOR);
    cr_assert_eq(xisa_ops[XOP_hmma].nsrc, 6);
    cr_assert_eq(xisa_ops[XOP_hmma].ndst, 2);
    for (unsigned mod = 0; mod < XHMMA_MODS; mod++) {
        XInsn in = hmma(0, mod);
        unsigned s = 0, d = 0;
        for (unsigned i = 0; i < 6; i++)
            s += xisa_operand_regs(&in, 0, i);
        for (unsigned i = 0; i < 2; i++)
            d += xisa_operand_regs(&in, 1, i);
        cr_expect_eq(s, (mod & XHMMA_C32) ? 6u : 5u, "mod %u", mod);
        cr_expect_eq(d, (mod & XHMMA_D32) ? 2u : 1u, "mod %u", mod);
        cr_expect_eq(xisa_operand_regs(&in, 0, 5), (mod & XHMMA_C32) ? 1u : 0u);
    }
}

static void expect_invalid(XInsn in, const char *why_part)
{
    char why[160] = "";
    cr_expect_neq(xisa_validate(&in, 1, why, sizeof why), 0, "should be invalid");
    cr_expect(strstr(why, why_part) != NULL, "'%s' does not say '%s'", why, why_part);
}

Test(isa_hmma, malformed_encodings_are_rejected)
{
    XInsn in = hmma(0, 0);
    in.dst[1] = 22; /* f16 D has one destination */
    expect_invalid(in, "unused destination slot 1");
    in = hmma(0, XHMMA_D32);
    in.src[5] = 9; /* f16 C has five sources */
    expect_invalid(in, "unused source slot 5");
    in = hmma(4, 0);
    in.sub = 4;
    expect_invalid(in, "sub-operation 4");
    in = hmma(0, 0);
    in.mod = XHMMA_MODS;
    expect_invalid(in, "modifier");
    in = hmma(0, 0);
    in.type = XT_F32;
    expect_invalid(in, "takes no type");
}

static void expect_asm_error(const char *line, const char *msg)
{
    char src[300], why[200] = "";
    XGpubin *g = NULL;
    snprintf(src, sizeof src, ".kernel k\n    %s\n", line);
    cr_expect_neq(xasm_assemble(src, &g, why, sizeof why), 0, "'%s' assembled", line);
    cr_expect(strstr(why, msg) != NULL, "'%s': '%s' does not say '%s'", line, why, msg);
    if (g)
        xgpubin_free(g);
}

Test(isa_hmma, malformed_text_is_rejected)
{
    expect_asm_error("hmma.q0.row.f32.f32 r1, r2, r3, r4, r5, r6, r7, r8", "hmma needs");
    expect_asm_error("hmma r1, r2, r3, r4, r5, r6, r7, r8", "operation suffix");
    expect_asm_error("hmma.q0.row.col.f32.f32.f16 r1, r2, r3, r4, r5, r6, r7, r8", "suffix");
    expect_asm_error("hmma.q0.row.col.f32.f32 r1, r2, r3, r4, r5, r6, r7", "operands");
}

Test(isa_hmma, binary16_conversions)
{
    cr_expect_eq(xisa_f32_to_f16(1.0f), 0x3c00);
    cr_expect_eq(xisa_f32_to_f16(-2.5f), 0xc100);
    cr_expect_eq(xisa_f32_to_f16(65504.0f), 0x7bff);
    cr_expect_eq(xisa_f32_to_f16(65519.0f), 0x7bff); /* below the halfway point */
    cr_expect_eq(xisa_f32_to_f16(65520.0f), 0x7c00); /* halfway: to even, infinity */
    cr_expect_eq(xisa_f32_to_f16(1.0f + 0x1p-11f), 0x3c00); /* tie to even */
    cr_expect_eq(xisa_f32_to_f16(1.0f + 0x3p-11f), 0x3c02); /* tie to even, up */
    cr_expect_eq(xisa_f32_to_f16(0x1p-24f), 0x0001);        /* smallest subnormal */
    cr_expect_eq(xisa_f32_to_f16(0x1p-25f), 0x0000);        /* tie to even: zero */
    cr_expect_eq(xisa_f32_to_f16(0x1.8p-25f), 0x0001);
    cr_expect_eq(xisa_f32_to_f16(0x1.ffcp-15f), 0x0400);  /* tie: to even, the smallest normal */
    cr_expect_eq(xisa_f32_to_f16(0x1.ff8p-15f), 0x03ff);  /* the largest subnormal */
    cr_expect_eq(xisa_f32_to_f16(-0.0f), 0x8000);
    cr_expect_eq(xisa_f32_to_f16(__builtin_inff()), 0x7c00);
    cr_expect_eq(xisa_f32_to_f16(__builtin_nanf("")) & 0x7e00, 0x7e00);
    cr_expect_eq(xisa_f16_to_f32(0x0001), 0x1p-24f);
    cr_expect_eq(xisa_f16_to_f32(0x03ff), 0x3ffp-24f);
    cr_expect_eq(xisa_f16_to_f32(0x7bff), 65504.0f);
    cr_expect_eq(xisa_f16_to_f32(0xc100), -2.5f);
    cr_expect(__builtin_isinf(xisa_f16_to_f32(0xfc00)) && xisa_f16_to_f32(0xfc00) < 0);
    for (unsigned h = 0; h < 0x10000; h++) /* every non-NaN half survives the round trip */
        if ((h & 0x7c00) != 0x7c00 || !(h & 0x3ff))
            cr_assert_eq(xisa_f32_to_f16(xisa_f16_to_f32((uint16_t)h)), h, "0x%04x", h);
}
