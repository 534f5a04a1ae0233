/*
 * 110-asm-roundtrip.c - the assembler and the disassembler agree.
 *
 * A multi-kernel listing with labels, globals with initializers, .loc lines and every
 * opcode assembles to the expected fields; its disassembly assembles to the same
 * module, compared field by field; assembler errors carry their line number.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"

static const char listing[] =
    "# test listing\n"
    ".global table 16 4 = 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
    ".global cdata 8 8 const = 0 0 128 63 0 0 0 64\n"
    ".global zbuf 1024 16\n"
    "\n"
    ".kernel vadd\n"
    ".param 8\n"
    ".param 8\n"
    ".param 4\n"
    ".shared 256\n"
    ".local 16\n"
    "    .loc \"vadd.cu\" 10\n"
    "    s2r r0, %tid.x\n"
    "    s2r r1, %ctaid.x\n"
    "    s2r r2, %ntid.x\n"
    "    mul.u32 r3, r1, r2\n"
    "    add.u32 r3, r3, r0\n"
    "    ld.param.u64 r4, [0]\n"
    "    ld.param.u32 r6, [16]\n"
    "    set.ge.u32 r7, r3, r6\n"
    "    brc r7, done, done      // skip the tail\n"
    "    .loc \"vadd.cu\" 11\n"
    "    cvt.u64.u32 r8, r3\n"
    "    shl.u64 r8, r8, 2\n"
    "    add.u64 r10, r4, r8\n"
    "    ld.global.f32 r12, [r10]\n"
    "    ld.global.f32 r13, [r10+4]\n"
    "    fadd.f32 r12, r12, r13\n"
    "    st.global.f32 [r10-4], r12\n"
    "done:\n"
    "    exit\n"
    "\n"
    ".kernel everything\n"
    ".regs 40\n"
    "    nop\n"
    "    mov.u32 r0, 7\n"
    "    mov.f32 r1, 0f3FC00000\n"
    "    mov.f64 r2, 0d3FF8000000000000\n"
    "    mov.u64 r4, r2\n"
    "    sub.s32 r6, r0, -3\n"
    "    mulhi.s32 r7, r0, r6\n"
    "    mad.u32 r7, r0, r6, 12\n"
    "    lea.u64.s32 r8, r2, r6, 3\n"
    "    lea.u64.s32 r8, c[16], r6, 2\n"
    "    ffma.f32 r7, r7, c[12], 0f3F800000\n"
    "    div.u32 r8, r0, r6\n"
    "    rem.s32 r9, r0, 0x10\n"
    "    and.u32 r10, r0, r9\n"
    "    or.u32 r11, r0, r9\n"
    "    xor.u32 r12, r0, r9\n"
    "    not.u32 r13, r12\n"
    "    shr.s32 r14, r13, 3\n"
    "    min.s32 r15, r14, r0\n"
    "    max.u64 r16, r4, r2\n"
    "    abs.s32 r18, r15\n"
    "    neg.s64 r20, r16\n"
    "    popc.u64 r19, r20\n"
    "    clz.u32 r22, r19\n"
    "    brev.u32 r23, r22\n"
    "    fsub.f32 r24, r1, 0f3F800000\n"
    "    fmul.f64 r26, r2, r2\n"
    "    ffma.f32 r28, r24, r1, r1\n"
    "    fdiv.f32 r29, r28, r24\n"
    "    frem.f64 r30, r26, r2\n"
    "    fmin.f32 r32, r29, r28\n"
    "    fmax.f32 r33, r29, r28\n"
    "    fneg.f64 r34, r30\n"
    "    fabs.f32 r36, r33\n"
    "    fsqrt.f32 r37, r36\n"
    "    set.ltu.f32 r38, r37, r36\n"
    "    sel.u32 r39, r38, r0, r38\n"
    "    cvt.s32.f64 r0, r2\n"
    "    cvta.shared r2, r4\n"
    "    cvta.to.local r4, r2\n"
    "    gaddr r6, table+4\n"
    "    ld.generic.u8 r8, [r6]\n"
    "    st.shared.s16 [r4+2], r8\n"
    "    gaddr r10, cdata\n"
    "    ld.const.u64 r12, [r10]\n"
    "    ld.local.u32 r9, [16]\n"
    "    bar 0\n"
    "    membar.gl\n"
    "    bra.uni next\n"
    "next:\n"
    "    brc.not.uni r0, skip, exit\n"
    "    trap\n"
    "skip: s2r r16, %clock64\n"
    "    exit\n"
    "\n"
    ".kernel warpops\n"
    ".shared 64\n"
    "    gaddr r2, zbuf\n"
    "    atom.global.add.s32 r1, [r2+4], r3\n"
    "    atom.generic.exch.f64 r4, [r2-8], r6\n"
    "    atom.shared.inc.u32 r8, [16], r9\n"
    "    atomcas.shared.u32 r1, [r2], r3, r4\n"
    "    atomcas.global.u64 r10, [r2], r12, r14\n"
    "    shfl.down r1, r2, r3, r4, r5, 0xffffffff\n"
    "    shfl.idx r1, rz, r3, r4, r5, r6\n"
    "    vote.ballot r1, r2, 0xffffffff\n"
    "    vote.uni r1, r2, r3\n"
    "    actmask r7\n"
    "    barred.popc r1, r2\n"
    "    barred.or r1, r2, 3\n"
    "    prmt r1, r2, r3, 0x3210\n"
    "    math1.sin.f32 r1, r2\n"
    "    math1.rsqrt.f64 r2, r4\n"
    "    math2.pow.f64 r2, r4, r6\n"
    "    math2.atan2.f32 r1, r2, 0f3F800000\n"
    "    vprintf r1, r2, r4\n"
    "    gsync\n"
    "    wsync 0xffff\n"
    "    hmma.q2.col.row.f32.f16 r8, r9, r0, r1, r2, r3, r4, rz\n"
    "    ld.global.f32.a16 r1, [r2+16]\n"
    "    st.shared.a16.u64 [r2], r4\n"
    "    exit\n"
    "\n";

static XGpubin *assemble_ok(const char *text)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(text, &g, err, sizeof err), 0, "assembly failed: %s", err);
    cr_assert(g);
    return g;
}

static char *disassemble(const XGpubin *g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    cr_assert_eq(xgpubin_disassemble(g, f), 0);
    fclose(f);
    return text;
}

static void expect_same_kernel(const XKernel *a, const XKernel *b)
{
    cr_expect_str_eq(a->name, b->name);
    cr_expect_str_eq(a->signature, b->signature);
    cr_expect_eq(a->code_start, b->code_start, "%s: code_start", a->name);
    cr_expect_eq(a->code_count, b->code_count, "%s: code_count", a->name);
    cr_expect_eq(a->nregs, b->nregs, "%s: nregs", a->name);
    cr_expect_eq(a->shared_bytes, b->shared_bytes, "%s: shared", a->name);
    cr_expect_eq(a->local_bytes, b->local_bytes, "%s: local", a->name);
    cr_expect_eq(a->param_bytes, b->param_bytes, "%s: param_bytes", a->name);
    cr_assert_eq(a->nparams, b->nparams, "%s: nparams", a->name);
    for (uint32_t j = 0; j < a->nparams; j++)
        cr_expect_eq(memcmp(&a->params[j], &b->params[j], sizeof(XParam)), 0,
                     "%s: param %u", a->name, j);
}

static void expect_same_global(const XGlobal *a, const XGlobal *b)
{
    cr_expect_str_eq(a->name, b->name);
    cr_expect_eq(a->space, b->space);
    cr_expect_eq(a->align, b->align);
    cr_assert_eq(a->size, b->size);
    cr_assert_eq(!a->init, !b->init, "%s: init presence", a->name);
    if (a->init)
        cr_expect_eq(memcmp(a->init, b->init, (size_t)a->size), 0, "%s: init", a->name);
}

static void expect_same_module(const XGpubin *a, const XGpubin *b)
{
    cr_expect_str_eq(a->producer, b->producer);
    cr_expect_str_eq(a->options, b->options);
    cr_assert_eq(a->nkernels, b->nkernels);
    for (uint32_t i = 0; i < a->nkernels; i++)
        expect_same_kernel(&a->kernels[i], &b->kernels[i]);
    cr_assert_eq(a->ntext, b->ntext);
    for (uint32_t i = 0; i < a->ntext; i++)
        cr_expect_eq(memcmp(&a->text[i], &b->text[i], sizeof(XInsn)), 0, "instruction %u", i);
    cr_assert_eq(a->nglobals, b->nglobals);
    for (uint32_t i = 0; i < a->nglobals; i++)
        expect_same_global(&a->globals[i], &b->globals[i]);
    cr_assert_eq(a->nfiles, b->nfiles);
    for (uint32_t i = 0; i < a->nfiles; i++)
        cr_expect_str_eq(a->files[i], b->files[i]);
    cr_assert_eq(a->nlines, b->nlines);
    for (uint32_t i = 0; i < a->nlines; i++)
        cr_expect_eq(memcmp(&a->lines[i], &b->lines[i], sizeof(XLine)), 0, "line %u", i);
}

Test(asm, listing_fields)
{
    XGpubin *g = assemble_ok(listing);
    cr_assert_eq(g->nkernels, 3);
    const XKernel *k = &g->kernels[0];
    cr_assert_str_eq(k->name, "vadd");
    cr_assert_eq(k->code_start, 0);
    cr_assert_eq(k->code_count, 17);
    cr_assert_eq(k->nregs, 14); /* r12:r13 are the highest, as f32 singles */
    cr_assert_eq(k->shared_bytes, 256);
    cr_assert_eq(k->local_bytes, 16);
    cr_assert_eq(k->nparams, 3);
    cr_assert_eq(k->params[1].offset, 8);
    cr_assert_eq(k->params[2].offset, 16);
    cr_assert_eq(k->params[2].align, 4);
    cr_assert_eq(k->param_bytes, 20);
    const XInsn *brc = &g->text[8];
    cr_assert_eq(brc->op, XOP_brc);
    cr_assert_eq(brc->target, 16); /* done: is kernel-relative */
    cr_assert_eq(brc->reconv, 16);
    const XInsn *st = &g->text[15];
    cr_assert_eq(st->op, XOP_st);
    cr_assert_eq(st->imm, -4);
    cr_assert_eq(st->src[0], 10);
    cr_assert_eq(st->src[1], 12);

    const XKernel *e = &g->kernels[1];
    cr_assert_str_eq(e->name, "everything");
    cr_assert_eq(e->code_start, 17);
    cr_assert_eq(e->nregs, 40);
    const XInsn *last_brc = &g->text[e->code_start + e->code_count - 4];
    cr_assert_eq(last_brc->op, XOP_brc);
    cr_assert_eq(last_brc->flags, XF_NEG | XF_UNIFORM);
    cr_assert_eq(last_brc->reconv, e->code_count, "exit means code_count");
    cr_assert_eq(g->text[e->code_start + 2].imm, 0x3FC00000);
    cr_assert_eq(g->text[e->code_start + 5].imm, -3);
    cr_assert(g->text[e->code_start + 5].flags & XF_IMM);

    const XKernel *wk = &g->kernels[2];
    const XInsn *at = &g->text[wk->code_start + 1];
    cr_assert_eq(at->op, XOP_atom);
    cr_assert_eq(at->mod, XS_GLOBAL);
    cr_assert_eq(at->sub, XATOM_ADD);
    cr_assert_eq(at->type, XT_S32);
    cr_assert_eq(at->imm, 4);
    cr_assert_eq(at->src[1], 3);
    cr_assert_eq(g->text[wk->code_start + 3].src[0], XREG_RZ, "[16] has no base register");
    const XInsn *sh = &g->text[wk->code_start + 6];
    cr_assert_eq(sh->sub, XSHFL_DOWN);
    cr_assert_eq(sh->dst[1], 2);
    cr_assert_eq(sh->src[3], XREG_RZ);
    cr_assert_eq(sh->flags, XF_IMM);
    cr_assert_eq(sh->imm, 0xffffffff);
    cr_assert_eq(g->text[wk->code_start + 7].dst[1], XREG_RZ);
    cr_assert_eq(g->text[wk->code_start + 9].sub, XVOTE_UNI, "vote.uni is a vote");
    cr_assert_eq(g->text[wk->code_start + 9].flags, 0);
    cr_assert_eq(g->text[wk->code_start + 12].sub, XRED_OR);
    cr_assert_eq(g->text[wk->code_start + 12].imm, 3);
    cr_assert_eq(g->text[wk->code_start + 16].sub, XMATH_POW);
    cr_assert_eq(g->text[wk->code_start + 16].type, XT_F64);
    const XInsn *vl = &g->text[wk->code_start + 22], *vs = vl + 1;
    cr_assert_eq(vl->op, XOP_ld);
    cr_assert_eq(vl->sub, 4, ".a16 is a required alignment of 2^4");
    cr_assert_eq(xisa_mem_align(vl), 16);
    cr_assert_eq(vs->op, XOP_st);
    cr_assert_eq(vs->type, XT_U64, "the alignment may come before the type");
    cr_assert_eq(xisa_mem_align(vs), 16);
    cr_assert_eq(xisa_mem_align(&g->text[wk->code_start + 1]), 4, "atom: its size");

    int seen[XOP_COUNT] = {0};
    for (uint32_t i = 0; i < g->ntext; i++)
        seen[g->text[i].op] = 1;
    for (int op = 0; op < XOP_COUNT; op++)
        cr_expect(seen[op], "the listing misses %s", xisa_ops[op].name);

    cr_assert_eq(g->nglobals, 3);
    cr_assert_str_eq(g->globals[1].name, "cdata");
    cr_assert_eq(g->globals[1].space, XG_CONST);
    cr_assert_eq(g->globals[1].init[2], 128);
    cr_assert_null(g->globals[2].init);
    cr_assert_eq(g->globals[2].align, 16);
    int gaddr_seen = 0;
    for (uint32_t i = 0; i < g->ntext; i++)
        if (g->text[i].op == XOP_gaddr && g->text[i].imm == 4) {
            cr_assert_eq(g->text[i].target, 0, "gaddr table+4 names global 0");
            gaddr_seen = 1;
        }
    cr_assert(gaddr_seen);

    cr_assert_eq(g->nfiles, 1);
    cr_assert_str_eq(g->files[0], "vadd.cu");
    cr_assert_eq(g->nlines, 2);
    cr_assert_eq(g->lines[1].pc, 9);
    cr_assert_eq(g->lines[1].line, 11);
    cr_assert_eq(xgpubin_line(g, 12)->line, 11);
    cr_assert_eq(xgpubin_line(g, 3)->line, 10);
    xgpubin_free(g);
}

Test(asm, disassembly_reassembles_to_the_same_module)
{
    XGpubin *g = assemble_ok(listing);
    char *text = disassemble(g);
    XGpubin *h = assemble_ok(text);
    expect_same_module(g, h);
    char *again = disassemble(h);
    cr_expect_str_eq(text, again, "disassembly is not a fixed point");
    free(text);
    free(again);
    xgpubin_free(g);
    xgpubin_free(h);
}

Test(asm, extended_directives_round_trip)
{
    static const char src[] =
        ".producer \"xgpu-cc 0.1\"\n"
        ".options \"-O2 \\\"quoted\\\"\"\n"
        ".file \"b.cu\"\n"
        ".file \"a b.cu\"\n"
        ".global g 4 4 = 0x2a\n"
        ".kernel _Z1kPii\n"
        ".signature \"k(int*, int)\"\n"
        ".param 8\n"
        ".param 4 4 12\n"
        ".parambytes 24\n"
        ".regs 10\n"
        "    .loc \"a b.cu\" 3\n"
        "    gaddr r2, g\n"
        "    .loc \"b.cu\" 0\n"
        "    ld.global.u32 r4, [r2]\n"
        "    exit\n";
    XGpubin *g = assemble_ok(src);
    cr_assert_str_eq(g->options, "-O2 \"quoted\"");
    cr_assert_eq(g->kernels[0].params[1].offset, 12);
    cr_assert_eq(g->kernels[0].param_bytes, 24);
    cr_assert_eq(g->kernels[0].nregs, 10);
    cr_assert_eq(g->lines[0].file, 1);
    cr_assert_eq(g->globals[0].init[0], 42);
    char *text = disassemble(g);
    XGpubin *h = assemble_ok(text);
    expect_same_module(g, h);
    free(text);
    xgpubin_free(g);
    xgpubin_free(h);
}

/* Each bad source must fail with "LINE: ..." naming the right line. */
static void expect_error(const char *src, int line, const char *fragment)
{
    XGpubin *g = NULL;
    char err[256] = "", prefix[16];
    cr_assert_neq(xasm_assemble(src, &g, err, sizeof err), 0, "accepted: %s", src);
    cr_assert_null(g);
    snprintf(prefix, sizeof prefix, "%d: ", line);
    cr_expect_eq(strncmp(err, prefix, strlen(prefix)), 0, "'%s' should start with '%s'", err,
                 prefix);
    cr_expect(strstr(err, fragment), "'%s' should mention '%s'", err, fragment);
}

Test(asm, errors_carry_the_line_number)
{
    expect_error(".kernel k\n\n  add.u32 r1, r2\n  exit\n", 3, "operands");
    expect_error(".kernel k\n  frob r1\n", 2, "unknown instruction");
    expect_error(".kernel k\n  exit\n  bra nowhere\n", 3, "undefined label");
    expect_error(".kernel k\n  mov.u64 r3, r4\n  exit\n", 2, "even");
    expect_error("  exit\n", 1, "outside");
    expect_error(".kernel k\n.regs 2\n  mov.u32 r5, 1\n  exit\n", 2, ".regs");
    expect_error(".kernel k\n  add.u32 r1, 5, r2\n", 2, "immediate");
    expect_error(".kernel k\n  ld.global.u32 r1, r2\n", 2, "memory operand");
    expect_error(".kernel k\n  s2r r1, %bogus\n", 2, "special register");
    expect_error(".kernel k\n  gaddr r2, nosuch\n  exit\n", 2, "undefined symbol");
    expect_error(".global g 2 = 1 2 3\n", 1, "too many");
    expect_error(".kernel k\n  add.q32 r1, r2, r3\n", 2, "suffix");
    expect_error(".kernel k\nx:\nx:\n  exit\n", 3, "twice");
    expect_error(".kernel k\n  r300\n", 2, "unknown instruction");
    expect_error(".kernel k\n  mov.u32 r300, 1\n", 2, "register");
    expect_error(".kernel a\n.kernel b\n  exit\n", 1, "no instructions");
    expect_error(".bogus 1\n", 1, "directive");
    expect_error(".kernel k\n  atom.global.s32 r1, [r2], r3\n", 2, "operation suffix");
    expect_error(".kernel k\n  math1.pow.f32 r1, r2\n", 2, "suffix");
    expect_error(".kernel k\n  atom.global.add.s32 r1, r2, r3\n", 2, "memory operand");
    expect_error(".kernel k\n  barred.popc r1\n", 2, "operands");
    expect_error(".kernel k\n  barred.popc r1, r2, 16\n  exit\n", 2, "barrier");
    expect_error(".kernel k\n  atom.local.add.u32 r1, [r2], r3\n  exit\n", 2, "shared");
    expect_error(".kernel k\n  ld.global.u64.a8 r2, [r4]\n  exit\n", 2, "not larger");
    expect_error(".kernel k\n  ld.global.u32.a32 r2, [r4]\n  exit\n", 2, "at most 16");
    expect_error(".kernel k\n  ld.global.u32.a12 r2, [r4]\n  exit\n", 2, "suffix");
    expect_error(".kernel k\n  add.u32.a16 r1, r2, r3\n  exit\n", 2, "suffix");
}
