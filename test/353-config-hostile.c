/*
 * 353-config-hostile.c - hostile configurations: every value that passes emu_create
 * must give working launches. Timing keys that used to pass creation and then fail every
 * launch are refused at creation with the key and the reason; a walk over every integer
 * key of the table tries 0, 1 and the largest value, and each configuration the device
 * accepts must run a small kernel in both modes (the launch may refuse the kernel for a
 * limit of its own, never fail for the configuration). Config files: comment lines of
 * any length, long lines, NUL bytes, directories given as files or presets.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "../emulator/config/config.h"
#include "300-emu-util.h"
#include "xtest.h"

static EmuStatus create_with(const char *set, const char *mode, EmuDevice **d, char *err,
                             size_t n)
{
    setenv("XGPU_SET", set, 1);
    setenv("XGPU_MODE", mode, 1);
    *d = NULL;
    err[0] = 0;
    EmuStatus s = emu_create(d, err, n);
    unsetenv("XGPU_SET");
    return s;
}

Test(config_hostile, timing_keys_are_checked_at_creation)
{
    const char *cases[][3] = {
        {"l1.bytes=0", "l1.bytes", "at least 1"},
        {"l1.ways=3", "l1.ways", "l1.bytes / l1.line (256 lines) must be a multiple of l1.ways"},
        {"icnt.latency=0", "icnt.latency", "at least 1"},
        {"dram.queue=0", "dram.queue", "at least 1"},
        {"smem.bank_bytes=0", "smem.bank_bytes", "at least 1"},
        {"smem.bank_bytes=6", "smem.bank_bytes", "power of two"},
        {"l1.mshr_merge=0", "l1.mshr_merge", "at least 1"},
        {"dram.burst_bytes=0", "dram.burst_bytes", "at least 1"},
        {"l1.ports=0", "l1.ports", "at least 1"},
        {"core.subcores=4294967295", "core.subcores", "at most 64"},
        {"gpu.sm_count=4294967295", "gpu.sm_count", "at most 1024"},
        {"rf.collectors_per_subcore=70000", "rf.collectors_per_subcore", "at most 256"},
        {"core.max_ctas_per_sm=4294967295", "core.max_ctas_per_sm", "at most"},
        {"smem.banks=128", "smem.banks", "at most 64"},
        {"l1.sector=256", "l1.sector", "larger than l1.line"},
        {"l1.sector=8", "l1.sector", "at most 8 sectors"},
        {"l1.bytes=1000", "l1.bytes", "multiple of l1.line"},
        {"l2.sets=1048576;l2.ways=1024", "l2.sets", "at most 16777216"},
        {"dram.row_bytes=64", "dram.row_bytes", "smaller than a line"},
        {"l1.policy=mru", "l1.policy", "lru|fifo"},
        {"l2.slice_hash=crc", "l2.slice_hash", "mod|xor"},
        {"dram.scheduler=open-page", "dram.scheduler", "fr-fcfs|fcfs"},
        {"gpu.max_threads_per_sm=512", "gpu.max_threads_per_block", "exceeds"},
        {"gpu.max_threads_per_sm=96;gpu.max_threads_per_block=64", "core.subcores",
         "more than the 3 warp slots"},
        {"gpu.max_threads_per_sm=65536;gpu.max_threads_per_block=1024", "core.subcores",
         "at most 256"},
        {"unit.sfu.ii=0", "unit.sfu.ii", "at least 1"},
        {"gpu.shared_per_block=8G;gpu.shared_per_sm=8G", "gpu.shared_per_block", "shared window"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EmuDevice *d;
        char err[256];
        cr_expect_eq(create_with(cases[i][0], "timing", &d, err, sizeof err),
                     EMU_ERR_INVALID_CONFIG, "%s accepted", cases[i][0]);
        cr_expect(strncmp(err, "XGPU_SET", 8) != 0 && strstr(err, cases[i][1]) &&
                      strstr(err, cases[i][2]),
                  "%s: '%s' lacks '%s' and '%s'", cases[i][0], err, cases[i][1], cases[i][2]);
        emu_destroy(d);
    }
}

/* One thread per CTA, two CTAs, a loop of two iterations with global loads and stores, a
 * shared store and a barrier: every unit of the timing model is on the way. */
static const char *probe_src =
    ".kernel probe\n.param 8\n.shared 64\n"
    "  ld.param.u64 r2, [0]\n  mov.u32 r4, 0\n  mov.u32 r5, 0\n"
    "loop:\n  ld.global.u32 r6, [r2]\n  add.u32 r5, r5, r6\n  st.shared.u32 [0], r5\n"
    "  bar 0\n  add.u32 r4, r4, 1\n  set.lt.u32 r7, r4, 2\n  brc r7, loop, done\n"
    "done:\n  atom.global.add.u32 r8, [r2+4], r5\n  exit\n";

/* Creates a device with `set`; when it is accepted, the probe must run. */
static void probe(const char *set, const char *mode)
{
    EmuDevice *d;
    char err[256];
    if (create_with(set, mode, &d, err, sizeof err) != EMU_OK) {
        cr_expect(err[0] != 0, "%s: refused without a message", set);
        return;
    }
    EmuModule *m = t_load(d, probe_src);
    uint64_t buf;
    uint32_t init[2] = {3, 0}, got[2] = {0, 0};
    if (emu_malloc(d, 8, &buf) != EMU_OK) { /* gpu.global_mem_bytes below 8 */
        cr_expect(strstr(set, "gpu.global_mem_bytes") != NULL, "%s: emu_malloc failed", set);
        emu_destroy(d);
        return;
    }
    emu_copy_to_device(d, buf, init, 8);
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(2, 1, 1), DIM(1, 1, 1), 0, &buf, 8, NULL, &f);
    int ok = s == EMU_OK || (s == EMU_ERR_OUT_OF_RESOURCES && f.message[0]) ||
             (s == EMU_ERR_LAUNCH_TIMEOUT && strstr(set, "emu.max_warp_insns")) ||
             (s == EMU_ERR_DEADLOCK && strstr(set, "emu.stall_cycles") &&
              strstr(f.message, "no progress")); /* the watchdog at a tiny limit */
    cr_expect(ok, "%s (%s): %s: %s", set, mode, emu_status_name(s), f.message);
    if (s == EMU_OK) {
        emu_copy_from_device(d, got, buf, 8);
        cr_expect_eq(got[1], 12, "%s (%s): result %u", set, mode, got[1]);
    }
    emu_destroy(d);
}

Test(config_hostile, every_integer_key_at_its_extremes, .timeout = 300)
{
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        const EmuCfgKey *k = &emu_cfg_keys[i];
        const char *max = k->type == EMU_CFG_U32 ? "4294967295"
                          : k->type == EMU_CFG_U64 ? "18446744073709551615"
                          : k->type == EMU_CFG_U64_AUTO ? "18446744073709551614" : NULL;
        if (!max)
            continue;
        const char *values[] = {"0", "1", "2", max};
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            char set[128];
            snprintf(set, sizeof set, "%s=%s", k->key, values[v]);
            probe(set, "timing");
            probe(set, "functional");
        }
    }
}

Test(config_hostile, the_defaults_and_every_preset_pass)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    cr_expect_eq(emu_config_check(&c, err, sizeof err), 0, "%s", err);
    const char *presets[] = {"accelsim-rtx2060", "gtx480", "kepler", "maxwell", "rtx2060"};
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        emu_config_defaults(&c);
        cr_assert_eq(emu_config_load(&c, presets[i], err, sizeof err), 0, "%s", err);
        cr_expect_eq(emu_config_check(&c, err, sizeof err), 0, "%s: %s", presets[i], err);
    }
}

/* --- config files ------------------------------------------------------------------- */

/* Creates a device from XGPU_CONFIG=file; returns the status, the name in *name. */
static EmuStatus create_from(const char *file, char *err, size_t n, char *name, uint32_t *sms)
{
    setenv("XGPU_CONFIG", file, 1);
    setenv("XGPU_MODE", "functional", 1);
    EmuDevice *d = NULL;
    err[0] = 0;
    EmuStatus s = emu_create(&d, err, n);
    if (!s) {
        snprintf(name, 64, "%s", emu_props(d)->name);
        *sms = emu_props(d)->sm_count;
    }
    emu_destroy(d);
    unsetenv("XGPU_CONFIG");
    return s;
}

Test(config_files, long_comment_lines_stay_comments)
{
    /* a comment longer than any line buffer, with a key after byte 511 */
    char text[2000] = "# ";
    memset(text + 2, 'x', 600);
    strcpy(text + 602, " gpu.sm_count = 3\ngpu.name = after\n");
    const char *path = xt_tmp("comment.ini");
    xt_write(path, text);
    char err[256], name[64] = "";
    uint32_t sms = 0;
    cr_expect_eq(create_from(path, err, sizeof err, name, &sms), EMU_OK, "%s", err);
    cr_expect_eq(sms, 10, "text after byte 511 of a comment set a key");
    cr_expect_str_eq(name, "after");
}

Test(config_files, long_lines_are_read_whole)
{
    char text[2000] = "gpu.name";
    memset(text + 8, ' ', 700);
    strcpy(text + 708, "= padded");
    memset(text + 716, ' ', 700);
    strcpy(text + 1416, "  # and a comment\ngpu.sm_count = 4\n");
    const char *path = xt_tmp("long.ini");
    xt_write(path, text);
    char err[256], name[64] = "";
    uint32_t sms = 0;
    cr_expect_eq(create_from(path, err, sizeof err, name, &sms), EMU_OK, "%s", err);
    cr_expect_str_eq(name, "padded");
    cr_expect_eq(sms, 4);
}

Test(config_files, a_nul_byte_is_an_error)
{
    const char *path = xt_tmp("nul.ini");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite("gpu.sm_count = 4\ngpu.name = a\0b\n", 1, 33, f);
    fclose(f);
    char err[256], name[64];
    uint32_t sms;
    cr_expect_eq(create_from(path, err, sizeof err, name, &sms), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, ":2: NUL byte") != NULL, "%s", err);
}

Test(config_files, directories_are_refused)
{
    char err[256], name[64], dir[512];
    uint32_t sms;
    /* a path */
    cr_expect_eq(create_from(xt_tmpdir(), err, sizeof err, name, &sms), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "is a directory") != NULL, "%s", err);
    /* a *.ini that is a directory (a path by its name) */
    snprintf(dir, sizeof dir, "%s/d.ini", xt_tmpdir());
    cr_assert_eq(mkdir(dir, 0700), 0);
    cr_expect_eq(create_from("d.ini", err, sizeof err, name, &sms), EMU_ERR_INVALID_CONFIG);
    cr_expect_eq(create_from(dir, err, sizeof err, name, &sms), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "is a directory") != NULL, "%s", err);
    /* a preset name whose NAME.ini is a directory */
    setenv("XGPU_PRESETS_DIR", xt_tmpdir(), 1);
    cr_expect_eq(create_from("d", err, sizeof err, name, &sms), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "is a directory") != NULL, "%s", err);
    unsetenv("XGPU_PRESETS_DIR");
    /* through xgpu-run --config */
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-run --config %s --dump-config 2>&1", XGPU_BIN_DIR,
                     xt_tmpdir());
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "is a directory") != NULL, "%s", out);
    free(out);
}
