/*
 * 907-caba-samples: every sample (reduced inputs) runs on gtx480 with its lines kept
 * compressed in DRAM (mem.transform = caba, caba.mode = hw-mem; docs/caba.md), under
 * each codec in turn (bdi, fpc, cpack, best), prints PASS and executes exactly the warp
 * instructions of functional mode: compression changes only time. The compressed memory
 * must have seen the sample's DRAM traffic, and for every fourth sample the statistics of
 * a run on two host threads must equal those of the run on one.
 */
#include "900-samples-util.h"

static const char *const algos[] = {"bdi", "fpc", "cpack", "best"};

/* totals.timing.<key> of a run's statistics, or -1. */
static long long total(const char *stats, const char *key)
{
    json_object *root = stats ? json_tokener_parse(stats) : NULL, *t, *m, *v;
    long long x = -1;
    if (root && json_object_object_get_ex(root, "totals", &t) &&
        json_object_object_get_ex(t, "timing", &m) && json_object_object_get_ex(m, key, &v))
        x = json_object_get_int64(v);
    json_object_put(root);
    return x;
}

Test(caba_samples, same_instructions_as_functional, .timeout = 1200)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        const char *n = suite_samples[i].name, *algo = algos[i % 4];
        char set[128];
        snprintf(set, sizeof set, "mem.transform=caba;caba.mode=hw-mem;caba.algo=%s", algo);
        long long wf = -1, wc = -2;
        char *f = suite_run(i, "gtx480", "functional", "", 1, &wf);
        char *c = suite_run(i, "gtx480", "timing", set, 1, &wc);
        int good = f && c && wc == wf && total(c, "caba.lines") > 0 &&
                   total(c, "caba.lines") ==
                       total(c, "dram.reads") + total(c, "dram.writes") -
                           total(c, "dram.meta_accesses");
        cr_expect(good, "%s under %s: functional %lld, caba %lld warp instructions; caba.lines "
                  "%lld", n, algo, wf, wc, total(c, "caba.lines"));
        if (good && i % 4 == 0) {
            char two[160];
            snprintf(two, sizeof two, "%s;emu.threads=2", set);
            char *t = suite_run(i, "gtx480", "timing", two, 1, NULL);
            good = t && strcmp(c, t) == 0;
            cr_expect(good, "%s under %s: one and two host threads differ", n, algo);
            free(t);
        }
        failed += !good;
        free(f), free(c);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}
