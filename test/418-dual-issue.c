/*
 * 418-dual-issue.c - core.issue_width and unit.X.lanes: with issue width 2 a sub-core
 * issues, in the cycle after an instruction, the same warp's next instruction when it
 * is independent of the first, not a control instruction, and its unit can start it in
 * the same cycle; a unit of L lanes takes a warp instruction every 32 / L cycles,
 * exactly (48 lanes: three every two cycles). One warp, ideal memory (400-timing-util.h).
 *
 * The clock reads are integer instructions and would pair with a neighbour, so the
 * short bodies below put a nop (a control instruction, which never pairs) on each side:
 * clock @0, nop @1, the body from @2, nop, clock.
 */
#include "400-timing-util.h"

#define W2 "core.issue_width=2;"
#define FP64 "unit.fp.lanes=64;" /* a fp32 unit that starts two warp instructions a cycle */

static uint32_t span(const char *extra, const char *body)
{
    char set[512], text[1024];
    snprintf(set, sizeof set, TM_BASE "%s", extra);
    snprintf(text, sizeof text, "  nop\n%s  nop\n", body);
    return tm_clock_span(set, text);
}

static const char *two_fadds = "  fadd.f32 r2, r3, r4\n  fadd.f32 r5, r6, r7\n";

Test(dual_issue, two_independent_fp_instructions_issue_in_one_cycle)
{
    /* width 1: fadd @2, fadd @3, nop @4, clock @5; width 2: both fadds @2 */
    cr_expect_eq(span(FP64, two_fadds), 5);
    cr_expect_eq(span(FP64 W2, two_fadds), 4);
    /* an fp32 and an integer instruction pair on the default units */
    const char *fp_int = "  fadd.f32 r2, r3, r4\n  add.u32 r5, r6, r7\n";
    cr_expect_eq(span("", fp_int), 5);
    cr_expect_eq(span(W2, fp_int), 4);
}

Test(dual_issue, a_unit_that_starts_one_a_cycle_takes_no_pair)
{
    /* 32 lanes (or an initiation interval of 1) start one warp instruction a cycle */
    cr_expect_eq(span(W2, two_fadds), 5);
    cr_expect_eq(span(W2 "unit.fp.lanes=32", two_fadds), 5);
    cr_expect_eq(span(W2 "unit.fp.lanes=48", two_fadds), 4);
}

Test(dual_issue, a_dependent_pair_does_not_dual_issue)
{
    /* read after write: the second waits for the first's result (latency 4) */
    const char *raw = "  fadd.f32 r2, r3, r4\n  fadd.f32 r5, r2, r7\n";
    cr_expect_eq(span(FP64, raw), 2 + 4 + 2);
    cr_expect_eq(span(FP64 W2, raw), 2 + 4 + 2);
    /* write after write: the same */
    const char *waw = "  fadd.f32 r2, r3, r4\n  fadd.f32 r2, r6, r7\n";
    cr_expect_eq(span(FP64 W2, waw), 2 + 4 + 2);
    /* write after read: the second writes a register the first reads; one cycle apart,
     * as with width 1 */
    const char *war = "  fadd.f32 r2, r3, r4\n  fadd.f32 r3, r6, r7\n";
    cr_expect_eq(span(FP64, war), 5);
    cr_expect_eq(span(FP64 W2, war), 5);
}

Test(dual_issue, control_instructions_do_not_pair)
{
    /* fadd @2, bra @3 (to the next instruction), fadd @4, nop @5, clock @6 with either
     * width: the branch pairs neither with the instruction before it nor after it */
    const char *bra = "  fadd.f32 r2, r3, r4\n  bra N\nN:\n  fadd.f32 r5, r6, r7\n";
    cr_expect_eq(span(FP64, bra), 6);
    cr_expect_eq(span(FP64 W2, bra), 6);
    /* the same with the nop in the middle */
    const char *nop = "  fadd.f32 r2, r3, r4\n  nop\n  fadd.f32 r5, r6, r7\n";
    cr_expect_eq(span(FP64 W2, nop), 6);
    /* a memory barrier */
    const char *membar = "  fadd.f32 r2, r3, r4\n  membar.cta\n  fadd.f32 r5, r6, r7\n";
    cr_expect_eq(span(FP64 W2, membar), 6);
}

/* A kernel in which every warp times n independent ffmas (no register to read, 48
 * destinations in turn) and thread t writes its warp's two clocks at out[2t], out[2t+1]. */
static const char *ffma_run(char *buf, size_t size, unsigned n)
{
    int len = snprintf(buf, size,
                       ".kernel k\n.param 8\n"
                       "  ld.param.u64 r40, [0]\n  s2r r2, %%tid.x\n  shl.u32 r2, r2, 3\n"
                       "  cvt.u64.u32 r4, r2\n  add.u64 r40, r40, r4\n  add.u32 rz, r40, r41\n"
                       "  s2r r0, %%clock\n  nop\n");
    for (unsigned i = 0; i < n; i++)
        len += snprintf(buf + len, size - (size_t)len, "  ffma.f32 r%u, rz, rz, rz\n",
                        60 + i % 48);
    snprintf(buf + len, size - (size_t)len,
             "  nop\n  s2r r1, %%clock\n  st.global.u32 [r40], r0\n"
             "  st.global.u32 [r40+4], r1\n  exit\n");
    return buf;
}

/* The clock span of each of `warps` warps (one per sub-core) over n ffmas. */
static void ffma_spans(const char *extra, unsigned n, unsigned warps, uint32_t *spans)
{
    static char src[16384];
    char set[512];
    TmRun r;
    snprintf(set, sizeof set, TM_BASE "%s", extra);
    tm_run(&r, set, ffma_run(src, sizeof src, n), DIM(1, 1, 1), DIM(32 * warps, 1, 1),
           64 * warps);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    for (unsigned w = 0; w < warps; w++)
        spans[w] = r.out[64 * w + 1] - r.out[64 * w];
    tm_done(&r);
}

Test(dual_issue, forty_eight_lanes_take_three_warp_instructions_every_two_cycles)
{
    /* clock @0, nop @1; from @2 the ffmas issue two, one, two, one, ... (the unit starts
     * two in a cycle, then has 32 of its 48 lanes' cycle left for one more); 96 take 64
     * cycles, @2 to @65, then nop @66, clock @67 */
    uint32_t s[4];
    ffma_spans(W2 "unit.fp.lanes=48", 96, 4, s);
    for (unsigned w = 0; w < 4; w++)
        cr_expect_eq(s[w], 2 + 64 + 1, "warp %u (sub-core %u): %u", w, w, s[w]);
    /* twice as many take twice as long: exactly 1.5 a cycle */
    uint32_t more;
    ffma_spans(W2 "unit.fp.lanes=48", 192, 1, &more);
    cr_expect_eq(more - s[0], 64, "%u then %u", s[0], more);
    /* width 1: one a cycle, the lanes to spare */
    ffma_spans("unit.fp.lanes=48", 96, 1, s);
    cr_expect_eq(s[0], 2 + 96 + 1, "%u", s[0]);
    /* 64 lanes with width 2: two a cycle */
    ffma_spans(W2 FP64, 96, 1, s);
    cr_expect_eq(s[0], 2 + 48 + 1, "%u", s[0]);
}

Test(dual_issue, sixteen_lanes_equal_an_initiation_interval_of_two)
{
    const char *cases[][2] = {
        {"unit.fp.lanes=16", "unit.fp.ii=2"},
        {"unit.fp.lanes=8", "unit.fp.ii=4"},
        {"unit.fp.lanes=32", ""},
        {W2 "unit.fp.lanes=16", W2 "unit.fp.ii=2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t a, b;
        ffma_spans(cases[i][0], 24, 1, &a);
        ffma_spans(cases[i][1], 24, 1, &b);
        cr_expect_eq(a, b, "%s: %u, %s: %u", cases[i][0], a, cases[i][1], b);
    }
    uint32_t s;
    ffma_spans("unit.fp.lanes=16", 24, 1, &s); /* @2, @4, ... @48, nop @49, clock @50 */
    cr_expect_eq(s, 2 + 2 * 23 + 2, "%u", s);
    /* 24 lanes: three in four cycles, @2 @3 @4, @6 @7 @8, ..., @30 @31 @32, nop @33,
     * clock @34 */
    ffma_spans("unit.fp.lanes=24", 24, 1, &s);
    cr_expect_eq(s, 34, "%u", s);
}

/* Every warp of several CTAs: loads, sfu and fp work with dual issue and narrow units;
 * skipping idle cycles gives the same cycles and counters as ticking every cycle. */
static const char *mixed =
    ".kernel k\n.param 8\n"
    "  ld.param.u64 r40, [0]\n  mov.u32 r3, 3\n  mov.u32 r4, 4\n  mov.u32 r7, 7\n"
    "  mov.u32 r9, 0\n"
    "L:\n  ld.global.u32 r12, [r40]\n  fadd.f32 r2, r12, r4\n  fsqrt.f32 r13, r3\n"
    "  fadd.f32 r5, r2, r3\n  ffma.f32 r14, r3, r4, r7\n  add.u32 r8, r5, r7\n"
    "  add.u32 r9, r9, 1\n  set.lt.u32 r1, r9, 6\n  brc r1, L, E\n"
    "E:\n  exit\n";

Test(dual_issue, skipping_idle_cycles_stays_exact)
{
    const char *ctrs[] = {"core.issued", "stall.unit_busy", "stall.scoreboard",
                          "stall.collector", "unit.fp", "unit.sfu", "core.warp_instructions"};
    const char *set = TM_BASE W2 "unit.fp.lanes=24;unit.sfu.lanes=3;unit.int.lanes=48;";
    char a_set[512], b_set[512];
    snprintf(a_set, sizeof a_set, "%semu.skip_idle=true", set);
    snprintf(b_set, sizeof b_set, "%semu.skip_idle=false", set);
    TmRun a, b;
    tm_run(&a, a_set, mixed, DIM(4, 1, 1), DIM(128, 1, 1), 1);
    tm_run(&b, b_set, mixed, DIM(4, 1, 1), DIM(128, 1, 1), 1);
    cr_assert_eq(a.status, EMU_OK, "%s", a.fault.message);
    cr_assert_eq(b.status, EMU_OK, "%s", b.fault.message);
    cr_expect_eq(a.st.cycles, b.st.cycles, "%llu vs %llu", (unsigned long long)a.st.cycles,
                 (unsigned long long)b.st.cycles);
    for (size_t i = 0; i < sizeof ctrs / sizeof ctrs[0]; i++)
        cr_expect_eq(tm_ctr(&a, ctrs[i]), tm_ctr(&b, ctrs[i]), "%s", ctrs[i]);
    /* dual issue happened: fewer issue slots than instructions */
    cr_expect_lt(tm_ctr(&a, "core.issued"), a.st.warp_instructions);
    cr_expect_gt(tm_ctr(&a, "stall.unit_busy"), 0);
    tm_done(&a);
    tm_done(&b);
}

/* A runaway kernel stops at exactly its budget's last instruction, as in functional
 * mode, though SMs issue two instructions per sub-core in a cycle. */
Test(dual_issue, the_budget_stops_a_runaway_kernel_exactly, .timeout = 60)
{
    const char *spin = ".kernel k\n.param 8\n"
                       "L:\n  add.u32 r2, r3, 1\n  fadd.f32 r5, r6, r7\n"
                       "  add.u32 r8, r3, 1\n  fadd.f32 r9, r6, r7\n"
                       "  add.u32 r10, r3, 1\n  fadd.f32 r11, r6, r7\n  bra L\n";
    for (unsigned budget = 1000; budget < 1024; budget++) {
        char set[256];
        TmRun r;
        snprintf(set, sizeof set, "gpu.sm_count=2;core.mem_latency=20;" W2
                 "emu.max_warp_insns=%u", budget);
        tm_run(&r, set, spin, DIM(4, 1, 1), DIM(256, 1, 1), 1);
        cr_expect_eq(r.status, EMU_ERR_LAUNCH_TIMEOUT, "%u: %s", budget,
                     emu_status_name(r.status));
        cr_expect_eq(r.st.warp_instructions, budget, "%u: %llu", budget,
                     (unsigned long long)r.st.warp_instructions);
        tm_done(&r);
    }
}

static void expect_refused(const char *set, const char *key)
{
    EmuDevice *d = NULL;
    char err[256] = "";
    setenv("XGPU_MODE", "timing", 1);
    setenv("XGPU_SET", set, 1);
    unsetenv("XGPU_CONFIG");
    cr_expect_eq(emu_create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG, "%s", set);
    cr_expect(strncmp(err, key, strlen(key)) == 0, "%s: %s", set, err);
    if (d)
        emu_destroy(d);
}

Test(dual_issue, the_keys_are_checked_when_the_device_is_created)
{
    expect_refused("core.issue_width=0", "core.issue_width:");
    expect_refused("core.issue_width=65", "core.issue_width:");
    expect_refused("unit.fp.lanes=1025", "unit.fp.lanes:");
    expect_refused("unit.sfu.lanes=2000", "unit.sfu.lanes:");
}
