/*
 * 401-issue-latency.c - issue timing of one warp: a dependent instruction issues exactly
 * `latency` cycles after its producer (not one cycle earlier), independent ones issue
 * back to back, and the launch's cycle count follows. The clock reads (s2r %clock) take
 * one issue slot each: a span of k instructions issued back to back between them is
 * k + 1 cycles.
 */
#include "400-timing-util.h"

Test(issue, independent_instructions_issue_back_to_back)
{
    uint32_t span = tm_clock_span(TM_BASE, "  add.u32 r2, r3, r4\n  add.u32 r5, r6, r7\n"
                                           "  add.u32 r8, r9, r11\n");
    cr_expect_eq(span, 4, "3 independent adds: %u", span);
}

Test(issue, dependent_add_waits_exactly_the_latency)
{
    /* s2r @t, add r2 @t+1, add r5 (needs r2) @t+1+L, s2r @t+2+L */
    uint32_t span = tm_clock_span(TM_BASE, "  add.u32 r2, r3, r4\n  add.u32 r5, r2, r7\n");
    cr_expect_eq(span, 4 + 2, "int latency 4: %u", span);
}

Test(issue, latency_is_configurable_at_the_boundary)
{
    for (unsigned lat = 2; lat <= 9; lat++) {
        char set[256];
        snprintf(set, sizeof set, TM_BASE "unit.int.latency=%u", lat);
        /* one register source each (bank 1, then bank 0): no bank conflict with the
         * clock read's write-back, whatever the latency */
        uint32_t span = tm_clock_span(set, "  add.u32 r2, r3, 1\n  add.u32 r5, r2, 1\n");
        cr_expect_eq(span, lat + 2, "latency %u: span %u", lat, span);
    }
}

Test(issue, fp_chain_uses_the_fp_latency)
{
    uint32_t span = tm_clock_span(TM_BASE "unit.fp.latency=6",
                                  "  fadd.f32 r2, r3, r4\n  fadd.f32 r5, r2, r2\n"
                                  "  fadd.f32 r8, r5, r7\n");
    cr_expect_eq(span, 1 + 6 + 6 + 1, "two dependent fadds at latency 6: %u", span);
}

Test(issue, waw_waits_for_the_first_write)
{
    /* the second write of r2 waits for the first (scoreboard covers destinations) */
    uint32_t span = tm_clock_span(TM_BASE, "  add.u32 r2, r3, r4\n  add.u32 r2, r6, r7\n");
    cr_expect_eq(span, 4 + 2, "%u", span);
}

Test(issue, pair_operands_cover_both_registers)
{
    /* add.u64 r20 writes r20 and r21; reading r21 alone must wait */
    uint32_t span = tm_clock_span(TM_BASE, "  add.u64 r20, r30, r30\n  add.u32 r5, r21, r7\n");
    cr_expect_eq(span, 4 + 2, "%u", span);
}

Test(issue, cycles_and_counters_of_a_launch)
{
    char src[4096];
    TmRun r;
    tm_run(&r, TM_BASE, tm_clocked(src, sizeof src, "  add.u32 r2, r3, r4\n"), DIM(1, 1, 1),
           DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(tm_ctr(&r, "core.warp_instructions"), r.st.warp_instructions);
    cr_expect_eq(r.st.warp_instructions, 17);
    cr_expect_gt(r.st.cycles, r.out[1]);
    cr_expect_gt(r.st.emulated_ns, 0);
    /* every issue slot is accounted exactly once */
    uint64_t sum = tm_ctr(&r, "core.issued");
    const char *causes[] = {"stall.no_warp", "stall.barrier", "stall.ibuffer",
                            "stall.scoreboard", "stall.unit_busy", "stall.mem_busy",
                            "stall.collector"};
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++)
        sum += tm_ctr(&r, causes[i]);
    cr_expect_eq(sum, tm_ctr(&r, "core.subcore_cycles"));
    cr_expect_eq(tm_ctr(&r, "core.subcore_cycles"), r.st.cycles * 4);
    cr_expect_eq(tm_ctr(&r, "core.issued"), 17);
    tm_done(&r);
}
