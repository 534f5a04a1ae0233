/*
 * 508-l1-prefetch.c - the L1 prefetch slot with the stride prefetcher (l1.prefetch =
 * stride, emulator/mech/prefetch/stride.c) through the LD/ST unit and the real memory system:
 * no prefetch before a stride was seen twice; the third access of a steady stride
 * fetches the fourth, which then hits at the L1 hit latency (and merges into the
 * prefetch when it comes too early); each (pc, warp) has its own stride; a line already
 * present is not fetched again; a full queue drops; prefetches never complete an access
 * and leave the unit idle once they are done. l1.prefetch = none sends nothing.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS ";l1.prefetch=stride"
#define STRIDE 0x1000ull /* bytes between a warp's successive accesses */

/* A 128-byte line read by one warp at pc. */
static TmAccess at(uint64_t addr, uint32_t pc, uint32_t warp)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, addr, 4);
    a.pc = pc, a.warp = warp;
    return a;
}

/* Three accesses of a steady stride from base, each waited for; then `gap` idle cycles;
 * returns the latency of the fourth. */
static Cycle fourth(TMem *t, uint64_t base, Cycle gap)
{
    for (unsigned i = 0; i < 3; i++) {
        TmAccess a = at(base + i * STRIDE, 7, 0);
        t_latency(t, 0, &a, i);
    }
    for (Cycle k = 0; k < gap; k++, t->now++)
        t_mem_tick(t);
    TmAccess d = at(base + 3 * STRIDE, 7, 0);
    return t_latency(t, 0, &d, 3);
}

Test(l1_prefetch, steady_stride_prefetches_the_next_access)
{
    TMem t;
    t_mem_open(&t, CFG);
    cr_expect_eq(fourth(&t, 0x100000, 400), t.cfg.l1_hit_latency);
    /* the third access fetched the fourth line, the fourth the fifth */
    cr_expect_eq(t.ctr.l1_prefetches, 2);
    cr_expect_eq(t.ctr.l1_prefetch_hits, 1);
    cr_expect_eq(t.ctr.l1_misses, 3, "the first three are demand misses");
    t_drain(&t);
    cr_expect(ldst_idle(t.u[0]));
    t_mem_close(&t);
}

Test(l1_prefetch, none_sends_nothing)
{
    TMem t;
    t_mem_open(&t, T_SAME_CLOCKS ";l1.prefetch=none");
    cr_expect_gt(fourth(&t, 0x100000, 400), t.cfg.l1_hit_latency);
    cr_expect_eq(t.ctr.l1_prefetches + t.ctr.l1_prefetch_hits + t.ctr.l1_prefetch_dropped, 0);
    cr_expect_eq(t.ctr.l1_misses, 4);
    t_mem_close(&t);
}

Test(l1_prefetch, an_early_demand_merges_into_the_prefetch)
{
    TMem t, ref;
    t_mem_open(&t, CFG);
    t_mem_open(&ref, T_SAME_CLOCKS ";l1.prefetch=none");
    Cycle with = fourth(&t, 0x200000, 0), without = fourth(&ref, 0x200000, 0);
    cr_expect_eq(t.ctr.l1_prefetch_late, 1);
    cr_expect_eq(t.ctr.l1_mshr_merges, 1);
    /* the prefetch left one cycle after the third access's lookup and the demand came
     * as the third completed: it waits only for the rest of the prefetch */
    cr_expect_lt(with, without);
    t_mem_close(&t);
    t_mem_close(&ref);
}

Test(l1_prefetch, strides_are_per_pc_and_warp)
{
    TMem t;
    t_mem_open(&t, CFG);
    /* two warps at one pc, interleaved, each with its own steady stride */
    for (unsigned i = 0; i < 3; i++) {
        TmAccess a = at(0x400000 + i * STRIDE, 9, 0), b = at(0x800000 + i * 2 * STRIDE, 9, 1);
        t_latency(&t, 0, &a, 2 * i);
        t_latency(&t, 0, &b, 2 * i + 1);
    }
    cr_expect_eq(t.ctr.l1_prefetches, 2);
    for (Cycle k = 0; k < 400; k++, t.now++)
        t_mem_tick(&t);
    TmAccess a = at(0x400000 + 3 * STRIDE, 9, 0), b = at(0x800000 + 6 * STRIDE, 9, 1);
    cr_expect_eq(t_latency(&t, 0, &a, 10), t.cfg.l1_hit_latency);
    cr_expect_eq(t_latency(&t, 0, &b, 11), t.cfg.l1_hit_latency);
    /* another pc with the warp-0 addresses starts from scratch */
    cr_expect_eq(t.ctr.l1_prefetch_hits, 2);
    t_mem_close(&t);
}

Test(l1_prefetch, present_lines_are_redundant_and_a_full_queue_drops)
{
    TMem t;
    t_mem_open(&t, CFG ";stride.degree=2;l1.prefetch_queue=1");
    /* lines base + 3S and + 4S are already in the L1 */
    uint64_t base = 0x300000;
    TmAccess p3 = at(base + 3 * STRIDE, 1, 5), p4 = at(base + 4 * STRIDE, 1, 5);
    t_latency(&t, 0, &p3, 20);
    t_latency(&t, 0, &p4, 21);
    uint64_t sent = t.ctr.l1_prefetches;
    fourth(&t, base, 400);
    /* the third access asked for +3S and +4S, the fourth for +4S and +5S: each time the
     * one-entry queue held the first and dropped the second, and the first was present */
    cr_expect_eq(t.ctr.l1_prefetch_dropped, 2);
    cr_expect_eq(t.ctr.l1_prefetch_redundant, 2);
    cr_expect_eq(t.ctr.l1_prefetches, sent, "nothing was sent");
    t_mem_close(&t);
}
