/*
 * 405-scheduler-order.c - the issue order of four warps on one sub-core under lrr, gto
 * and two-level. Each warp reads the clock twice (A, B: independent) before work that
 * waits for memory; out[2w], out[2w+1] = warp w's A and B issue cycles.
 */
#include "400-timing-util.h"

static const char *src =
    ".kernel k\n.param 8\n"
    "  s2r r5, %clock\n  s2r r6, %clock\n"
    "  ld.param.u64 r40, [0]\n  s2r r1, %warpid\n  shl.u32 r2, r1, 3\n"
    "  cvt.u64.u32 r8, r2\n  add.u64 r40, r40, r8\n"
    "  st.global.u32 [r40], r5\n  st.global.u32 [r40+4], r6\n  exit\n";

static void order(const char *policy, uint32_t *out)
{
    char set[256];
    TmRun r;
    snprintf(set, sizeof set, TM_BASE "core.subcores=1;core.sched=%s;core.sched_active=2",
             policy);
    tm_run(&r, set, src, DIM(1, 1, 1), DIM(128, 1, 1), 8);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    memcpy(out, r.out, 8 * sizeof *out);
    tm_done(&r);
}

Test(sched, lrr_rotates_over_the_warps)
{
    uint32_t o[8];
    order("lrr", o);
    for (uint32_t w = 0; w < 4; w++) {
        cr_expect_eq(o[2 * w], w, "warp %u A at %u", w, o[2 * w]);
        cr_expect_eq(o[2 * w + 1], 4 + w, "warp %u B at %u", w, o[2 * w + 1]);
    }
}

Test(sched, gto_keeps_the_greedy_warp_then_takes_the_oldest)
{
    uint32_t o[8];
    order("gto", o);
    /* warp 0 issues until it stalls (its address needs %warpid: 4 cycles) */
    cr_expect_eq(o[0], 0);
    cr_expect_eq(o[1], 1);
    for (uint32_t w = 1; w < 4; w++) {
        cr_expect_gt(o[2 * w], o[2 * w - 1], "warp %u starts after warp %u's B", w, w - 1);
        cr_expect_eq(o[2 * w + 1], o[2 * w] + 1, "warp %u stays greedy", w);
    }
}

Test(sched, two_level_rotates_within_the_active_set)
{
    uint32_t o[8];
    order("two-level", o);
    /* active set {0, 1}: A0 A1 B0 B1; warps 2 and 3 join when 0 and 1 wait for memory */
    cr_expect_eq(o[0], 0);
    cr_expect_eq(o[2], 1);
    cr_expect_eq(o[1], 2);
    cr_expect_eq(o[3], 3);
    cr_expect_gt(o[4], o[3], "warp 2 A at %u after warp 1 B at %u", o[4], o[3]);
    cr_expect_gt(o[6], o[3]);
}

Test(sched, unknown_policy_fails_the_launch)
{
    TmRun r;
    tm_run(&r, TM_BASE "core.sched=lrr", src, DIM(1, 1, 1), DIM(32, 1, 1), 8);
    cr_expect_eq(r.status, EMU_OK);
    tm_done(&r);
    setenv("XGPU_MODE", "timing", 1);
    setenv("XGPU_SET", "core.sched=fifo", 1);
    EmuDevice *d = NULL;
    char err[256] = "";
    cr_expect_neq(emu_create(&d, err, sizeof err), EMU_OK);
    cr_expect(strstr(err, "core.sched") != NULL, "%s", err);
}
