/*
 * 907-caba-samples: every sample (reduced inputs) runs on gtx480 with its lines kept
 * compressed (mem.transform = caba; docs/caba.md), under each mode in turn (hw-mem, hw,
 * ideal) and each codec in turn (bdi, fpc, cpack, best). It prints PASS and executes
 * exactly the warp instructions of functional mode: compression changes only time. The
 * compressed memory must have seen the sample's DRAM traffic, and for every fourth
 * sample the statistics of a run on two host threads must equal those of the run on
 * one. Then every sample runs under caba.mode = caba (assist warps on the SMs; the codec
 * in turn) with caba.assist_check = true, so every line an assist routine decodes or
 * encodes must match the C codec's, or the launch fails.
 */
#include "900-samples-util.h"

static const char *const algos[] = {"bdi", "fpc", "cpack", "best"};
static const char *const modes[] = {"hw-mem", "hw", "ideal"};

Test(caba_samples, same_instructions_as_functional, .timeout = 1200)
{
    int failed = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 907))
            continue;
        const char *n = suite_samples[i].name, *algo = algos[i % 4], *mode = modes[i % 3];
        char set[128];
        snprintf(set, sizeof set, "mem.transform=caba;caba.mode=%s;caba.algo=%s", mode, algo);
        long long wf = -1, wc = -2;
        char *f = suite_run(i, "gtx480", "functional", "", 1, &wf);
        char *c = suite_run(i, "gtx480", "timing", set, 1, &wc);
        long long lines = suite_total(c, "caba.lines");
        int good = f && c && wc == wf && lines > 0 &&
                   lines == suite_total(c, "dram.reads") + suite_total(c, "dram.writes") -
                                suite_total(c, "dram.meta_accesses");
        cr_expect(good, "%s under %s/%s: functional %lld, caba %lld warp instructions; "
                  "caba.lines %lld", n, mode, algo, wf, wc, lines);
        if (good && i % 4 == 0) {
            char two[160];
            snprintf(two, sizeof two, "%s;emu.threads=2", set);
            char *t = suite_run(i, "gtx480", "timing", two, 1, NULL);
            good = t && strcmp(c, t) == 0;
            cr_expect(good, "%s under %s/%s: one and two host threads differ", n, mode, algo);
            free(t);
        }
        failed += !good;
        free(f), free(c);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
}

Test(caba_samples, assist_warps_same_instructions_as_functional, .timeout = 1200)
{
    int failed = 0;
    long long decomp = 0, comp = 0;
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 907))
            continue;
        const char *n = suite_samples[i].name, *algo = algos[i % 4];
        char set[160];
        snprintf(set, sizeof set, "mem.transform=caba;caba.mode=caba;core.assist=caba;"
                 "caba.algo=%s;caba.assist_check=true", algo);
        long long wf = -1, wc = -2;
        char *f = suite_run(i, "gtx480", "functional", "", 1, &wf);
        char *c = suite_run(i, "gtx480", "timing", set, 1, &wc);
        int good = f && c && wc == wf && suite_total(c, "caba.assist_mismatches") == 0;
        cr_expect(good, "%s under caba/%s: functional %lld, caba %lld warp instructions", n,
                  algo, wf, wc);
        decomp += suite_total(c, "caba.assist_decompressions");
        comp += suite_total(c, "caba.assist_compressions");
        if (good && i % 7 == 3) {
            char two[200];
            snprintf(two, sizeof two, "%s;emu.threads=2", set);
            char *t = suite_run(i, "gtx480", "timing", two, 1, NULL);
            good = t && strcmp(c, t) == 0;
            cr_expect(good, "%s under caba/%s: one and two host threads differ", n, algo);
            free(t);
        }
        failed += !good;
        free(f), free(c);
    }
    cr_assert_eq(failed, 0, "%d samples failed", failed);
    /* (the sanitizer tier runs a fifth of the samples: a fifth of the work at least) */
    long long share = suite_sanitize_tier() ? SUITE_STRIDE : 1;
    cr_expect_gt(decomp, 1000 / share, "the suite's compressed lines were decompressed by "
                 "assist warps");
    cr_expect_gt(comp, 100 / share, "the suite's stores were compressed by assist warps");
}
