/*
 * 904-memento-samples: every sample (reduced inputs) runs on rtx2060-s with Memento's
 * caching collectors under core.sched = memento (dynamic STHLD, a short interval so
 * the state machine moves) and memento-pr, prints PASS, and executes exactly the warp
 * instructions of functional mode. Under memento every sample is also run without idle
 * skipping, and the statistics, interval series and STHLD included, must be identical.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static const struct {
    const char *name, *args;
} samples[] = {
    {"atax_bicg", "300 280"}, {"backprop", "16384 2"}, {"bfs", "20000 3"},
    {"bitonic", "13"},        {"conv2d", "96 96"},     {"gemm", "48 56 64"},
    {"histogram", ""},        {"hotspot", "64 64 8 2"}, {"kmeans", "4096 12 4"},
    {"lud", "96"},            {"matmul", "64 48 40"},  {"nbody", "256 2"},
    {"nw", "192"},            {"pathfinder", "4000 64 10"}, {"reduction", ""},
    {"scan", ""},             {"spmv", "1500 2"},      {"vecadd", "30000"},
};

#define MEMENTO "rf.collector=ccu;core.sched=memento;memento.interval=2000"
#define MEMENTO_PR "rf.collector=ccu;core.sched=memento-pr"

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

/* Runs one sample; *insns gets its warp instructions; returns the stripped statistics
 * (malloc'd) or NULL. */
static char *run(const char *name, const char *args, const char *mode, const char *set,
                 int skip, long long *insns)
{
    char file[300];
    snprintf(file, sizeof file, "904-%s-%s-%d-%zu.json", name, mode, skip, strlen(set));
    const char *stats = xt_tmp(file);
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_CONFIG=rtx2060-s XGPU_MODE=%s XGPU_STATS=%s "
                           "XGPU_SET='%s;emu.skip_idle=%s;emu.interval_cycles=3000' "
                           "%s/samples/%s %s",
                     mode, stats, set, skip ? "true" : "false", XGPU_BUILD_DIR, name, args);
    int ok = rc == 0 && out && strstr(out, "PASS");
    cr_expect(ok, "%s (%s, %s) failed:\n%s", name, mode, set, out ? out : "");
    free(out);
    json_object *root = ok ? json_object_from_file(stats) : NULL, *launches, *v;
    if (!root || !json_object_object_get_ex(root, "launches", &launches))
        return NULL;
    *insns = 0;
    for (size_t i = 0; i < json_object_array_length(launches); i++)
        if (json_object_object_get_ex(json_object_array_get_idx(launches, i),
                                      "warp_instructions", &v))
            *insns += json_object_get_int64(v);
    strip(root);
    char *s = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
    json_object_put(root);
    return s;
}

Test(memento_samples, same_instructions_as_functional_and_skip_idle_identical, .timeout = 1700)
{
    int failed = 0;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        const char *n = samples[i].name, *a = samples[i].args;
        long long wf = -1, wm = -2, wp = -3, wn = -4;
        char *f = run(n, a, "functional", "", 1, &wf);
        char *m = run(n, a, "timing", MEMENTO, 1, &wm);
        char *p = run(n, a, "timing", MEMENTO_PR, 1, &wp);
        char *ns = run(n, a, "timing", MEMENTO, 0, &wn);
        int ok = f && m && p && ns && wf == wm && wf == wp && strcmp(m, ns) == 0 &&
                 strstr(m, "\"sthld\"") && strstr(m, "rf.ct_hits");
        cr_expect(ok, "%s: functional %lld, memento %lld, memento-pr %lld warp instructions; "
                      "skip vs no skip %s",
                  n, wf, wm, wp, m && ns && strcmp(m, ns) == 0 ? "identical" : "differ");
        failed += !ok;
        free(f), free(m), free(p), free(ns);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}
