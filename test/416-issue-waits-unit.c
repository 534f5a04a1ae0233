/*
 * 416-issue-waits-unit.c - core.issue_waits_unit: by default issue takes an instruction
 * only when its unit can accept it by the next cycle (the unit-busy stall); with false,
 * as in Accel-Sim's sub-core model, it takes it into a free collector, which waits for
 * the unit. One warp, the fp32 unit's initiation interval 4: two independent fadds, then
 * an integer add (the clock reads are integer instructions).
 */
#include "400-timing-util.h"

static const char *body =
    "  fadd.f32 r2, r3, r4\n  fadd.f32 r5, r6, r7\n  add.u32 r8, r9, r4\n";

typedef struct Got {
    uint32_t span;
    uint64_t unit_stalls, coll_stalls, insns;
} Got;

static Got run(const char *extra)
{
    char set[256], src[4096];
    TmRun r;
    Got g;
    snprintf(set, sizeof set, TM_BASE "unit.fp.ii=4;%s", extra);
    tm_run(&r, set, tm_clocked(src, sizeof src, body), DIM(1, 1, 1), DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    g.span = r.out[1] - r.out[0];
    g.unit_stalls = tm_ctr(&r, "stall.unit_busy");
    g.coll_stalls = tm_ctr(&r, "stall.collector");
    g.insns = r.st.warp_instructions;
    tm_done(&r);
    return g;
}

Test(issue_waits_unit, collectors_wait_for_the_unit_instead_of_issue)
{
    /* four collectors, so that only the unit decides */
    Got wait = run("rf.collectors_per_subcore=4;core.issue_waits_unit=true");
    Got go = run("rf.collectors_per_subcore=4;core.issue_waits_unit=false");
    cr_expect_eq(wait.insns, go.insns);
    /* clock @0. Waiting: fadd @1 (dispatched @2, the unit free again @6), the second
     * fadd issues @5, when the unit accepts it by the next cycle; add @6, clock @7.
     * Not waiting: fadd @1, the second fadd @2 into a collector that holds it until @6,
     * add @3, clock @4. */
    cr_expect_eq(wait.span, 7, "%u", wait.span);
    cr_expect_eq(go.span, 4, "%u", go.span);
    cr_expect_eq(wait.unit_stalls, 3, "%llu", (unsigned long long)wait.unit_stalls);
    cr_expect_eq(go.unit_stalls, 0, "%llu", (unsigned long long)go.unit_stalls);
}
