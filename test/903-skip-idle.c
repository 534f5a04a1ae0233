/*
 * 903-skip-idle: skipping idle cycles, and ticking the SMs on several host threads,
 * change nothing but speed. Every sample (reduced inputs) runs in timing mode twice: with
 * emu.skip_idle = true (the default: SMs sleep, the loop jumps over cycles in which
 * nothing can happen) on one thread, and with false (every unit ticks every cycle) on
 * emu.threads threads (2 on accelsim-rtx2060, 1 on gtx480); the statistics, interval series
 * included, must be identical apart from host time and the two keys. On kepler and
 * maxwell every sample runs once (skipping) and must pass, so every sample runs correctly
 * on every preset.
 */
#include "900-samples-util.h"

/* compare > 0: also run without skipping on that many threads and require the same
 * statistics. */
static void check_preset(const char *preset, int compare)
{
    int failed = 0;
    char threads[32];
    snprintf(threads, sizeof threads, "emu.threads=%d", compare);
    for (size_t i = 0; i < SUITE_SAMPLES; i++) {
        if (suite_skip(i, 903))
            continue;
        char *a = suite_run(i, preset, "timing", "", 1, NULL);
        if (!compare) {
            cr_expect(a && strstr(a, "\"cycles\""), "%s on %s: no cycles",
                      suite_samples[i].name, preset);
            failed += !a || !strstr(a, "\"cycles\"");
            free(a);
            continue;
        }
        char *b = suite_run(i, preset, "timing", threads, 0, NULL);
        int same = a && b && strcmp(a, b) == 0;
        cr_expect(same, "%s on %s: statistics differ between skipping idle cycles on one "
                        "thread and ticking every cycle with %s", suite_samples[i].name,
                  preset, threads);
        cr_expect(!a || strstr(a, "\"intervals\""), "%s: no interval series",
                  suite_samples[i].name);
        failed += !same;
        free(a);
        free(b);
    }
    cr_assert_eq(failed, 0, "%d samples failed or differ on %s", failed, preset);
}

Test(skip_idle, accelsim_rtx2060, .timeout = 1700)
{
    check_preset("accelsim-rtx2060", 2);
}

Test(skip_idle, gtx480, .timeout = 1700)
{
    check_preset("gtx480", 1);
}

Test(skip_idle, kepler_and_maxwell_run_every_sample, .timeout = 1700)
{
    check_preset("kepler", 0);
    check_preset("maxwell", 0);
}
