/*
 * 440-watchdog.c - the timing model's forward-progress watchdog (emu.stall_cycles): a
 * launch whose units work for that many cycles without a warp instruction issuing fails
 * with EMU_ERR_DEADLOCK and a message that names the key, the cycle of the last issue and
 * the CTAs done; cycles spent only waiting do not count, however long; 0 turns it off;
 * idle skipping does not change when it fires.
 */
#include "400-timing-util.h"

/* One warp of 32 threads loads 32 words 4 KiB apart (32 line requests, one L1 lookup a
 * cycle) and uses the value: while the requests stream through the L1 and the memory
 * system, units work and nothing issues. `mem` sets core.mem_latency (0: the memory
 * system; N: an ideal memory that answers after N cycles, idle meanwhile). */
static void run_wait(TmRun *r, unsigned mem, unsigned stall, int skip)
{
    char set[256], src[4096];
    snprintf(set, sizeof set,
             "gpu.sm_count=1;core.mem_latency=%u;emu.stall_cycles=%u;emu.skip_idle=%d", mem,
             stall, skip);
    tm_run(r, set,
           tm_clocked(src, sizeof src,
                      "  s2r r20, %tid.x\n  shl.u32 r21, r20, 12\n  cvt.u64.u32 r22, r21\n"
                      "  add.u64 r22, r22, r40\n  ld.global.u32 r2, [r22+64]\n"
                      "  add.u32 r5, r2, 1\n"),
           DIM(1, 1, 1), DIM(32, 1, 1), 32 * 1024 + 32);
}

Test(watchdog, a_wait_longer_than_the_limit_fails_by_name)
{
    TmRun r;
    run_wait(&r, 0, 20, 1);
    cr_assert_eq(r.status, EMU_ERR_DEADLOCK, "%s", r.fault.message);
    cr_expect(strstr(r.fault.message, "emu.stall_cycles"), "%s", r.fault.message);
    cr_expect(strstr(r.fault.message, "no progress for 20 busy cycles"), "%s",
              r.fault.message);
    cr_expect(strstr(r.fault.message, "0 of 1 CTAs done"), "%s", r.fault.message);
    tm_done(&r);
}

Test(watchdog, fires_at_the_same_cycle_with_and_without_skipping)
{
    TmRun a, b;
    run_wait(&a, 0, 20, 1);
    run_wait(&b, 0, 20, 0);
    cr_expect_eq(a.status, EMU_ERR_DEADLOCK);
    cr_expect_str_eq(a.fault.message, b.fault.message);
    tm_done(&a);
    tm_done(&b);
}

Test(watchdog, waiting_and_zero_run_to_the_end)
{
    TmRun r;
    run_wait(&r, 0, 1000, 1); /* busy for fewer cycles than the limit */
    cr_expect_eq(r.status, EMU_OK, "%s", r.fault.message);
    tm_done(&r);
    run_wait(&r, 0, 0, 1);
    cr_expect_eq(r.status, EMU_OK, "%s", r.fault.message);
    tm_done(&r);
    run_wait(&r, 100000, 20, 1); /* 100,000 cycles of waiting for an ideal memory */
    cr_expect_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_gt(r.out[1] - r.out[0], 100000);
    tm_done(&r);
}
