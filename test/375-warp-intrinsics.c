/*
 * 375-warp-intrinsics.c - shfl (every mode, full warp and 8/16-lane segments, divergent
 * lanes, the validity result), vote (ballot/any/all/uni, under divergence and with a
 * member mask), actmask inside a branch, prmt (selection and sign replication) and
 * barred (popc/and/or across several warps, with exited threads).
 */
#include <stdint.h>
#include "300-emu-util.h"

/* Runs src (kernel k, one pointer parameter) on n threads of one CTA; out receives
 * `words` words of the buffer, which starts filled with 0xdead. */
static void run_cta(const char *src, uint32_t n, uint32_t *out, size_t words)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, words * 4, &buf), EMU_OK);
    for (size_t i = 0; i < words; i++)
        out[i] = 0xdead;
    emu_copy_to_device(d, buf, out, words * 4);
    EmuFault f;
    EmuStatus s = t_launch(d, m, "k", DIM(1, 1, 1), DIM(n, 1, 1), &buf, 8, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s\n%s", emu_status_name(s), f.message, src);
    emu_copy_from_device(d, out, buf, words * 4);
    emu_destroy(d);
}

/* Reference lane arithmetic of PTX shfl.sync, written from the PTX manual. */
static uint32_t ref_shfl(unsigned mode, uint32_t lane, uint32_t b, uint32_t c, int *ok)
{
    uint32_t seg = (c >> 8) & 31, clamp = c & 31;
    uint32_t max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
    int64_t j;
    b &= 31;
    if (mode == XSHFL_UP) {
        j = (int64_t)lane - b;
        *ok = j >= (int64_t)max_lane;
    } else {
        j = mode == XSHFL_IDX ? (int64_t)(min_lane | (b & ~seg))
            : mode == XSHFL_DOWN ? (int64_t)lane + b : (int64_t)(lane ^ b);
        *ok = j <= (int64_t)max_lane;
    }
    return *ok ? (uint32_t)j : lane;
}

/* value(tid) = 10 * tid + 1; the shfl's d0 and d1 go to buf[2 tid], buf[2 tid + 1].
 * `guard` may branch lanes away before the shfl (they skip to `join`). */
static const char *shfl_fmt =
    ".kernel k\n.param 8\n"
    "  s2r r0, %%tid.x\n  mul.u32 r4, r0, 10\n  add.u32 r4, r4, 1\n"
    "  mov.u32 r8, %u\n  mov.u32 r9, %u\n  mov.u32 r6, 0xdead\n  mov.u32 r7, 0xdead\n"
    "%s"
    "  shfl.%s r6, r7, r4, r8, r9, 0xffffffff\n"
    "join:\n  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 3\n  ld.param.u64 r12, [0]\n"
    "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r6\n  st.global.u32 [r12+4], r7\n  exit\n";

static void check_shfl(unsigned mode, uint32_t b, uint32_t c, int odd_only)
{
    char src[1024];
    uint32_t out[2 * 64];
    const char *guard = odd_only ? "  and.u32 r1, r0, 1\n  brc.not r1, join, join\n" : "";
    snprintf(src, sizeof src, shfl_fmt, b, c, guard, xisa_shfl_names[mode]);
    run_cta(src, 64, out, 2 * 64);
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t lane = t % 32;
        if (odd_only && !(lane & 1)) {
            cr_expect_eq(out[2 * t], 0xdead, "inactive lane %u written", t);
            continue;
        }
        int ok;
        uint32_t j = ref_shfl(mode, lane, b, c, &ok);
        uint32_t want = 10 * (t - lane + j) + 1; /* inactive sources keep their value */
        cr_expect_eq(out[2 * t], want, "shfl.%s b=%u c=0x%x lane %u: %u, want %u",
                     xisa_shfl_names[mode], b, c, t, out[2 * t], want);
        cr_expect_eq(out[2 * t + 1], (uint32_t)ok, "shfl.%s b=%u c=0x%x lane %u: valid %u",
                     xisa_shfl_names[mode], b, c, t, out[2 * t + 1]);
    }
}

Test(shfl, full_warp)
{
    check_shfl(XSHFL_IDX, 5, 0x1f, 0);
    check_shfl(XSHFL_IDX, 37, 0x1f, 0); /* lane index taken mod 32 */
    check_shfl(XSHFL_UP, 3, 0, 0);
    check_shfl(XSHFL_DOWN, 1, 0x1f, 0);
    check_shfl(XSHFL_DOWN, 16, 0x1f, 0);
    check_shfl(XSHFL_BFLY, 6, 0x1f, 0);
    /* a few fixed points of the arithmetic */
    int ok;
    cr_assert_eq(ref_shfl(XSHFL_DOWN, 30, 4, 0x1f, &ok), 30);
    cr_assert(!ok);
    cr_assert_eq(ref_shfl(XSHFL_UP, 2, 3, 0, &ok), 2);
    cr_assert(!ok);
}

Test(shfl, segments_of_8_and_16)
{
    for (uint32_t width = 8; width <= 16; width *= 2) {
        uint32_t seg = (32 - width) << 8;
        check_shfl(XSHFL_IDX, 3, seg | 0x1f, 0);
        check_shfl(XSHFL_UP, 2, seg, 0);
        check_shfl(XSHFL_DOWN, 2, seg | 0x1f, 0);
        check_shfl(XSHFL_BFLY, 4, seg | 0x1f, 0);
    }
    /* width 8, down 2: lane 6 is valid (source 8 is outside its segment) -> not valid */
    int ok;
    cr_assert_eq(ref_shfl(XSHFL_DOWN, 6, 2, (24 << 8) | 0x1f, &ok), 6);
    cr_assert(!ok);
    cr_assert_eq(ref_shfl(XSHFL_IDX, 13, 3, (24 << 8) | 0x1f, &ok), 11);
}

Test(shfl, divergent_lanes_read_inactive_registers)
{
    check_shfl(XSHFL_DOWN, 1, 0x1f, 1); /* odd lanes read even (inactive) lanes */
    check_shfl(XSHFL_BFLY, 1, 0x1f, 1);
    check_shfl(XSHFL_IDX, 0, 0x1f, 1);
}

Test(shfl, destination_may_be_the_source)
{
    /* shfl.bfly r4, rz, r4, ...: all lanes read before any writes */
    uint32_t out[32];
    run_cta(".kernel k\n.param 8\n  s2r r0, %tid.x\n  mov.u32 r4, r0\n  mov.u32 r8, 1\n"
            "  mov.u32 r9, 31\n  shfl.bfly r4, rz, r4, r8, r9, 0xffffffff\n"
            "  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 2\n  ld.param.u64 r12, [0]\n"
            "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r4\n  exit\n", 32, out, 32);
    for (uint32_t l = 0; l < 32; l++)
        cr_expect_eq(out[l], l ^ 1, "lane %u: %u", l, out[l]);
}

/* Each thread stores vote.<mode> of (tid % 3 == 0) with member mask `mask` (threads
 * below `active` take part; the others skip it). */
static void run_vote(const char *mode, uint32_t nthreads, uint32_t active, const char *mask,
                     uint32_t *out)
{
    char src[1024];
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n  s2r r0, %%tid.x\n  mov.u32 r6, 0xdead\n"
             "  set.ge.u32 r1, r0, %u\n  brc r1, join, join\n"
             "  rem.u32 r2, r0, 3\n  set.eq.u32 r3, r2, 0\n  vote.%s r6, r3, %s\n"
             "join:\n  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 2\n  ld.param.u64 r12, [0]\n"
             "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r6\n  exit\n",
             active, mode, mask);
    run_cta(src, nthreads, out, nthreads);
}

Test(vote, modes_under_divergence)
{
    uint32_t out[64];
    uint32_t full = 0, part = 0; /* predicate bits of warp 0 for 32 and 20 active lanes */
    for (uint32_t l = 0; l < 32; l += 3)
        full |= 1u << l;
    part = full & 0xfffff;
    run_vote("ballot", 64, 64, "0xffffffff", out);
    cr_expect_eq(out[0], full, "0x%x", out[0]);
    /* warp 1: tids 32..63, predicate for tid % 3 == 0: lanes 1, 4, 7, ... */
    cr_expect_eq(out[40], full << 1, "0x%x", out[40]);
    run_vote("ballot", 64, 20, "0xffffffff", out);
    cr_expect_eq(out[5], part, "only active lanes vote: 0x%x", out[5]);
    cr_expect_eq(out[25], 0xdead);
    run_vote("ballot", 64, 64, "0x0000ff00", out);
    cr_expect_eq(out[0], full & 0xff00, "member mask: 0x%x", out[0]);
    run_vote("any", 32, 32, "0xffffffff", out);
    cr_expect_eq(out[7], 1);
    run_vote("any", 32, 32, "0x6", out); /* lanes 1 and 2 are false */
    cr_expect_eq(out[7], 0);
    run_vote("all", 32, 32, "0xffffffff", out);
    cr_expect_eq(out[0], 0);
    run_vote("all", 32, 32, "0x249", out); /* lanes 0, 3, 6, 9: all true */
    cr_expect_eq(out[0], 1);
    run_vote("all", 32, 1, "0xffffffff", out); /* only lane 0 active, and true */
    cr_expect_eq(out[0], 1);
    run_vote("uni", 32, 32, "0xffffffff", out);
    cr_expect_eq(out[0], 0);
    run_vote("uni", 32, 32, "0x6", out); /* all false agrees */
    cr_expect_eq(out[0], 1);
    /* the mask may come from a register too */
    char src[1024];
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n  s2r r0, %%tid.x\n  mov.u32 r5, 0xf0\n"
             "  vote.ballot r6, r5, r5\n  ld.param.u64 r12, [0]\n  st.global.u32 [r12], r6\n"
             "  exit\n");
    run_cta(src, 32, out, 1);
    cr_expect_eq(out[0], 0xf0);
}

Test(actmask, inside_a_branch)
{
    uint32_t out[40];
    run_cta(".kernel k\n.param 8\n  s2r r0, %tid.x\n  and.u32 r1, r0, 1\n"
            "  brc r1, odd, join\n  actmask r6\n  bra join\nodd:\n  actmask r6\n"
            "join:\n  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 2\n  ld.param.u64 r12, [0]\n"
            "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r6\n  exit\n", 40, out, 40);
    cr_expect_eq(out[0], 0x55555555u, "0x%x", out[0]);
    cr_expect_eq(out[1], 0xaaaaaaaau, "0x%x", out[1]);
    cr_expect_eq(out[32], 0x55u, "partial warp: 0x%x", out[32]);
    cr_expect_eq(out[39], 0xaau, "0x%x", out[39]);
}

Test(prmt, selection_and_sign_replication)
{
    static const struct { uint32_t a, b, sel, want; } cases[] = {
        {0x44332211, 0x88776655, 0x3210, 0x44332211},
        {0x44332211, 0x88776655, 0x7654, 0x88776655},
        {0x44332211, 0x88776655, 0x0123, 0x11223344},
        {0x44332211, 0x88776655, 0x5140, 0x66225511},
        {0x44332281, 0x88776655, 0x0c48, 0x810055ffu},
        {0x44332281, 0x88776655, 0xf888, 0xffffffffu}, /* byte 7 = 0x88 is negative */
        {0x11, 0, 0x8880, 0x00000011},
        {0x44332211, 0x88776655, 0x10000, 0x11111111}, /* only the low 4 nibbles count */
    };
    EmuDevice *d = t_dev();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = t_eval(d, "  mov.u32 r2, %u\n  mov.u32 r3, %u\n  mov.u32 r4, %u\n"
                               "  prmt r10, r2, r3, r4\n  prmt r11, r2, r3, %u\n",
                            cases[i].a, cases[i].b, cases[i].sel, cases[i].sel);
        cr_expect_eq((uint32_t)v, cases[i].want, "case %zu: 0x%x", i, (uint32_t)v);
        cr_expect_eq((uint32_t)(v >> 32), cases[i].want, "case %zu (imm): 0x%x", i,
                     (uint32_t)(v >> 32));
    }
    emu_destroy(d);
}

/* 100 threads (4 warps, the last partial); threads >= `alive` exit first; each thread
 * stores barred.<op> of its predicate `pred` (an instruction computing r3 from r0). */
static void run_barred(const char *op, const char *pred, uint32_t alive, uint32_t *out)
{
    char src[1024];
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n  s2r r0, %%tid.x\n  set.ge.u32 r1, r0, %u\n"
             "  brc r1, quit, quit\n  %s\n  barred.%s r6, r3\n"
             "  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 2\n  ld.param.u64 r12, [0]\n"
             "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r6\n  exit\nquit:\n  exit\n",
             alive, pred, op);
    run_cta(src, 100, out, 100);
}

Test(barred, reductions_across_warps)
{
    uint32_t out[100];
    run_barred("popc", "rem.u32 r2, r0, 3\n  set.eq.u32 r3, r2, 0", 100, out);
    for (int t = 0; t < 100; t++)
        cr_expect_eq(out[t], 34, "thread %d: %u", t, out[t]);
    run_barred("popc", "rem.u32 r2, r0, 3\n  set.eq.u32 r3, r2, 0", 90, out);
    cr_expect_eq(out[0], 30, "exited threads do not count: %u", out[0]);
    cr_expect_eq(out[89], 30);
    cr_expect_eq(out[95], 0xdead);
    run_barred("and", "set.lt.u32 r3, r0, 1000", 100, out);
    cr_expect_eq(out[0], 1);
    cr_expect_eq(out[99], 1);
    run_barred("and", "set.ne.u32 r3, r0, 57", 100, out);
    cr_expect_eq(out[0], 0);
    cr_expect_eq(out[70], 0);
    run_barred("and", "set.ne.u32 r3, r0, 97", 90, out); /* 97 exited */
    cr_expect_eq(out[3], 1);
    run_barred("or", "set.eq.u32 r3, r0, 57", 100, out);
    cr_expect_eq(out[0], 1);
    cr_expect_eq(out[99], 1);
    run_barred("or", "set.eq.u32 r3, r0, 500", 100, out);
    cr_expect_eq(out[31], 0);
    /* the predicate is any non-zero value */
    run_barred("popc", "mov.u32 r3, r0", 100, out);
    cr_expect_eq(out[0], 99);
}

Test(barred, also_synchronizes)
{
    /* warp 3 stores to shared before barred; warp 0 reads it after */
    uint32_t out[128];
    run_cta(".kernel k\n.param 8\n.shared 4\n  s2r r0, %tid.x\n  set.eq.u32 r1, r0, 127\n"
            "  brc.not r1, sync, sync\n  mov.u32 r2, 77\n  st.shared.u32 [0], r2\n"
            "sync:\n  barred.or r6, r1, 0\n  ld.shared.u32 r7, [0]\n  add.u32 r7, r7, r6\n"
            "  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 2\n  ld.param.u64 r12, [0]\n"
            "  add.u64 r12, r12, r10\n  st.global.u32 [r12], r7\n  exit\n", 128, out, 128);
    cr_expect_eq(out[0], 78, "%u", out[0]);
    cr_expect_eq(out[127], 78);
}
