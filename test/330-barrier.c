/*
 * 330-barrier.c - block-wide barriers: shared-memory exchange across warps, barriers in
 * loops, warps that exit before the barrier (they do not block it), and a deadlock
 * between warps waiting at different barriers.
 */
#include <stdint.h>
#include "300-emu-util.h"

static EmuStatus run(const char *src, uint32_t n, uint32_t *out, EmuFault *f)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, n * 4, &buf), EMU_OK);
    for (uint32_t i = 0; i < n; i++)
        out[i] = 0xdead;
    emu_copy_to_device(d, buf, out, n * 4);
    EmuStatus s = emu_launch(d, m, 0, DIM(1, 1, 1), DIM(n, 1, 1), 0, &buf, 8, NULL, f);
    emu_copy_from_device(d, out, buf, n * 4);
    emu_destroy(d);
    return s;
}

/* Each thread writes 3*tid to shared[tid], then reads shared[N-1-tid]. */
static const char *exchange_fmt =
    ".kernel k\n.param 8\n.shared 1024\n"
    "  s2r r0, %%tid.x\n  %s\n"
    "  shl.u32 r1, r0, 2\n  cvt.u64.u32 r2, r1\n  mul.u32 r4, r0, 3\n"
    "  st.shared.u32 [r2], r4\n  %s\n"
    "  mov.u32 r5, %u\n  sub.u32 r5, r5, r0\n  shl.u32 r5, r5, 2\n  cvt.u64.u32 r6, r5\n"
    "  ld.shared.u32 r8, [r6]\n"
    "  ld.param.u64 r10, [0]\n  add.u64 r10, r10, r2\n  st.global.u32 [r10], r8\n  exit\n"
    "leave:\n  exit\n";

Test(barrier, shared_exchange_across_warps)
{
    char src[1024];
    uint32_t out[256];
    EmuFault f;
    snprintf(src, sizeof src, exchange_fmt, "nop", "bar 0", 255u);
    cr_assert_eq(run(src, 256, out, &f), EMU_OK, "%s", f.message);
    for (uint32_t t = 0; t < 256; t++)
        cr_expect_eq(out[t], 3 * (255 - t), "thread %u: %u", t, out[t]);
    /* without the barrier warp 0 reads slots warp 7 has not written yet */
    snprintf(src, sizeof src, exchange_fmt, "nop", "nop", 255u);
    cr_assert_eq(run(src, 256, out, &f), EMU_OK);
    cr_expect_eq(out[0], 0);
}

Test(barrier, exited_warps_do_not_block)
{
    /* threads >= 100 exit first (warps 4..7 entirely, warp 3 partly) */
    char src[1024];
    uint32_t out[256];
    EmuFault f;
    snprintf(src, sizeof src, exchange_fmt,
             "set.ge.u32 r30, r0, 100\n  brc r30, leave, end", "bar 0", 99u);
    strcat(src, "end:\n");
    cr_assert_eq(run(src, 256, out, &f), EMU_OK, "%s", f.message);
    for (uint32_t t = 0; t < 256; t++)
        cr_expect_eq(out[t], t < 100 ? 3 * (99 - t) : 0xdead, "thread %u: %u", t, out[t]);
}

Test(barrier, barrier_in_a_loop)
{
    /* 8 rounds of: s[tid] = v; bar; v = s[(tid+1) & 63] + 1; bar */
    uint32_t out[64];
    EmuFault f;
    EmuStatus s = run(
        ".kernel k\n.param 8\n.shared 256\n"
        "  s2r r0, %tid.x\n  mov.u32 r2, r0\n  mov.u32 r3, 0\n"
        "  shl.u32 r4, r0, 2\n  cvt.u64.u32 r6, r4\n"
        "  add.u32 r8, r0, 1\n  and.u32 r8, r8, 63\n  shl.u32 r8, r8, 2\n  cvt.u64.u32 r10, r8\n"
        "loop:\n  st.shared.u32 [r6], r2\n  bar 0\n  ld.shared.u32 r2, [r10]\n  add.u32 r2, r2, 1\n"
        "  bar 0\n  add.u32 r3, r3, 1\n  set.lt.u32 r1, r3, 8\n  brc.uni r1, loop, done\n"
        "done:\n  ld.param.u64 r12, [0]\n  add.u64 r12, r12, r6\n  st.global.u32 [r12], r2\n"
        "  exit\n", 64, out, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    for (uint32_t t = 0; t < 64; t++)
        cr_expect_eq(out[t], ((t + 8) & 63) + 8, "thread %u: %u", t, out[t]);
}

Test(barrier, different_barriers_deadlock)
{
    uint32_t out[64];
    EmuFault f;
    EmuStatus s = run(".kernel k\n.param 8\n"
                      "  s2r r0, %warpid\n  brc r0, other, join\n  bar 0\n  bra join\n"
                      "other:\n  bar 1\n"
                      "join:\n  exit\n", 64, out, &f);
    cr_expect_eq(s, EMU_ERR_DEADLOCK, "%s", emu_status_name(s));
    cr_expect_eq(f.status, EMU_ERR_DEADLOCK);
    cr_expect(strstr(f.message, "barrier") != NULL, "%s", f.message);
}
