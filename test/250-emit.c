/*
 * 250-emit.c - mir_emit and mir_module_gpubin: block layout, pcs, reconvergence pcs,
 * removal of branches to the next instruction, inverted and added branches, and the
 * line table. Kernels go through the whole backend pipeline and the emitted code is run
 * by the one-lane interpreter (220-mirsim.h).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("250-emit");
    f = mir_func_new(m, "k");
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(emit, .init = setup, .fini = teardown);

static void blocks(int n)
{
    for (int i = 0; i < n; i++)
        mir_block_new(f);
}

static void backend(MFunc *fn)
{
    MRegallocOptions o = {.max_regs = 64};
    cr_assert_eq(t_front(fn), 0);
    cr_assert_eq(mir_regalloc(fn, &o), 0);
    cr_assert_eq(mir_emit(fn), 0);
}

static uint32_t run(uint32_t param0, uint32_t at)
{
    static MSim s;
    sim_init(&s, f, 1);
    memcpy(s.param, &param0, 4);
    cr_assert_eq(sim_run_code(&s), 0);
    return sim_u32(&s, at);
}

static int count_op(XOp op)
{
    int n = 0;
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        n += f->code[pc].op == op;
    return n;
}

static uint32_t find_op(XOp op, uint32_t from)
{
    for (uint32_t pc = from; pc < f->ncode; pc++)
        if (f->code[pc].op == op)
            return pc;
    cr_assert_fail("no %s after pc %u", xisa_ops[op].name, from);
    return 0;
}

static void no_branch_to_next(void)
{
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        if (f->code[pc].op == XOP_bra)
            cr_assert_neq(f->code[pc].target, pc + 1, "bra at pc %u to the next pc", pc);
}

/* if (p) x = 7; else x = 5; out = x */
Test(emit, diamond_pcs_reconvergence_and_bra_removal)
{
    blocks(4);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    MReg x1 = t_imm(f, 1, 7, 0);
    t_bra(f, 1, 3);
    MReg x2 = t_imm(f, 2, 5, 0);
    t_bra(f, 2, 3);
    MReg x = mir_vreg_new(f, 0);
    t_phi2(f, 3, x, 1, x1, 2, x2);
    t_st(f, 3, 0, x);
    t_exit(f, 3);
    backend(f);
    uint32_t br = find_op(XOP_brc, 0), st = find_op(XOP_st, 0);
    cr_assert_eq(br, 1);
    cr_assert_eq(f->code[br].reconv, st, "reconverge at the join");
    cr_assert(f->code[br].flags & XF_UNIFORM);
    cr_assert_eq(count_op(XOP_bra), 1, "one of the two jumps to the join falls through");
    uint32_t bra = find_op(XOP_bra, 0);
    cr_assert_eq(f->code[bra].target, st);
    cr_assert_eq(f->code[br].target, bra + 1, "the taken side follows the else side");
    cr_assert_eq(f->code[st + 1].op, XOP_exit);
    cr_assert_eq(f->ncode, st + 2);
    no_branch_to_next();
    cr_assert_eq(run(1, 0), 7);
    cr_assert_eq(run(0, 0), 5);
}

/* The branch's target is placed right after it, so the condition is inverted. */
Test(emit, brc_inverted_when_target_is_next)
{
    blocks(3);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    t_st(f, 1, 0, t_imm(f, 1, 9, 0));
    t_bra(f, 1, 2);
    t_exit(f, 2);
    backend(f);
    uint32_t br = find_op(XOP_brc, 0), ex = find_op(XOP_exit, 0);
    cr_assert(f->code[br].flags & XF_NEG);
    cr_assert_eq(f->code[br].target, ex);
    cr_assert_eq(f->code[br].reconv, ex);
    cr_assert_eq(count_op(XOP_bra), 0);
    cr_assert_eq(run(1, 0), 9);
    cr_assert_eq(run(0, 0), 0);
}

/* b0: brc -> b1 | b4;  b1: brc -> b3 | b2;  b2: brc -> b0 | b1;  b3, b4: exit.
 * Layout b0 b4 b1 b2 b3: b2's successors are both elsewhere, so a bra follows it. */
Test(emit, bra_added_when_no_successor_follows)
{
    blocks(5);
    MReg c0 = t_ld(f, 0, XS_PARAM, 0, 0), c1 = t_ld(f, 0, XS_PARAM, 4, 0);
    MReg c2 = t_ld(f, 0, XS_PARAM, 8, 0);
    t_brc(f, 0, c0, 1, 4);
    t_brc(f, 1, c1, 3, 2);
    t_brc(f, 2, c2, 0, 1);
    t_exit(f, 3);
    t_exit(f, 4);
    backend(f);
    cr_assert_eq(f->ncode, 9);
    cr_assert_eq(f->code[3].op, XOP_brc);
    cr_assert_eq(f->code[3].target, 5);
    cr_assert_eq(f->code[3].reconv, 9, "paths only meet at exit");
    cr_assert_eq(f->code[4].op, XOP_exit);
    cr_assert_eq(f->code[5].op, XOP_brc);
    cr_assert_eq(f->code[5].target, 8);
    cr_assert_eq(f->code[6].op, XOP_brc);
    cr_assert_eq(f->code[6].target, 0);
    cr_assert_eq(f->code[7].op, XOP_bra, "the added jump to the else block");
    cr_assert_eq(f->code[7].target, 5);
    cr_assert_eq(f->code[8].op, XOP_exit);
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        cr_assert_eq(f->code_loc[pc], 0);
}

/* sum = 0; for (i = 0; i < n; i++) sum += i; */
Test(emit, loop_runs_and_reconverges_at_exit)
{
    blocks(3);
    MReg n = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg s0 = t_imm(f, 0, 0, 0), i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg s = mir_vreg_new(f, 0), i = mir_vreg_new(f, 0);
    MReg s1 = t_op(f, 1, XOP_add, s, i);
    MReg i1 = t_opi(f, 1, XOP_add, i, 1);
    MReg more = t_set(f, 1, XCMP_LT, i1, n);
    t_brc(f, 1, more, 1, 2);
    t_phi2(f, 1, s, 0, s0, 1, s1);
    t_phi2(f, 1, i, 0, i0, 1, i1);
    t_st(f, 2, 0, s1);
    t_exit(f, 2);
    backend(f);
    uint32_t br = find_op(XOP_brc, 0), st = find_op(XOP_st, 0);
    cr_assert_eq(f->code[br].reconv, st);
    uint32_t bra = find_op(XOP_bra, 0);
    cr_assert_eq(f->code[bra].target, find_op(XOP_add, 0), "back to the loop head");
    cr_assert_eq(count_op(XOP_bra), 1);
    no_branch_to_next();
    cr_assert_eq(run(10, 0), 45);
    cr_assert_eq(run(1, 0), 0);
}

/* if (p) {} else out[1] = 1; out[0] = 2;  -- the empty side's jump is threaded */
Test(emit, jump_to_a_jump_is_threaded)
{
    blocks(4);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    t_bra(f, 1, 3);
    t_st(f, 2, 4, t_imm(f, 2, 1, 0));
    t_bra(f, 2, 3);
    t_st(f, 3, 0, t_imm(f, 3, 2, 0));
    t_exit(f, 3);
    backend(f);
    uint32_t br = find_op(XOP_brc, 0), ex = find_op(XOP_exit, 0);
    cr_assert_eq(f->code[br].target, ex - 2, "straight to the join");
    cr_assert_eq(f->code[br].reconv, ex - 2);
    cr_assert_eq(count_op(XOP_bra), 0, "the empty block is gone, the other side falls through");
    cr_assert_eq(f->ncode, 7);
    cr_assert_eq(run(1, 0), 2);
    cr_assert_eq(run(1, 4), 0);
    cr_assert_eq(run(0, 4), 1);
}

static void line_kernel_a(uint32_t file)
{
    blocks(1);
    uint32_t l10 = mir_loc(f, file, 10, 0);
    MReg p = t_ld(f, 0, XS_PARAM, 0, 0);
    f->blocks[0].ins[0].loc = l10;
    MReg q = t_opi(f, 0, XOP_add, p, 1);
    f->blocks[0].ins[1].loc = l10;
    t_st(f, 0, 0, q);
    f->blocks[0].ins[2].loc = mir_loc(f, file, 11, 0);
    t_exit(f, 0);
    f->blocks[0].ins[3].loc = mir_loc(f, file, 12, 0);
    f->local_bytes = 16;
    f->param_bytes = 4;
}

Test(emit, gpubin_kernels_text_and_lines)
{
    uint32_t fa = mir_file(m, "a.cu"), fb = mir_file(m, "b.cuh");
    line_kernel_a(fa);
    backend(f);
    MFunc *g = f;
    f = mir_func_new(m, "k2");
    blocks(1);
    MReg p = t_ld(f, 0, XS_PARAM, 0, 0);
    f->blocks[0].ins[0].loc = mir_loc(f, fb, 5, 0);
    t_st(f, 0, 0, p);
    t_exit(f, 0);
    f->blocks[0].ins[2].loc = mir_loc(f, fb, 6, 0);
    f->shared_bytes = 128;
    backend(f);
    XGpubin bin;
    cr_assert_eq(mir_module_gpubin(m, &bin), 0);
    cr_assert_eq(bin.nkernels, 2);
    cr_assert_str_eq(bin.kernels[0].name, "k");
    cr_assert_eq(bin.kernels[0].code_start, 0);
    cr_assert_eq(bin.kernels[0].code_count, 4);
    cr_assert_eq(bin.kernels[0].nregs, g->nregs);
    cr_assert_eq(bin.kernels[0].local_bytes, 16);
    cr_assert_eq(bin.kernels[0].param_bytes, 4);
    cr_assert_str_eq(bin.kernels[1].name, "k2");
    cr_assert_eq(bin.kernels[1].code_start, 4);
    cr_assert_eq(bin.kernels[1].code_count, 3);
    cr_assert_eq(bin.kernels[1].shared_bytes, 128);
    cr_assert_eq(bin.ntext, 7);
    cr_assert_arr_eq(bin.text, g->code, 4 * sizeof(XInsn));
    cr_assert_arr_eq(bin.text + 4, f->code, 3 * sizeof(XInsn));
    cr_assert_eq(bin.nfiles, 2);
    cr_assert_str_eq(bin.files[1], "b.cuh");
    static const XLine want[] = {
        {0, 0, 10}, {2, 0, 11}, {3, 0, 12}, {4, 1, 5}, {5, 1, 0}, {6, 1, 6},
    };
    cr_assert_eq(bin.nlines, 6);
    for (unsigned i = 0; i < 6; i++) {
        cr_assert_eq(bin.lines[i].pc, want[i].pc, "record %u", i);
        cr_assert_eq(bin.lines[i].file, want[i].file, "record %u", i);
        cr_assert_eq(bin.lines[i].line, want[i].line, "record %u", i);
    }
    free(bin.kernels);
    free(bin.text);
    free(bin.globals);
    free(bin.files);
    free(bin.lines);
}
