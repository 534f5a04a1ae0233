/*
 * 606-baseline-rf-timing.c - the register caches Memento is compared against, on
 * hand-assembled kernels: BOW bypasses a source read or written within its window of
 * instructions and no further (rf.bow_window), and forwards results; the rfc cache
 * allocates results only; swrfc allocates near results only; swrfc
 * yields the active set at a consumer of a global load but not of a shared one, and not
 * at a loop header; the two-level state distribution covers every issue slot exactly.
 */
#include "600-rf-util.h"

#define BOW TM_BASE "rf.collector=bow;"
#define RFC TM_BASE "core.sched=rfc;"
#define SWRFC TM_BASE "core.sched=swrfc;"

static char set_buf[512];
static const char *with(const char *base, const char *extra)
{
    snprintf(set_buf, sizeof set_buf, "%s%s", base, extra);
    return set_buf;
}

Test(bow_timing, sources_in_the_window_bypass_the_banks)
{
    const char *one = "  add.u32 r2, r3, r7\n";
    const char *two = "  add.u32 r2, r3, r7\n  add.u32 r5, r3, r7\n";
    Res a = measure(BOW, one, NULL, 0), b = measure(BOW, two, NULL, 0);
    cr_expect_eq(b.hits, a.hits + 2, "r3 and r7 one instruction back");
    cr_expect_eq(b.reads, a.reads, "so no bank read");
    cr_expect_eq(a.reads, a.misses, "every miss is one bank read");
    /* r3, r7 three instructions back: outside a window of 3, inside one of 4 */
    const char *far = "  add.u32 r2, r3, r7\n  add.u32 r8, r9, 1\n  add.u32 r10, r9, 1\n"
                      "  add.u32 r5, r3, r7\n";
    Res w3 = measure(BOW, far, NULL, 0);
    Res w4 = measure(with(BOW, "rf.bow_window=4"), far, NULL, 0);
    cr_expect_eq(w4.hits, w3.hits + 2, "window 4 reaches back 3 instructions (%llu vs %llu)",
                 (unsigned long long)w4.hits, (unsigned long long)w3.hits);
    Res w1 = measure(with(BOW, "rf.bow_window=1"), far, NULL, 0);
    cr_expect_eq(w1.hits, 0, "window 1 keeps nothing between instructions");
}

Test(bow_timing, results_are_forwarded_into_the_window)
{
    const char *use = "  add.u32 r2, r3, r7\n  add.u32 r5, r2, r4\n";
    const char *none = "  add.u32 r2, r3, r7\n  add.u32 r5, r6, r4\n";
    Res u = measure(BOW, use, NULL, 0), n = measure(BOW, none, NULL, 0);
    cr_expect_eq(u.hits, n.hits + 1, "r2 comes from the collector");
    cr_expect_eq(u.reads + 1, n.reads);
    cr_expect_geq(u.writes, 1, "the result was forwarded");
    /* reuse bits play no part in BOW */
    const uint8_t far[] = {0};
    Res f = measure(BOW, use, far, 1);
    cr_expect_eq(f.hits, u.hits);
}

Test(rfc_timing, results_are_cached_reads_are_not)
{
    const char *reread = "  add.u32 r2, r3, r7\n  add.u32 r5, r3, r7\n";
    const char *one = "  add.u32 r2, r3, r7\n";
    Res a = measure(RFC, one, NULL, 0), b = measure(RFC, reread, NULL, 0);
    cr_expect_eq(b.hits, a.hits, "a source read from the banks is not allocated");
    cr_expect_eq(b.reads, a.reads + 2);
    const char *use = "  add.u32 r2, r3, r7\n  add.u32 r5, r2, r4\n";
    const char *none = "  add.u32 r2, r3, r7\n  add.u32 r5, r6, r4\n";
    Res u = measure(RFC, use, NULL, 0), n = measure(RFC, none, NULL, 0);
    cr_expect_eq(u.hits, n.hits + 1, "the result r2 is");
    cr_expect_eq(u.reads + 1, n.reads);
}

Test(rfc_timing, swrfc_caches_near_results_only)
{
    const char *use = "  add.u32 r2, r3, r7\n  add.u32 r5, r2, r4\n";
    const uint8_t near[] = {XREUSE_DST(0)}, far[] = {0};
    Res n = measure(SWRFC, use, near, 1), f = measure(SWRFC, use, far, 1);
    cr_expect_eq(n.hits, f.hits + 1, "the near r2 is in the operand register file");
    cr_expect_eq(n.writes, f.writes + 1);
    Res hn = measure(RFC, use, near, 1), hf = measure(RFC, use, far, 1);
    cr_expect_eq(hn.hits, hf.hits, "the hardware cache ignores the bits");
}

/* Two warps on one sub-core with one active place: the counters of interest. */
typedef struct Tl {
    uint64_t yields, demotions, issued, pending_ready, none_ready, slots;
} Tl;

static Tl two_warps(const char *sched, const char *body)
{
    char src[2048], set[256];
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n.shared 256\n"
             "  ld.param.u64 r40, [0]\n  s2r r3, %%tid.x\n  shl.u32 r4, r3, 2\n"
             "  cvt.u64.u32 r6, r4\n  add.u64 r6, r6, r40\n%s"
             "  st.global.u32 [r6], r8\n  exit\n",
             body);
    snprintf(set, sizeof set, TM_BASE "core.subcores=1;core.sched_active=1;core.sched=%s",
             sched);
    TmRun r;
    tm_run(&r, set, src, DIM(1, 1, 1), DIM(64, 1, 1), 64);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    Tl t = {tm_ctr(&r, "twolevel.strand_yields"), tm_ctr(&r, "twolevel.demotions"),
            tm_ctr(&r, "twolevel.issued"),        tm_ctr(&r, "twolevel.pending_ready"),
            tm_ctr(&r, "twolevel.none_ready"),    tm_ctr(&r, "core.subcore_cycles")};
    if (strcmp(sched, "gto") != 0)
        cr_expect_eq(t.issued, tm_ctr(&r, "core.issued"), "%s", sched);
    tm_done(&r);
    return t;
}

static const char *global_use =
    "  ld.global.u32 r8, [r6]\n  add.u32 r8, r8, 1\n";
static const char *shared_use =
    "  st.shared.u32 [r4], r3\n  ld.shared.u32 r8, [r4]\n  add.u32 r8, r8, 1\n";
static const char *loop =
    "  mov.u32 r8, 0\nloop:\n  add.u32 r8, r8, 1\n  set.lt.u32 r9, r8, 8\n"
    "  brc r9, loop, after\nafter:\n";

Test(rfc_timing, swrfc_yields_at_long_latency_consumers)
{
    Tl g = two_warps("swrfc", global_use);
    cr_expect_geq(g.yields, 1, "the add reads the global load's result");
    Tl s = two_warps("swrfc", shared_use);
    cr_expect_eq(s.yields, 0, "a shared load is not long-latency");
    Tl l = two_warps("swrfc", loop);
    cr_expect_eq(l.yields, 0, "a loop header drops the values but keeps the warp");
    Tl h = two_warps("rfc", global_use);
    cr_expect_eq(h.yields, 0, "rfc has no strands");
}

Test(rfc_timing, state_distribution_covers_every_issue_slot)
{
    const char *scheds[] = {"rfc", "swrfc", "two-level"};
    for (size_t i = 0; i < 3; i++) {
        Tl t = two_warps(scheds[i], global_use);
        cr_expect_eq(t.issued + t.pending_ready + t.none_ready, t.slots, "%s", scheds[i]);
        cr_expect_gt(t.demotions + t.yields, 0, "%s: the load's consumer leaves the set",
                     scheds[i]);
    }
    Tl g = two_warps("gto", global_use);
    cr_expect_eq(g.issued + g.pending_ready + g.none_ready, 0, "gto has no active set");
    Tl sw = two_warps("swrfc", global_use);
    cr_expect_gt(sw.pending_ready, 0, "a warp that yielded with its value there waits");
}

Test(rfc_timing, baselines_reject_other_collectors)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    cr_assert_eq(emu_config_set(&c, "core.sched", "rfc", err, sizeof err), 0);
    cr_assert_eq(emu_config_set(&c, "rf.collector", "ccu", err, sizeof err), 0);
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "rf.collector: core.sched = rfc sets rf.collector = ocu") != NULL,
              "%s", err);
    emu_config_defaults(&c);
    cr_assert_eq(emu_config_set(&c, "rf.bow_window", "0", err, sizeof err), 0);
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "rf.bow_window") != NULL, "%s", err);
    emu_config_defaults(&c);
    cr_assert_eq(emu_config_set(&c, "rf.rfc_entries", "65", err, sizeof err), 0);
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "rf.rfc_entries") != NULL, "%s", err);
}
