/*
 * 905-baseline-samples: every sample (reduced inputs) runs on accelsim-rtx2060 under the
 * register-file baselines Memento is compared against: BOW (rf.collector = bow), and
 * the two-level schedulers rfc and swrfc with two active warps per sub-core. Each prints
 * PASS and executes exactly the warp instructions of functional mode; under swrfc every
 * sample is also run without idle skipping, and the statistics (the two-level state
 * distribution included) must be identical.
 */
#include "900-samples-util.h"

#define BOW "rf.collector=bow"
#define RFC "core.sched=rfc;core.sched_active=2"
#define SWRFC "core.sched=swrfc;core.sched_active=2"

Test(baseline_samples, same_instructions_as_functional_and_skip_idle_identical,
     .timeout = 1700)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 905))
            continue;
        const char *n = suite_samples[i].name;
        long long wf = -1, wb = -2, wr = -3, ws = -4, wn = -5;
        char *f = suite_run(i, "accelsim-rtx2060", "functional", "", 1, &wf);
        char *b = suite_run(i, "accelsim-rtx2060", "timing", BOW, 1, &wb);
        char *r = suite_run(i, "accelsim-rtx2060", "timing", RFC, 1, &wr);
        char *s = suite_run(i, "accelsim-rtx2060", "timing", SWRFC, 1, &ws);
        char *ns = suite_run(i, "accelsim-rtx2060", "timing", SWRFC, 0, &wn);
        int ok = f && b && r && s && ns && wf == wb && wf == wr && wf == ws &&
                 strcmp(s, ns) == 0 && strstr(s, "twolevel.pending_ready");
        cr_expect(ok, "%s: functional %lld, bow %lld, rfc %lld, swrfc %lld warp instructions; "
                      "skip vs no skip %s",
                  n, wf, wb, wr, ws, s && ns && strcmp(s, ns) == 0 ? "identical" : "differ");
        failed += !ok;
        free(f), free(b), free(r), free(s), free(ns);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}
