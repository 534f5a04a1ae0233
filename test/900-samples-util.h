/*
 * 900-samples-util.h - what the whole-suite tests (903-909) share: every sample with
 * inputs small enough for several timing runs each, the samples the sanitizer tier takes,
 * and one run of a sample that returns its statistics with the fields that legitimately
 * differ between runs removed.
 *
 * A new sample goes into `suite_samples` (with arguments that keep an every-cycle timing
 * run to a second or so), so that every preset and every policy these tests cover runs
 * it.
 */
#ifndef XGPU_TEST_900_SAMPLES_UTIL_H
#define XGPU_TEST_900_SAMPLES_UTIL_H

#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static const struct {
    const char *name, *args;
} suite_samples[] = {
    {"atax_bicg", "300 280"}, {"backprop", "16384 2"}, {"bfs", "20000 3"},
    {"bitonic", "13"},        {"conv2d", "96 96"},     {"gemm", "48 56 64"},
    {"histogram", ""},        {"hotspot", "64 64 8 2"}, {"kmeans", "4096 12 4"},
    {"ldesc_histo", ""},      {"lud", "96"},           {"matmul", "64 48 40"},
    {"nbody", "256 2"},       {"nw", "192"},           {"pathfinder", "4000 64 10"},
    {"reduction", ""},        {"scan", ""},            {"spmv", "1500 2"},
    {"vecadd", "30000"},      {"wmma_gemm", "32 64 32"}, {"wmma_conv", "16 16 8 8"},
    {"wmma_rnn", "16 16 64 2"}, {"xmem_tiled", ""},   {"dct8x8", "64 64 4"},
    {"nqueens", "8 64"},      {"sssp", "2000 4 128"},  {"mst", "2000 4 64"},
    {"barneshut", "1024 64 32"}, {"relu", "16 2048 1"}, {"heat", "96 2"},
    {"ld_stencil", "256 128"}, {"ld_spmv", "4096 2"},  {"ld_conv", "256 128"},
    {"ld_state", "2048 8"},   {"ld_stream", "512 2048"}, {"xmem_tile", "32 4 2"},
    {"xmem_streams", "16384 1"}, {"xtreme", "3 65536 2"}, {"maxpool", "8 32 32"},
    {"fir", "16384 32"},      {"aes", "4096"},         {"sgemm", "256 64 40"},
};
#define SUITE_SAMPLES (sizeof suite_samples / sizeof suite_samples[0])

/* The sanitizer tier (scripts/test.sh --sanitize sets XGPU_TEST_TIER=sanitize; docs/testing.md)
 * runs every fifth sample in each whole-suite test, a different fifth in each (salt: the
 * test's number), so that each test still runs every configuration it covers on eight or
 * nine samples of all kinds, and every sample runs under the sanitizers in at least one of
 * 903-909. 5 is prime to the 2, 3, 4 and 7 the tests take turns by, so every turn still
 * comes. The release build runs every sample in every test. */
#define SUITE_STRIDE XT_SAMPLE_STRIDE
static inline int suite_sanitize_tier(void) { return xt_sanitize_tier(); }
static inline int suite_skip(size_t i, unsigned salt)
{
    return xt_sanitize_tier() && (i + salt) % SUITE_STRIDE != 0;
}

/* Drops what legitimately differs between two runs: host time and the keys that must not
 * change a figure (idle skipping, host threads). */
static void suite_strip(json_object *o)
{
    static const char *drop[] = {"host_seconds", "host_cpu_seconds", "warp_insns_per_second",
                                 "seconds", "emu.skip_idle", "emu.threads"};
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            suite_strip(json_object_array_get_idx(o, i));
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        json_object_object_del(o, drop[i]);
    json_object_object_foreach(o, key, val)
    {
        (void)key;
        suite_strip(val);
    }
}

/* Runs sample i on preset in mode with the XGPU_SET overrides set (may be ""), with or
 * without idle skipping and an interval series every 3000 cycles. Returns its stripped
 * statistics as a string (malloc'd), or NULL after a failed expectation; *insns (may be
 * NULL) gets the warp instructions it executed. */
static char *suite_run(size_t i, const char *preset, const char *mode, const char *set,
                       int skip, long long *insns)
{
    char file[300];
    snprintf(file, sizeof file, "%s-%s-%s-%d-%zu.json", preset, suite_samples[i].name, mode,
             skip, strlen(set));
    const char *stats = xt_tmp(file);
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_CONFIG=%s XGPU_MODE=%s XGPU_STATS=%s "
                           "XGPU_SET='%s;emu.skip_idle=%s;emu.interval_cycles=3000' "
                           "%s/samples/%s %s",
                     preset, mode, stats, set, skip ? "true" : "false", XGPU_BUILD_DIR,
                     suite_samples[i].name, suite_samples[i].args);
    int ok = rc == 0 && out && strstr(out, "PASS");
    cr_expect(ok, "%s on %s (%s, '%s', skip_idle=%d) failed:\n%s", suite_samples[i].name,
              preset, mode, set, skip, out ? out : "");
    free(out);
    json_object *root = ok ? json_object_from_file(stats) : NULL, *launches, *v;
    if (!root)
        return NULL;
    if (insns && json_object_object_get_ex(root, "launches", &launches)) {
        *insns = 0;
        for (size_t k = 0; k < json_object_array_length(launches); k++)
            if (json_object_object_get_ex(json_object_array_get_idx(launches, k),
                                          "warp_instructions", &v))
                *insns += json_object_get_int64(v);
    }
    suite_strip(root);
    char *s = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
    json_object_put(root);
    return s;
}

/* totals.timing.<key> of a run's statistics (suite_run's string), or -1. */
static inline long long suite_total(const char *stats, const char *key)
{
    json_object *root = stats ? json_tokener_parse(stats) : NULL, *t, *m, *v;
    long long x = -1;
    if (root && json_object_object_get_ex(root, "totals", &t) &&
        json_object_object_get_ex(t, "timing", &m) && json_object_object_get_ex(m, key, &v))
        x = json_object_get_int64(v);
    json_object_put(root);
    return x;
}

#endif
