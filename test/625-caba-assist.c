/*
 * 625-caba-assist.c - CABA's assist warps on the SM (core.assist = caba, caba.mode = caba;
 * docs/caba.md), with small assembled kernels on a one-SM gtx480-like device and the
 * built-in assist routines in the module's .xgpu.assist section:
 *   - a compressed line that reaches the SM starts its decompression routine, and the
 *     parent's load completes the cycle after the routine's last result: against the same
 *     line under hw with no decompression latency (the same bytes on the crossbar, so the
 *     same arrival), the load is late by exactly the routine's wait plus one;
 *   - a store's line is held, compressed by a low-priority assist warp and crosses
 *     compressed; with caba.pending lines taken, the next crosses uncompressed and the L2
 *     keeps it so;
 *   - throttling holds compressions back while the program uses the issue slots;
 *   - what is refused: core.assist without caba.mode, a module without the section.
 */
#include "400-timing-util.h"
#include "config/config.h"
#include "xgpu/assist.h"

#define ONE "gpu.sm_count=1;l2.slices=1;dram.channels=1;gpu.clock_khz=1000000;" \
            "dram.clock_khz=1000000;mem.transform=caba;caba.assist_check=true"
#define CABA ONE ";caba.mode=caba;core.assist=caba"
#define HW0 ONE ";caba.mode=hw;caba.latency_bdi=0"

/* Assembles src and loads it with the built-in assist routines (as xgpu-cc embeds them),
 * or without them. */
static EmuModule *load_with(EmuDevice *d, const char *src, int assist)
{
    XGpubin *g = NULL;
    EmuModule *m = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(src, &g, err, sizeof err), 0, "assemble: %s", err);
    uint32_t n = 0;
    const XAssist *a = xgpu_assist_builtin(&n);
    if (assist)
        g->assist = (XAssist *)a, g->nassist = n;
    EmuStatus s = emu_load_module(d, g, &m, err, sizeof err);
    cr_assert_eq(s, EMU_OK, "load: %s", err);
    g->assist = NULL, g->nassist = 0; /* the table is static */
    xgpubin_free(g);
    return m;
}

typedef struct Run {
    EmuDevice *d;
    EmuStatus status;
    EmuFault fault;
    uint32_t out[64];
} Run;

/* Runs kernel k of src (one CTA of `threads`) with parameter 0 a buffer of 64 KiB whose
 * bytes past 4 KiB are `fill`; out gets its first 64 words. */
static void run(Run *r, const char *set, const char *src, unsigned threads, uint8_t fill,
                int assist)
{
    memset(r, 0, sizeof *r);
    r->d = tm_dev(set);
    EmuModule *m = load_with(r->d, src, assist);
    uint64_t buf;
    cr_assert_eq(emu_malloc(r->d, 65536, &buf), EMU_OK);
    cr_assert_eq(emu_memset(r->d, buf, 0, 4096), EMU_OK);
    cr_assert_eq(emu_memset(r->d, buf + 4096, fill, 65536 - 4096), EMU_OK);
    int k = emu_kernel(m, "k");
    cr_assert_geq(k, 0);
    r->status = emu_launch(r->d, m, k, DIM(1, 1, 1), DIM(threads, 1, 1), 0, &buf, 8, NULL,
                           &r->fault);
    cr_assert_eq(emu_copy_from_device(r->d, r->out, buf, sizeof r->out), EMU_OK);
}

static void done(Run *r)
{
    emu_destroy(r->d);
}

static uint64_t ctr(const Run *r, const char *name)
{
    uint64_t v = 0;
    cr_assert_eq(emu_launch_counter(r->d, emu_launch_count(r->d) - 1, name, &v), EMU_OK,
                 "counter %s", name);
    return v;
}

/* One warp loads a word each of the line at 4096 (zeros: BDI's zero encoding, one byte),
 * between two clock reads, and uses it. */
#define LOAD_SRC                                                                           \
    ".kernel k\n.param 8\n"                                                                \
    "  ld.param.u64 r40, [0]\n  s2r r2, %tid.x\n  shl.u32 r2, r2, 2\n"                     \
    "  cvt.u64.u32 r4, r2\n  add.u64 r4, r4, r40\n  add.u32 rz, r4, r40\n"                 \
    "  s2r r0, %clock\n  ld.global.u32 r8, [r4+4096]\n  add.u32 r9, r8, 1\n"               \
    "  s2r r1, %clock\n"                                                                   \
    "  st.global.u32 [r4], r1\n  st.global.u32 [r4+128], r0\n  exit\n"

Test(caba_assist, the_load_completes_the_cycle_after_its_decompression_ends)
{
    Run hw, aw;
    run(&hw, HW0, LOAD_SRC, 32, 0, 1);
    cr_assert_eq(hw.status, EMU_OK, "%s", hw.fault.message);
    uint32_t plain = hw.out[0] - hw.out[32];
    cr_expect_eq(ctr(&hw, "caba.xbar_compressed"), 1, "hw: the line crossed compressed");
    run(&aw, CABA, LOAD_SRC, 32, 0, 1);
    cr_assert_eq(aw.status, EMU_OK, "%s", aw.fault.message);
    uint32_t assisted = aw.out[0] - aw.out[32];
    uint64_t wait = ctr(&aw, "caba.assist_wait_cycles");
    cr_expect_eq(ctr(&aw, "caba.xbar_compressed"), 1);
    cr_expect_eq(ctr(&aw, "caba.assist_decompressions"), 1);
    /* BDI's zeros: the 17 warp instructions docs/caba.md counts for a 128-byte line */
    cr_expect_eq(ctr(&aw, "caba.assist_insns_high"), 17);
    cr_expect_eq(ctr(&aw, "caba.assist_mismatches"), 0);
    cr_expect_geq(wait, 17, "at least one cycle per instruction");
    cr_expect_eq(assisted, plain + wait + 1,
                 "hw %u cycles, caba %u, decompression %llu: the load completes the cycle "
                 "after the routine's last result", plain, assisted, (unsigned long long)wait);
    /* every high-priority instruction took an issue slot from the program */
    cr_expect_eq(ctr(&aw, "stall.assist"), 17);
    done(&hw);
    done(&aw);
}

Test(caba_assist, every_codec_decodes_on_the_sm)
{
    /* small integers in every word: BDI, FPC and C-Pack all pack them */
    static const char *const algos[] = {"bdi", "fpc", "cpack", "best"};
    for (int a = 0; a < 4; a++) {
        char set[256];
        snprintf(set, sizeof set, CABA ";caba.algo=%s", algos[a]);
        Run r;
        run(&r, set, LOAD_SRC, 32, 3, 1);
        cr_assert_eq(r.status, EMU_OK, "%s: %s", algos[a], r.fault.message);
        cr_expect_eq(ctr(&r, "caba.assist_decompressions"), 1, "%s", algos[a]);
        cr_expect_gt(ctr(&r, "caba.assist_insns_high"), 17, "%s", algos[a]);
        cr_expect_eq(ctr(&r, "caba.assist_mismatches"), 0, "%s", algos[a]);
        done(&r);
    }
}

/* Warp w stores word tid of line 4096 + 128 * w (each warp its own line), `extra` times
 * after a loop of independent adds that keeps the issue slots busy. */
#define STORE_SRC(spin)                                                                    \
    ".kernel k\n.param 8\n"                                                                \
    "  ld.param.u64 r40, [0]\n  s2r r2, %tid.x\n  shl.u32 r3, r2, 2\n"                     \
    "  cvt.u64.u32 r4, r3\n  add.u64 r4, r4, r40\n  and.u32 r20, r2, 7\n"                  \
    "  st.global.u32 [r4+4096], r20\n  mov.u32 r10, " #spin "\n"                           \
    "LOOP:\n  add.u32 r11, r11, 1\n  add.u32 r12, r12, 1\n  add.u32 r13, r13, 1\n"          \
    "  sub.u32 r10, r10, 1\n  set.ne.u32 r14, r10, 0\n  brc r14, LOOP, END\nEND:\n  exit\n"

Test(caba_assist, a_stored_line_is_compressed_and_crosses_compressed)
{
    Run r;
    run(&r, CABA, STORE_SRC(1), 64, 0, 1);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(ctr(&r, "caba.assist_held"), 2, "two warps, two lines");
    cr_expect_eq(ctr(&r, "caba.assist_compressions"), 2);
    cr_expect_eq(ctr(&r, "caba.assist_packed"), 2, "0..7 repeated: BDI packs it");
    cr_expect_eq(ctr(&r, "caba.assist_overflows"), 0);
    cr_expect_eq(ctr(&r, "caba.plain_writes"), 0, "both crossed compressed");
    cr_expect_gt(ctr(&r, "caba.assist_insns_low"), 2 * 100);
    cr_expect_eq(ctr(&r, "caba.assist_mismatches"), 0);
    done(&r);
}

Test(caba_assist, a_store_past_the_pending_lines_crosses_uncompressed)
{
    Run r;
    run(&r, CABA ";caba.pending=1", STORE_SRC(1), 64, 0, 1);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(ctr(&r, "caba.assist_held"), 1);
    cr_expect_eq(ctr(&r, "caba.assist_overflows"), 1);
    cr_expect_eq(ctr(&r, "caba.assist_packed"), 1);
    cr_expect_eq(ctr(&r, "caba.plain_writes"), 1, "the L2 took one line uncompressed");
    done(&r);
}

/* One warp stores its line (held for compression), then issues a block of 32 independent
 * moves between two clock reads, then stores the clocks (out[0], out[1]). */
static const char *busy_src(char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n,
        ".kernel k\n.param 8\n  ld.param.u64 r40, [0]\n  s2r r2, %%tid.x\n  shl.u32 r3, r2, 2\n"
        "  cvt.u64.u32 r4, r3\n  add.u64 r4, r4, r40\n  and.u32 r20, r2, 7\n"
        "  st.global.u32 [r4+4096], r20\n  add.u32 rz, r4, r20\n  s2r r0, %%clock\n");
    for (unsigned i = 0; i < 32 && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "  mov.u32 r%u, %u\n", 100 + i, i);
    snprintf(buf + k, n - k, "  s2r r1, %%clock\n  set.eq.u32 r5, r2, 0\n  brc r5, W, E\n"
             "W:\n  st.global.u32 [r40], r0\n  st.global.u32 [r40+4], r1\nE:\n  exit\n");
    return buf;
}

Test(caba_assist, compressions_issue_only_in_slots_the_program_leaves_idle)
{
    /* the moves issue one a cycle: a compression running beside them takes none of their
     * slots, so they take exactly as long as with no assist warp at all */
    char src[4096];
    busy_src(src, sizeof src);
    Run hw, aw;
    run(&hw, HW0, src, 32, 0, 1);
    run(&aw, CABA, src, 32, 0, 1);
    cr_assert_eq(hw.status, EMU_OK, "%s", hw.fault.message);
    cr_assert_eq(aw.status, EMU_OK, "%s", aw.fault.message);
    cr_expect_eq(hw.out[1] - hw.out[0], 33, "the moves issue back to back: %u",
                 hw.out[1] - hw.out[0]);
    cr_expect_eq(aw.out[1] - aw.out[0], hw.out[1] - hw.out[0], "caba %u, hw %u",
                 aw.out[1] - aw.out[0], hw.out[1] - hw.out[0]);
    /* the line; then the clocks' line twice: the second store finds the first's
     * compression already started, so it cannot join it */
    cr_expect_eq(ctr(&aw, "caba.assist_compressions"), 3);
    cr_expect_gt(ctr(&aw, "caba.assist_insns_low"), 100, "the compression ran");
    cr_expect_eq(ctr(&aw, "stall.assist"), 0, "no slot was taken from the program");
    done(&hw);
    done(&aw);
}

Test(caba_assist, compressions_wait_while_the_program_uses_the_issue_slots)
{
    /* throttle 0: a window in which the program issued at all holds compressions back,
     * so they run only once the warps have left; 100: never held */
    Run held, free_;
    run(&held, CABA ";caba.throttle=0;caba.throttle_window=64", STORE_SRC(200), 64, 0, 1);
    cr_assert_eq(held.status, EMU_OK, "%s", held.fault.message);
    cr_expect_gt(ctr(&held, "caba.assist_throttled"), 0);
    cr_expect_eq(ctr(&held, "caba.assist_packed"), 2, "they ran in the end");
    run(&free_, CABA ";caba.throttle=100;caba.throttle_window=64", STORE_SRC(200), 64, 0, 1);
    cr_assert_eq(free_.status, EMU_OK, "%s", free_.fault.message);
    cr_expect_eq(ctr(&free_, "caba.assist_throttled"), 0);
    cr_expect_eq(ctr(&free_, "caba.assist_packed"), 2);
    /* held back, they finish after the program: the launch is longer */
    cr_expect_gt(emu_launch_stats(held.d, 0)->cycles, emu_launch_stats(free_.d, 0)->cycles,
                 "held %llu, free %llu cycles; low insns %llu / %llu",
                 (unsigned long long)emu_launch_stats(held.d, 0)->cycles,
                 (unsigned long long)emu_launch_stats(free_.d, 0)->cycles,
                 (unsigned long long)ctr(&held, "caba.assist_insns_low"),
                 (unsigned long long)ctr(&free_, "caba.assist_insns_low"));
    done(&held);
    done(&free_);
}

Test(caba_assist, the_same_statistics_with_and_without_idle_skipping)
{
    Run a, b;
    run(&a, CABA, STORE_SRC(50), 64, 0, 1);
    run(&b, CABA ";emu.skip_idle=false", STORE_SRC(50), 64, 0, 1);
    cr_assert_eq(a.status, EMU_OK);
    cr_assert_eq(b.status, EMU_OK);
    static const char *const names[] = {"core.issued", "stall.assist", "caba.assist_insns_low",
                                        "caba.assist_throttled", "dram.bytes", "l2.writes"};
    cr_expect_eq(emu_launch_stats(a.d, 0)->cycles, emu_launch_stats(b.d, 0)->cycles);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        cr_expect_eq(ctr(&a, names[i]), ctr(&b, names[i]), "%s", names[i]);
    done(&a);
    done(&b);
}

Test(caba_assist, a_module_without_its_routines_is_refused_by_name)
{
    Run r;
    run(&r, CABA, LOAD_SRC, 32, 0, 0);
    cr_expect_neq(r.status, EMU_OK);
    cr_expect(strstr(r.fault.message, ".xgpu.assist") != NULL, "%s", r.fault.message);
    done(&r);
}

/* caba.mode = caba alone selects the assist slot (and the transform); the assist slot
 * set against the mode is refused. */
Test(caba_assist, the_keys_go_together)
{
    EmuConfig c;
    char msg[256] = "";
    cr_assert_eq(emu_config_from(&c, NULL, "caba.mode=caba", msg, sizeof msg), 0, "%s", msg);
    cr_expect_str_eq(c.core_assist, "caba");
    cr_expect_str_eq(c.mem_transform, "caba");
    static const char *const bad[] = {
        ONE ";caba.mode=caba;core.assist=none",
        ONE ";caba.mode=hw;core.assist=caba",
        "core.assist=caba",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("XGPU_MODE", "timing", 1);
        setenv("XGPU_SET", bad[i], 1);
        EmuDevice *d = NULL;
        char err[256] = "";
        cr_expect_neq(emu_create(&d, err, sizeof err), EMU_OK, "%s accepted", bad[i]);
        cr_expect(strstr(err, "core.assist") || strstr(err, "caba.mode"), "%s: %s", bad[i],
                  err);
        if (d)
            emu_destroy(d);
    }
}
