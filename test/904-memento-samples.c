/*
 * 904-memento-samples: every sample (reduced inputs) runs on accelsim-rtx2060 with Memento's
 * caching collectors under core.sched = memento (dynamic STHLD, a short interval so
 * the state machine moves) and memento-pr, prints PASS, and executes exactly the warp
 * instructions of functional mode. Under memento every sample is also run without idle
 * skipping on two host threads (emu.threads), and the statistics, interval series and
 * STHLD included, must be identical.
 */
#include "900-samples-util.h"

#define MEMENTO "rf.collector=ccu;core.sched=memento;memento.interval=2000"
#define MEMENTO_PR "rf.collector=ccu;core.sched=memento-pr"

Test(memento_samples, same_instructions_as_functional_and_skip_idle_identical, .timeout = 1700)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 904))
            continue;
        const char *n = suite_samples[i].name;
        long long wf = -1, wm = -2, wp = -3, wn = -4;
        char *f = suite_run(i, "accelsim-rtx2060", "functional", "", 1, &wf);
        char *m = suite_run(i, "accelsim-rtx2060", "timing", MEMENTO, 1, &wm);
        char *p = suite_run(i, "accelsim-rtx2060", "timing", MEMENTO_PR, 1, &wp);
        char *ns = suite_run(i, "accelsim-rtx2060", "timing", MEMENTO ";emu.threads=2", 0, &wn);
        int ok = f && m && p && ns && wf == wm && wf == wp && strcmp(m, ns) == 0 &&
                 strstr(m, "\"sthld\"") && strstr(m, "rf.ct_hits");
        cr_expect(ok, "%s: functional %lld, memento %lld, memento-pr %lld warp instructions; "
                      "skip vs no skip on two threads %s",
                  n, wf, wm, wp, m && ns && strcmp(m, ns) == 0 ? "identical" : "differ");
        failed += !ok;
        free(f), free(m), free(p), free(ns);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}
