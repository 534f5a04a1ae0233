/*
 * 351-presets.c - the configuration presets: each loads (by name, through XGPU_CONFIG, and
 * through the parser), holds the values its comments cite, can be overridden by
 * XGPU_SET, and errors in a preset-style file name FILE:LINE and the key. Also the value
 * types of the table: ENUM (choices listed in the error), BOOL, reals, and the cross-key
 * rules of emu_config_check. Each GPU preset's SM keys are spot-checked against the
 * generation it models (docs/presets.md). Criterion forks per test, so setenv does not leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../emulator/config/config.h"
#include "300-emu-util.h"
#include "xtest.h"

static const char *const presets[] = {"accelsim-rtx2060", "gtx480", "kepler", "maxwell", "rtx2060"};

/* The value of key in c, as text. */
static const char *val(const EmuConfig *c, const char *key)
{
    static char buf[8][128];
    static int slot;
    const EmuCfgKey *k = emu_config_key(key);
    cr_assert_not_null(k, "key %s is not declared", key);
    char *b = buf[slot++ % 8];
    emu_config_format(c, k, b, sizeof buf[0]);
    return b;
}

static void load(EmuConfig *c, const char *preset)
{
    char err[512] = "";
    emu_config_defaults(c);
    cr_assert_eq(emu_config_load(c, preset, err, sizeof err), 0, "%s: %s", preset, err);
    cr_assert_eq(emu_config_check(c, err, sizeof err), 0, "%s: %s", preset, err);
}

Test(presets, every_preset_creates_a_device)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        setenv("XGPU_CONFIG", presets[i], 1);
        EmuDevice *d = NULL;
        char err[512] = "";
        cr_assert_eq(emu_create(&d, err, sizeof err), EMU_OK, "%s: %s", presets[i], err);
        cr_expect_str_eq(emu_props(d)->name, presets[i]);
        emu_destroy(d);
    }
}

Test(presets, accelsim_rtx2060_table_one)
{
    EmuConfig c;
    load(&c, "accelsim-rtx2060");
    const char *want[][2] = {
        {"gpu.sm_count", "10"},          {"gpu.max_threads_per_sm", "1024"},
        {"gpu.regs_per_sm", "65536"},    {"gpu.clock_khz", "1365000"},
        {"l1.line", "128"},              {"l1.hit_latency", "20"},
        {"smem.latency", "20"},          {"l2.slices", "8"},
        {"l2.sets", "64"},               {"l2.ways", "16"},
        {"l2.latency", "160"},           {"dram.channels", "4"},
        {"dram.banks", "16"},            {"dram.clock_khz", "3500000"},
        {"dram.trcd", "20"},             {"dram.tras", "50"},
        {"dram.trc", "62"},              {"dram.tcl", "20"},
        {"dram.latency", "100"},         {"core.subcores", "4"},
        {"core.sched", "gto"},           {"core.max_ctas_per_sm", "32"},
        {"rf.banks_per_subcore", "2"},   {"rf.collectors_per_subcore", "2"},
        {"unit.sfu.latency", "100"},     {"unit.tensor.ii", "64"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_str_eq(val(&c, want[i][0]), want[i][1], "%s", want[i][0]);
    /* 64 KB L1D + shared per SM; 1 MB L2 */
    cr_expect_eq(c.l1_bytes + c.gpu_shared_per_sm, 65536);
    cr_expect_eq((uint64_t)c.l2_slices * c.l2_sets * c.l2_ways * c.l1_line, 1u << 20);
}

Test(presets, fermi_kepler_maxwell)
{
    EmuConfig c;
    load(&c, "gtx480");
    cr_expect_eq(c.gpu_sm_count, 15);
    cr_expect_eq(c.gpu_max_threads_per_sm, 48 * 32);
    cr_expect_eq(c.gpu_regs_per_sm, 32768);
    cr_expect_eq(c.gpu_shared_per_sm, 48 * 1024);
    cr_expect_eq(c.l1_bytes, 16 * 1024);
    cr_expect_eq(c.gpu_clock_khz, 1400000);
    cr_expect_eq(c.dram_channels, 6);
    cr_expect_eq(c.dram_tcl, 12);
    cr_expect_eq(c.dram_trc, 40);
    cr_expect_eq(c.core_subcores, 2);
    cr_expect_str_eq(c.core_sched, "gto");
    cr_expect_eq(c.core_max_ctas_per_sm, 8);
    cr_expect_eq((uint64_t)c.l2_slices * c.l2_sets * c.l2_ways * c.l1_line, 768 * 1024);
    /* 177.4 GB/s: channels x burst bytes per burst cycles x DRAM clock */
    double gbs = c.dram_channels * (double)c.dram_burst_bytes / c.dram_burst_cycles *
                 c.dram_clock_khz * 1e3 / 1e9;
    cr_expect(gbs > 177 && gbs < 178, "%f GB/s", gbs);
    load(&c, "kepler");
    cr_expect_eq(c.gpu_max_threads_per_sm, 64 * 32);
    cr_expect_eq(c.gpu_regs_per_sm, 65536);
    cr_expect_eq(c.gpu_shared_per_sm, 48 * 1024);
    cr_expect_eq(c.core_max_ctas_per_sm, 16);
    load(&c, "maxwell");
    cr_expect_eq(c.core_max_ctas_per_sm, 32);
    cr_expect_eq(c.gpu_max_threads_per_sm, 64 * 32);
    cr_expect_eq(c.gpu_shared_per_sm, 64 * 1024);
}

/* Expects every key of want (key, value pairs) to hold its value in preset. */
static void expect_keys(const char *preset, const char *const (*want)[2], size_t n)
{
    EmuConfig c;
    load(&c, preset);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(val(&c, want[i][0]), want[i][1], "%s: %s", preset, want[i][0]);
}
#define EXPECT_KEYS(preset, ...)                                                          \
    do {                                                                                  \
        static const char *const w_[][2] = {__VA_ARGS__};                                 \
        expect_keys(preset, w_, sizeof w_ / sizeof w_[0]);                                \
    } while (0)

Test(presets, sm_of_each_generation)
{
    /* Fermi: 2 schedulers over 16-lane groups, 4 SFUs, GeForce fp64, ~22-cycle chains */
    EXPECT_KEYS("gtx480", {"core.subcores", "2"}, {"unit.fp.ii", "2"}, {"unit.int.ii", "2"},
                {"unit.sfu.ii", "16"}, {"unit.dp.ii", "16"}, {"unit.fp.mad_latency", "22"},
                {"rf.banks_per_subcore", "8"}, {"smem.bank_bytes", "4"});
    /* Kepler GK110: 4 schedulers, 64 fp64 and 32 SFU lanes, 64-bit shared banks */
    EXPECT_KEYS("kepler", {"core.subcores", "4"}, {"unit.fp.mad_latency", "9"},
                {"unit.dp.ii", "2"}, {"unit.dp.mad_latency", "10"}, {"unit.sfu.ii", "4"},
                {"unit.sfu.latency", "18"}, {"smem.bank_bytes", "8"});
    /* Maxwell GM204: 4 x 32 lanes, 4 fp64 lanes per SM, 6-cycle fp32 */
    EXPECT_KEYS("maxwell", {"core.subcores", "4"}, {"unit.fp.ii", "1"},
                {"unit.fp.mad_latency", "5"}, {"unit.dp.ii", "32"}, {"unit.dp.mad_latency", "48"},
                {"rf.banks_per_subcore", "4"}, {"smem.bank_bytes", "4"});
    /* the real RTX 2060: 30 SMs, 16-lane units, 4-cycle FFMA, no Accel-Sim stages */
    EXPECT_KEYS("rtx2060", {"gpu.sm_count", "30"}, {"gpu.clock_khz", "1365000"},
                {"gpu.cc_major", "7"}, {"gpu.cc_minor", "5"}, {"core.subcores", "4"},
                {"unit.fp.ii", "2"}, {"unit.int.ii", "2"}, {"unit.fp.mad_latency", "3"},
                {"unit.int.latency", "4"}, {"unit.sfu.ii", "8"}, {"core.issue_waits_unit", "true"},
                {"core.collect_stages", "0"}, {"core.wb_stages", "0"}, {"dram.channels", "12"},
                {"dram.clock_khz", "3500000"});
    /* the paper's machine keeps Accel-Sim's pipeline */
    EXPECT_KEYS("accelsim-rtx2060", {"core.issue_waits_unit", "false"},
                {"core.wb_stages", "3"}, {"unit.fp.ii", "2"}, {"unit.fp.mad_latency", "5"});
    EmuConfig c;
    load(&c, "rtx2060");
    /* 3 MB of L2; 336 GB/s = 12 channels x 32 B per 4 command cycles at 3.5 GHz */
    cr_expect_eq((uint64_t)c.l2_slices * c.l2_sets * c.l2_ways * c.l1_line, 3u << 20);
    double gbs = c.dram_channels * (double)c.dram_burst_bytes / c.dram_burst_cycles *
                 c.dram_clock_khz * 1e3 / 1e9;
    cr_expect(gbs > 335 && gbs < 337, "%f GB/s", gbs);
    cr_expect_eq(c.l1_bytes + c.gpu_shared_per_sm, 96 * 1024, "96 KB of L1 + shared per SM");
}

Test(presets, set_overrides_a_preset_and_path_works)
{
    setenv("XGPU_CONFIG", "gtx480", 1);
    setenv("XGPU_SET", "gpu.sm_count=3", 1);
    EmuDevice *d = t_dev();
    cr_expect_eq(emu_props(d)->sm_count, 3);
    cr_expect_eq(emu_props(d)->regs_per_sm, 32768, "the rest of the preset still applies");
    emu_destroy(d);
    const char *path = xt_tmp("351-mine.ini");
    xt_write(path, "gpu.sm_count = 5\n");
    setenv("XGPU_CONFIG", path, 1);
    unsetenv("XGPU_SET");
    d = t_dev();
    cr_expect_eq(emu_props(d)->sm_count, 5);
    emu_destroy(d);
}

static void expect_error(const char *config, const char *set, const char *const *needles)
{
    if (config)
        setenv("XGPU_CONFIG", config, 1);
    else
        unsetenv("XGPU_CONFIG");
    if (set)
        setenv("XGPU_SET", set, 1);
    else
        unsetenv("XGPU_SET");
    EmuDevice *d = NULL;
    char err[512] = "";
    cr_expect_eq(emu_create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG, "%s", err);
    for (; *needles; needles++)
        cr_expect(strstr(err, *needles) != NULL, "'%s' not in '%s'", *needles, err);
    emu_destroy(d);
}

Test(presets, errors_name_file_line_and_key)
{
    const char *path = xt_tmp("351-bad.ini");
    xt_write(path, "# x\ngpu.sm_count = 4\nl2.wayz = 3\n");
    expect_error(path, NULL, (const char *[]){"351-bad.ini:3:", "l2.wayz", "unknown", NULL});
    xt_write(path, "gpu.sm_count = 4\n\nl2.ways = many\n");
    expect_error(path, NULL, (const char *[]){"351-bad.ini:3:", "l2.ways", "many", NULL});
    xt_write(path, "emu.progress = sometimes\n");
    expect_error(path, NULL,
                 (const char *[]){"351-bad.ini:1:", "emu.progress", "auto|never|always", NULL});
    xt_write(path, "core.sched = xyz\n");
    expect_error(path, NULL,
                 (const char *[]){"351-bad.ini:1:", "core.sched", "lrr|gto|two-level", NULL});
    expect_error("no-such-gpu", NULL, (const char *[]){"no-such-gpu", "unknown preset", NULL});
    expect_error("./no-such-file.ini", NULL, (const char *[]){"no-such-file.ini", NULL});
}

Test(presets, value_types)
{
    EmuConfig c;
    char err[256];
    emu_config_defaults(&c);
    cr_expect_str_eq(c.emu_progress, "auto", "enum default");
    cr_expect_eq(c.emu_summary, false);
    cr_expect_eq(emu_config_set(&c, "emu.progress", "never", err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(val(&c, "emu.progress"), "never");
    cr_expect_eq(emu_config_set(&c, "emu.progress", "nev", err, sizeof err), -1);
    cr_expect_eq(emu_config_set(&c, "emu.progress", "", err, sizeof err), -1);
    const char *yes[] = {"true", "1", "yes", "on"}, *no[] = {"false", "0", "no", "off"};
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(emu_config_set(&c, "emu.summary", yes[i], err, sizeof err), 0);
        cr_expect_eq(c.emu_summary, true, "%s", yes[i]);
        cr_expect_eq(emu_config_set(&c, "emu.summary", no[i], err, sizeof err), 0);
        cr_expect_eq(c.emu_summary, false, "%s", no[i]);
    }
    cr_expect_eq(emu_config_set(&c, "emu.summary", "maybe", err, sizeof err), -1);
    cr_expect(strstr(err, "emu.summary") && strstr(err, "true or false"), "%s", err);
    cr_expect_eq(emu_config_set(&c, "gpu.name", "a#b", err, sizeof err), -1, "no '#' in text");
}

Test(presets, cross_key_rules)
{
    const char *cases[][2] = {
        {"l1.line=96", "l1.line"},      {"l2.sets=48", "l2.sets"},
        {"dram.channels=0", "dram.channels"}, {"smem.banks=0", "smem.banks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error(NULL, cases[i][0], (const char *[]){cases[i][1], NULL});
}

Test(presets, summary_env)
{
    setenv("XGPU_SUMMARY", "1", 1);
    EmuConfig c;
    char err[256];
    cr_assert_eq(emu_config_from_env(&c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.emu_summary, true);
    setenv("XGPU_SUMMARY", "perhaps", 1);
    cr_expect_eq(emu_config_from_env(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "XGPU_SUMMARY") != NULL, "%s", err);
}
