/*
 * 226-sched.c - mir_sched: list scheduling within blocks.
 *
 * Hand-built MIR is scheduled and then checked three ways: where instructions went (a
 * load's use moves away from it, independent work fills the gap, memory order and
 * fences hold), how many registers are live at the worst point (the test counts them
 * itself), and what the code computes (the one-lane MIR interpreter of 220-mirsim.h runs
 * the block before and after, and the stored bytes must agree). A batch of random
 * straight-line blocks with loads and stores checks the last two at scale.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("226-sched");
    f = mir_func_new(m, "k");
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(sched, .init = setup, .fini = teardown);

/* ---- looking at the result ---- */

/* Position in block b of the instruction writing v. */
static int def_pos(uint32_t b, MReg v)
{
    for (uint32_t i = 0; i < f->blocks[b].nins; i++)
        if (f->blocks[b].ins[i].dst[0] == v)
            return (int)i;
    cr_assert_fail("no definition of %%%u in bb%u", v, b);
    return -1;
}

/* Position in block b of the first instruction reading v. */
static int use_pos(uint32_t b, MReg v)
{
    for (uint32_t i = 0; i < f->blocks[b].nins; i++)
        for (unsigned k = 0; k < mir_nsrc(&f->blocks[b].ins[i]); k++)
            if (f->blocks[b].ins[i].src[k] == v)
                return (int)i;
    cr_assert_fail("no use of %%%u in bb%u", v, b);
    return -1;
}

/* Position of the n-th (from 0) instruction with opcode op in block b. */
static int op_pos(uint32_t b, XOp op, int n)
{
    for (uint32_t i = 0; i < f->blocks[b].nins; i++)
        if (f->blocks[b].ins[i].x.op == op && n-- == 0)
            return (int)i;
    cr_assert_fail("no %s #%d in bb%u", xisa_ops[op].name, n, b);
    return -1;
}

/* Position of the store to global offset off in block b. */
static int st_pos(uint32_t b, int64_t off)
{
    for (uint32_t i = 0; i < f->blocks[b].nins; i++)
        if (f->blocks[b].ins[i].x.op == XOP_st && f->blocks[b].ins[i].x.imm == off)
            return (int)i;
    cr_assert_fail("no store to [%lld] in bb%u", (long long)off, b);
    return -1;
}

/* Most 32-bit registers live at once in straight-line block b (nothing live in or out):
 * at each instruction, its results plus every value written earlier and read later. */
static unsigned peak_live(uint32_t b)
{
    const MBlock *bb = &f->blocks[b];
    unsigned peak = 0;
    for (uint32_t p = 0; p < bb->nins; p++) {
        unsigned n = 0;
        for (uint32_t d = 0; d <= p; d++) {
            MReg v = bb->ins[d].dst[0];
            if (!mir_is_vreg(v))
                continue;
            int later = d == p;
            for (uint32_t u = p + 1; u < bb->nins && !later; u++)
                for (unsigned k = 0; k < mir_nsrc(&bb->ins[u]); k++)
                    later |= bb->ins[u].src[k] == v;
            n += later ? (f->vregs[v].wide ? 2u : 1u) : 0u;
        }
        peak = n > peak ? n : peak;
    }
    return peak;
}

/* Every register read in block b follows its definition there (if it has one). */
static void assert_defs_first(uint32_t b)
{
    const MBlock *bb = &f->blocks[b];
    for (uint32_t i = 0; i < bb->nins; i++)
        for (unsigned k = 0; k < mir_nsrc(&bb->ins[i]); k++) {
            MReg v = bb->ins[i].src[k];
            for (uint32_t j = i; mir_is_vreg(v) && j < bb->nins; j++)
                cr_assert_neq(bb->ins[j].dst[0], v, "bb%u: %%%u read at %u, written at %u",
                              b, v, i, j);
        }
}

static void fill_global(MSim *s)
{
    for (unsigned i = 0; i < sizeof s->global; i++)
        s->global[i] = (uint8_t)(i * 37 + 11);
}

/* Runs f (with global memory filled by a pattern), schedules it with max_live, runs it
 * again: both runs must leave the same global memory. */
static void run_both(uint32_t max_live)
{
    static MSim before, after;
    cr_assert_eq(mir_cfg(f), 0);
    sim_init(&before, f, 0);
    fill_global(&before);
    before.tid = 3;
    cr_assert_eq(sim_run_blocks(&before), 0);
    MSchedOptions o = {.max_live = max_live};
    cr_assert_eq(mir_sched(f, &o), 0);
    sim_init(&after, f, 0);
    fill_global(&after);
    after.tid = 3;
    cr_assert_eq(sim_run_blocks(&after), 0);
    cr_assert_arr_eq(before.global, after.global, sizeof before.global);
}

/* ---- (a) latency hiding ---- */

/* a = ld [0]; b = a + 1; st b; then a chain on tid.x stored after: the chain moves
 * between the load and its use. */
Test(sched, independent_work_fills_a_load_use_gap)
{
    mir_block_new(f);
    MReg a = t_ld(f, 0, XS_GLOBAL, 0, 0);
    MReg b = t_opi(f, 0, XOP_add, a, 1);
    t_st(f, 0, 4, b);
    MReg x = t_tid(f, 0);
    for (int i = 0; i < 5; i++)
        x = t_opi(f, 0, i & 1 ? XOP_add : XOP_mul, x, 3 + i);
    t_st(f, 0, 8, x);
    t_exit(f, 0);
    cr_assert_eq(use_pos(0, a) - def_pos(0, a), 1, "source order: the use follows");
    run_both(0);
    cr_assert_eq(def_pos(0, a), 0, "the load goes first");
    cr_assert_eq(use_pos(0, a) - def_pos(0, a), 7, "s2r and five ALU ops in between");
    cr_assert_lt(st_pos(0, 4), st_pos(0, 8), "stores keep their order");
    cr_assert_eq(f->blocks[0].ins[f->blocks[0].nins - 1].x.op, XOP_exit);
}

/* A load whose use is in the next block is hoisted above unrelated work of its own. */
Test(sched, loads_go_before_independent_arithmetic)
{
    mir_block_new(f);
    mir_block_new(f);
    MReg x = t_tid(f, 0);
    MReg y = t_opi(f, 0, XOP_mul, x, 5);
    MReg z = t_opi(f, 0, XOP_add, y, 2);
    MReg a = t_ld(f, 0, XS_GLOBAL, 16, 0);
    t_bra(f, 0, 1);
    t_st(f, 1, 0, z);
    t_st(f, 1, 4, a);
    t_exit(f, 1);
    run_both(0);
    cr_assert_eq(def_pos(0, a), 0);
    cr_assert_lt(def_pos(0, y), def_pos(0, z));
    cr_assert_eq(op_pos(0, XOP_bra, 0), 4, "the terminator stays last");
}

/* ---- (b) register pressure ---- */

/* sum += ld [4i] for 16 loads, each load right before its use: source order needs 2
 * registers. Hoisting every load would need 17. */
static void build_sum(void)
{
    mir_block_new(f);
    MReg s = t_imm(f, 0, 0, 0);
    for (int i = 0; i < 16; i++)
        s = t_op(f, 0, XOP_add, s, t_ld(f, 0, XS_GLOBAL, 4 * i, 0));
    t_st(f, 0, 512, s);
    t_exit(f, 0);
}

Test(sched, a_small_budget_stops_hoisting_loads)
{
    build_sum();
    cr_assert_eq(peak_live(0), 2);
    run_both(8); /* target: 3/4 of 8 */
    cr_assert_leq(peak_live(0), 6);
    cr_assert_geq(peak_live(0), 5, "loads are still hoisted as far as the limit allows");
    assert_defs_first(0);
}

Test(sched, the_default_budget_hoists_them_all)
{
    build_sum();
    run_both(0);
    cr_assert_eq(peak_live(0), 17);
    for (int i = 0; i < 16; i++)
        cr_assert_eq(f->blocks[0].ins[op_pos(0, XOP_ld, i)].x.imm, 4 * i,
                     "the loads keep their relative order");
    cr_assert_lt(op_pos(0, XOP_ld, 15), op_pos(0, XOP_add, 0));
}

/* A budget below what source order needs never makes it worse. */
Test(sched, a_budget_below_source_order_keeps_its_peak)
{
    mir_block_new(f);
    MReg v[6];
    for (int i = 0; i < 6; i++)
        v[i] = t_ld(f, 0, XS_GLOBAL, 4 * i, 0);
    MReg s = v[0];
    for (int i = 1; i < 6; i++)
        s = t_op(f, 0, XOP_add, s, v[i]);
    MReg c = t_tid(f, 0);
    for (int i = 0; i < 6; i++)
        c = t_opi(f, 0, XOP_mul, c, 3);
    t_st(f, 0, 100, s);
    t_st(f, 0, 104, c);
    t_exit(f, 0);
    unsigned src = peak_live(0);
    run_both(2);
    cr_assert_leq(peak_live(0), src);
}

/* The shape of a tiled convolution: a loop carrying its counter and eight other values
 * around its back edge, then a block after it that sums 28 loads. mir_outssa splits the
 * back edge into a block of its own, which the layout puts after the summing block, and
 * the allocator's intervals have no holes: the loop's values keep their registers
 * through the summing block although none is live there. A count of that block alone
 * lets all 28 loads rise (30 registers of the target's 32) and the kernel then needs
 * about 40; the kernel must stay within the target, and loads still rise as far as it
 * allows. */
static void build_loop_then_sum(void)
{
    for (int k = 0; k < 3; k++)
        mir_block_new(f);
    MReg t = t_tid(f, 0), v[8];
    for (int k = 0; k < 8; k++)
        v[k] = t_opi(f, 0, XOP_mul, t, k + 3);
    MReg i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg i = mir_vreg_new(f, 0), x = i;
    for (int k = 0; k < 8; k++)
        x = t_op(f, 1, XOP_add, x, v[k]);
    t_st(f, 1, 0, x);
    MReg i1 = t_opi(f, 1, XOP_add, i, 1);
    t_brc(f, 1, t_seti(f, 1, XCMP_LT, i1, 3), 1, 2);
    t_phi2(f, 1, i, 0, i0, 1, i1);
    MReg s = t_imm(f, 2, 0, 0);
    for (int k = 0; k < 28; k++)
        s = t_op(f, 2, XOP_add, s, t_ld(f, 2, XS_GLOBAL, 64 + 4 * k, 0));
    t_st(f, 2, 4, s);
    t_exit(f, 2);
}

Test(sched, values_around_a_loop_count_in_the_blocks_after_it)
{
    build_loop_then_sum();
    run_both(0);
    cr_assert_lt(op_pos(2, XOP_ld, 8), op_pos(2, XOP_add, 0), "loads still rise");
    assert_defs_first(2);
    cr_assert_eq(t_front(f), 0);
    cr_assert_eq(mir_regalloc(f, &(MRegallocOptions){.max_regs = 255}), 0);
    cr_assert_leq(f->nregs, 32, "the allocator needs %u registers", f->nregs);
    cr_assert_eq(f->local_bytes, 0);
}

/* Random straight-line blocks where a third of the values are 64-bit (register pairs)
 * and each value is read by a later instruction or stored at the end. */
static void build_random_wide(unsigned seed)
{
    mir_block_new(f);
    MReg v[64];
    unsigned n = 0;
    v[n++] = t_tid(f, 0);
    v[n++] = t_ld(f, 0, XS_GLOBAL, 0, 1);
    for (int k = 0; k < 60 && n < 64; k++) {
        unsigned r = (unsigned)rand_r(&seed);
        MReg a = v[r % n], b = v[(r >> 8) % n];
        if (f->vregs[a].wide != f->vregs[b].wide)
            b = a;
        switch ((r >> 16) % 4) {
        case 0: v[n++] = t_ld(f, 0, XS_GLOBAL, 8 * ((r >> 20) % 16), (r >> 24) % 3 == 0); break;
        case 1: v[n++] = t_opi(f, 0, XOP_add, a, (r >> 20) % 100); break;
        default: v[n++] = t_op(f, 0, (r >> 20) & 1 ? XOP_add : XOP_xor, a, b); break;
        }
    }
    for (unsigned i = 0; i < n; i += 3)
        t_st(f, 0, 256 + 8 * i, v[i]);
    t_exit(f, 0);
}

/* Registers the allocator gives build_random_wide(seed), scheduled for a budget of
 * max_regs or not; *local receives the bytes it spilled. */
static uint32_t allocated(unsigned seed, int sched, uint32_t max_regs, uint32_t *local)
{
    mir_module_free(m);
    setup();
    build_random_wide(seed);
    cr_assert_eq(mir_cfg(f), 0);
    if (sched)
        cr_assert_eq(mir_sched(f, &(MSchedOptions){.max_live = max_regs}), 0);
    cr_assert_eq(t_front(f), 0);
    cr_assert_eq(mir_regalloc(f, &(MRegallocOptions){.max_regs = max_regs}), 0);
    *local = f->local_bytes;
    return f->nregs;
}

/* Whatever the count of live registers says, the allocator's aligned pairs never need
 * more registers than source order or the target (3/4 of the budget, at most 32), and a
 * block that fits without spilling in source order still does. */
Test(sched, pairs_need_no_more_than_source_order_or_the_target)
{
    static const uint32_t budgets[] = {255, 40};
    for (unsigned seed = 1; seed <= 40; seed++)
        for (int k = 0; k < 2; k++) {
            uint32_t src_local, local, target = budgets[k] == 40 ? 30 : 32;
            uint32_t src = allocated(seed, 0, budgets[k], &src_local);
            uint32_t got = allocated(seed, 1, budgets[k], &local);
            if (src_local)
                continue;
            cr_assert_eq(local, 0, "seed %u, budget %u: spills", seed, budgets[k]);
            cr_assert_leq(got, src > target ? src : target,
                          "seed %u, budget %u: %u registers, source order %u", seed,
                          budgets[k], got, src);
        }
}

/* ---- (c) memory order and fences ---- */

Test(sched, a_load_stays_after_a_store_and_across_a_bar)
{
    mir_block_new(f);
    MReg x = t_opi(f, 0, XOP_add, t_tid(f, 0), 5);
    t_st(f, 0, 0, x);
    MReg y = t_ld(f, 0, XS_GLOBAL, 0, 0); /* reads what the store wrote */
    MReg l1 = t_ld(f, 0, XS_GLOBAL, 16, 0);
    mir_append(f, 0, XOP_bar, XT_NONE);
    MReg l2 = t_ld(f, 0, XS_GLOBAL, 20, 0);
    MReg k = t_opi(f, 0, XOP_mul, t_tid(f, 0), 7); /* free to cross the bar */
    t_st(f, 0, 24, t_op(f, 0, XOP_add, y, l1));
    t_st(f, 0, 28, l2);
    t_st(f, 0, 32, k);
    t_exit(f, 0);
    cr_assert_eq(mir_cfg(f), 0); /* (the interpreter has no bar) */
    cr_assert_eq(mir_sched(f, &(MSchedOptions){0}), 0);
    int bar = op_pos(0, XOP_bar, 0);
    cr_assert_lt(st_pos(0, 0), def_pos(0, y), "the load stays after the store");
    cr_assert_lt(def_pos(0, l1), bar);
    cr_assert_lt(st_pos(0, 0), bar);
    cr_assert_gt(def_pos(0, l2), bar, "no load rises above a barrier");
    cr_assert_lt(def_pos(0, k), bar, "arithmetic may cross a barrier");
    cr_assert_lt(st_pos(0, 24), st_pos(0, 28));
    cr_assert_lt(st_pos(0, 28), st_pos(0, 32));
}

/* Loads move past neither a membar nor a warp-level instruction, and a %clock read
 * keeps everything on its side. */
Test(sched, membar_shfl_and_clock_hold_their_place)
{
    mir_block_new(f);
    MReg t = t_tid(f, 0);
    MInsn *c0 = mir_append(f, 0, XOP_s2r, XT_U32);
    c0->x.mod = XSR_CLOCK;
    MReg clk0 = c0->dst[0] = mir_vreg_new(f, 0);
    MReg w = t_opi(f, 0, XOP_mul, t, 9); /* the timed work */
    MInsn *c1 = mir_append(f, 0, XOP_s2r, XT_U32);
    c1->x.mod = XSR_CLOCK;
    MReg clk1 = c1->dst[0] = mir_vreg_new(f, 0);
    mir_append(f, 0, XOP_membar, XT_NONE);
    MReg a = t_ld(f, 0, XS_GLOBAL, 0, 0);
    MInsn *sh = mir_append(f, 0, XOP_shfl, XT_U32);
    sh->dst[0] = mir_vreg_new(f, 0);
    sh->src[0] = a, sh->src[1] = t, sh->src[2] = t, sh->src[3] = t;
    MReg shd = sh->dst[0];
    MReg b = t_ld(f, 0, XS_GLOBAL, 4, 0);
    t_st(f, 0, 8, t_op(f, 0, XOP_add, shd, b));
    t_st(f, 0, 12, t_op(f, 0, XOP_sub, clk1, clk0));
    t_st(f, 0, 16, w);
    t_exit(f, 0);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_sched(f, &(MSchedOptions){0}), 0);
    cr_assert_lt(def_pos(0, clk0), def_pos(0, w));
    cr_assert_lt(def_pos(0, w), def_pos(0, clk1));
    cr_assert_lt(def_pos(0, t), def_pos(0, clk0));
    cr_assert_lt(def_pos(0, clk1), op_pos(0, XOP_membar, 0));
    cr_assert_lt(op_pos(0, XOP_membar, 0), def_pos(0, a));
    cr_assert_lt(def_pos(0, shd), def_pos(0, b), "the second load stays below the shfl");
    assert_defs_first(0);
}

/* ---- (d) same results ---- */

/* A loop: phis stay at the top, the terminator last, the stored results unchanged. */
Test(sched, a_loop_computes_the_same)
{
    for (int i = 0; i < 3; i++)
        mir_block_new(f);
    MReg s0 = t_imm(f, 0, 1, 0), i0 = t_imm(f, 0, 0, 0);
    t_bra(f, 0, 1);
    MReg s = mir_vreg_new(f, 0), i = mir_vreg_new(f, 0);
    MReg l = t_ld(f, 1, XS_GLOBAL, 0, 0);
    MReg a = t_op(f, 1, XOP_add, l, s);
    MReg i1 = t_opi(f, 1, XOP_add, i, 1);
    MReg s1 = t_op(f, 1, XOP_xor, t_opi(f, 1, XOP_mul, a, 3), i1);
    t_st(f, 1, 0, s1);
    MReg c = t_seti(f, 1, XCMP_LT, i1, 5);
    t_brc(f, 1, c, 1, 2);
    t_phi2(f, 1, s, 0, s0, 1, s1);
    t_phi2(f, 1, i, 0, i0, 1, i1);
    t_st(f, 2, 4, s);
    t_exit(f, 2);
    uint32_t n = f->blocks[1].nins;
    run_both(0);
    cr_assert_eq(f->blocks[1].nphis, 2);
    cr_assert_eq(f->blocks[1].nins, n);
    cr_assert_eq(f->blocks[1].ins[n - 1].x.op, XOP_brc);
    cr_assert_eq(def_pos(1, l), 0);
    cr_assert_lt(def_pos(1, i1), use_pos(1, l), "the counter moves into the load's shadow");
    assert_defs_first(1);
}

/* Random straight-line blocks: arithmetic over earlier values and constants, loads and
 * stores to a small area (so stores and loads overlap), every value stored at the end. */
static void build_random(unsigned seed)
{
    mir_block_new(f);
    MReg v[64];
    unsigned n = 0;
    v[n++] = t_tid(f, 0);
    v[n++] = t_imm(f, 0, seed, 0);
    for (int k = 0; k < 40 && n < 64; k++) {
        unsigned r = (unsigned)rand_r(&seed);
        MReg a = v[r % n], b = v[(r >> 8) % n];
        static const XOp ops[] = {XOP_add, XOP_sub, XOP_mul, XOP_xor, XOP_and, XOP_or};
        switch ((r >> 16) % 5) {
        case 0: v[n++] = t_ld(f, 0, XS_GLOBAL, 4 * ((r >> 20) % 16), 0); break;
        case 1: t_st(f, 0, 4 * ((r >> 20) % 16), a); break;
        case 2: v[n++] = t_opi(f, 0, XOP_add, a, (r >> 20) % 100); break;
        default: v[n++] = t_op(f, 0, ops[(r >> 20) % 6], a, b); break;
        }
    }
    for (unsigned i = 0; i < n; i++)
        t_st(f, 0, 256 + 4 * i, v[i]);
    t_exit(f, 0);
}

Test(sched, random_blocks_compute_the_same)
{
    for (unsigned seed = 1; seed <= 60; seed++) {
        mir_module_free(m);
        setup();
        build_random(seed);
        run_both(seed % 3 ? 0 : 8);
        assert_defs_first(0);
        cr_assert_eq(f->blocks[0].ins[f->blocks[0].nins - 1].x.op, XOP_exit);
    }
}

/* The same input gives the same schedule. */
Test(sched, deterministic)
{
    build_random(7);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_sched(f, &(MSchedOptions){0}), 0);
    uint32_t n = f->blocks[0].nins;
    MInsn *first = malloc(n * sizeof *first);
    cr_assert(first);
    memcpy(first, f->blocks[0].ins, n * sizeof *first);
    mir_module_free(m);
    setup();
    build_random(7);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_sched(f, &(MSchedOptions){0}), 0);
    cr_assert_eq(f->blocks[0].nins, n);
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_eq(f->blocks[0].ins[i].x.op, first[i].x.op);
        cr_assert_eq(f->blocks[0].ins[i].dst[0], first[i].dst[0]);
    }
    free(first);
}
