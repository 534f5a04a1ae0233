/*
 * 903-skip-idle: skipping idle cycles changes nothing but speed. Every sample (reduced
 * inputs) runs in timing mode twice, with emu.skip_idle = true (the default: SMs sleep,
 * the loop jumps over cycles in which nothing can happen) and false (every unit ticks
 * every cycle); the statistics, interval series included, must be identical apart from
 * host time and the key itself. Both gtx480 and rtx2060-s are checked; on kepler and
 * maxwell every sample runs once (skipping) and must pass, so every sample runs correctly
 * on every preset.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

/* Each sample with arguments that keep the every-cycle run short. */
static const struct {
    const char *name, *args;
} samples[] = {
    {"atax_bicg", "300 280"}, {"backprop", "16384 2"}, {"bfs", "20000 3"},
    {"bitonic", "13"},        {"conv2d", "96 96"},     {"gemm", "48 56 64"},
    {"histogram", ""},        {"hotspot", "64 64 8 2"}, {"kmeans", "4096 12 4"},
    {"lud", "96"},            {"matmul", "64 48 40"},  {"nbody", "256 2"},
    {"nw", "192"},            {"pathfinder", "4000 64 10"}, {"reduction", ""},
    {"scan", ""},             {"spmv", "1500 2"},      {"vecadd", "30000"},
    {"wmma_gemm", "32 64 32"}, {"wmma_conv", "16 16 8 8"}, {"wmma_rnn", "16 16 64 2"},
};

/* Drops what legitimately differs between the two runs. */
static void strip(json_object *o)
{
    static const char *drop[] = {"host_seconds", "warp_insns_per_second", "seconds",
                                 "emu.skip_idle"};
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            strip(json_object_array_get_idx(o, i));
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        json_object_object_del(o, drop[i]);
    json_object_object_foreach(o, key, val)
    {
        (void)key;
        strip(val);
    }
}

/* Runs one sample; returns its stripped statistics as a string (malloc'd) or NULL. */
static char *run(const char *preset, const char *name, const char *args, int skip)
{
    char file[300];
    snprintf(file, sizeof file, "%s-%s-%d.json", preset, name, skip);
    const char *stats = xt_tmp(file);
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_CONFIG=%s XGPU_MODE=timing XGPU_STATS=%s "
                           "XGPU_SET='emu.skip_idle=%s;emu.interval_cycles=3000' "
                           "%s/samples/%s %s",
                     preset, stats, skip ? "true" : "false", XGPU_BUILD_DIR, name, args);
    int ok = rc == 0 && out && strstr(out, "PASS");
    cr_expect(ok, "%s on %s (skip_idle=%d) failed:\n%s", name, preset, skip, out ? out : "");
    free(out);
    json_object *root = ok ? json_object_from_file(stats) : NULL;
    if (!root)
        return NULL;
    strip(root);
    char *s = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
    json_object_put(root);
    return s;
}

/* compare: also run without skipping and require the same statistics. */
static void check_preset(const char *preset, int compare)
{
    int failed = 0;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char *a = run(preset, samples[i].name, samples[i].args, 1);
        if (!compare) {
            cr_expect(a && strstr(a, "\"cycles\""), "%s on %s: no cycles", samples[i].name,
                      preset);
            failed += !a || !strstr(a, "\"cycles\"");
            free(a);
            continue;
        }
        char *b = run(preset, samples[i].name, samples[i].args, 0);
        int same = a && b && strcmp(a, b) == 0;
        cr_expect(same, "%s on %s: statistics differ with and without idle skipping",
                  samples[i].name, preset);
        cr_expect(!a || strstr(a, "\"intervals\""), "%s: no interval series", samples[i].name);
        failed += !same;
        free(a);
        free(b);
    }
    cr_assert_eq(failed, 0, "%d samples failed or differ on %s", failed, preset);
}

Test(skip_idle, rtx2060_s, .timeout = 1700)
{
    check_preset("rtx2060-s", 1);
}

Test(skip_idle, gtx480, .timeout = 1700)
{
    check_preset("gtx480", 1);
}

Test(skip_idle, kepler_and_maxwell_run_every_sample, .timeout = 1700)
{
    check_preset("kepler", 0);
    check_preset("maxwell", 0);
}
