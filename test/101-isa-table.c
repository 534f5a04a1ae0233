/*
 * 101-isa-table.c - walks the ISA table and the per-opcode rules.
 *
 * Every opcode has a name, a unit, operand counts within the encoding and a
 * description; names are unique; a default instruction of every opcode validates,
 * formats, and assembles back to the same encoding, and so does every alignment an ld
 * or st can require. Validation rejects the classic encoding mistakes (odd register for
 * a 64-bit operand, bad ranges, stray fields, an alignment not above the access size).
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
    check_names(xisa_atom_names, XATOM_COUNT, 0);
    check_names(xisa_shfl_names, XSHFL_COUNT, 0);
    check_names(xisa_vote_names, XVOTE_COUNT, 0);
    check_names(xisa_red_names, XRED_COUNT, 0);
    check_names(xisa_math_names, XMATH_COUNT, 0);
    cr_assert_str_eq(xisa_atom_names[XATOM_EXCH], "exch");
    cr_assert_str_eq(xisa_shfl_names[XSHFL_BFLY], "bfly");
    cr_assert_str_eq(xisa_vote_names[XVOTE_UNI], "uni");
    cr_assert_str_eq(xisa_red_names[XRED_OR], "or");
    cr_assert_str_eq(xisa_math_names[XMATH_SIN], "sin");
    cr_assert_str_eq(xisa_math_names[XMATH_RINT], "rint");
    cr_assert_str_eq(xisa_math_names[XMATH_POW], "pow");
    cr_assert_str_eq(xisa_math_names[XMATH_NEXTAFTER], "nextafter");
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
                  op == XOP_gsync || op == XOP_wsync ||
                  op == XOP_membar || op == XOP_trap || op == XOP_shfl || op == XOP_vote ||
                  op == XOP_actmask || op == XOP_barred || op == XOP_prmt ||
                  op == XOP_vprintf || op == XOP_hmma;
    if (!untyped)
        in.type = (oi->unit == XU_FP || oi->unit == XU_SFU) ? XT_F32 : XT_U32;
    if (op == XOP_math2)
        in.sub = XMATH_FIRST_BINARY;
    if (op == XOP_cvt)
        in.type2 = XT_S32;
    if (op == XOP_lea) /* a 64-bit base plus a sign-extended index times 4 */
        in.type = XT_U64, in.type2 = XT_S32, in.imm = 2;
    if (op == XOP_cvta)
        in.mod = XS_SHARED;
    if (op == XOP_hmma) /* f32 C and D: every operand slot is a register */
        in.mod = XHMMA_D32 | XHMMA_C32;
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
    in.mod = XS_TEX;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "ld.tex.f32 r7, [r10+8]");
    in.mod = XS_GLOBAL, in.sub = 4; /* the first part of a 16-byte vector load */
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "ld.global.f32.a16 r7, [r10+8]");
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
    in = default_insn(XOP_atom);
    in.mod = XS_GLOBAL, in.sub = XATOM_ADD, in.type = XT_S32, in.dst[0] = 1, in.src[0] = 2;
    in.imm = 4, in.src[1] = 3;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "atom.global.add.s32 r1, [r2+4], r3");
    in = default_insn(XOP_atomcas);
    in.mod = XS_SHARED, in.dst[0] = 1, in.src[0] = 2, in.src[1] = 3, in.src[2] = 4;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "atomcas.shared.u32 r1, [r2], r3, r4");
    in = default_insn(XOP_shfl);
    in.sub = XSHFL_DOWN, in.dst[0] = 1, in.dst[1] = 2, in.src[0] = 3, in.src[1] = 4;
    in.src[2] = 5, in.src[3] = XREG_RZ, in.flags = XF_IMM, in.imm = 0xffffffff;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "shfl.down r1, r2, r3, r4, r5, 0xffffffff");
    in = default_insn(XOP_vote);
    in.sub = XVOTE_UNI, in.dst[0] = 1, in.src[0] = 2, in.src[1] = XREG_RZ, in.flags = XF_IMM;
    in.imm = 0xff;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "vote.uni r1, r2, 0xff");
    in = default_insn(XOP_barred);
    in.sub = XRED_POPC, in.dst[0] = 1, in.src[0] = 2;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "barred.popc r1, r2");
    in.imm = 3, in.sub = XRED_AND;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "barred.and r1, r2, 3");
    in = default_insn(XOP_math2);
    in.sub = XMATH_POW, in.type = XT_F64;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "math2.pow.f64 r2, r4, r6");
    in = default_insn(XOP_math1);
    in.sub = XMATH_SIN, in.dst[0] = 1, in.src[0] = 2;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "math1.sin.f32 r1, r2");
    in = default_insn(XOP_vprintf);
    in.dst[0] = 1;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "vprintf r1, r4, r6");
    in = default_insn(XOP_actmask);
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "actmask r2");
    in = default_insn(XOP_prmt);
    in.src[2] = XREG_RZ, in.flags = XF_IMM, in.imm = 0x3210;
    xisa_format(&in, NULL, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "prmt r2, r4, r6, 0x3210");
    in = default_insn(XOP_gaddr);
    in.dst[0] = 12, in.target = 3, in.imm = 16;
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
    in = default_insn(XOP_atom);
    in.type = XT_F64;
    cr_assert_eq(xisa_operand_regs(&in, 1, 0), 2);
    cr_assert_eq(xisa_operand_regs(&in, 0, 0), 2); /* address */
    cr_assert_eq(xisa_operand_regs(&in, 0, 1), 2);
    in.type = XT_U32;
    cr_assert_eq(xisa_operand_regs(&in, 0, 0), 2);
    cr_assert_eq(xisa_operand_regs(&in, 0, 1), 1);
    in = default_insn(XOP_atomcas);
    in.type = XT_S64;
    cr_assert_eq(xisa_operand_regs(&in, 0, 2), 2);
    in = default_insn(XOP_shfl);
    for (unsigned i = 0; i < 4; i++)
        cr_assert_eq(xisa_operand_regs(&in, 0, i), 1);
    cr_assert_eq(xisa_operand_regs(&in, 1, 1), 1);
    in = default_insn(XOP_vprintf);
    cr_assert_eq(xisa_operand_regs(&in, 1, 0), 1);
    cr_assert_eq(xisa_operand_regs(&in, 0, 0), 2);
    cr_assert_eq(xisa_operand_regs(&in, 0, 1), 2);
    in = default_insn(XOP_math1);
    in.type = XT_F64;
    cr_assert_eq(xisa_operand_regs(&in, 1, 0), 2);
    cr_assert_eq(xisa_operand_regs(&in, 0, 0), 2);
}

Test(isa_table, sub_operations_round_trip)
{
    /* every sub-operation of every opcode that has one, through text and back */
    static const struct { unsigned op, lo, hi; uint8_t type; } rows[] = {
        {XOP_atom, 0, XATOM_COUNT, XT_U32},   {XOP_shfl, 0, XSHFL_COUNT, XT_NONE},
        {XOP_vote, 0, XVOTE_COUNT, XT_NONE},  {XOP_barred, 0, XRED_COUNT, XT_NONE},
        {XOP_math1, 0, XMATH_FIRST_BINARY, XT_F64},
        {XOP_math2, XMATH_FIRST_BINARY, XMATH_COUNT, XT_F32},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (unsigned sub = rows[r].lo; sub < rows[r].hi; sub++) {
            XInsn in = default_insn(rows[r].op);
            in.sub = (uint8_t)sub, in.type = rows[r].type;
            char why[160], line[200], src[512];
            cr_assert_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s sub %u: %s",
                         xisa_ops[in.op].name, sub, why);
            xisa_format(&in, NULL, 0, line, sizeof line);
            snprintf(src, sizeof src, ".kernel k\n    %s\n    exit\n", line);
            XGpubin *g;
            cr_assert_eq(xasm_assemble(src, &g, why, sizeof why), 0, "'%s': %s", line, why);
            cr_assert_eq(memcmp(&g->text[0], &in, sizeof in), 0, "'%s' changed", line);
            xgpubin_free(g);
        }
}

Test(isa_table, memory_alignments_round_trip)
{
    /* every alignment ld and st can require, on every access size it exceeds */
    static const uint8_t types[] = {XT_U8, XT_S16, XT_F32, XT_U64};
    static const unsigned ops[] = {XOP_ld, XOP_st};
    for (size_t o = 0; o < 2; o++)
        for (size_t t = 0; t < sizeof types; t++)
            for (unsigned sub = 1; sub <= 4; sub++) {
                const unsigned op = ops[o];
                XInsn in = default_insn(op);
                in.type = types[t], in.sub = (uint8_t)sub;
                char why[160], line[200], src[512];
                int rc = xisa_validate(&in, 2, why, sizeof why);
                if ((1u << sub) <= xisa_type_size((XType)in.type)) {
                    cr_expect_neq(rc, 0, "%s.%s: alignment %u accepted",
                                  xisa_ops[op].name, xisa_type_names[in.type], 1u << sub);
                    continue;
                }
                cr_assert_eq(rc, 0, "%s sub %u: %s", xisa_ops[op].name, sub, why);
                cr_assert_eq(xisa_mem_align(&in), 1u << sub);
                xisa_format(&in, NULL, 0, line, sizeof line);
                char want[16];
                snprintf(want, sizeof want, ".a%u ", 1u << sub);
                cr_assert(strstr(line, want), "'%s' does not show %s", line, want);
                snprintf(src, sizeof src, ".kernel k\n    %s\n    exit\n", line);
                XGpubin *g;
                cr_assert_eq(xasm_assemble(src, &g, why, sizeof why), 0, "'%s': %s", line, why);
                cr_assert_eq(memcmp(&g->text[0], &in, sizeof in), 0, "'%s' changed", line);
                xgpubin_free(g);
            }
    XInsn in = default_insn(XOP_ld);
    in.type = XT_U64;
    cr_assert_eq(xisa_mem_align(&in), 8, "without sub: the access size");
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
    in.csrc = 1;
    expect_invalid(in, 2, "a constant-operand slot without XF_CONST");
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
    in = default_insn(XOP_add);
    in.sub = 1;
    expect_invalid(in, 2, "sub-operation on add");
    in = default_insn(XOP_ld);
    in.sub = 5;
    expect_invalid(in, 2, "ld alignment 32");
    in = default_insn(XOP_st);
    in.type = XT_U64, in.sub = 3, in.src[1] = 2;
    expect_invalid(in, 2, "st.u64 alignment 8 (not above its size)");
    in = default_insn(XOP_st);
    in.sub = 200;
    expect_invalid(in, 2, "st alignment sub 200");
    in = default_insn(XOP_atom);
    in.sub = XATOM_COUNT;
    expect_invalid(in, 2, "atom sub out of range");
    in = default_insn(XOP_atom);
    in.sub = XATOM_AND, in.type = XT_F32;
    expect_invalid(in, 2, "atom.and on f32");
    in = default_insn(XOP_atom);
    in.sub = XATOM_INC, in.type = XT_S32;
    expect_invalid(in, 2, "atom.inc on s32");
    in = default_insn(XOP_atom);
    in.type = XT_U16;
    expect_invalid(in, 2, "16-bit atomic");
    in = default_insn(XOP_atom);
    in.mod = XS_LOCAL;
    expect_invalid(in, 2, "local atomic");
    in = default_insn(XOP_atom);
    in.mod = XS_CONST;
    expect_invalid(in, 2, "const atomic");
    for (unsigned op = 0; op < XOP_COUNT; op++) { /* the tex space only on ld */
        in = default_insn(op);
        char why[160] = "";
        if (!(xisa_ops[op].flags & XI_MEM) && op != XOP_cvta)
            continue;
        cr_assert_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s: %s", xisa_ops[op].name, why);
        in.mod = XS_TEX;
        int rc = xisa_validate(&in, 2, why, sizeof why);
        if (op == XOP_ld)
            cr_expect_eq(rc, 0, "ld.tex refused: %s", why);
        else
            cr_expect(rc != 0 && strstr(why, "tex"), "%s.tex: %s", xisa_ops[op].name, why);
    }
    in = default_insn(XOP_atom);
    in.src[0] = 3;
    expect_invalid(in, 2, "odd atomic address");
    in = default_insn(XOP_atom);
    in.type = XT_U64, in.src[1] = 5;
    expect_invalid(in, 2, "odd 64-bit atomic operand");
    in = default_insn(XOP_atom);
    in.flags = XF_IMM, in.src[1] = XREG_RZ;
    expect_invalid(in, 2, "immediate atomic operand");
    in = default_insn(XOP_atomcas);
    in.sub = 1;
    expect_invalid(in, 2, "atomcas with a sub-operation");
    in = default_insn(XOP_shfl);
    in.sub = XSHFL_COUNT;
    expect_invalid(in, 2, "shfl mode out of range");
    in = default_insn(XOP_shfl);
    in.type = XT_U64;
    expect_invalid(in, 2, "64-bit shfl");
    in = default_insn(XOP_vote);
    in.sub = XVOTE_COUNT;
    expect_invalid(in, 2, "vote out of range");
    in = default_insn(XOP_barred);
    in.sub = XRED_COUNT;
    expect_invalid(in, 2, "barred out of range");
    in = default_insn(XOP_barred);
    in.imm = 16;
    expect_invalid(in, 2, "barred barrier 16");
    in = default_insn(XOP_barred);
    in.flags = XF_IMM, in.src[0] = XREG_RZ;
    expect_invalid(in, 2, "barred with an immediate predicate");
    in = default_insn(XOP_math1);
    in.sub = XMATH_POW;
    expect_invalid(in, 2, "binary function on math1");
    in = default_insn(XOP_math2);
    in.sub = XMATH_SIN;
    expect_invalid(in, 2, "unary function on math2");
    in = default_insn(XOP_math1);
    in.type = XT_S32;
    expect_invalid(in, 2, "integer math1");
    in = default_insn(XOP_math1);
    in.type = XT_F64, in.src[0] = 5;
    expect_invalid(in, 2, "odd f64 math operand");
    in = default_insn(XOP_vprintf);
    in.src[0] = 5;
    expect_invalid(in, 2, "odd format address");
    in = default_insn(XOP_prmt);
    in.type = XT_U64;
    expect_invalid(in, 2, "64-bit prmt");
    in = default_insn(XOP_actmask);
    in.src[0] = 4;
    expect_invalid(in, 2, "actmask with a source");
}

/* lea: integer types, an index no wider than the result, a shift below its width, and
 * the immediate is the shift (never XF_IMM). */
Test(isa_table, lea_rules)
{
    char why[160];
    XInsn in = default_insn(XOP_lea);
    cr_assert_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s", why);
    in.imm = 64;
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0);
    cr_expect(strstr(why, "shift 64 out of range 0..63") != NULL, "%s", why);
    in = default_insn(XOP_lea);
    in.type = XT_U32, in.type2 = XT_U64, in.dst[0] = 3, in.src[0] = 5;
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0, "a 64-bit index into 32 bits");
    in = default_insn(XOP_lea);
    in.type2 = XT_F32;
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0, "a float index");
    in = default_insn(XOP_lea);
    in.type2 = XT_NONE;
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0, "no index type");
    in = default_insn(XOP_lea);
    in.flags = XF_IMM;
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0, "XF_IMM");
    in = default_insn(XOP_lea);
    in.src[1] = 5; /* a 32-bit index may be odd; the 64-bit base may not */
    cr_expect_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s", why);
    in.src[0] = 5;
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0);
}

/* A constant-bank operand (XF_CONST): one register slot of an XI_CONST opcode reads the
 * parameter words at target, aligned to the slot's width; it prints as c[offset] and is
 * not a register operand. */
static XInsn const_insn(unsigned op, unsigned slot, uint32_t off)
{
    XInsn in = default_insn(op);
    in.flags |= XF_CONST;
    in.csrc = (uint8_t)slot;
    in.src[slot] = XREG_RZ;
    in.target = off;
    return in;
}

static void expect_const_invalid(XInsn in, const char *what, const char *msg)
{
    char why[160] = "";
    cr_expect_neq(xisa_validate(&in, 2, why, sizeof why), 0, "accepted: %s", what);
    cr_expect(strstr(why, msg) != NULL, "%s: got '%s'", what, why);
}

Test(isa_table, const_operands)
{
    char why[160], text[160];
    XInsn in = const_insn(XOP_lea, 0, 8); /* IMAD.WIDE's base from c[0x0][...] */
    cr_assert_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s", why);
    cr_expect_eq(xisa_operand_regs(&in, 0, 0), 0, "the constant slot is not a register");
    cr_expect_eq(xisa_const_regs(&in), 2, "a 64-bit base");
    xisa_format(&in, NULL, 0, text, sizeof text);
    cr_expect_str_eq(text, "lea.u64.s32 r2, c[8], r6, 2");
    in = const_insn(XOP_ffma, 1, 4);
    cr_assert_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s", why);
    cr_expect_eq(xisa_const_regs(&in), 1);
    in.flags |= XF_IMM, in.src[2] = XREG_RZ, in.imm = 0x3f800000; /* c[] and an immediate */
    cr_expect_eq(xisa_validate(&in, 2, why, sizeof why), 0, "%s", why);
    xisa_format(&in, NULL, 0, text, sizeof text);
    cr_expect_str_eq(text, "ffma.f32 r2, r4, c[4], 0f3F800000");
    in = default_insn(XOP_add);
    cr_expect_eq(xisa_const_regs(&in), 0, "no XF_CONST: none");

    expect_const_invalid(const_insn(XOP_ld, 0, 0), "on a load", "cannot take a constant");
    expect_const_invalid(const_insn(XOP_st, 1, 0), "on a store", "cannot take a constant");
    in = const_insn(XOP_add, 0, 0);
    in.csrc = 2;
    expect_const_invalid(in, "past the sources", "not a register source");
    in = const_insn(XOP_add, 1, 0);
    in.flags |= XF_IMM;
    expect_const_invalid(in, "on the immediate's slot", "not a register source");
    in = const_insn(XOP_add, 1, 0);
    in.src[1] = 7;
    expect_const_invalid(in, "a register in its slot", "not rz");
    expect_const_invalid(const_insn(XOP_lea, 0, 4), "a 64-bit word at 4", "not a multiple of 8");
    expect_const_invalid(const_insn(XOP_add, 0, 2), "a word at 2", "not a multiple of 4");
    expect_const_invalid(const_insn(XOP_add, 0, XISA_CONST_MAX), "past the bank",
                         "not a multiple of 4 in 0..32760");
    in = const_insn(XOP_add, 0, XISA_CONST_MAX - 4);
    cr_expect_eq(xisa_validate(&in, 2, why, sizeof why), 0, "the bank's last word: %s", why);
}
