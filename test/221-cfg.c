/*
 * 221-cfg.c - mir_cfg and mir_postdom on hand-built graphs: predecessors, reverse
 * postorder, unreachable-block removal (with renumbering), loop depth, and immediate
 * post-dominators on a diamond, a loop with a break, several exits and an infinite loop.
 */
#include <criterion/criterion.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("221-cfg");
    f = mir_func_new(m, "k");
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(cfg, .init = setup, .fini = teardown);

static uint32_t blocks(uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        mir_block_new(f);
    return n;
}

static int has_pred(uint32_t b, uint32_t p)
{
    for (uint32_t i = 0; i < f->blocks[b].npreds; i++)
        if (f->blocks[b].preds[i] == p)
            return 1;
    return 0;
}

/* 0 -> {1, 2} -> 3 */
static void diamond(void)
{
    blocks(4);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    t_bra(f, 1, 3);
    t_bra(f, 2, 3);
    t_exit(f, 3);
}

Test(cfg, diamond_preds_rpo_ipdom)
{
    diamond();
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(f->blocks[3].npreds, 2);
    cr_assert(has_pred(3, 1) && has_pred(3, 2));
    cr_assert_eq(f->blocks[0].npreds, 0);
    cr_assert_eq(f->blocks[0].nsucc, 2);
    cr_assert_eq(f->blocks[0].succ[0], 1);
    cr_assert_eq(f->blocks[0].succ[1], 2);
    cr_assert_eq(f->blocks[0].rpo, 0);
    cr_assert_eq(f->blocks[3].rpo, 3);
    cr_assert_eq(f->blocks[2].rpo, 1, "the else block follows the branch in RPO");
    for (uint32_t b = 0; b < 4; b++)
        cr_assert_eq(f->blocks[b].loop_depth, 0);
    cr_assert_eq(mir_postdom(f), 0);
    cr_assert_eq(f->blocks[0].ipdom, 3);
    cr_assert_eq(f->blocks[1].ipdom, 3);
    cr_assert_eq(f->blocks[2].ipdom, 3);
    cr_assert_eq(f->blocks[3].ipdom, MIR_EXIT);
}

Test(cfg, unreachable_blocks_are_removed_and_renumbered)
{
    blocks(5);
    /* 0 -> 2 -> 4(exit); 1 and 3 unreachable; 4 has a phi with inputs from 2 and 3 */
    MReg a = t_imm(f, 0, 1, 0);
    t_bra(f, 0, 2);
    MReg b = t_imm(f, 1, 2, 0);
    t_bra(f, 1, 4);
    t_bra(f, 2, 4);
    t_bra(f, 3, 4);
    MReg d = mir_vreg_new(f, 0);
    t_phi2(f, 4, d, 2, a, 3, b);
    t_st(f, 4, 0, d);
    t_exit(f, 4);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(f->nblocks, 3);
    cr_assert_eq(mir_terminator(f, 0)->x.target, 1, "old bb2 is now bb1");
    cr_assert_eq(mir_terminator(f, 1)->x.target, 2, "old bb4 is now bb2");
    cr_assert_eq(f->blocks[2].nphis, 1);
    cr_assert_eq(f->blocks[2].phis[0].nin, 1, "the input from dead bb3 is dropped");
    cr_assert_eq(f->blocks[2].phis[0].in[0].block, 1);
    cr_assert_eq(f->blocks[2].phis[0].in[0].reg, a);
    cr_assert_eq(f->blocks[2].npreds, 1);
    cr_assert_eq(f->blocks[2].preds[0], 1);
    MSim s;
    sim_init(&s, f, 0);
    cr_assert_eq(sim_run_blocks(&s), 0);
    cr_assert_eq(sim_u32(&s, 0), 1);
}

/* 0 -> 1(header) -> {2(body), 4(exit)}; 2 -> {4 (break), 3(latch)}; 3 -> 1 */
Test(cfg, loop_with_break)
{
    blocks(5);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_bra(f, 0, 1);
    t_brc(f, 1, c, 2, 4);
    t_brc(f, 2, c, 4, 3);
    t_bra(f, 3, 1);
    t_exit(f, 4);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(f->blocks[0].loop_depth, 0);
    cr_assert_eq(f->blocks[1].loop_depth, 1);
    cr_assert_eq(f->blocks[2].loop_depth, 1);
    cr_assert_eq(f->blocks[3].loop_depth, 1);
    cr_assert_eq(f->blocks[4].loop_depth, 0);
    cr_assert(has_pred(1, 0) && has_pred(1, 3));
    cr_assert(has_pred(4, 1) && has_pred(4, 2));
    cr_assert_eq(mir_postdom(f), 0);
    cr_assert_eq(f->blocks[0].ipdom, 1);
    cr_assert_eq(f->blocks[1].ipdom, 4, "the loop reconverges at its exit");
    cr_assert_eq(f->blocks[2].ipdom, 4, "a break reconverges at the loop exit");
    cr_assert_eq(f->blocks[3].ipdom, 1);
    cr_assert_eq(f->blocks[4].ipdom, MIR_EXIT);
}

Test(cfg, nested_loops_depth)
{
    /* 0 -> 1 -> 2 -> 2 (self loop) ; 2 -> 3 -> 1 ; 3 -> 4 exit */
    blocks(5);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_bra(f, 0, 1);
    t_bra(f, 1, 2);
    t_brc(f, 2, c, 2, 3);
    t_brc(f, 3, c, 1, 4);
    t_exit(f, 4);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(f->blocks[1].loop_depth, 1);
    cr_assert_eq(f->blocks[2].loop_depth, 2);
    cr_assert_eq(f->blocks[3].loop_depth, 1);
    cr_assert_eq(f->blocks[4].loop_depth, 0);
    cr_assert_eq(mir_postdom(f), 0);
    cr_assert_eq(f->blocks[2].ipdom, 3);
    cr_assert_eq(f->blocks[3].ipdom, 4);
}

Test(cfg, several_exits)
{
    /* 0 -> {1 exit, 2}; 2 -> {3 exit, 4 trap} */
    blocks(5);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    t_exit(f, 1);
    t_brc(f, 2, c, 3, 4);
    t_exit(f, 3);
    mir_append(f, 4, XOP_trap, XT_NONE);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(f->blocks[4].nsucc, 0);
    cr_assert_eq(mir_postdom(f), 0);
    for (uint32_t b = 0; b < 5; b++)
        cr_assert_eq(f->blocks[b].ipdom, MIR_EXIT, "bb%u", b);
}

Test(cfg, infinite_loop_still_has_ipdoms)
{
    /* 0 -> 1; 1 -> {2, 3}; 2 -> 4; 3 -> 4; 4 -> 1: no exit at all */
    blocks(5);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_bra(f, 0, 1);
    t_brc(f, 1, c, 2, 3);
    t_bra(f, 2, 4);
    t_bra(f, 3, 4);
    t_bra(f, 4, 1);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_postdom(f), 0);
    cr_assert_eq(f->blocks[0].ipdom, 1);
    cr_assert_eq(f->blocks[1].ipdom, 4, "the branch inside the loop reconverges at the latch");
    cr_assert_eq(f->blocks[2].ipdom, 4);
    cr_assert_eq(f->blocks[3].ipdom, 4);
    cr_assert_eq(f->blocks[4].ipdom, MIR_EXIT);
}

Test(cfg, infinite_loop_beside_an_exit)
{
    /* 0 -> {1 exit, 2}; 2 -> 3 -> 2 (spins forever) */
    blocks(4);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    t_exit(f, 1);
    t_bra(f, 2, 3);
    t_bra(f, 3, 2);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_postdom(f), 0);
    cr_assert_eq(f->blocks[0].ipdom, MIR_EXIT);
    cr_assert_eq(f->blocks[2].ipdom, 3);
    cr_assert_eq(f->blocks[3].ipdom, MIR_EXIT);
}

Test(cfg, brc_to_the_same_block_becomes_bra)
{
    blocks(2);
    MReg c = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 1);
    t_exit(f, 1);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_terminator(f, 0)->x.op, XOP_bra);
    cr_assert_eq(f->blocks[0].nsucc, 1);
    cr_assert_eq(f->blocks[1].npreds, 1);
}

Test(cfg, missing_terminator_is_an_error)
{
    blocks(2);
    t_imm(f, 0, 1, 0);
    t_exit(f, 1);
    cr_assert_eq(mir_cfg(f), -1);
    cr_assert_eq(m->errors, 1);
}
