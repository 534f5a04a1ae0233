/*
 * 851-xgpu-report: the report tool (tools/xgpu-report, docs/report.md). From statistics
 * files and from a sweep's directory it writes one self-contained page with every
 * figure inlined, each figure also as SVG and PDF; the comparison divides by the chosen
 * baseline; bad inputs are named. The page is opened in headless Chromium (where
 * installed): it must load without console errors and show every figure; the screenshot
 * is kept in the build directory (test-artifacts/report.png).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xtest.h"

#define REPORT XGPU_BIN_DIR "/xgpu-report"
#define SWEEP XGPU_BIN_DIR "/xgpu-sweep"
#define GEMM XGPU_BUILD_DIR "/samples/gemm"

/* Two statistics files of gemm (small), with interval records, under two schedulers. */
static void two_runs(const char *a, const char *b)
{
    char *out = NULL;
    int rc = xt_runf(&out,
                     "XGPU_CONFIG=accelsim-rtx2060 XGPU_SET='emu.interval_cycles=1000;core.sched=gto' "
                     "XGPU_STATS=%s %s 64 64 64 && "
                     "XGPU_CONFIG=accelsim-rtx2060 XGPU_SET='emu.interval_cycles=1000;core.sched=lrr' "
                     "XGPU_STATS=%s %s 64 64 64",
                     a, GEMM, b, GEMM);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
}

static const char *figures[] = {"fig-stalls", "fig-ipc-series", "fig-stall-series-0",
                                "fig-stall-series-1", "fig-memory",
                                "fig-vs-baseline-ipc", "fig-vs-baseline-cycles"};

Test(report, files_give_a_page_with_every_figure_also_as_svg_and_pdf, .timeout = 120)
{
    char a[256], b[256], page[256];
    snprintf(a, sizeof a, "%s", xt_tmp("gto.json"));
    snprintf(b, sizeof b, "%s", xt_tmp("lrr.json"));
    snprintf(page, sizeof page, "%s", xt_tmp("r.html"));
    two_runs(a, b);
    char *out = NULL;
    int rc = xt_runf(&out, "%s --compare %s %s -o %s --baseline lrr", REPORT, a, b, page);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *text = xt_read(page, NULL);
    cr_assert_not_null(text);
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++)
        cr_expect(strstr(text, figures[i]), "no %s in the page", figures[i]);
    cr_expect_geq(xt_count(text, "<figure"), 5);
    cr_expect_eq(xt_count(text, "<svg"), xt_count(text, "<figure"), "every figure inlined");
    cr_expect(!strstr(text, "src=") && !strstr(text, "<link") && !strstr(text, "@import"),
              "nothing to fetch");
    cr_expect(strstr(text, "Against the baseline (lrr)"));
    cr_expect(strstr(text, "<td>gemm_tiled</td>"), "the launch table names the kernel");
    free(text);
    static const char *files[] = {"stalls", "ipc-series", "memory", "vs-baseline-ipc"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/r_files/%s.pdf", xt_tmpdir(), files[i]);
        char *pdf = xt_read(path, NULL);
        cr_assert_not_null(pdf, "%s", path);
        cr_expect(strncmp(pdf, "%PDF", 4) == 0, "%s", path);
        free(pdf);
        snprintf(path, sizeof path, "%s/r_files/%s.svg", xt_tmpdir(), files[i]);
        char *svg = xt_read(path, NULL);
        cr_assert_not_null(svg, "%s", path);
        cr_expect(strstr(svg, "<svg"), "%s", path);
        free(svg);
    }
    /* the ratios: IPC of gto over lrr in the table equals the statistics' */
    rc = xt_runf(&out,
                 "python3 -c \"import json,sys\n"
                 "a, b = (json.load(open(p))['totals']['ipc'] for p in sys.argv[1:3])\n"
                 "t = open(sys.argv[3]).read()\n"
                 "r = t.split('<td>IPC</td><td>')[1].split('<')[0]\n"
                 "print(abs(float(r) - a / b) < 1e-3 * a / b, r, a / b)\" %s %s %s",
                 a, b, page);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strncmp(out, "True", 4) == 0, "%s", out);
    free(out);
}

Test(report, a_sweep_directory_compares_its_settings, .timeout = 120)
{
    const char *file = xt_tmp("s.toml");
    cr_assert_eq(xt_write(file, "[[program]]\nname = \"gemm\"\n"
                                "command = [\"" GEMM "\", \"48\", \"48\", \"48\"]\n"
                                "[axes]\n\"core.sched\" = [\"gto\", \"lrr\", \"two-level\"]\n"
                                "preset = [\"accelsim-rtx2060\"]\n"), 0);
    char res[256], page[256], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("sres"));
    snprintf(page, sizeof page, "%s", xt_tmp("s.html"));
    int rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    rc = xt_runf(&out, "%s %s -o %s --baseline core.sched=lrr", REPORT, res, page);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *text = xt_read(page, NULL);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "3 runs, 6 launches."), "%.300s", text);
    cr_expect(strstr(text, "Against the baseline (core.sched=lrr,preset=accelsim-rtx2060)"));
    cr_expect(strstr(text, "<th>core.sched=gto,preset=accelsim-rtx2060</th>"));
    cr_expect(strstr(text, "fig-vs-baseline-ipc"));
    free(text);
    /* a baseline that names no setting, or more than one */
    rc = xt_runf(&out, "%s %s -o %s --baseline core.sched=rr", REPORT, res, page);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "--baseline core.sched=rr: matches 0 of the settings"), "%s", out);
    free(out);
    rc = xt_runf(&out, "%s %s -o %s --baseline preset=accelsim-rtx2060", REPORT, res, page);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "matches 3 of the settings"), "%s", out);
    free(out);
}

Test(report, bad_inputs_are_named)
{
    const char *bad = xt_tmp("bad.json"), *other = xt_tmp("other.json");
    cr_assert_eq(xt_write(bad, "{\"launches\": [}"), 0);
    cr_assert_eq(xt_write(other, "{\"x\": 1}"), 0);
    char *out = NULL;
    int rc = xt_runf(&out, "%s %s -o %s", REPORT, bad, xt_tmp("x.html"));
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "xgpu-report: error: ") && strstr(out, "bad.json: not JSON"), "%s",
              out);
    free(out);
    rc = xt_runf(&out, "%s %s -o %s", REPORT, other, xt_tmp("x.html"));
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "other.json: not an xgpu statistics file"), "%s", out);
    free(out);
    rc = xt_runf(&out, "%s --compare %s -o %s", REPORT, other, xt_tmp("x.html"));
    cr_expect_eq(rc, 2);
    free(out);
    rc = xt_runf(&out, "%s %s -o %s", REPORT, xt_tmp("none.json"), xt_tmp("x.html"));
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "none.json: No such file"), "%s", out);
    free(out);
}

Test(report, the_page_loads_in_chromium, .timeout = 180)
{
    char *out = NULL;
    if (xt_run("command -v chromium", &out) != 0) {
        free(out);
        cr_skip_test("chromium is not installed (scripts/setup.sh installs it)");
    }
    free(out);
    char a[256], b[256], page[256];
    snprintf(a, sizeof a, "%s", xt_tmp("gto.json"));
    snprintf(b, sizeof b, "%s", xt_tmp("lrr.json"));
    snprintf(page, sizeof page, "%s", xt_tmp("c.html"));
    two_runs(a, b);
    int rc = xt_runf(&out, "%s %s %s -o %s", REPORT, a, b, page);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    /* the DOM after loading (scripts would have run), with the console on stderr */
    const char *flags = "--headless --no-sandbox --disable-gpu --hide-scrollbars "
                        "--enable-logging=stderr --v=0";
    rc = xt_runf(&out, "cd %s && timeout 120 chromium %s --dump-dom file://%s 2>console.txt; "
                       "echo rc=$?; grep -c 'CONSOLE' console.txt",
                 xt_tmpdir(), flags, page);
    cr_assert(strstr(out, "rc=0"), "%s", out);
    cr_expect(strstr(out, "\n0\n"), "console messages: %s", out);
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
        char want[64];
        snprintf(want, sizeof want, "id=\"%s\"", figures[i]);
        cr_expect(strstr(out, want), "no %s in the loaded page", figures[i]);
    }
    cr_expect_geq(xt_count(out, "<svg"), 5);
    cr_expect_eq(xt_count(out, "<svg"), xt_count(out, "<figure"));
    free(out);
    rc = xt_runf(&out, "mkdir -p %s/test-artifacts && cd %s && timeout 120 chromium %s "
                       "--window-size=1200,3000 --screenshot=%s/test-artifacts/report.png "
                       "file://%s 2>/dev/null && test -s %s/test-artifacts/report.png",
                 XGPU_BUILD_DIR, xt_tmpdir(), flags, XGPU_BUILD_DIR, page, XGPU_BUILD_DIR);
    cr_expect_eq(rc, 0, "screenshot: %s", out);
    free(out);
}
