/*
 * 395-reuse-profile.c - the emulator's reuse profiler (emu_reuse_profile_start/write):
 * exact near/far counts on a hand-written loop, the warp quota, and the same profile in
 * functional and timing mode.
 */
#include <stdio.h>
#include "300-emu-util.h"
#include "xtest.h"

/* One loop of 3 iterations:
 *   0 mov r1, 0          r1 read at 1 (distance 1): near
 *   1 add r1, r1, 1      source dies here (overwritten): far; result read at 2: near
 *   2 set.lt r2, r1, 3   r1 read at 1 of the next iteration (distance 2): near, except
 *                        after the last iteration: never read again: far; r2 read at 3
 *   3 brc r2, L1, L4     r2 overwritten at 2 next iteration before a read: far
 *   4 exit */
static const char *loop_src = ".kernel k\n"
                              "  mov.u32 r1, 0\n"
                              "L1:\n"
                              "  add.u32 r1, r1, 1\n"
                              "  set.lt.u32 r2, r1, 3\n"
                              "  brc r2, L1, L4\n"
                              "L4:\n"
                              "  exit\n";

/* Counts of (pc, slot) in the profile at path: near in n[pc*8+slot][0], far in [1]. */
static void read_counts(const char *path, unsigned n[5 * 8][2], unsigned *warps)
{
    char *text = xt_read(path, NULL);
    cr_assert_not_null(text, "no profile written");
    cr_assert(strncmp(text, "xgpu-reuse-profile 1\nrthld 12\nkernel k ", 39) == 0, "%s", text);
    memset(n, 0, sizeof(unsigned[5 * 8][2]));
    const char *line = strchr(strstr(text, "kernel k "), '\n') + 1;
    unsigned long long h;
    unsigned insns;
    cr_assert_eq(sscanf(strstr(text, "kernel k "), "kernel k %llx %u %u", &h, &insns, warps), 3);
    cr_expect_eq(insns, 5);
    unsigned pc, slot, nn, ff;
    for (; sscanf(line, "%u %u %u %u", &pc, &slot, &nn, &ff) == 4; line = strchr(line, '\n') + 1) {
        cr_assert(pc < 5 && slot < 8);
        n[pc * 8 + slot][0] = nn, n[pc * 8 + slot][1] = ff;
    }
    free(text);
}

static void profile(const char *mode, const char *set, EmuDim3 grid, const char *path,
                    unsigned n[5 * 8][2], unsigned *warps)
{
    setenv("XGPU_MODE", mode, 1);
    setenv("XGPU_SET", set, 1);
    EmuDevice *d = t_dev();
    cr_assert_eq(emu_reuse_profile_start(d, path), EMU_OK);
    EmuModule *m = t_load(d, loop_src);
    EmuFault f;
    cr_assert_eq(t_launch(d, m, "k", grid, DIM(32, 1, 1), NULL, 0, &f), EMU_OK, "%s", f.message);
    char err[256];
    cr_assert_eq(emu_reuse_profile_write(d, err, sizeof err), 0, "%s", err);
    emu_destroy(d);
    unsetenv("XGPU_SET");
    read_counts(path, n, warps);
}

Test(reuse_profile, exact_counts_on_a_loop)
{
    unsigned n[5 * 8][2], warps;
    profile("functional", "emu.reuse_profile_warps=1", DIM(1, 1, 1), xt_tmp("p1.txt"), n,
            &warps);
    cr_expect_eq(warps, 1);
    cr_expect_eq(n[0 * 8 + 6][0], 1, "mov result: near once");
    cr_expect_eq(n[1 * 8 + 0][1], 3, "add source: far (overwritten) in 3 iterations");
    cr_expect_eq(n[1 * 8 + 6][0], 3, "add result: read by set");
    cr_expect_eq(n[2 * 8 + 0][0], 2, "set source r1: near in the next iteration, twice");
    cr_expect_eq(n[2 * 8 + 0][1], 1, "... and never read after the last");
    cr_expect_eq(n[2 * 8 + 6][0], 3, "set result: read by brc");
    cr_expect_eq(n[3 * 8 + 0][1], 3, "brc source: overwritten or unused");
    cr_expect_eq(n[4 * 8 + 0][0] + n[4 * 8 + 0][1], 0, "exit reads nothing");
}

Test(reuse_profile, quota_and_modes_agree)
{
    unsigned a[5 * 8][2], b[5 * 8][2], wa, wb;
    /* 100 warps: the automatic quota is 2 */
    profile("functional", "emu.reuse_profile_warps=0", DIM(100, 1, 1), xt_tmp("p2.txt"), a,
            &wa);
    profile("timing", "emu.reuse_profile_warps=0", DIM(100, 1, 1), xt_tmp("p3.txt"), b, &wb);
    cr_expect_eq(wa, 2);
    cr_expect_eq(wb, 2);
    cr_expect_eq(memcmp(a, b, sizeof a), 0, "the same warps give the same counts");
    cr_expect_eq(a[1 * 8 + 6][0], 6, "two warps x three iterations");
}
