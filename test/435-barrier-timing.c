/*
 * 435-barrier-timing.c - warps wait at a barrier until the last one arrives: warp w
 * spins 30*w iterations first; every warp's clock after the barrier is later than the
 * last arrival and within a few cycles of it; the wait is counted as stall.barrier.
 */
#include "400-timing-util.h"

static const char *src =
    ".kernel k\n.param 8\n"
    "  s2r r1, %warpid\n  mul.u32 r2, r1, 30\n  mov.u32 r3, 0\n"
    "  set.ge.u32 r4, r3, r2\n  brc r4, arrive, arrive\n"
    "loop:\n  add.u32 r3, r3, 1\n  set.lt.u32 r4, r3, r2\n  brc r4, loop, arrive\n"
    "arrive:\n  s2r r5, %clock\n  bar 0\n  s2r r6, %clock\n"
    "  ld.param.u64 r40, [0]\n  shl.u32 r2, r1, 3\n  cvt.u64.u32 r8, r2\n"
    "  add.u64 r40, r40, r8\n  st.global.u32 [r40], r5\n  st.global.u32 [r40+4], r6\n"
    "  exit\n";

Test(barrier_timing, warps_leave_together_after_the_last_arrival)
{
    TmRun r;
    tm_run(&r, TM_BASE, src, DIM(1, 1, 1), DIM(128, 1, 1), 8);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    uint32_t last = 0;
    for (uint32_t w = 0; w < 4; w++)
        last = r.out[2 * w] > last ? r.out[2 * w] : last;
    cr_expect_eq(last, r.out[6], "warp 3 arrives last");
    cr_expect_gt(r.out[6], r.out[0] + 100, "warp 3 spun");
    for (uint32_t w = 0; w < 4; w++) {
        uint32_t after = r.out[2 * w + 1];
        cr_expect_gt(after, last + 1, "warp %u leaves at %u, last arrival %u", w, after, last);
        cr_expect_leq(after, last + 4, "warp %u leaves at %u", w, after);
    }
    cr_expect_gt(tm_ctr(&r, "stall.barrier"), 100);
    cr_expect_eq(tm_ctr(&r, "core.barrier_releases"), 1);
    tm_done(&r);
}

Test(barrier_timing, barrier_deadlock_is_reported)
{
    TmRun r;
    tm_run(&r, TM_BASE,
           ".kernel k\n.param 8\n  s2r r1, %warpid\n  set.eq.u32 r2, r1, 0\n"
           "  brc r2, other, done\n  bar 0\n  bra done\nother:\n  bar 1\ndone:\n  exit\n",
           DIM(1, 1, 1), DIM(64, 1, 1), 1);
    cr_expect_eq(r.status, EMU_ERR_DEADLOCK);
    cr_expect(strstr(r.fault.message, "barrier deadlock") != NULL, "%s", r.fault.message);
    tm_done(&r);
}
