/*
 * 943-hints-data-path: the hints the runtime holds reach the timing model's requests.
 * With mem.observer = hints, xmem_tiled (three atoms: B, C and the band of A each phase
 * maps) shows requests in exactly those atoms in every launch, and ldesc_histo (two
 * Locality Descriptors) in its two descriptors; every line request is counted once (the
 * per-atom or per-descriptor requests plus the unhinted ones equal coalescer.requests);
 * and observing changes no timing (cycles equal mem.observer = none).
 */
#include <json-c/json.h>

#include "900-samples-util.h"

static size_t sample(const char *name)
{
    for (size_t i = 0; i < SUITE_SAMPLES; i++)
        if (strcmp(suite_samples[i].name, name) == 0)
            return i;
    cr_assert_fail("no sample %s", name);
    return 0;
}

static uint64_t get(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

/* Checks every launch of run `text`: `prefix` entries (atoms or descriptors) number
 * `kinds`, and with the unhinted requests they sum to the launch's line requests. */
static void check(const char *text, const char *prefix, int kinds)
{
    json_object *root = json_tokener_parse(text), *launches, *l, *ob, *tm;
    cr_assert(root && json_object_object_get_ex(root, "launches", &launches));
    size_t n = json_object_array_length(launches);
    cr_assert_gt(n, 0);
    for (size_t i = 0; i < n; i++) {
        l = json_object_array_get_idx(launches, i);
        cr_assert(json_object_object_get_ex(l, "observed", &ob), "launch %zu: nothing observed", i);
        cr_assert(json_object_object_get_ex(l, "timing", &tm));
        uint64_t sum = get(ob, "hints.none.requests");
        int seen = 0;
        json_object_object_foreach(ob, key, val)
        {
            size_t k = strlen(key);
            if (strncmp(key, prefix, strlen(prefix)) || k < 9 || strcmp(key + k - 9, ".requests"))
                continue;
            cr_expect_gt(json_object_get_uint64(val), 0, "%s", key);
            sum += json_object_get_uint64(val);
            seen++;
        }
        cr_expect_eq(seen, kinds, "launch %zu: %d %s kinds, want %d", i, seen, prefix, kinds);
        cr_expect_eq(sum, get(tm, "coalescer.requests"), "launch %zu: requests counted %llu",
                     i, (unsigned long long)sum);
    }
    json_object_put(root);
}

static uint64_t total_cycles(const char *text)
{
    json_object *root = json_tokener_parse(text), *t;
    cr_assert(root && json_object_object_get_ex(root, "totals", &t));
    uint64_t c = get(t, "cycles");
    json_object_put(root);
    return c;
}

Test(hints, atoms_and_descriptors_reach_the_requests, .timeout = 300)
{
    const struct {
        const char *name, *prefix;
        int kinds;
    } cases[] = {{"xmem_tiled", "hints.atom.", 3}, {"ldesc_histo", "hints.descriptor.", 2}};
    for (size_t c = 0; c < 2; c++) {
        size_t i = sample(cases[c].name);
        char *with = suite_run(i, "rtx2060-s", "timing", "mem.observer=hints", 1, NULL);
        char *without = suite_run(i, "rtx2060-s", "timing", "", 1, NULL);
        cr_assert(with && without);
        check(with, cases[c].prefix, cases[c].kinds);
        cr_expect_eq(total_cycles(with), total_cycles(without), "%s: observing changed timing",
                     cases[c].name);
        cr_expect(!strstr(without, "\"observed\""), "observed without an observer");
        free(with);
        free(without);
    }
}
