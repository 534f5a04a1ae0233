/*
 * 320-simt-divergence.c - the IPDOM reconvergence stack: if/else, nested ifs, loops with
 * per-lane trip counts, exit inside a loop, and uniform branches that never split.
 * Every kernel stores one 32-bit result per thread at out[tid] (the STORE epilogue).
 */
#include <stdint.h>
#include "300-emu-util.h"

#define STORE(reg)                                                                          \
    "  ld.param.u64 r40, [0]\n  cvt.u64.u32 r42, r0\n  shl.u64 r42, r42, 2\n"               \
    "  add.u64 r40, r40, r42\n  st.global.u32 [r40], " reg "\n"

/* Runs kernel k of src on n threads (one CTA); out[] receives the results (0xdead for
 * threads that stored nothing). */
static EmuLaunchStats run(const char *src, uint32_t n, uint32_t *out)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, n * 4, &buf), EMU_OK);
    for (uint32_t i = 0; i < n; i++)
        out[i] = 0xdead;
    emu_copy_to_device(d, buf, out, n * 4);
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(1, 1, 1), DIM(n, 1, 1), 0, &buf, 8, &st, &f);
    cr_assert_eq(s, EMU_OK, "%s at pc %u: %s", emu_status_name(s), f.pc, f.message);
    emu_copy_from_device(d, out, buf, n * 4);
    emu_destroy(d);
    return st;
}

Test(simt, if_else)
{
    uint32_t out[64];
    run(".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  and.u32 r1, r0, 1\n  brc r1, odd, join\n"
        "  mov.u32 r2, 100\n  bra join\n"
        "odd:\n  mov.u32 r2, 200\n"
        "join:\n  add.u32 r2, r2, r0\n" STORE("r2") "  exit\n", 64, out);
    for (uint32_t t = 0; t < 64; t++)
        cr_expect_eq(out[t], (t & 1 ? 200 : 100) + t, "thread %u: %u", t, out[t]);
}

Test(simt, nested_if)
{
    uint32_t out[64];
    run(".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  mov.u32 r2, 0\n"
        "  set.lt.u32 r1, r0, 16\n  brc.not r1, outer_else, outer_join\n"
        "  set.lt.u32 r1, r0, 8\n  brc.not r1, in_else, in_join\n"
        "  mov.u32 r2, 1\n  bra in_join\n"
        "in_else:\n  mov.u32 r2, 2\n"
        "in_join:\n  add.u32 r2, r2, 10\n  bra outer_join\n"
        "outer_else:\n  and.u32 r1, r0, 1\n  brc r1, odd, outer_join\n"
        "  mov.u32 r2, 4\n  bra outer_join\n"
        "odd:\n  mov.u32 r2, 3\n"
        "outer_join:\n" STORE("r2") "  exit\n", 64, out);
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t want = t < 8 ? 11 : t < 16 ? 12 : (t & 1) ? 3 : 4;
        cr_expect_eq(out[t], want, "thread %u: %u", t, out[t]);
    }
}

Test(simt, loop_with_per_lane_trip_counts)
{
    uint32_t out[48];
    EmuLaunchStats st = run(".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  mov.u32 r2, 0\n  mov.u32 r3, 0\n"
        "loop:\n  add.u32 r2, r2, r3\n  add.u32 r3, r3, 1\n"
        "  set.le.u32 r1, r3, r0\n  brc r1, loop, done\n"
        "done:\n" STORE("r2") "  exit\n", 48, out);
    for (uint32_t t = 0; t < 48; t++)
        cr_expect_eq(out[t], t * (t + 1) / 2, "thread %u: %u", t, out[t]);
    /* warp 0 iterates 32 times, warp 1 48 times: 4 instructions per iteration, 3 before
     * the loop, 6 after */
    cr_expect_eq(st.warp_instructions, (3 + 32 * 4 + 6) + (3 + 48 * 4 + 6));
}

Test(simt, exit_inside_loop)
{
    uint32_t out[64];
    run(".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  mov.u32 r2, 0\n  mov.u32 r3, 0\n  and.u32 r5, r0, 1\n"
        "loop:\n  set.eq.u32 r1, r3, r0\n  and.u32 r1, r1, r5\n  brc r1, quit, end\n"
        "  add.u32 r2, r2, 1\n  add.u32 r3, r3, 1\n"
        "  set.lt.u32 r1, r3, 40\n  brc r1, loop, after\n"
        "after:\n" STORE("r2") "  exit\n"
        "quit:\n  or.u32 r2, r2, 0x1000\n" STORE("r2") "  exit\n"
        "end:\n", 64, out);
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t want = (t & 1) && t < 40 ? (t | 0x1000) : 40;
        cr_expect_eq(out[t], want, "thread %u: 0x%x", t, out[t]);
    }
}

Test(simt, early_exit_then_reconverge)
{
    /* lanes >= 20 leave before the if/else; the survivors still reconverge */
    uint32_t out[32];
    run(".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  set.ge.u32 r1, r0, 20\n  brc r1, leave, go\n"
        "go:\n  and.u32 r1, r0, 2\n  brc r1, b, join\n  mov.u32 r2, 5\n  bra join\n"
        "b:\n  mov.u32 r2, 6\n"
        "join:\n  add.u32 r2, r2, 1\n" STORE("r2") "  exit\n"
        "leave:\n  exit\n", 32, out);
    for (uint32_t t = 0; t < 32; t++)
        cr_expect_eq(out[t], t >= 20 ? 0xdead : (t & 2) ? 7 : 6, "thread %u: 0x%x", t, out[t]);
}

Test(simt, uniform_branch_does_not_split)
{
    /* the lanes disagree, but .uni makes all follow lane 0 (condition 0: fall through) */
    const char *fmt = ".kernel k\n.param 8\n"
        "  s2r r0, %%tid.x\n  and.u32 r1, r0, 1\n  brc%s r1, odd, join\n"
        "  mov.u32 r2, 1\n  bra join\n"
        "odd:\n  mov.u32 r2, 2\n"
        "join:\n" STORE("r2") "  exit\n";
    char src[1024];
    uint32_t out[32];
    snprintf(src, sizeof src, fmt, ".uni");
    EmuLaunchStats uni = run(src, 32, out);
    for (uint32_t t = 0; t < 32; t++)
        cr_expect_eq(out[t], 1, "thread %u", t);
    snprintf(src, sizeof src, fmt, "");
    EmuLaunchStats div = run(src, 32, out);
    for (uint32_t t = 0; t < 32; t++)
        cr_expect_eq(out[t], t & 1 ? 2 : 1, "thread %u", t);
    /* uniform: 3 + mov, bra + 6; divergent also runs the other path's mov */
    cr_expect_eq(uni.warp_instructions, 11);
    cr_expect_eq(div.warp_instructions, 12);
    cr_expect_eq(uni.thread_instructions, 11 * 32);
    cr_expect_eq(div.thread_instructions, 3 * 32 + 2 * 16 + 16 + 6 * 32);
}
