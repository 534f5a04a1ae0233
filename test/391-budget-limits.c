/*
 * 391-budget-limits.c - limits that keep a launch from running or allocating without
 * bound: the per-mode "auto" instruction budget (emu.max_warp_insns), its message, a
 * 2^31-1-block grid that the budget stops like a loop, the 512 KiB per-thread limit of
 * local memory, the progress line forced with XGPU_PROGRESS=1 when stderr is not a
 * terminal, and the functional mode's interleaving of resident warps (emu.quantum), which
 * shares the budget's checkpoint.
 */
#include <stdint.h>
#include <stdlib.h>
#include "300-emu-util.h"
#include "xtest.h"
#include "../emulator/config/config.h" /* emu_config_budget: the resolution of "auto" */

static EmuDevice *dev_with(const char *set, const char *mode)
{
    setenv("XGPU_SET", set, 1);
    setenv("XGPU_MODE", mode, 1);
    EmuDevice *d = t_dev();
    unsetenv("XGPU_SET");
    return d;
}

Test(budget_auto, resolves_per_mode)
{
    EmuConfig c;
    char err[256];
    emu_config_defaults(&c);
    cr_expect_eq(c.emu_max_warp_insns, EMU_CFG_AUTO, "the default is auto");
    c.emu_mode = EMU_MODE_FUNCTIONAL;
    cr_expect_eq(emu_config_budget(&c), 1000000000ull);
    c.emu_mode = EMU_MODE_TIMING;
    cr_expect_eq(emu_config_budget(&c), 100000000ull);
    cr_assert_eq(emu_config_set(&c, "emu.max_warp_insns", "0", err, sizeof err), 0);
    cr_expect_eq(emu_config_budget(&c), UINT64_MAX, "0 is unlimited");
    cr_assert_eq(emu_config_set(&c, "emu.max_warp_insns", "12345", err, sizeof err), 0);
    cr_expect_eq(emu_config_budget(&c), 12345);
    char buf[32];
    emu_config_format(&c, emu_config_key("emu.max_warp_insns"), buf, sizeof buf);
    cr_expect_str_eq(buf, "12345");
    cr_assert_eq(emu_config_set(&c, "emu.max_warp_insns", "auto", err, sizeof err), 0);
    emu_config_format(&c, emu_config_key("emu.max_warp_insns"), buf, sizeof buf);
    cr_expect_str_eq(buf, "auto");
    cr_expect_neq(emu_config_set(&c, "emu.max_warp_insns", "soon", err, sizeof err), 0);
    cr_expect(strstr(err, "emu.max_warp_insns") && strstr(err, "auto"), "%s", err);
}

/* The message names the kernel, the key, its value and how to raise it. */
static void expect_timeout(const char *mode, EmuDim3 grid, const char *src, uint64_t budget);
static void expect_timeout(const char *mode, EmuDim3 grid, const char *src, uint64_t budget)
{
    char set[64];
    snprintf(set, sizeof set, "emu.max_warp_insns=%llu", (unsigned long long)budget);
    EmuDevice *d = dev_with(set, mode);
    EmuModule *m = t_load(d, src);
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, grid, DIM(32, 1, 1), 0, NULL, 0, &st, &f);
    cr_assert_eq(s, EMU_ERR_LAUNCH_TIMEOUT, "%s: %s", mode, emu_status_name(s));
    cr_expect_eq(st.warp_instructions, budget, "%s", mode);
    char want[160];
    snprintf(want, sizeof want, "kernel k exceeded emu.max_warp_insns = %llu warp instructions; "
             "raise it with --set emu.max_warp_insns=", (unsigned long long)budget);
    cr_expect(strstr(f.message, want) != NULL, "%s: %s", mode, f.message);
    emu_destroy(d);
}

Test(budget_auto, runaway_loop_message)
{
    const char *spin = ".kernel k\nloop:\n  nop\n  bra loop\n  exit\n";
    expect_timeout("functional", DIM(1, 1, 1), spin, 100000);
    expect_timeout("timing", DIM(1, 1, 1), spin, 20000);
}

Test(budget_auto, huge_grid_of_a_tiny_kernel_counts_too)
{
    const char *tiny = ".kernel k\n  exit\n";
    expect_timeout("functional", DIM(0x7fffffff, 1, 1), tiny, 3000000);
    expect_timeout("timing", DIM(0x7fffffff, 1, 1), tiny, 300000);
}

Test(local_limit, beyond_512_kib_per_thread_is_refused)
{
    EmuDevice *d = dev_with("", "functional");
    EmuModule *m = t_load(d, ".kernel big\n.local 524304\n  exit\n");
    EmuFault f;
    EmuLaunchStats st;
    EmuStatus s = emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1024, 1, 1), 0, NULL, 0, &st, &f);
    cr_expect_eq(s, EMU_ERR_OUT_OF_RESOURCES, "%s", emu_status_name(s));
    cr_expect(strstr(f.message, "kernel big needs 524304 bytes of local memory per thread") &&
                  strstr(f.message, "524288"), "%s", f.message);
    cr_expect_eq(emu_launch_count(d), 0, "refused before running");
    emu_destroy(d);
}

/* 512 KiB frames for 1024 threads: each CTA clears only what the last one touched. Every
 * thread stores its id at offset 0x7fff0 and loads it back; the next CTA must see zero
 * first (the check reads offset 0x7fff0 before the store). */
Test(local_limit, the_limit_itself_runs_and_frames_start_zeroed)
{
    const char *modes[] = {"functional", "timing"};
    for (int i = 0; i < 2; i++) {
        EmuDevice *d = dev_with("", modes[i]);
        EmuModule *m = t_load(d,
            ".kernel k\n.param 8\n.local 524288\n  s2r r0, %tid.x\n  mov.u64 r2, 0x7fff0\n"
            "  ld.local.u32 r4, [r2]\n  add.u32 r5, r0, 1\n  st.local.u32 [r2], r5\n"
            "  ld.param.u64 r6, [0]\n  atom.add.u32 r8, [r6], r4\n  exit\n");
        uint64_t sum;
        uint32_t v = 1;
        cr_assert_eq(emu_malloc(d, 4, &sum), EMU_OK);
        emu_memset(d, sum, 0, 4);
        EmuFault f;
        EmuStatus s = emu_launch(d, m, 0, DIM(4, 1, 1), DIM(1024, 1, 1), 0, &sum, 8, NULL, &f);
        cr_expect_eq(s, EMU_OK, "%s: %s: %s", modes[i], emu_status_name(s), f.message);
        emu_copy_from_device(d, &v, sum, 4);
        cr_expect_eq(v, 0, "%s: a frame held a previous CTA's value", modes[i]);
        emu_destroy(d);
    }
}

/* --- the progress line ------------------------------------------------------------------ */

Test(progress, xgpu_progress_values)
{
    const char *ok[] = {"1", "0", "yes", "always", "never", "auto"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        setenv("XGPU_PROGRESS", ok[i], 1);
        EmuDevice *d = dev_with("", "functional");
        emu_destroy(d);
    }
    setenv("XGPU_PROGRESS", "loud", 1);
    setenv("XGPU_MODE", "functional", 1);
    EmuDevice *d = NULL;
    char err[256] = "";
    cr_expect_eq(emu_create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "XGPU_PROGRESS") != NULL, "%s", err);
    unsetenv("XGPU_PROGRESS");
}

/* A spin with stderr in a pipe and emu.progress_after = 0, so the line does not depend on
 * the host's speed: XGPU_PROGRESS=1 prints whole lines (no \r; without it, as before,
 * nothing: stderr is not a terminal). */
static void expect_progress(const char *mode, const char *budget)
{
    const char *exe = xt_compile_e2e("emu_runaway", "");
    char *out = NULL;
    xt_runf(&out,
            "XGPU_PROGRESS=1 XGPU_MODE=%s XGPU_SET='emu.max_warp_insns=%s;emu.progress_after=0' "
            "%s spin 2>&1", mode, budget, exe);
    cr_expect(strstr(out, "xgpu: _Z4spinPViPi: ") != NULL, "%s: %s", mode, out);
    cr_expect(strstr(out, " warp insns, 0 of 1 CTAs done, ") != NULL, "%s: %s", mode, out);
    cr_expect(strchr(out, '\r') == NULL, "%s: \\r in a log", mode);
    cr_expect(strstr(out, "exceeded emu.max_warp_insns") != NULL, "%s: %s", mode, out);
    free(out);
}

Test(progress, forced_lines_when_stderr_is_not_a_terminal)
{
    expect_progress("functional", "150000000");
}

Test(progress, forced_lines_in_timing_mode)
{
    expect_progress("timing", "15000000");
}

/* --- interleaving (emu.quantum) ----------------------------------------------------- */

static char *races(const char *mode, const char *set, const char *which)
{
    static const char *exe;
    if (!exe)
        exe = xt_compile_e2e("emu_races", "");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=%s XGPU_SET='%s' %s %s 2>&1", mode, set, exe, which);
    cr_expect_eq(rc, 0, "%s %s %s: %s", mode, set, which, out);
    return out;
}

static void expect_races(const char *mode, const char *set, const char *inc, const char *peek)
{
    char *a = races(mode, set, "inc"), *b = races(mode, set, "peek");
    cr_expect(strstr(a, inc) != NULL, "%s %s: %s", mode, set, a);
    cr_expect(strstr(b, peek) != NULL, "%s %s: %s", mode, set, b);
    free(a);
    free(b);
}

Test(quantum, racy_programs_interleave_like_timing_mode)
{
    /* inc: every warp loads x[0] before any stores it (16 when they all interleave) */
    expect_races("timing", "", "inc: 16\n", "peek: 512\n");
    expect_races("functional", "emu.quantum=16", "inc: 16\n", "peek: 512\n");
    expect_races("functional", "emu.quantum=1", "inc: 16\n", "peek: 512\n");
    expect_races("functional", "", "inc: 16\n", "peek: 512\n"); /* the default, 16 */
    /* 0: one CTA at a time, each warp until it blocks: 8 warps add 16 each */
    expect_races("functional", "emu.quantum=0", "inc: 128\n", "peek: 256\n");
}

/* Every thread of 4 CTAs of 64 increments a counter 5 times without an atomic (the lanes
 * of a warp store the same value) and adds its %clock to a second one: the result depends
 * on the interleaving, and must be the same every run. */
static const char *race_src =
    ".kernel k\n.param 8\n  ld.param.u64 r2, [0]\n  mov.u32 r4, 0\n"
    "loop:\n  ld.global.u32 r6, [r2]\n  add.u32 r6, r6, 1\n  st.global.u32 [r2], r6\n"
    "  add.u32 r4, r4, 1\n  set.lt.u32 r7, r4, 5\n  brc r7, loop, done\n"
    "done:\n  s2r r8, %clock\n  atom.global.add.u32 r9, [r2+4], r8\n  exit\n";

static void race_once(const char *set, uint32_t out[2], uint64_t *insns)
{
    EmuDevice *d = dev_with(set, "functional");
    EmuModule *m = t_load(d, race_src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, 8, &buf), EMU_OK);
    emu_memset(d, buf, 0, 8);
    EmuLaunchStats st;
    cr_assert_eq(emu_launch(d, m, 0, DIM(4, 1, 1), DIM(64, 1, 1), 0, &buf, 8, &st, NULL), EMU_OK);
    emu_copy_from_device(d, out, buf, 8);
    *insns = st.warp_instructions;
    emu_destroy(d);
}

Test(quantum, deterministic_and_budget_exact)
{
    const char *sets[] = {"emu.quantum=1", "emu.quantum=3", "emu.quantum=16", "emu.quantum=0"};
    uint32_t first0 = 0;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        uint32_t a[2], b[2];
        uint64_t ia, ib;
        race_once(sets[i], a, &ia);
        race_once(sets[i], b, &ib);
        cr_expect(a[0] == b[0] && a[1] == b[1] && ia == ib, "%s: %u/%u vs %u/%u", sets[i], a[0],
                  a[1], b[0], b[1]);
        if (i == 0)
            first0 = a[0];
        if (i == 3)
            cr_expect_eq(a[0], 40, "quantum 0: 4 CTAs x 2 warps x 5 turns in a row: %u",
                         a[0]);
    }
    cr_expect_lt(first0, 40, "quantum 1 interleaves the warps: %u", first0);
    /* the budget still stops at exactly its count when warps take turns */
    expect_timeout("functional", DIM(3, 1, 1), ".kernel k\nloop:\n  nop\n  bra loop\n  exit\n",
                   12345);
}
