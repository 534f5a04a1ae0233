/*
 * 908-locality-samples: every sample (reduced inputs) runs on gtx480 under every mode of
 * the Locality Descriptor's hardware (ldesc.mode = cta, cache, all) and of XMem's
 * (xmem.mode = cache, dram, on), prints PASS and executes exactly the warp instructions
 * of functional mode: clustering CTAs, pinning, bypassing, prefetching, the atom
 * lookaside buffer and bank placement change only time (docs/ldesc.md, docs/xmem.md). On
 * the annotated samples the hardware must have acted (a descriptor's sample places
 * clusters or pins, bypasses or prefetches in its L1s under all; an atom's sample looks
 * atoms up through the ALB under on), and every other one of them, under all or on,
 * gives the same statistics with idle skipping on one host thread as without it on two.
 */
#include "900-samples-util.h"

#define LDESC "ldesc.mode=all"
#define XMEM "xmem.mode=on"

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Whether the descriptors of a run did anything. */
static int ldesc_acted(const char *stats)
{
    const char *keys[] = {"ldesc.clusters", "l1.pins_soft", "l1.pins_hard", "l1.bypasses",
                          "l1.prefetches"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (suite_total(stats, keys[k]) > 0)
            return 1;
    return 0;
}

static const char *const modes[] = {"ldesc.mode=cta", "ldesc.mode=cache", LDESC,
                                    "xmem.mode=cache", "xmem.mode=dram", XMEM};
#define NMODES (sizeof modes / sizeof modes[0])

Test(locality_samples, same_instructions_as_functional, .timeout = 1700)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 908))
            continue;
        const char *n = suite_samples[i].name;
        int ld = starts(n, "ld"), xm = starts(n, "xmem");
        long long wf = -1;
        char *f = suite_run(i, "gtx480", "functional", "", 1, &wf), *run[NMODES];
        int ok = f != NULL;
        for (size_t m = 0; m < NMODES; m++) {
            long long w = -2;
            run[m] = suite_run(i, "gtx480", "timing", modes[m], 1, &w);
            int good = run[m] && w == wf;
            cr_expect(good, "%s under %s: functional %lld, timing %lld warp instructions", n,
                      modes[m], wf, w);
            ok &= good;
        }
        const char *l = run[2], *x = run[NMODES - 1];
        if (ok && ld) {
            ok = ldesc_acted(l);
            cr_expect(ok, "%s: the descriptors did nothing", n);
        }
        if (ok && xm) {
            ok = suite_total(x, "xmem.alb_hits") + suite_total(x, "xmem.alb_misses") > 0;
            cr_expect(ok, "%s: no atom lookup", n);
        }
        if (ok && (ld || xm) && i % 2 == 0) { /* every other one: no skip is slow */
            const char *set = ld ? LDESC ";emu.threads=2" : XMEM ";emu.threads=2";
            char *ns = suite_run(i, "gtx480", "timing", set, 0, NULL);
            ok = ns && strcmp(ld ? l : x, ns) == 0;
            cr_expect(ok, "%s: skip vs no skip on two threads differ", n);
            free(ns);
        }
        failed += !ok;
        free(f);
        for (size_t m = 0; m < NMODES; m++)
            free(run[m]);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}
