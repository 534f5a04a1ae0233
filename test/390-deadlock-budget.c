/*
 * 390-deadlock-budget.c - kernels that cannot finish: warps waiting at different
 * barriers (or at bar and barred) are a deadlock whose message lists the warps with
 * their pc and what they wait for; a warp spinning while the others wait at a barrier
 * stops at the instruction budget with the same listing; the device stays usable. Also
 * the emulated clock (emu_device_time_ns, emulated_ns) of the functional mode.
 */
#include <stdint.h>
#include "300-emu-util.h"

static EmuStatus run1(EmuDevice *d, const char *src, uint32_t threads, EmuFault *f,
                      EmuLaunchStats *st)
{
    EmuModule *m = t_load(d, src);
    return emu_launch(d, m, 0, DIM(1, 1, 1), DIM(threads, 1, 1), 0, NULL, 0, st, f);
}

static void expect_usable(EmuDevice *d)
{
    EmuFault f;
    EmuStatus s = run1(d, ".kernel ok\n  bar 0\n  exit\n", 96, &f, NULL);
    cr_expect_eq(s, EMU_OK, "device unusable after the fault: %s", f.message);
}

Test(deadlock, different_barrier_ids_list_the_warps)
{
    EmuDevice *d = t_dev();
    EmuFault f;
    /* warps 0 and 2 wait at bar 0 (pc 4), warp 1 at bar 1 (pc 6) */
    EmuStatus s = run1(d,
        ".kernel k\n  s2r r0, %warpid\n  set.eq.u32 r1, r0, 1\n  brc r1, other, done\n"
        "  nop\n  bar 0\n  bra done\nother:\n  bar 1\ndone:\n  exit\n", 96, &f, NULL);
    cr_assert_eq(s, EMU_ERR_DEADLOCK, "%s", emu_status_name(s));
    cr_expect(strstr(f.message, "barrier deadlock") != NULL, "%s", f.message);
    cr_expect(strstr(f.message, "warps 0,2 at pc 4 wait at bar 0") != NULL, "%s", f.message);
    cr_expect(strstr(f.message, "warp 1 at pc 6 wait at bar 1") != NULL, "%s", f.message);
    cr_expect(f.pc == 4 || f.pc == 6, "pc %u", f.pc);
    expect_usable(d);
    emu_destroy(d);
}

Test(deadlock, bar_and_barred_do_not_meet)
{
    EmuDevice *d = t_dev();
    EmuFault f;
    EmuStatus s = run1(d,
        ".kernel k\n  s2r r0, %warpid\n  set.eq.u32 r1, r0, 0\n  brc r1, other, done\n"
        "  bar 0\n  bra done\nother:\n  barred.popc r2, r1\ndone:\n  exit\n", 64, &f, NULL);
    cr_assert_eq(s, EMU_ERR_DEADLOCK, "%s", emu_status_name(s));
    cr_expect(strstr(f.message, "warp 0 at pc 5 wait at barred.popc 0") != NULL, "%s",
              f.message);
    cr_expect(strstr(f.message, "warp 1 at pc 3 wait at bar 0") != NULL, "%s", f.message);
    emu_destroy(d);
}

Test(deadlock, exited_warps_never_block)
{
    EmuDevice *d = t_dev();
    EmuFault f;
    /* warp 1 exits early; warps 0 and 2 meet at bar 0 */
    EmuStatus s = run1(d,
        ".kernel k\n  s2r r0, %warpid\n  set.eq.u32 r1, r0, 1\n  brc r1, done, done\n"
        "  bar 0\n  bar 0\ndone:\n  exit\n", 96, &f, NULL);
    cr_expect_eq(s, EMU_OK, "%s", f.message);
    emu_destroy(d);
}

Test(budget, spinning_warp_while_others_wait)
{
    setenv("XGPU_SET", "emu.max_warp_insns=5000", 1);
    EmuDevice *d = t_dev();
    unsetenv("XGPU_SET");
    EmuFault f;
    EmuLaunchStats st;
    /* warp 1 spins on a flag warp 0 would only set after the barrier */
    EmuStatus s = run1(d,
        ".kernel k\n.shared 4\n  s2r r0, %warpid\n  set.eq.u32 r1, r0, 1\n"
        "  brc r1, spin, done\n  bar 0\n  mov.u32 r2, 1\n  st.shared.u32 [0], r2\n  bra done\n"
        "spin:\n  ld.shared.u32 r3, [0]\n  brc.not.uni r3, spin, done\ndone:\n  exit\n",
        64, &f, &st);
    cr_assert_eq(s, EMU_ERR_LAUNCH_TIMEOUT, "%s", emu_status_name(s));
    cr_expect_eq(st.warp_instructions, 5000);
    cr_expect(strstr(f.message, "emu.max_warp_insns") != NULL, "%s", f.message);
    cr_expect(strstr(f.message, "warp 0 at pc 3 wait at bar 0") != NULL, "%s", f.message);
    cr_expect(strstr(f.message, "warp 1 at pc ") != NULL, "%s", f.message);
    cr_expect(strstr(f.message, "ran out of budget") != NULL, "%s", f.message);
    expect_usable(d);
    emu_destroy(d);
}

Test(clock, emulated_time_accumulates)
{
    setenv("XGPU_SET", "gpu.sm_count=2;gpu.issue_width=3;gpu.clock_khz=1000", 1);
    EmuDevice *d = t_dev();
    unsetenv("XGPU_SET");
    cr_expect_eq(emu_device_time_ns(d), 0);
    EmuModule *m = t_load(d, ".kernel k\n  nop\n  nop\n  nop\n  exit\n");
    EmuLaunchStats st;
    /* 10 CTAs x 2 warps x 4 instructions = 80 warp instructions, 6 per cycle: 14 cycles
     * of 1 us */
    cr_assert_eq(emu_launch(d, m, 0, DIM(10, 1, 1), DIM(64, 1, 1), 0, NULL, 0, &st, NULL),
                 EMU_OK);
    cr_expect_eq(st.warp_instructions, 80);
    cr_expect_eq(st.emulated_ns, 14000);
    cr_expect_eq(emu_device_time_ns(d), 14000);
    cr_assert_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1, 1, 1), 0, NULL, 0, &st, NULL), EMU_OK);
    cr_expect_eq(st.emulated_ns, 1000);
    cr_expect_eq(emu_device_time_ns(d), 15000);
    emu_destroy(d);
    setenv("XGPU_SET", "gpu.issue_width=0", 1);
    EmuDevice *bad = NULL;
    char err[256] = "";
    cr_expect_eq(emu_create(&bad, err, sizeof err), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.issue_width") != NULL, "%s", err);
    unsetenv("XGPU_SET");
}
