/*
 * 225-outssa.c - mir_outssa: phis become correctly sequenced copies.
 *
 * Each kernel is run by the one-lane MIR interpreter (220-mirsim.h) twice: in SSA form,
 * where entering a block assigns its phis in parallel, and after mir_outssa, where only
 * the copies remain. The stored results must agree, and match the values worked out by
 * hand. Covers the swap problem (phis exchanging or rotating values around a loop), the
 * lost-copy problem (a phi's old value used after the loop), and critical-edge splitting.
 */
#include <criterion/criterion.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("225-outssa");
    f = mir_func_new(m, "k");
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(outssa, .init = setup, .fini = teardown);

/* Runs f in SSA form, lowers it, runs it again; both runs must store the same nbytes. */
static void run_both(uint32_t nbytes, MSim *after)
{
    static MSim before;
    cr_assert_eq(mir_cfg(f), 0);
    sim_init(&before, f, 0);
    cr_assert_eq(sim_run_blocks(&before), 0);
    cr_assert_eq(mir_outssa(f), 0);
    cr_assert_eq(mir_cfg(f), 0);
    for (uint32_t b = 0; b < f->nblocks; b++)
        cr_assert_eq(f->blocks[b].nphis, 0);
    sim_init(after, f, 0);
    cr_assert_eq(sim_run_blocks(after), 0);
    cr_assert_arr_eq(before.global, after->global, nbytes);
}

/* Loop n times; the phis of the header exchange a and b every iteration. */
static void build_swap(int64_t n, int wide)
{
    for (int i = 0; i < 3; i++)
        mir_block_new(f);
    MReg a0 = t_imm(f, 0, 11, wide), b0 = t_imm(f, 0, 22, wide), i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg a = mir_vreg_new(f, wide), b = mir_vreg_new(f, wide), i = mir_vreg_new(f, 0);
    MReg i1 = t_opi(f, 1, XOP_add, i, 1);
    MReg c = t_seti(f, 1, XCMP_LT, i1, n);
    t_brc(f, 1, c, 1, 2);
    t_phi2(f, 1, a, 0, a0, 1, b);
    t_phi2(f, 1, b, 0, b0, 1, a);
    t_phi2(f, 1, i, 0, i0, 1, i1);
    t_st(f, 2, 0, a);
    t_st(f, 2, 8, b);
    t_exit(f, 2);
}

Test(outssa, swap_even_iterations)
{
    MSim s;
    build_swap(4, 0);
    run_both(16, &s);
    /* header runs 4 times; the swap happens on the 3 back edges */
    cr_assert_eq(sim_u32(&s, 0), 22);
    cr_assert_eq(sim_u32(&s, 8), 11);
}

Test(outssa, swap_odd_iterations_wide)
{
    MSim s;
    build_swap(3, 1);
    run_both(16, &s);
    cr_assert_eq(sim_u64(&s, 0), 11);
    cr_assert_eq(sim_u64(&s, 8), 22);
}

Test(outssa, rotation_of_three_uses_one_temporary)
{
    for (int i = 0; i < 3; i++)
        mir_block_new(f);
    MReg x0 = t_imm(f, 0, 1, 0), y0 = t_imm(f, 0, 2, 0), z0 = t_imm(f, 0, 3, 0);
    MReg i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg x = mir_vreg_new(f, 0), y = mir_vreg_new(f, 0), z = mir_vreg_new(f, 0);
    MReg i = mir_vreg_new(f, 0);
    MReg i1 = t_opi(f, 1, XOP_add, i, 1);
    MReg c = t_seti(f, 1, XCMP_LT, i1, 2);
    t_brc(f, 1, c, 1, 2);
    t_phi2(f, 1, x, 0, x0, 1, y); /* (x, y, z) = (y, z, x) */
    t_phi2(f, 1, y, 0, y0, 1, z);
    t_phi2(f, 1, z, 0, z0, 1, x);
    t_phi2(f, 1, i, 0, i0, 1, i1);
    t_st(f, 2, 0, x);
    t_st(f, 2, 4, y);
    t_st(f, 2, 8, z);
    t_exit(f, 2);
    uint32_t nv = f->nvregs;
    MSim s;
    run_both(12, &s);
    cr_assert_eq(sim_u32(&s, 0), 2);
    cr_assert_eq(sim_u32(&s, 4), 3);
    cr_assert_eq(sim_u32(&s, 8), 1);
    cr_assert_eq(f->nvregs, nv + 1, "one temporary breaks the cycle");
}

/* x = phi(0, x + 1) while x + 1 < 3; the old x (not x + 1) is stored after the loop. */
Test(outssa, lost_copy_and_critical_edge)
{
    for (int i = 0; i < 3; i++)
        mir_block_new(f);
    MReg x0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg x = mir_vreg_new(f, 0);
    MReg x1 = t_opi(f, 1, XOP_add, x, 1);
    MReg c = t_seti(f, 1, XCMP_LT, x1, 3);
    t_brc(f, 1, c, 1, 2);
    t_phi2(f, 1, x, 0, x0, 1, x1);
    t_st(f, 2, 0, x);
    t_exit(f, 2);
    MSim s;
    run_both(4, &s);
    cr_assert_eq(sim_u32(&s, 0), 2);
    /* the back edge 1 -> 1 was critical: a new block holds the copy and a bra */
    cr_assert_eq(f->nblocks, 4);
    MInsn *t = mir_terminator(f, 1);
    cr_assert_eq(t->x.op, XOP_brc);
    uint32_t n = t->x.target;
    cr_assert_eq(n, 3);
    cr_assert_eq(f->blocks[n].nins, 2);
    cr_assert_eq(f->blocks[n].ins[0].x.op, XOP_mov);
    cr_assert_eq(f->blocks[n].ins[0].dst[0], x);
    cr_assert_eq(f->blocks[n].ins[0].src[0], x1);
    cr_assert_eq(f->blocks[n].ins[1].x.op, XOP_bra);
    cr_assert_eq(f->blocks[n].ins[1].x.target, 1);
    /* the edge into the phi-less exit block is not split */
    cr_assert_eq(f->blocks[1].succ[1], 2);
    /* the entry block (one successor) got its copy in place */
    cr_assert_eq(f->blocks[0].nins, 3);
    cr_assert_eq(f->blocks[0].ins[1].x.op, XOP_mov);
    cr_assert_eq(f->blocks[0].ins[1].dst[0], x);
}

/* A diamond whose join has a phi: both brc edges go to blocks with one predecessor, but
 * the else edge goes straight to the join and must be split. */
Test(outssa, diamond_with_direct_else_edge)
{
    for (int i = 0; i < 3; i++)
        mir_block_new(f);
    MReg p = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg c = t_seti(f, 0, XCMP_NE, p, 0);
    MReg a = t_imm(f, 0, 5, 0);
    t_brc(f, 0, c, 1, 2);
    MReg b = t_imm(f, 1, 7, 0);
    t_bra(f, 1, 2);
    MReg d = mir_vreg_new(f, 0);
    t_phi2(f, 2, d, 0, a, 1, b);
    t_st(f, 2, 0, d);
    t_exit(f, 2);
    MSim s;
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_outssa(f), 0);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(f->nblocks, 4);
    cr_assert_eq(f->blocks[0].succ[1], 3, "the critical else edge is split");
    for (uint32_t v = 0; v < 2; v++) {
        sim_init(&s, f, 0);
        s.param[0] = (uint8_t)v;
        cr_assert_eq(sim_run_blocks(&s), 0);
        cr_assert_eq(sim_u32(&s, 0), v ? 7u : 5u);
    }
}

Test(outssa, missing_phi_input_is_an_error)
{
    for (int i = 0; i < 3; i++)
        mir_block_new(f);
    MReg a = t_imm(f, 0, 1, 0);
    MReg c = t_seti(f, 0, XCMP_NE, a, 0);
    t_brc(f, 0, c, 1, 2);
    t_bra(f, 1, 2);
    MReg d = mir_vreg_new(f, 0);
    MPhi *ph = mir_phi_new(f, 2, d, 1);
    ph->in[0] = (MPhiIn){0, a};
    t_exit(f, 2);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_outssa(f), -1);
    cr_assert_eq(m->errors, 1);
}
