/*
 * 417-operand-stages.c - the operand pipeline's stages (core.collect_stages,
 * core.dispatch_stages, core.exec_stages, core.wb_stages; docs/timing.md, *Against the
 * model Memento ran on*). With Accel-Sim's values (1, 1, 1, 3) an instruction issued at
 * T has its reads granted at T+2, dispatches at T+3, starts its unit at T+4, and a
 * dependent instruction issues at T + latency + 6; an instruction with no register to
 * read dispatches at T+2, a cycle sooner. A collector with one port
 * (rf.collector_port = one) takes one read a cycle. Skipping idle cycles stays exact.
 */
#include "400-timing-util.h"

#define ACCEL "core.collect_stages=1;core.dispatch_stages=1;core.exec_stages=1;" \
              "core.wb_stages=3;"
/* With 2 collectors an instruction that holds one for 3 cycles keeps the next ones from
 * issuing; the latency tests give the sub-core 4 so that only the stages count. */
#define FOUR "rf.collectors_per_subcore=4;"

Test(stages, zero_stages_are_the_plain_pipeline)
{
    uint32_t span = tm_clock_span(TM_BASE "core.collect_stages=0;core.dispatch_stages=0;"
                                          "core.exec_stages=0;core.wb_stages=0;",
                                  "  add.u32 r2, r3, 1\n  add.u32 r5, r2, 1\n");
    cr_expect_eq(span, 4 + 2, "%u", span);
}

Test(stages, a_dependent_instruction_waits_latency_plus_six)
{
    /* clock @0, add @1, the dependent add @1 + 4 + 6 = 11, clock @12 */
    uint32_t span = tm_clock_span(TM_BASE FOUR ACCEL, "  add.u32 r2, r3, 1\n  add.u32 r5, r2, 1\n");
    cr_expect_eq(span, 12, "%u", span);
    for (unsigned lat = 2; lat <= 9; lat++) {
        char set[256];
        snprintf(set, sizeof set, TM_BASE FOUR ACCEL "unit.int.latency=%u", lat);
        span = tm_clock_span(set, "  add.u32 r2, r3, 1\n  add.u32 r5, r2, 1\n");
        cr_expect_eq(span, lat + 8, "latency %u: span %u", lat, span);
    }
}

Test(stages, each_stage_adds_its_cycles)
{
    const char *body = "  add.u32 r2, r3, 1\n  add.u32 r5, r2, 1\n";
    cr_expect_eq(tm_clock_span(TM_BASE "core.collect_stages=1", body), 6 + 1);
    cr_expect_eq(tm_clock_span(TM_BASE "core.dispatch_stages=3", body), 6 + 3);
    cr_expect_eq(tm_clock_span(TM_BASE "core.exec_stages=2", body), 6 + 2);
    cr_expect_eq(tm_clock_span(TM_BASE "core.wb_stages=2", body), 6 + 2);
}

Test(stages, no_register_to_read_saves_a_cycle)
{
    /* mov reads no register: it dispatches at T+2 instead of T+3, so its dependent issues
     * a cycle sooner than an add's; without stages both take the plain latency. Two
     * fadds first, so that the integer unit has started the clock read (and the
     * preamble) before the producer may dispatch. */
    const char *mov = "  fadd.f32 r20, r3, r4\n  fadd.f32 r21, r3, r4\n"
                      "  mov.u32 r2, 5\n  add.u32 r5, r2, 1\n";
    const char *add = "  fadd.f32 r20, r3, r4\n  fadd.f32 r21, r3, r4\n"
                      "  add.u32 r2, r3, 1\n  add.u32 r5, r2, 1\n";
    uint32_t m = tm_clock_span(TM_BASE FOUR ACCEL, mov), a = tm_clock_span(TM_BASE FOUR ACCEL, add);
    cr_expect_eq(a, 2 + 12, "%u", a);
    cr_expect_eq(m, a - 1, "mov %u, add %u", m, a);
    cr_expect_eq(tm_clock_span(TM_BASE FOUR, mov), tm_clock_span(TM_BASE FOUR, add));
}

Test(stages, a_one_port_collector_takes_a_read_a_cycle)
{
    /* r3 and r4 sit in different banks: read in the same cycle through one port per
     * bank, in two through a single port (rf.collector_port = one), so the dependent
     * add issues a cycle later; r3 and r5 share a bank and are read one at a time either
     * way. */
    const char *two = "  add.u32 r2, r3, r4\n  add.u32 r5, r2, 1\n";
    const char *same = "  add.u32 r2, r3, r5\n  add.u32 r6, r2, 1\n";
    cr_expect_eq(tm_clock_span(TM_BASE FOUR, two), 4 + 2);
    cr_expect_eq(tm_clock_span(TM_BASE FOUR "rf.collector_port=one", two), 4 + 3);
    cr_expect_eq(tm_clock_span(TM_BASE FOUR, same), 4 + 3);
    cr_expect_eq(tm_clock_span(TM_BASE FOUR "rf.collector_port=one", same), 4 + 3);
    cr_expect_eq(tm_clock_span(TM_BASE FOUR ACCEL "rf.collector_port=one", two), 12 + 1);
}

static const char *loop =
    ".kernel k\n.param 8\n"
    "  ld.param.u64 r40, [0]\n  mov.u32 r3, 3\n  mov.u32 r4, 4\n  mov.u32 r7, 7\n"
    "  mov.u32 r9, 0\n"
    "L:\n  ld.global.u32 r12, [r40]\n  fadd.f32 r2, r12, r4\n  fadd.f32 r5, r2, r3\n"
    "  add.u32 r8, r5, r7\n  add.u32 r9, r9, 1\n  set.lt.u32 r1, r9, 6\n  brc r1, L, E\n"
    "E:\n  exit\n";

static void run_loop(const char *set, TmRun *r)
{
    tm_run(r, set, loop, DIM(4, 1, 1), DIM(128, 1, 1), 1);
    cr_assert_eq(r->status, EMU_OK, "%s", r->fault.message);
}

Test(stages, skipping_idle_cycles_stays_exact)
{
    const char *ctrs[] = {"core.issued", "stall.collector", "stall.scoreboard",
                          "rf.bank_conflicts", "rf.bank_reads", "unit.fp"};
    TmRun a, b;
    run_loop(TM_BASE ACCEL "unit.fp.ii=2;core.issue_waits_unit=false;rf.collector_port=one;"
                           "emu.skip_idle=true", &a);
    run_loop(TM_BASE ACCEL "unit.fp.ii=2;core.issue_waits_unit=false;rf.collector_port=one;"
                           "emu.skip_idle=false", &b);
    cr_expect_eq(a.st.cycles, b.st.cycles, "%llu vs %llu", (unsigned long long)a.st.cycles,
                 (unsigned long long)b.st.cycles);
    cr_expect_eq(a.st.warp_instructions, b.st.warp_instructions);
    for (size_t i = 0; i < sizeof ctrs / sizeof ctrs[0]; i++)
        cr_expect_eq(tm_ctr(&a, ctrs[i]), tm_ctr(&b, ctrs[i]), "%s", ctrs[i]);
    cr_expect_gt(tm_ctr(&a, "stall.collector"), 0);
    tm_done(&a);
    tm_done(&b);
}
