/*
 * 415-collectors.c - operand collector units: an instruction holds its collector from
 * issue until dispatch. With one collector, an instruction whose operands take two
 * cycles (same bank) keeps the next one from issuing for a cycle, and the stall is
 * counted as a collector allocation stall; with two, they issue back to back.
 */
#include "400-timing-util.h"

static const char *body = "  add.u32 r2, r3, r7\n  add.u32 r5, r9, 1\n";

static void run_ocus(unsigned n, uint32_t *span, uint64_t *stalls)
{
    char set[256], src[4096];
    TmRun r;
    snprintf(set, sizeof set, TM_BASE "rf.collectors_per_subcore=%u", n);
    tm_run(&r, set, tm_clocked(src, sizeof src, body), DIM(1, 1, 1), DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    *span = r.out[1] - r.out[0];
    *stalls = tm_ctr(&r, "rf.collector_alloc_stalls");
    cr_expect_eq(*stalls, tm_ctr(&r, "stall.collector"));
    tm_done(&r);
}

Test(collectors, one_collector_delays_the_next_issue)
{
    uint32_t s1, s2;
    uint64_t st1, st2;
    run_ocus(2, &s2, &st2);
    run_ocus(1, &s1, &st1);
    /* two: add @1, add @2, clock @3; one: the first add dispatches at 3 (second read),
     * the second add issues at 3 and dispatches at 4, the clock read issues at 4 */
    cr_expect_eq(s2, 3, "%u", s2);
    cr_expect_eq(s1, 4, "%u", s1);
    cr_expect_gt(st1, st2, "alloc stalls: one collector %llu, two %llu",
                 (unsigned long long)st1, (unsigned long long)st2);
}

Test(collectors, random_allocation_is_seeded)
{
    /* the same seed gives the same cycles; the allocation itself is random among the
     * free collectors, which cannot change cycles here (they are identical) */
    uint32_t a, b;
    uint64_t sa, sb;
    run_ocus(4, &a, &sa);
    run_ocus(4, &b, &sb);
    cr_expect_eq(a, b);
    cr_expect_eq(sa, sb);
}
