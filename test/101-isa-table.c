/*
 * 101-isa-table.c - walks the ISA table and the per-opcode rules.
 *
 * Every opcode has a name, a unit, operand counts within the encoding and a
 * description; names are unique; a default instruction of every opcode validates,
 * formats, and assembles back to the same encoding. Validation rejects the classic
 * encoding mistakes (odd register for a 64-bit operand, bad ranges, stray fields).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xgpu/isa.h"

Test(isa_table, every_opcode_is_described)
{
    for (unsigned op = 0; op < XOP_COUNT; op++) {
        const XOpInfo *oi = &xisa_ops[op];
        cr_assert(oi->name && oi->name[0], "opcode %u has no name", op);
        cr_assert_lt(oi->unit, XU_COUNT, "%s: unit", oi->name);
        cr_assert_leq(oi->ndst, 2, "%s: ndst", oi->name);
        cr_assert_leq(oi->nsrc, 6, "%s: nsrc", oi->name);
        cr_assert(oi->desc && oi->desc[0], "%s: no description", oi->name);
        for (unsigned j = 0; j < op; j++)
            cr_assert_str_neq(oi->name, xisa_ops[j].name, "duplicate name %s", oi->name);
        if (oi->flags & XI_MEM)
            cr_assert_eq(oi->unit, XU_LDST, "%s: memory op outside LDST", oi->name);
        if (oi->flags & (XI_BRANCH | XI_EXIT | XI_BARRIER))
            cr_assert_eq(oi->unit, XU_CTRL, "%s: control op outside CTRL", oi->name);
    }
}

static void check_names(const char *const *names, unsigned n, int first_may_be_empty)
{
    for (unsigned i = 0; i < n; i++) {
        cr_assert(names[i], "name %u missing", i);
        if (!(i == 0 && first_may_be_empty))
            cr_assert(names[i][0], "name %u empty", i);
        for (unsigned j = 0; j < i; j++)
            cr_assert_str_neq(names[i], names[j]);
    }
}

Test(isa_table, enum_name_tables)
{
    check_names(xisa_type_names, XT_COUNT, 1);
    check_names(xisa_cmp_names, XCMP_COUNT, 0);
    check_names(xisa_space_names, XS_COUNT, 0);
    check_names(xisa_sreg_names, XSR_COUNT, 0);
    check_names(xisa_scope_names, XSCOPE_COUNT, 0);
    cr_assert_str_eq(xisa_type_names[XT_F64], "f64");
    cr_assert_str_eq(xisa_sreg_names[XSR_CLOCK64], "clock64");
}

Test(isa_table, type_properties)
{
    static const unsigned size[XT_COUNT] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    for (unsigned t = 0; t < XT_COUNT; t++) {
        cr_assert_eq(xisa_type_size((XType)t), size[t], "type %u", t);
        cr_assert_eq(xisa_type_regs((XType)t), size[t] == 8 ? 2u : 1u);
    }
    cr_assert(xisa_type_is_float(XT_F32) && xisa_type_is_float(XT_F64));
    cr_assert(!xisa_type_is_float(XT_S64));
    cr_assert(xisa_type_is_signed(XT_S8) && !xisa_type_is_signed(XT_U32));
}

/* A valid instruction of opcode op with every operand used: dst r2, sources r4 r6 r8
 * (even, so 64-bit types fit), branch to pc 0, reconverge at pc 1. */
static XInsn default_insn(unsigned op)
{
    XInsn in;
    memset(&in, 0, sizeof in);
    memset(in.dst, XREG_RZ, sizeof in.dst);
    memset(in.src, XREG_RZ, sizeof in.src);
    in.op = (uint16_t)op;
    const XOpInfo *oi = &xisa_ops[op];
    for (unsigned i = 0; i < oi->ndst; i++)
        in.dst[i] = (uint8_t)(2 + 2 * i);
    for (unsigned i = 0; i < oi->nsrc; i++)
        in.src[i] = (uint8_t)(4 + 2 * i);
    int untyped = op == XOP_nop || op == XOP_s2r || op == XOP_cvta || op == XOP_gaddr ||
                  op == XOP_bra || op == XOP_brc || op == XOP_exit || op == XOP_bar ||
                  op == XOP_membar || op == XOP_trap;
    if (!untyped)
        in.type = (oi->unit == XU_FP || oi->unit == XU_SFU) ? XT_F32 : XT_U32;
    if (op == XOP_cvt)
        in.type2 = XT_S32;
    if (op == XOP_cvta)
        in.mod = XS_SHARED;
    if (op == XOP_brc)
        in.reconv = 1;
    return in;
}

Test(isa_table, default_instruction_round_trips_through_the_assembler)
{
    static const char *const syms[] = {"sym0"};
    for (unsigned op = 0; op < XOP_COUNT; op++) {
        XInsn in = default_insn(op);
        char why[160], line[200], src[512];
        cr_assert_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s: %s", xisa_ops[op].name,
                     why);
        int n = xisa_format(&in, syms, 1, line, sizeof line);
        cr_assert_eq((size_t)n, strlen(line));
        snprintf(src, sizeof src, ".global sym0 4\n.kernel k\nL0:\n    %s\nL1:\n    exit\n", line);
        XGpubin *g;
        int rc = xasm_assemble(src, &g, why, sizeof why);
        cr_assert_eq(rc, 0, "'%s' does not assemble: %s", line, why);
        cr_assert_eq(g->ntext, 2);
        cr_assert_eq(memcmp(&g->text[0], &in, sizeof in), 0, "'%s' changed in the round trip",
                     line);
        xgpubin_free(g);
    }
}

Test(isa_table, format_examples)
{
    char buf[128];
    XInsn in = default_insn(XOP_ld);
    in.mod = XS_GLOBAL, in.type = XT_F32, in.dst[0] = 7, in.src[0] = 10, in.imm = 8;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "ld.global.f32 r7, [r10+8]");
    in = default_insn(XOP_brc);
    in.flags = XF_NEG | XF_UNIFORM, in.src[0] = 4, in.target = 9, in.reconv = 12;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "brc.not.uni r4, L9, L12");
    in = default_insn(XOP_mov);
    in.type = XT_F32, in.flags = XF_IMM, in.dst[0] = 6, in.src[0] = XREG_RZ, in.imm = 0x3FC00000;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "mov.f32 r6, 0f3FC00000");
    in = default_insn(XOP_gaddr);
    in.dst[0] = 12, in.target = 3, in.imm = 16;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "gaddr r12, @3+16");
    /* Truncation behaves like snprintf. */
    cr_assert_eq(xisa_format(&in, NULL, 0, buf, 4), (int)strlen("gaddr r12, @3+16"));
    cr_assert_str_eq(buf, "gad");
}

Test(isa_table, operand_widths)
{
    XInsn in = default_insn(XOP_set);
    in.type = XT_F64;
    cr_assert_eq(xisa_operand_regs(&in, 1, 0), 1); /* the result is a 32-bit flag */
    cr_assert_eq(xisa_operand_regs(&in, 0, 1), 2);
    cr_assert_eq(xisa_operand_regs(&in, 0, 2), 0); /* no third source */
    in = default_insn(XOP_s2r);
    in.mod = XSR_CLOCK64;
    cr_assert_eq(xisa_operand_regs(&in, 1, 0), 2);
    in = default_insn(XOP_cvt);
    in.type = XT_F64, in.type2 = XT_S32;
    cr_assert_eq(xisa_operand_regs(&in, 1, 0), 2);
    cr_assert_eq(xisa_operand_regs(&in, 0, 0), 1);
    in = default_insn(XOP_ld);
    in.type = XT_U8;
    cr_assert_eq(xisa_operand_regs(&in, 0, 0), 2); /* the address is a pair */
    in = default_insn(XOP_add);
    in.flags = XF_IMM, in.src[1] = XREG_RZ;
    cr_assert_eq(xisa_operand_regs(&in, 0, 1), 0); /* the immediate is no register */
    int f64 = 0;
    in = default_insn(XOP_fadd);
    in.type = XT_F64;
    cr_assert_eq(xisa_insn_unit(&in, &f64), XU_FP);
    cr_assert(f64);
}

/* Each mutation of a valid instruction must be rejected with a message. */
static void expect_invalid(XInsn in, uint32_t ncode, const char *what)
{
    char why[160] = "";
    cr_assert_neq(xisa_validate(&in, ncode, why, sizeof why), 0, "accepted: %s", what);
    cr_assert(why[0], "no message for %s", what);
}

Test(isa_table, validation_rejects_bad_encodings)
{
    XInsn in = default_insn(XOP_add);
    in.op = XOP_COUNT;
    expect_invalid(in, 2, "opcode out of range");
    in = default_insn(XOP_add);
    in.type = XT_U64, in.src[0] = 5;
    expect_invalid(in, 2, "odd register for a 64-bit source");
    in = default_insn(XOP_mov);
    in.type = XT_F64, in.dst[0] = 3;
    expect_invalid(in, 2, "odd register for a 64-bit destination");
    in = default_insn(XOP_ld);
    in.type = XT_U32, in.src[0] = 9;
    expect_invalid(in, 2, "odd address register");
    in = default_insn(XOP_bra);
    in.target = 2;
    expect_invalid(in, 2, "branch past the kernel");
    in = default_insn(XOP_brc);
    in.reconv = 3;
    expect_invalid(in, 2, "reconvergence past the kernel");
    in = default_insn(XOP_set);
    in.mod = XCMP_COUNT;
    expect_invalid(in, 2, "compare out of range");
    in = default_insn(XOP_add);
    in.src[3] = 1;
    expect_invalid(in, 2, "unused slot not rz");
    in = default_insn(XOP_add);
    in.pad = 1;
    expect_invalid(in, 2, "padding");
    in = default_insn(XOP_add);
    in.type = XT_F32;
    expect_invalid(in, 2, "integer add on f32");
    in = default_insn(XOP_fadd);
    in.type = XT_S32;
    expect_invalid(in, 2, "float add on s32");
    in = default_insn(XOP_add);
    in.type = XT_U8;
    expect_invalid(in, 2, "8-bit arithmetic");
    in = default_insn(XOP_add);
    in.imm = 5;
    expect_invalid(in, 2, "immediate without XF_IMM");
    in = default_insn(XOP_st);
    in.flags = XF_IMM;
    expect_invalid(in, 2, "immediate store value");
    in = default_insn(XOP_add);
    in.flags = XF_NEG;
    expect_invalid(in, 2, ".not on add");
    in = default_insn(XOP_cvta);
    in.mod = XS_GENERIC;
    expect_invalid(in, 2, "cvta to generic");
    in = default_insn(XOP_bar);
    in.imm = 16;
    expect_invalid(in, 2, "barrier 16");
    in = default_insn(XOP_exit);
    in.type = XT_U32;
    expect_invalid(in, 2, "typed exit");
}
