/*
 * 943-hints-data-path: the hints the runtime holds reach the timing model's requests.
 * With mem.observer = hints, xmem_tiled (three atoms: B, C and the band of A each phase
 * maps) shows requests in exactly those atoms in every launch, and ldesc_histo (two
 * Locality Descriptors) in its two descriptors; every line request is counted once (the
 * per-atom or per-descriptor requests plus the unhinted ones equal coalescer.requests);
 * each atom's and descriptor's L1 outcomes are at most its requests, and its L2 outcomes
 * are exactly its L1 misses; the working sets are counted; and observing changes no
 * timing (cycles equal mem.observer = none).
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
            /* its reads at the L1, and the L1's misses at the L2 (no prefetcher) */
            char base[96], f[128];
            snprintf(base, sizeof base, "%.*s", (int)(k - 9), key);
            uint64_t v[6];
            const char *fig[6] = {"l1_hits", "l1_misses", "l1_merges", "l2_hits", "l2_misses",
                                  "l2_merges"};
            for (int j = 0; j < 6; j++) {
                snprintf(f, sizeof f, "%s.%s", base, fig[j]);
                cr_assert(json_object_object_get_ex(ob, f, NULL), "no %s", f);
                v[j] = get(ob, f);
            }
            cr_expect_leq(v[0] + v[1] + v[2], json_object_get_uint64(val), "%s", base);
            cr_expect_eq(v[3] + v[4] + v[5], v[1], "%s: every L1 miss looked up once at the L2",
                         base);
        }
        uint64_t lines = get(ob, "hints.working_set.lines");
        uint64_t most = get(ob, "hints.working_set.max");
        cr_expect(most > 0 && most <= lines && lines <= sum, "working set %llu, max %llu",
                  (unsigned long long)lines, (unsigned long long)most);
        cr_expect_geq(get(ob, "hints.working_set.sms"), 1);
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
        char *with = suite_run(i, "accelsim-rtx2060", "timing", "mem.observer=hints", 1, NULL);
        char *without = suite_run(i, "accelsim-rtx2060", "timing", "", 1, NULL);
        cr_assert(with && without);
        check(with, cases[c].prefix, cases[c].kinds);
        cr_expect_eq(total_cycles(with), total_cycles(without), "%s: observing changed timing",
                     cases[c].name);
        cr_expect(!strstr(without, "\"observed\""), "observed without an observer");
        free(with);
        free(without);
    }
}
