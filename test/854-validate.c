/*
 * 854-validate: the validation suite (bench/validate.py, docs/validation.md) at its
 * smallest. It compiles the microbenchmarks it needs with the
 * built xgpu-cc, runs them in timing mode and prints one row per preset and metric with
 * a number measured, the published figure and the verdict; a preset that does not exist
 * and a metric it does not know are refused in one line that names them. An execution
 * unit's dependent latency is measured against a hardware figure on the real RTX 2060
 * preset, and the Memento paper's machine gets no figure for it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define VALIDATE "python3 " XGPU_SOURCE_DIR "/bench/validate.py --build " XGPU_BUILD_DIR

/* The number in column col (0-based, blank-separated) of the line that starts with
 * "preset  metric "; fails the test when there is no such line. */
static double column(const char *out, const char *preset, const char *metric, int col)
{
    for (const char *line = out; line && *line;) {
        const char *next = strchr(line, '\n');
        char p[64], m[64];
        int found = sscanf(line, "%63s %63s", p, m) == 2 && !strcmp(p, preset) &&
                    !strcmp(m, metric);
        if (!found) {
            line = next ? next + 1 : NULL;
            continue;
        }
        const char *c = line;
        for (int i = 0; i < col; i++) {
            c += strcspn(c, " ");
            c += strspn(c, " ");
        }
        char *end;
        double v = strtod(c, &end);
        cr_assert(end != c, "column %d of %s %s is not a number:\n%s", col, preset, metric, out);
        return v;
    }
    cr_assert_fail("no row %s %s in:\n%s", preset, metric, out);
    return 0;
}

Test(validate, one_preset_gives_measured_rows_against_published_figures)
{
    char *out = NULL;
    int rc = xt_runf(&out, VALIDATE " --presets accelsim-rtx2060 --metrics lat.l1.seq,lat.shared "
                     "--scale 0.05 2>&1");
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strncmp(out, "preset ", 7) == 0, "%s", out);
    /* columns: preset metric unit xgpu published ratio */
    double l1 = column(out, "accelsim-rtx2060", "lat.l1.seq", 3);
    double shared = column(out, "accelsim-rtx2060", "lat.shared", 3);
    /* an L1 hit costs at least its configured 20 cycles and is far from an L2 trip */
    cr_expect(l1 >= 20 && l1 < 100, "L1 latency %g\n%s", l1, out);
    cr_expect(shared >= 20 && shared < 100, "shared latency %g\n%s", shared, out);
    cr_expect_eq(column(out, "accelsim-rtx2060", "lat.l1.seq", 4), 32, "T4's L1 hit latency");
    cr_expect_eq(column(out, "accelsim-rtx2060", "lat.shared", 4), 23);
    double ratio = column(out, "accelsim-rtx2060", "lat.l1.seq", 5);
    cr_expect(ratio > l1 / 32 - 0.01 && ratio < l1 / 32 + 0.01, "%s", out);
    cr_expect(strstr(out, "2 rows, "), "%s", out);
    cr_expect_eq(xt_count(out, "\naccelsim-rtx2060 "), 2, "%s", out);
    free(out);
}

Test(validate, a_unit_latency_against_the_hardware_figure)
{
    char *out = NULL;
    int rc = xt_runf(&out, VALIDATE " --presets rtx2060,accelsim-rtx2060 --metrics lat.ffma "
                     "--scale 0.05 2>&1");
    cr_assert_eq(rc, 0, "%s", out);
    /* columns: preset metric unit xgpu published ratio target result */
    double ffma = column(out, "rtx2060", "lat.ffma", 3);
    cr_expect_eq(column(out, "rtx2060", "lat.ffma", 4), 4, "TITAN RTX's dependent FFMA");
    cr_expect(ffma >= 3.2 && ffma <= 4.8, "a dependent FFMA on rtx2060 takes %g cycles\n%s",
              ffma, out);
    cr_expect(strstr(out, "+-20%   ok"), "%s", out);
    /* the paper's Accel-Sim pipeline: 5 + 6 stage cycles + a bank conflict, no target */
    double paper = column(out, "accelsim-rtx2060", "lat.ffma", 3);
    cr_expect(paper > 2 * ffma, "accelsim-rtx2060 %g vs rtx2060 %g\n%s", paper, ffma, out);
    cr_expect(strstr(out, "paper machine"), "%s", out);
    cr_expect(strstr(out, "2 rows, 1 within target, 0 missing it"), "%s", out);
    free(out);
}

Test(validate, bad_preset_and_metric_are_one_line_errors)
{
    char *out = NULL;
    int rc = xt_runf(&out, VALIDATE " --presets no-such-gpu --metrics lat.shared 2>&1");
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "validate.py: error: preset 'no-such-gpu'"), "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line:\n%s", out);
    free(out);
    rc = xt_runf(&out, VALIDATE " --presets accelsim-rtx2060 --metrics lat.nowhere 2>&1");
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "unknown metric 'lat.nowhere'"), "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line:\n%s", out);
    free(out);
}
