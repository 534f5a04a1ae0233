/*
 * 516-l2-prefetch.c - the L2 prefetch slot (l2.prefetch = next-line) through the LD/ST
 * unit and the real memory system: a demand read that misses in L2 prefetches the next
 * line from its own slice; once that prefetch is in, a read of the next line costs
 * exactly an L2 hit's round trip (a DRAM access without the prefetcher) and counts as a
 * prefetch hit; the prefetch itself is never answered to an SM; a line already present
 * is not prefetched again (l2.prefetch_redundant); l2.prefetch_degree lines are
 * prefetched per miss; demand hits prefetch nothing.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS

Test(l2_prefetch, next_line_turns_a_miss_into_an_l2_hit)
{
    TMem t;
    t_mem_open(&t, CFG ";l2.prefetch=next-line");
    TmAccess a = t_line_read(0x10000), b = t_line_read(0x10080);
    cr_expect_eq(t_latency(&t, 0, &a, 1), t_miss_latency(&t.cfg, 4, 0));
    t_drain(&t); /* the prefetch of 0x10080 lands; nothing is answered for it */
    cr_expect_eq(t.ctr.l2_prefetches, 1);
    cr_expect_eq(t.ctr.l2_misses, 1, "a prefetch is not a demand miss");
    Cycle l2_hit = 2 * t.cfg.icnt_latency + t.cfg.l2_latency + 3;
    cr_expect_eq(t_latency(&t, 0, &b, 2), l2_hit);
    cr_expect_eq(t.ctr.l2_prefetch_hits, 1);
    cr_expect_eq(t.ctr.l2_hits, 1);
    t_drain(&t);
    cr_expect_eq(t.ctr.l2_prefetches, 1, "a hit prefetches nothing");
    t_mem_close(&t);

    t_mem_open(&t, CFG); /* the baseline: the second line comes from DRAM */
    t_latency(&t, 0, &a, 1);
    t_drain(&t);
    cr_expect_gt(t_latency(&t, 0, &b, 2), l2_hit);
    cr_expect_eq(t.ctr.l2_prefetches, 0);
    cr_expect_eq(t.ctr.l2_misses, 2);
    t_mem_close(&t);
}

Test(l2_prefetch, present_lines_are_redundant_and_degree_counts)
{
    TMem t;
    t_mem_open(&t, CFG ";l2.prefetch=next-line;l2.prefetch_degree=3");
    TmAccess b = t_line_read(0x10080), a = t_line_read(0x10000);
    t_latency(&t, 0, &b, 1); /* misses: prefetches 0x10100, 0x10180, 0x10200 */
    t_drain(&t);
    cr_expect_eq(t.ctr.l2_prefetches, 3);
    t_latency(&t, 0, &a, 2); /* misses: 0x10080 is present, the other two too */
    t_drain(&t);
    cr_expect_eq(t.ctr.l2_prefetches, 3);
    cr_expect_eq(t.ctr.l2_prefetch_redundant, 3);
    cr_expect_eq(t.ctr.l2_misses, 2);
    t_mem_close(&t);
}
