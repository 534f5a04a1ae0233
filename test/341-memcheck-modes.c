/*
 * 341-memcheck-modes.c - emu.memcheck = on | warn | off, the spaces named in memory
 * fault reports, and printf's missing arguments.
 *
 * on ends the launch at the first invalid access; warn (the default) and off let it
 * through (reads return 0, writes are dropped, the launch succeeds) and count it in the
 * statistics; warn also reports the first one when the launch ends, compute-sanitizer
 * style, once per launch and the same in timing mode whatever emu.threads, with a
 * summary line and how to make it an error; misaligned accesses fault in every mode. Faults name the space the address
 * resolved to (EmuFault.space/access/size, and the words of the message the runtime's
 * report is built from), local faults say below or above the thread's frame. The
 * end-to-end cases run test/e2e/emu_memcheck.cu through xgpu-cc and the runtime.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "300-emu-util.h"
#include <criterion/redirect.h>
#include "xtest.h"

static EmuDevice *dev_with(const char *set, const char *mode)
{
    setenv("XGPU_SET", set, 1);
    setenv("XGPU_MODE", mode, 1);
    EmuDevice *d = t_dev();
    unsetenv("XGPU_SET");
    return d;
}

/* Every lane loads buf[lane - 16] (lanes 0..15: 64 bytes below the first allocation),
 * adds 1000 and stores it to out[lane]; then stores 7 to shared offset 256 + lane * 4
 * (outside the 64-byte window) and reads it back into out[32 + lane]. */
static const char *halo_src =
    ".kernel halo\n.param 8\n.param 8\n.shared 64\n"
    "  s2r r0, %tid.x\n  ld.param.u64 r2, [0]\n  ld.param.u64 r4, [8]\n"
    "  shl.u32 r6, r0, 2\n  cvt.u64.u32 r8, r6\n  add.u64 r10, r2, r8\n"
    "  ld.global.u32 r12, [r10-64]\n  add.u32 r12, r12, 1000\n"
    "  add.u64 r14, r4, r8\n  st.global.u32 [r14], r12\n"
    "  mov.u32 r16, 7\n  st.shared.u32 [r8+256], r16\n  ld.shared.u32 r17, [r8+256]\n"
    "  st.global.u32 [r14+128], r17\n  exit\n";

typedef struct Halo {
    EmuStatus s;
    EmuFault f;
    EmuLaunchStats st;
    uint32_t out[64];
} Halo;

static Halo run_halo(EmuDevice *d)
{
    Halo h;
    memset(&h, 0, sizeof h);
    EmuModule *m = t_load(d, halo_src);
    uint64_t p[2];
    uint32_t in[16];
    for (int i = 0; i < 16; i++)
        in[i] = (uint32_t)i;
    cr_assert_eq(emu_malloc(d, sizeof in, &p[0]), EMU_OK); /* the first allocation */
    cr_assert_eq(emu_malloc(d, sizeof h.out, &p[1]), EMU_OK);
    cr_assert_eq(p[0], XGPU_GLOBAL_BASE);
    emu_copy_to_device(d, p[0], in, sizeof in);
    memset(h.out, 0xee, sizeof h.out);
    emu_copy_to_device(d, p[1], h.out, sizeof h.out);
    h.s = emu_launch(d, m, 0, DIM(1, 1, 1), DIM(32, 1, 1), 0, p, 16, &h.st, &h.f);
    emu_copy_from_device(d, h.out, p[1], sizeof h.out);
    return h;
}

Test(memcheck_modes, on_faults)
{
    EmuDevice *d = dev_with("emu.memcheck=on", "functional");
    Halo h = run_halo(d);
    cr_expect_eq(h.s, EMU_ERR_ILLEGAL_ADDRESS, "%s", emu_status_name(h.s));
    cr_expect_eq(h.f.thread.x, 0);
    cr_expect_eq(h.f.address, XGPU_GLOBAL_BASE - 64);
    cr_expect_eq(h.f.space, EMU_SPACE_GLOBAL);
    cr_expect_eq(h.f.access, EMU_ACCESS_READ);
    cr_expect_eq(h.f.size, 4);
    cr_expect(strstr(h.f.message, "64 bytes before [0x1000000000") != NULL, "%s", h.f.message);
    cr_expect_eq(h.st.invalid_accesses, 0);
    char title[128];
    cr_expect_str_eq(emu_fault_title(&h.f, title, sizeof title),
                     "Invalid __global__ read of size 4 bytes");
    emu_destroy(d);
}

static void expect_let_through(const char *memcheck, const char *mode)
{
    char set[64];
    snprintf(set, sizeof set, "emu.memcheck=%s", memcheck);
    EmuDevice *d = dev_with(set, mode);
    Halo h = run_halo(d);
    cr_assert_eq(h.s, EMU_OK, "%s %s: %s: %s", memcheck, mode, emu_status_name(h.s),
                 h.f.message);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t want = l < 16 ? 1000 : 1000 + (l - 16);
        cr_expect_eq(h.out[l], want, "%s %s: lane %u: %u", memcheck, mode, l, h.out[l]);
        cr_expect_eq(h.out[32 + l], 0, "%s %s: dropped shared store read back %u", memcheck,
                     mode, h.out[32 + l]);
    }
    /* 16 global loads, 32 shared stores, 32 shared loads */
    cr_expect_eq(h.st.invalid_accesses, 80, "%s %s: %llu", memcheck, mode,
                 (unsigned long long)h.st.invalid_accesses);
    const EmuLaunchStats *log = emu_launch_stats(d, 0);
    cr_expect_eq(log->invalid_accesses, 80);
    emu_destroy(d);
}

Test(memcheck_modes, warn_and_off_read_zero_and_drop_writes, .init = cr_redirect_stderr)
{
    expect_let_through("warn", "functional");
    expect_let_through("off", "functional");
    expect_let_through("warn", "timing");
    expect_let_through("off", "timing");
}

/* stderr goes to a file (capture), which stderr_text reads whole. */
static char stderr_path[512];

static void capture(void)
{
    snprintf(stderr_path, sizeof stderr_path, "%s", xt_tmp("stderr.txt"));
    fflush(stderr);
    int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_geq(dup2(fd, 2), 0);
    close(fd);
}

static char *stderr_text(void)
{
    fflush(stderr);
    char *text = xt_read(stderr_path, NULL);
    cr_assert_not_null(text);
    return text;
}

/* The default lets the halo through, and tells once per launch, when it ends: the first
 * access (lane 0's load below the allocation, at pc 6), how many more, and that
 * emu.memcheck = on makes them an error. */
Test(memcheck_modes, warn_is_the_default_and_reports_once_per_launch, .init = capture)
{
    const char *modes[] = {"functional", "timing"};
    for (int i = 0; i < 4; i++) { /* two launches in each mode */
        EmuDevice *d = dev_with("", modes[i / 2]);
        Halo h = run_halo(d);
        cr_assert_eq(h.s, EMU_OK, "%s: %s", modes[i / 2], h.f.message);
        cr_expect_eq(h.out[0], 1000);
        cr_expect_eq(h.st.invalid_accesses, 80, "%s", modes[i / 2]);
        emu_destroy(d);
    }
    char *text = stderr_text();
    cr_expect_eq(xt_count(text, "========= Warning: Invalid __global__ read of size 4 bytes\n"
                                "=========     at halo+pc 6\n"
                                "=========     by thread (0,0,0) in block (0,0,0)\n"
                                "=========     Address 0xfffffffc0: load of 4 bytes at "
                                "0xfffffffc0 outside any allocation (64 bytes before "
                                "[0x1000000000, +64)) (emu.memcheck = warn: the load reads 0)\n"
                                "========= Warning: 79 more invalid accesses in kernel halo"),
                 4, "two launches in each mode, one report each:\n%s", text);
    cr_expect_eq(xt_count(text, "emu.memcheck = on makes an invalid access an error"), 4, "%s",
                 text);
    free(text);
}

/* Timing mode: each SM keeps its first invalid access and the launch reports the
 * earliest, so the SMs tick on several host threads and the report is the same on one. */
Test(memcheck_modes, timing_report_does_not_depend_on_threads, .init = capture)
{
    /* every lane of every CTA loads 64 bytes below the allocation; every CTA but CTA 1
     * loops 400 times first, so CTA 1's access (on its own SM) is the launch's first */
    const char *src =
        ".kernel k\n.param 8\n  ld.param.u64 r2, [0]\n  s2r r0, %ctaid.x\n"
        "  set.eq.u32 r1, r0, 1\n  mov.u32 r7, 400\n  mov.u32 r6, 0\n  sel.u32 r7, r6, r7, r1\n"
        "loop:\n  set.ne.u32 r4, r7, 0\n  add.u32 r7, r7, -1\n  brc r4, loop, done\n"
        "done:\n  ld.global.u32 r5, [r2-64]\n  exit\n";
    char *first = NULL;
    const char *sets[] = {"emu.threads=1", "emu.threads=2"};
    for (int i = 0; i < 2; i++) {
        setenv("XGPU_SET", sets[i], 1);
        setenv("XGPU_MODE", "timing", 1);
        EmuDevice *d = t_dev();
        unsetenv("XGPU_SET");
        EmuModule *m = t_load(d, src);
        uint64_t buf;
        cr_assert_eq(emu_malloc(d, 64, &buf), EMU_OK);
        EmuLaunchStats st;
        cr_assert_eq(emu_launch(d, m, 0, DIM(4, 1, 1), DIM(64, 1, 1), 0, &buf, 8, &st, NULL),
                     EMU_OK);
        cr_expect_eq(st.invalid_accesses, 256);
        emu_destroy(d);
        char *text = stderr_text();
        if (!first) {
            first = text;
            continue;
        }
        cr_expect_str_eq(text + strlen(first), first, "one thread, then two");
        free(text);
    }
    cr_expect(strstr(first, "in block (1,0,0)") != NULL, "%s", first);
    cr_expect(strstr(first, "255 more invalid accesses") != NULL, "%s", first);
    free(first);
}

Test(memcheck_modes, invalid_accesses_in_the_stats_json)
{
    EmuDevice *d = dev_with("emu.memcheck=off", "functional");
    run_halo(d);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(emu_write_stats_json(d, f), 0);
    fclose(f);
    cr_expect(strstr(text, "\"invalid_accesses\":80") || strstr(text, "\"invalid_accesses\": 80"),
              "%s", text);
    cr_expect(strstr(text, "\"emu.memcheck\":\"off\"") || strstr(text, "\"emu.memcheck\": \"off\""),
              "%s", text);
    free(text);
    emu_destroy(d);
}

Test(memcheck_modes, misaligned_faults_in_every_mode)
{
    const char *src = ".kernel k\n.param 8\n  ld.param.u64 r2, [0]\n  ld.global.u32 r4, [r2+2]\n"
                      "  exit\n";
    const char *modes[] = {"emu.memcheck=warn", "emu.memcheck=off"};
    for (int i = 0; i < 2; i++) {
        EmuDevice *d = dev_with(modes[i], "functional");
        EmuModule *m = t_load(d, src);
        uint64_t buf;
        EmuFault f;
        cr_assert_eq(emu_malloc(d, 64, &buf), EMU_OK);
        cr_expect_eq(t_launch(d, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), &buf, 8, &f),
                     EMU_ERR_MISALIGNED, "%s", modes[i]);
        emu_destroy(d);
    }
}

/* --- spaces in fault reports -------------------------------------------------------- */

static EmuFault fault_of(const char *body, uint32_t local)
{
    char src[1024];
    snprintf(src, sizeof src, ".kernel k\n.shared 256\n.local %u\n%s  exit\n", local, body);
    EmuDevice *d = dev_with("emu.memcheck=on", "functional");
    EmuModule *m = t_load(d, src);
    EmuFault f;
    cr_expect_neq(t_launch(d, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), NULL, 0, &f), EMU_OK, "%s",
                  body);
    emu_destroy(d);
    return f;
}

Test(memcheck_spaces, each_fault_names_its_space)
{
    char t[128];
    /* a misaligned shared load: *(int *)(s + 2) */
    EmuFault f = fault_of("  mov.u64 r2, 2\n  ld.shared.u32 r4, [r2]\n", 0);
    cr_expect_eq(f.status, EMU_ERR_MISALIGNED);
    cr_expect_eq(f.space, EMU_SPACE_SHARED);
    cr_expect_eq(f.address, 2);
    cr_expect(strstr(f.message, "shared offset 0x2") != NULL, "%s", f.message);
    cr_expect_str_eq(emu_fault_title(&f, t, sizeof t), "Invalid __shared__ read of size 4 bytes");
    /* the same through a generic address */
    f = fault_of("  mov.u64 r2, 0xfe0000000002\n  ld.u32 r4, [r2]\n", 0);
    cr_expect_eq(f.space, EMU_SPACE_SHARED);
    cr_expect(strstr(f.message, "shared offset 0x2") != NULL, "%s", f.message);
    /* a generic store 12 bytes below the thread's local frame: p[-3] */
    f = fault_of("  mov.u64 r2, 0xfcfffffffff4\n  st.u32 [r2], r0\n", 64);
    cr_expect_eq(f.status, EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect_eq(f.space, EMU_SPACE_LOCAL);
    cr_expect_eq(f.access, EMU_ACCESS_WRITE);
    cr_expect(strstr(f.message, "12 bytes below the thread's 64-byte local frame") != NULL, "%s",
              f.message);
    cr_expect_str_eq(emu_fault_title(&f, t, sizeof t), "Invalid __local__ write of size 4 bytes");
    /* above the frame, in local space */
    f = fault_of("  mov.u64 r2, 64\n  ld.local.u64 r4, [r2]\n", 64);
    cr_expect_eq(f.space, EMU_SPACE_LOCAL);
    cr_expect(strstr(f.message, "above the end of the thread's 64-byte local frame") != NULL,
              "%s", f.message);
    /* a negative shared offset */
    f = fault_of("  mov.u64 r2, -8\n  st.shared.u32 [r2], r0\n", 0);
    cr_expect_eq(f.space, EMU_SPACE_SHARED);
    cr_expect(strstr(f.message, "8 bytes below the 256-byte shared window") != NULL, "%s",
              f.message);
    /* an atomic on a generic local address */
    f = fault_of("  mov.u64 r2, 0xfd0000000000\n  atom.add.u32 r4, [r2], r0\n", 64);
    cr_expect_eq(f.space, EMU_SPACE_LOCAL);
    cr_expect_eq(f.access, EMU_ACCESS_ATOMIC);
    /* global stays global */
    f = fault_of("  mov.u64 r2, 0x10\n  ld.global.u32 r4, [r2]\n", 0);
    cr_expect_eq(f.space, EMU_SPACE_GLOBAL);
    cr_expect(strstr(f.message, "shared") == NULL && strstr(f.message, "local") == NULL, "%s",
              f.message);
}

/* --- end to end: xgpu-cc, the runtime, its report ------------------------------------- */

static int run_e2e(const char *set, const char *which, char **out)
{
    static const char *exe;
    if (!exe)
        exe = xt_compile_e2e("emu_memcheck", "");
    return xt_runf(out, "XGPU_MODE=functional XGPU_SET='%s' %s %s 2>&1", set, exe, which);
}

Test(memcheck_e2e, halo_read_under_warn_completes)
{
    char *out = NULL;
    int rc = run_e2e("emu.memcheck=warn", "halo", &out);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "PASS") != NULL, "%s", out);
    cr_expect(strstr(out, "========= Warning: Invalid __global__ read of size 4 bytes") != NULL,
              "%s", out);
    cr_expect(strstr(out, "63 more invalid accesses") != NULL, "%s", out);
    free(out);
    rc = run_e2e("emu.memcheck=off", "halo", &out);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "PASS") && !strstr(out, "========="), "%s", out);
    free(out);
    rc = run_e2e("", "halo", &out);
    cr_expect_eq(rc, 0, "the default is warn: %s", out);
    cr_expect(strstr(out, "PASS") && strstr(out, "========= Warning: Invalid __global__ read"),
              "%s", out);
    free(out);
    rc = run_e2e("emu.memcheck=on", "halo", &out);
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "========= Invalid __global__ read of size 4 bytes") != NULL, "%s", out);
    cr_expect(strstr(out, "cudaErrorIllegalAddress") != NULL, "%s", out);
    free(out);
}

Test(memcheck_e2e, reports_name_shared_and_local)
{
    char *out = NULL;
    run_e2e("emu.memcheck=on", "shared", &out);
    cr_expect(strstr(out, "Invalid __shared__ read of size 4 bytes") != NULL, "%s", out);
    cr_expect(strstr(out, "Address 0x2:") != NULL, "%s", out);
    free(out);
    run_e2e("emu.memcheck=on", "local", &out);
    cr_expect(strstr(out, "Invalid __local__ write of size 4 bytes") != NULL, "%s", out);
    cr_expect(strstr(out, "12 bytes below the thread's") != NULL, "%s", out);
    cr_expect(strstr(out, "outside any allocation") == NULL, "%s", out);
    free(out);
}

Test(memcheck_e2e, printf_missing_argument_names_printf)
{
    char *out = NULL;
    int rc = run_e2e("", "printf", &out);
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "printf \"a = %d, b = %d\\n\": conversion 2 (%d) has no argument") !=
                  NULL, "%s", out);
    free(out);
}
