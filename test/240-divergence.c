/*
 * 240-divergence.c - mir_divergence: which vregs may differ across lanes and which brc
 * instructions are marked XF_UNIFORM. Kernels are built in SSA form and run through
 * mir_cfg, mir_outssa, mir_cfg, mir_postdom, mir_divergence (t_front).
 */
#include <criterion/criterion.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("240-divergence");
    f = mir_func_new(m, "k");
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(divergence, .init = setup, .fini = teardown);

static void blocks(int n)
{
    for (int i = 0; i < n; i++)
        mir_block_new(f);
}

static int uniform(uint32_t b)
{
    MInsn *t = mir_terminator(f, b);
    cr_assert(t && t->x.op == XOP_brc, "bb%u ends in brc", b);
    return (t->x.flags & XF_UNIFORM) != 0;
}

Test(divergence, branch_on_tid_is_divergent)
{
    blocks(3);
    MReg t = t_tid(f, 0);
    MReg c = t_seti(f, 0, XCMP_LT, t, 16);
    t_brc(f, 0, c, 1, 2);
    t_bra(f, 1, 2);
    t_exit(f, 2);
    cr_assert_eq(t_front(f), 0);
    cr_assert(f->vregs[t].divergent);
    cr_assert(f->vregs[c].divergent);
    cr_assert_not(uniform(0));
}

Test(divergence, branch_on_parameter_is_uniform)
{
    blocks(3);
    MReg p = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg q = t_opi(f, 0, XOP_mul, p, 3);
    MReg c = t_seti(f, 0, XCMP_LT, q, 16);
    t_brc(f, 0, c, 1, 2);
    t_bra(f, 1, 2);
    t_exit(f, 2);
    cr_assert_eq(t_front(f), 0);
    cr_assert_not(f->vregs[p].divergent);
    cr_assert_not(f->vregs[c].divergent);
    cr_assert(uniform(0));
}

Test(divergence, loads_from_memory_are_divergent)
{
    static const XSpace spaces[] = {XS_GLOBAL, XS_SHARED, XS_LOCAL, XS_GENERIC, XS_CONST};
    for (unsigned i = 0; i < sizeof spaces / sizeof *spaces; i++) {
        teardown();
        setup();
        blocks(3);
        MReg v = t_ld(f, 0, spaces[i], 0, 0);
        t_brc(f, 0, v, 1, 2);
        t_bra(f, 1, 2);
        t_exit(f, 2);
        cr_assert_eq(t_front(f), 0);
        cr_assert(f->vregs[v].divergent, "space %u", spaces[i]);
        cr_assert_not(uniform(0));
    }
}

/* if (tid < 16) x = 1; else x = 2;  -- x meets at the join with lane-dependent values */
Test(divergence, value_merged_after_divergent_branch_is_divergent)
{
    blocks(4);
    MReg t = t_tid(f, 0);
    MReg c = t_seti(f, 0, XCMP_LT, t, 16);
    MReg p = t_ld(f, 0, XS_PARAM, 0, 0);
    t_brc(f, 0, c, 1, 2);
    MReg one = t_imm(f, 1, 1, 0);
    MReg u1 = t_opi(f, 1, XOP_add, p, 5); /* used only inside its side */
    MReg c1 = t_seti(f, 1, XCMP_EQ, u1, 9);
    t_brc(f, 1, c1, 3, 3);
    MReg two = t_imm(f, 2, 2, 0);
    t_bra(f, 2, 3);
    MReg x = mir_vreg_new(f, 0);
    t_phi2(f, 3, x, 1, one, 2, two);
    MReg y = t_opi(f, 3, XOP_add, x, 1);
    MReg z = t_opi(f, 3, XOP_add, p, 1); /* from uniform values only */
    t_st(f, 3, 0, y);
    t_st(f, 3, 4, z);
    t_exit(f, 3);
    cr_assert_eq(t_front(f), 0);
    cr_assert(f->vregs[x].divergent);
    cr_assert(f->vregs[y].divergent);
    cr_assert_not(f->vregs[one].divergent, "a constant inside the region");
    cr_assert_not(f->vregs[u1].divergent, "used only inside one side");
    cr_assert_not(f->vregs[z].divergent);
}

/* A branch on the merged value is divergent, a later branch on a parameter is not. */
Test(divergence, divergence_flows_to_later_branches)
{
    blocks(6);
    MReg t = t_tid(f, 0);
    MReg c = t_seti(f, 0, XCMP_LT, t, 16);
    t_brc(f, 0, c, 1, 2);
    MReg one = t_imm(f, 1, 1, 0);
    t_bra(f, 1, 3);
    MReg zero = t_imm(f, 2, 0, 0);
    t_bra(f, 2, 3);
    MReg x = mir_vreg_new(f, 0);
    t_phi2(f, 3, x, 1, one, 2, zero);
    t_brc(f, 3, x, 4, 5);
    MReg p = t_ld(f, 4, XS_PARAM, 0, 0);
    t_brc(f, 4, p, 5, 5);
    t_exit(f, 5);
    cr_assert_eq(t_front(f), 0);
    cr_assert_not(uniform(0));
    cr_assert_not(uniform(3));
}

/* for (i = 0; ; i++) { if (a[tid] == i) break; }  -- lanes leave in different
 * iterations, so i is divergent after the loop, while the trip test on a parameter
 * inside the loop stays uniform. */
Test(divergence, loop_with_divergent_exit)
{
    blocks(5);
    MReg v = t_ld(f, 0, XS_GLOBAL, 0, 0);
    MReg n = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg i = mir_vreg_new(f, 0);
    MReg hit = t_set(f, 1, XCMP_EQ, v, i);
    t_brc(f, 1, hit, 4, 2);
    MReg i1 = t_opi(f, 2, XOP_add, i, 1);
    MReg more = t_set(f, 2, XCMP_LT, i1, n);
    t_brc(f, 2, more, 3, 4);
    t_bra(f, 3, 1);
    t_phi2(f, 1, i, 0, i0, 3, i1);
    MReg out = t_opi(f, 4, XOP_add, i, 0);
    t_st(f, 4, 0, out);
    t_exit(f, 4);
    cr_assert_eq(t_front(f), 0);
    cr_assert_not(uniform(1), "the break depends on loaded data");
    cr_assert(f->vregs[i].divergent, "the counter escapes the loop");
    cr_assert(f->vregs[out].divergent);
}

Test(divergence, uniform_loop_counter_stays_uniform)
{
    blocks(3);
    MReg n = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg i = mir_vreg_new(f, 0);
    MReg i1 = t_opi(f, 1, XOP_add, i, 1);
    MReg more = t_set(f, 1, XCMP_LT, i1, n);
    t_brc(f, 1, more, 1, 2);
    t_phi2(f, 1, i, 0, i0, 1, i1);
    t_st(f, 2, 0, i);
    t_exit(f, 2);
    cr_assert_eq(t_front(f), 0);
    cr_assert_not(f->vregs[i].divergent);
    cr_assert(uniform(1));
}

Test(divergence, special_registers)
{
    static const struct { XSreg sr; int div; } cases[] = {
        {XSR_TID_X, 1}, {XSR_TID_Y, 1}, {XSR_TID_Z, 1}, {XSR_LANEID, 1}, {XSR_CLOCK, 1},
        {XSR_CTAID_X, 0}, {XSR_NTID_X, 0}, {XSR_WARPID, 0}, {XSR_NCTAID_Y, 0},
    };
    blocks(1);
    MReg r[sizeof cases / sizeof *cases];
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        r[i] = mir_vreg_new(f, 0);
        MInsn *in = mir_append(f, 0, XOP_s2r, XT_U32);
        in->x.mod = (uint8_t)cases[i].sr;
        in->dst[0] = r[i];
        t_st(f, 0, 4 * i, r[i]);
    }
    t_exit(f, 0);
    cr_assert_eq(t_front(f), 0);
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(f->vregs[r[i]].divergent, cases[i].div, "sreg %u", cases[i].sr);
}

Test(divergence, value_used_before_defined_is_divergent)
{
    blocks(3);
    MReg u = mir_vreg_new(f, 0); /* never defined */
    MReg c = t_seti(f, 0, XCMP_NE, u, 0);
    t_brc(f, 0, c, 1, 2);
    t_bra(f, 1, 2);
    t_exit(f, 2);
    cr_assert_eq(t_front(f), 0);
    cr_assert_not(uniform(0));
}
