/*
 * 906-zorua-samples: every sample (reduced inputs) runs under core.resource_mgr = zorua
 * on the gtx480, kepler and maxwell presets and under wlm on one of them (in turn, so
 * that each preset runs a third of the samples under wlm), prints PASS, and executes
 * exactly the warp instructions of functional mode: virtualizing warp slots, scratchpad
 * and registers changes only time (docs/zorua.md). Under zorua the coordinator must have
 * granted something, and for every other sample, on the wlm run's preset, with a short
 * epoch so that o_thresh moves, the statistics (interval series included) with idle
 * skipping on one host thread and without it on two must be identical.
 */
#include "900-samples-util.h"

#define ZORUA "core.resource_mgr=zorua;zorua.epoch=512"
#define WLM "core.resource_mgr=wlm"

static const char *const presets[] = {"gtx480", "kepler", "maxwell"};

Test(zorua_samples, same_instructions_as_functional_and_skip_idle_identical, .timeout = 1700)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 906))
            continue;
        const char *n = suite_samples[i].name;
        long long wf = -1;
        char *f = suite_run(i, "gtx480", "functional", "", 1, &wf);
        int ok = f != NULL;
        for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++) {
            int mine = p == i % (sizeof presets / sizeof presets[0]); /* wlm's turn */
            long long wz = -2, ww = wf;
            char *z = suite_run(i, presets[p], "timing", ZORUA, 1, &wz);
            char *w = mine ? suite_run(i, presets[p], "timing", WLM, 1, &ww) : NULL;
            int good = z && (w || !mine) && wz == wf && ww == wf &&
                       suite_total(z, "zorua.grants") > 0;
            cr_expect(good, "%s on %s: functional %lld, zorua %lld, wlm %lld warp instructions",
                      n, presets[p], wf, wz, ww);
            if (good && mine && i % 2 == 0) { /* every other sample: no skip is slow */
                char *ns = suite_run(i, presets[p], "timing", ZORUA ";emu.threads=2", 0, NULL);
                good = ns && strcmp(z, ns) == 0;
                cr_expect(good, "%s on %s under zorua: skip vs no skip on two threads differ", n,
                          presets[p]);
                free(ns);
            }
            ok &= good;
            free(z), free(w);
        }
        failed += !ok;
        free(f);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}
