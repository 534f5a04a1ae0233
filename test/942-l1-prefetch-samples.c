/*
 * 942-l1-prefetch-samples: the stride prefetcher (l1.prefetch = stride) on samples whose
 * loads stride through memory: every one still passes and executes the same warp
 * instructions as without it, its statistics are identical with and without idle
 * skipping, and it prefetches something that demand requests then use.
 */
#include "900-samples-util.h"

static const char *const names[] = {"vecadd", "spmv", "hotspot", "gemm", "atax_bicg",
                                    "pathfinder"};

static size_t sample_index(const char *name)
{
    for (size_t i = 0; i < SUITE_SAMPLES; i++)
        if (strcmp(suite_samples[i].name, name) == 0)
            return i;
    cr_assert_fail("no sample %s", name);
    return 0;
}

/* The value of counter key in the stripped statistics s (its first occurrence: the
 * totals come before... any launch's, so search the totals object). */
static long long counter(const char *s, const char *key)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *t = strstr(s, "\"totals\"");
    const char *p = t ? strstr(t, pat) : NULL;
    return p ? atoll(p + strlen(pat)) : -1;
}

Test(l1_prefetch_samples, exact_and_useful, .timeout = 900)
{
    long long useful = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t i = sample_index(names[k]);
        long long base = 0, with = 0;
        char *ref = suite_run(i, "accelsim-rtx2060", "timing", "", 1, &base);
        char *a = suite_run(i, "accelsim-rtx2060", "timing", "l1.prefetch=stride", 1, &with);
        char *b = suite_run(i, "accelsim-rtx2060", "timing", "l1.prefetch=stride", 0, NULL);
        cr_assert(ref && a && b);
        cr_expect_eq(with, base, "%s: prefetching changed what executed", names[k]);
        cr_expect_str_eq(a, b, "%s: idle skipping changed the statistics", names[k]);
        cr_expect_geq(counter(a, "l1.prefetches"), 0, "%s: no l1.prefetches counter", names[k]);
        useful += counter(a, "l1.prefetch_hits") + counter(a, "l1.prefetch_late");
        free(ref);
        free(a);
        free(b);
    }
    cr_expect_gt(useful, 0, "no prefetch was ever used");
}
