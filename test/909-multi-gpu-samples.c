/*
 * 909-multi-gpu-samples: every sample (reduced inputs) runs on a device of two GPUs that
 * share memory (system.memory = shared; docs/multi-gpu.md) under HALCONE's coherence and
 * under the kernel-boundary flush, and on two NUMA modules, and prints PASS. On the NUMA
 * device, where each line is cached in one L2, it executes exactly the warp instructions
 * of functional mode on the same device; on the shared one a GPU may read another GPU's
 * older values within a kernel (docs/multi-gpu.md, "What a GPU reads"), which changes how
 * many rounds an iterative program takes (sssp) but not its answer. Every other sample
 * also gives the same statistics under HALCONE with idle skipping on one host thread as
 * without it on two.
 */
#include "900-samples-util.h"

#define TWO "gpu.sm_count=4;system.gpus=2;"
#define HALCONE TWO "system.memory=shared;coherence=halcone"

static const char *const modes[] = {HALCONE, TWO "system.memory=shared;coherence=flush",
                                    TWO "system.memory=numa;numa.map=first-touch"};
#define NMODES (sizeof modes / sizeof modes[0])

Test(multi_gpu_samples, same_instructions_as_functional, .timeout = 1700)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 909))
            continue;
        const char *n = suite_samples[i].name;
        long long wf = -1;
        char *f = suite_run(i, "accelsim-rtx2060", "functional", TWO "system.memory=numa", 1, &wf);
        char *run[NMODES];
        int ok = f != NULL;
        for (size_t m = 0; m < NMODES; m++) {
            long long w = -2;
            run[m] = suite_run(i, "accelsim-rtx2060", "timing", modes[m], 1, &w);
            int good = run[m] && (w == wf || strstr(modes[m], "shared"));
            cr_expect(good, "%s under %s: functional %lld, timing %lld warp instructions", n,
                      modes[m], wf, w);
            ok &= good;
        }
        if (ok && i % 2 == 0) { /* every other one: no skip is slow */
            char *ns = suite_run(i, "accelsim-rtx2060", "timing", HALCONE ";emu.threads=2", 0, NULL);
            ok = ns && strcmp(run[0], ns) == 0;
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
