/*
 * 853-xgpu-report-hostile: the report tool (tools/xgpu-report, docs/report.md) under
 * inputs and outputs that once broke it. The page never replaces an input (by name, by
 * symbolic or hard link) nor a sweep's own files; statistics that are JSON but not what
 * xgpu writes, nesting too deep, devices and unwritable outputs are one line naming the
 * file, exit status 2, never a traceback; a program of 2100 launches gives a page in
 * seconds, its stall bars and table rows one per kernel name; two inputs of the same
 * file name are told apart by their paths and compared. The statistics are written by a
 * small generator here (no CUDA compile), so the file runs in seconds.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define REPORT XGPU_BIN_DIR "/xgpu-report"

/* gen.py PATH N IPC: statistics of N timing launches alternating between two kernels,
 * whose totals have the given IPC. nop issues in 10% of its 3000 issue slots; busy
 * alternates between 50% of 1000 slots and 10% of 3000, 20% of its slots together (the
 * mean of its launches' shares would be 30%). */
static const char *gen_py =
    "import json, sys\n"
    "path, n, ipc = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])\n"
    "def launch(i):\n"
    "    f, w = (0.5, 1000) if i % 4 == 0 else (0.1, 3000)\n"
    "    return {'name': '_Z3nopPi' if i % 2 else '_Z4busyPi', 'grid': [1, 1, 1],\n"
    "            'block': [32, 1, 1], 'warp_instructions': 8, 'cycles': 100,\n"
    "            'ipc': 0.08, 'status': 'ok',\n"
    "            'timing': {'core.subcore_cycles': w, 'core.issued_fraction': f,\n"
    "                       'stall.no_warp_fraction': 1 - f, 'l1.hit_rate': 0.5,\n"
    "                       'l2.hit_rate': None, 'dram.bytes': 64}}\n"
    "t = {'launches': n, 'warp_instructions': 8 * n, 'cycles': 100 * n, 'ipc': ipc,\n"
    "     'timing': {'l1.hit_rate': 0.5, 'dram.bytes': 64 * n, 'rf.bank_reads': 10 * n}}\n"
    "json.dump({'device': 'x', 'launches': [launch(i) for i in range(n)], 'totals': t},\n"
    "          open(path, 'w'))\n";

static void stats(const char *path, int n, double ipc)
{
    const char *gen = xt_tmp("gen.py");
    cr_assert_eq(xt_write(gen, gen_py), 0);
    char *out = NULL;
    int rc = xt_runf(&out, "mkdir -p \"$(dirname %s)\" && python3 %s %s %d %g", path, gen, path,
                     n, ipc);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
}

/* The report of `args` must fail with exit status 2 and one line containing `what`. */
static void expect_error(const char *args, const char *what)
{
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && timeout 60 %s %s", xt_tmpdir(), REPORT, args);
    cr_expect_eq(rc, 2, "%s: exit status %d:\n%s", args, rc, out);
    cr_expect(strstr(out, "xgpu-report: error: ") == out && strstr(out, what),
              "%s: expected 'xgpu-report: error: ...%s' in:\n%s", args, what, out);
    const char *nl = strchr(out, '\n');
    cr_expect(nl && nl[1] == '\0', "%s: more than one line:\n%s", args, out);
    free(out);
}

static char *report_ok(const char *args)
{
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && timeout 60 %s %s", xt_tmpdir(), REPORT, args);
    cr_assert_eq(rc, 0, "%s: %s", args, out);
    return out;
}

Test(report_hostile, an_output_that_is_an_input_is_refused)
{
    stats(xt_tmp("s.json"), 3, 0.1);
    char *before = xt_read(xt_tmp("s.json"), NULL);
    cr_assert_not_null(before);
    expect_error("s.json -o s.json", "s.json: one of the inputs");
    expect_error("./s.json -o ../$(basename $PWD)/s.json", "one of the inputs");
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, "cd %s && ln -sf s.json sym.json && ln -f s.json hard.json "
                               "&& mkdir -p d && cp s.json d/a.json", xt_tmpdir()), 0, "%s", out);
    free(out);
    expect_error("s.json -o sym.json", "one of the inputs");
    expect_error("hard.json -o s.json", "one of the inputs");
    expect_error("d -o d/a.json", "d/a.json: one of the inputs");
    /* a figure that would replace an input */
    cr_assert_eq(xt_runf(&out, "cd %s && mkdir -p r_files && cp s.json r_files/stalls.svg",
                         xt_tmpdir()), 0);
    free(out);
    expect_error("r_files/stalls.svg -o r.html", "r_files/stalls.svg: one of the inputs");
    char *after = xt_read(xt_tmp("s.json"), NULL);
    cr_assert_not_null(after);
    cr_expect_str_eq(after, before, "the statistics are untouched");
    free(after);
    after = xt_read(xt_tmp("r_files/stalls.svg"), NULL);
    cr_expect(after && strcmp(after, before) == 0, "the input named like a figure is untouched");
    free(after);
    free(before);
}

Test(report_hostile, a_sweeps_own_files_are_refused)
{
    char *out = NULL;
    stats(xt_tmp("sw/runs/r0/stats.json"), 2, 0.1);
    cr_assert_eq(xt_runf(&out,
                         "cd %s/sw && echo '{\"runs\": [\"r0\"]}' > sweep.json && "
                         "python3 -c \"import json; s = json.load(open('runs/r0/stats.json')); "
                         "json.dump({'status': 0, 'program': 'p', 'params': {'core.sched': "
                         "'gto'}, 'stats': s}, open('runs/r0/result.json', 'w'))\"",
                         xt_tmpdir()),
                 0, "%s", out);
    free(out);
    expect_error("sw -o sw/runs/r0/stdout.txt", "inside the files of the sweep in");
    expect_error("sw -o sw/results.csv", "inside the files of the sweep in");
    expect_error("sw -o sw/runs/page.html", "inside the files of the sweep in");
    free(report_ok("sw -o sw/report.html"));
    char *page = xt_read(xt_tmp("sw/report.html"), NULL);
    cr_expect(page && strstr(page, "1 runs, 2 launches."), "%.300s", page);
    free(page);
    /* a sweep whose run list is not one */
    cr_assert_eq(xt_runf(&out, "cd %s && mkdir -p sw2/runs sw3/runs && "
                               "echo '{\"runs\": 5}' > sw2/sweep.json && "
                               "echo '{\"runs\": [\"../x\"]}' > sw3/sweep.json",
                         xt_tmpdir()), 0, "%s", out);
    free(out);
    expect_error("sw2 -o x.html", "sw2/sweep.json: runs: expected a list, found a number");
    expect_error("sw3 -o x.html", "sw3/sweep.json: runs: expected a list of run names");
}

/* JSON that is not xgpu statistics, and files that are not JSON: one line each. */
Test(report_hostile, malformed_statistics_are_one_line)
{
    static const struct {
        const char *file, *text, *what;
    } cases[] = {
        {"a.json", "{\"launches\": [1, \"x\"]}",
         "a.json: launches[0]: expected an object, found a number"},
        {"b.json", "{\"launches\": [{\"name\": 5, \"cycles\": \"many\"}]}",
         "b.json: launches[0].name: expected a string, found a number"},
        {"b2.json", "{\"launches\": [{\"name\": \"k\", \"cycles\": \"many\"}]}",
         "b2.json: launches[0].cycles: expected a number or null, found a string"},
        {"t.json", "{\"launches\": [{\"timing\": {\"stall.barrier_fraction\": [1]}}]}",
         "t.json: launches[0].timing.stall.barrier_fraction: expected a number or null"},
        {"i.json", "{\"launches\": [{\"intervals\": [{\"ipc\": 1}]}]}",
         "i.json: launches[0].intervals[0].cycle: expected a number, found null"},
        {"g.json", "{\"launches\": [{\"grid\": {\"x\": 1}}]}",
         "g.json: launches[0].grid: expected a list of numbers, found an object"},
        {"o.json", "{\"launches\": [], \"totals\": [1]}",
         "o.json: totals: expected an object, found a list"},
        {"p.json", "{\"launches\": [{\"cycles\": 100000000000000000000000}]}",
         "p.json: launches[0].cycles: expected a number or null, found an integer past 64 bits"},
        {"u.json", "\xff\xfe{}", "u.json: not JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(xt_write(xt_tmp(cases[i].file), cases[i].text), 0);
        char args[128];
        snprintf(args, sizeof args, "%s -o x.html", cases[i].file);
        expect_error(args, cases[i].what);
    }
    /* nesting deeper than any parser's recursion, at the top and inside the launches */
    enum { DEEP = 100000 };
    char *deep = malloc(2 * DEEP + 32);
    cr_assert_not_null(deep);
    strcpy(deep, "{\"launches\": [");
    size_t at = strlen(deep);
    memset(deep + at, '[', DEEP);
    memset(deep + at + DEEP, ']', DEEP);
    strcpy(deep + at + 2 * DEEP, "]}");
    cr_assert_eq(xt_write(xt_tmp("c2.json"), deep), 0);
    deep[at + 2 * DEEP] = '\0';
    cr_assert_eq(xt_write(xt_tmp("c.json"), deep + at), 0);
    free(deep);
    expect_error("c.json -o x.html", "c.json: not JSON that xgpu writes (nested too deeply)");
    expect_error("c2.json -o x.html", "c2.json: not JSON that xgpu writes (nested too deeply)");
    expect_error("/dev/zero -o x.html", "/dev/zero: a device, not a statistics file");
    /* NaN and numbers past a float's range are no numbers: read as null, the page drawn */
    cr_assert_eq(xt_write(xt_tmp("n.json"), "{\"launches\": [{\"name\": \"k\", \"cycles\": "
                                            "1e999, \"ipc\": NaN, \"timing\": "
                                            "{\"core.issued_fraction\": Infinity}}]}"), 0);
    free(report_ok("n.json -o n.html"));
}

Test(report_hostile, an_output_that_cannot_be_written_is_one_line)
{
    stats(xt_tmp("s.json"), 3, 0.1);
    expect_error("s.json -o /proc/x.html", "/proc/x.html: No such file or directory");
    expect_error("s.json -o no-such-dir/x.html", "no-such-dir/x.html: No such file or directory");
    cr_assert_eq(xt_write(xt_tmp("f_files"), "a file"), 0);
    expect_error("s.json -o f.html", "f_files: exists and is not a directory");
    char *out = NULL;
    cr_expect_eq(xt_runf(&out, "ls -a %s | grep '\\.tmp$'", xt_tmpdir()), 1,
                 "a temporary page left behind: %s", out);
    free(out);
}

Test(report_hostile, many_launches_give_a_page_per_kernel_name, .timeout = 120)
{
    stats(xt_tmp("many.json"), 2100, 0.08);
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && s=$(date +%%s) && timeout 60 %s many.json -o m.html && "
                           "echo seconds=$(( $(date +%%s) - s ))",
                     xt_tmpdir(), REPORT);
    cr_assert_eq(rc, 0, "%s", out);
    int secs = -1;
    const char *p = strstr(out, "seconds=");
    cr_assert_not_null(p, "%s", out);
    sscanf(p, "seconds=%d", &secs);
    cr_expect_leq(secs, 30, "2100 launches took %d s", secs);
    free(out);
    char *page = xt_read(xt_tmp("m.html"), NULL);
    cr_assert_not_null(page);
    cr_expect(strstr(page, "1 runs, 2100 launches."));
    cr_expect(strstr(page, "2100 launches: one row per kernel name"));
    /* the table: one row per kernel with its count, sums and the IPC of the sums */
    cr_expect(strstr(page, "<td>busy</td><td>1050</td><td>1x1x1</td><td>32x1x1</td>"
                           "<td>8400</td><td>105000</td><td>0.08</td><td>67200</td>"
                           "<td>ok \xc3\x97" "1050</td>"),
              "%s", strstr(page, "<table>"));
    /* the stall figure: two bars, each named with its launch count */
    cr_expect(strstr(page, "id=\"fig-stalls\""));
    cr_expect(strstr(page, "per kernel name"));
    cr_expect(strstr(page, "busy (1050 launches)") && strstr(page, "nop (1050 launches)"));
    cr_expect_eq(xt_count(page, "launches)</text>"), 2, "one bar per kernel");
    free(page);
    /* the issued shares of the two bars (the first series, blue; each row sums to 1) */
    cr_assert_eq(xt_write(xt_tmp("bars.py"),
                          "import re, sys\n"
                          "t = open(sys.argv[1]).read()\n"
                          "bars = re.findall(r'M ([0-9.]+) [0-9.]+ \\s*L ([0-9.]+) [^\"]*\"'\n"
                          "                  r' clip-path=\"[^\"]*\"'\n"
                          "                  r' style=\"fill: (#[0-9a-f]+)', t)\n"
                          "right = max(float(b[1]) for b in bars)\n"
                          "print(' '.join('%.3f' % ((float(b) - float(a)) / (right - float(a)))\n"
                          "               for a, b, c in bars if c == '#1f77b4'))\n"),
                 0);
    rc = xt_runf(&out, "python3 %s %s", xt_tmp("bars.py"), xt_tmp("m_files/stalls.svg"));
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect_str_eq(out, "0.200 0.100\n", "busy's share weighted by issue slots, then nop's");
    free(out);
    /* fewer launches: one bar per launch, one row per launch */
    stats(xt_tmp("few.json"), 4, 0.08);
    free(report_ok("few.json -o f.html"));
    page = xt_read(xt_tmp("f.html"), NULL);
    cr_assert_not_null(page);
    cr_expect(!strstr(page, "one row per kernel name"));
    cr_expect_eq(xt_count(page, "<td>busy</td>"), 2);
    cr_expect(strstr(page, "per launch"));
    free(page);
}

Test(report_hostile, inputs_of_the_same_name_are_told_apart_and_compared)
{
    stats(xt_tmp("gto/stats.json"), 2, 0.1);
    stats(xt_tmp("lrr/stats.json"), 2, 0.2);
    free(report_ok("gto/stats.json lrr/stats.json -o r.html --baseline lrr/stats"));
    char *page = xt_read(xt_tmp("r.html"), NULL);
    cr_assert_not_null(page);
    cr_expect(strstr(page, "<h3>gto/stats</h3>") && strstr(page, "<h3>lrr/stats</h3>"),
              "%.500s", page);
    cr_expect(strstr(page, "Against the baseline (lrr/stats)"));
    cr_expect(strstr(page, "<th>gto/stats</th>"));
    cr_expect(strstr(page, "<td>IPC</td><td>0.5</td>"), "gto's IPC is half lrr's");
    free(page);
    /* the same file twice: a number tells the copies apart */
    free(report_ok("gto/stats.json ./gto/stats.json lrr/stats.json -o r2.html"));
    page = xt_read(xt_tmp("r2.html"), NULL);
    cr_assert_not_null(page);
    cr_expect(strstr(page, "<h3>gto/stats</h3>") && strstr(page, "<h3>gto/stats (2)</h3>") &&
              strstr(page, "<h3>lrr/stats</h3>"), "%.500s", page);
    free(page);
    expect_error("gto/stats.json lrr/stats.json -o r.html --baseline stats",
                 "--baseline stats: no input of that name (gto/stats, lrr/stats)");
}
