/*
 * 850-xgpu-sweep: the sweep tool's local backend (tools/xgpu-sweep, docs/sweeps.md).
 * The plan is the cartesian product of the axes (times explicit points and repetitions),
 * with run names that do not depend on the file's order; a run's statistics are those of
 * the same program run by hand with the same settings; results.csv has a row per launch
 * with the parameters as columns; a rerun skips complete runs and reruns only missing
 * or failed ones, and those made with another configuration than the file now asks for
 * (settings, mode, command, environment); a failed run keeps its exit status and stderr
 * tail; an interrupted
 * sweep leaves no result for the runs it killed; bad sweep files are rejected with the
 * file and the key named.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xtest.h"

#define SWEEP XGPU_BIN_DIR "/xgpu-sweep"
#define VECADD XGPU_BUILD_DIR "/samples/vecadd"

static const char *sweep_file(const char *name, const char *text)
{
    const char *path = xt_tmp(name);
    cr_assert_eq(xt_write(path, text), 0);
    return path;
}

/* The number of lines of a file. */
static int lines(const char *path)
{
    char *text = xt_read(path, NULL);
    cr_assert_not_null(text, "%s missing", path);
    int n = xt_count(text, "\n");
    free(text);
    return n;
}

static const char *basic =
    "[[program]]\n"
    "name = \"vecadd\"\n"
    "command = [\"" VECADD "\", \"3000\"]\n"
    "\n"
    "[axes]\n"
    "preset = [\"accelsim-rtx2060\", \"gtx480\"]\n"
    "\"core.sched\" = [\"gto\", \"lrr\"]\n";

Test(sweep, plan_is_the_product_of_the_axes)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s plan %s", SWEEP, sweep_file("a.toml", basic));
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect_eq(xt_count(out, "vecadd__"), 4, "%s", out);
    cr_expect(strstr(out, "vecadd__core.sched=lrr__preset=gtx480__r0: "), "%s", out);
    cr_expect(strstr(out, "XGPU_CONFIG=gtx480 XGPU_SET=core.sched=lrr"), "%s", out);
    cr_expect(strstr(out, "4 runs (1 programs)"), "%s", out);
    free(out);
    /* the same runs, named the same, with the axes in the other order; points and
     * repetitions multiply */
    rc = xt_runf(&out, "%s plan %s", SWEEP,
                 sweep_file("b.toml",
                            "repetitions = 2\n"
                            "[set]\n\"emu.seed\" = 7\n"
                            "[[program]]\nname = \"vecadd\"\ncommand = [\"" VECADD "\"]\n"
                            "[axes]\n\"core.sched\" = [\"lrr\", \"gto\"]\n"
                            "[[point]]\npreset = \"gtx480\"\nmode = \"functional\"\n"
                            "[[point]]\npreset = \"accelsim-rtx2060\"\nmode = \"timing\"\n"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "vecadd__core.sched=lrr__mode=functional__preset=gtx480__r1: "
                          "XGPU_MODE=functional"), "%s", out);
    cr_expect(strstr(out, "XGPU_SET='emu.seed=7;core.sched=gto'"), "%s", out);
    cr_expect(strstr(out, "8 runs"), "%s", out);
    free(out);
    /* points of a program's own, an empty one among them */
    rc = xt_runf(&out, "%s plan %s", SWEEP,
                 sweep_file("c.toml",
                            "[[program]]\nname = \"a\"\ncommand = [\"true\"]\n"
                            "[[program.point]]\n"
                            "[[program.point]]\n\"rf.collector\" = \"ccu\"\n"
                            "[[program]]\nname = \"b\"\ncommand = [\"true\"]\n"
                            "[axes]\npreset = [\"gtx480\"]\n"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "a__preset=gtx480__r0: "), "%s", out);
    cr_expect(strstr(out, "a__preset=gtx480__rf.collector=ccu__r0: "), "%s", out);
    cr_expect(strstr(out, "b__preset=gtx480__r0: "), "%s", out);
    cr_expect(strstr(out, "3 runs (2 programs)"), "%s", out);
    free(out);
}

/* cycles of launch i in a stats or result file */
static long long launch_cycles(json_object *stats, int i)
{
    json_object *ls, *l, *c;
    cr_assert(json_object_object_get_ex(stats, "launches", &ls));
    l = json_object_array_get_idx(ls, (size_t)i);
    cr_assert_not_null(l);
    cr_assert(json_object_object_get_ex(l, "cycles", &c));
    return json_object_get_int64(c);
}

Test(sweep, runs_resume_and_match_a_run_by_hand)
{
    const char *file = sweep_file("a.toml", basic);
    char res[512], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("res"));
    int rc = xt_runf(&out, "%s run %s --out %s --jobs 2", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "4 of 4 runs complete"), "%s", out);
    free(out);
    /* one row per launch (vecadd launches once) plus the header */
    char csv[600];
    snprintf(csv, sizeof csv, "%s/results.csv", res);
    cr_expect_eq(lines(csv), 5);
    char *table = xt_read(csv, NULL);
    cr_assert(strncmp(table, "run,program,rep,preset,core.sched,exit_status,launch,", 53) == 0,
              "%s", table);
    cr_expect(strstr(table, "vecadd__core.sched=lrr__preset=gtx480__r0,vecadd,0,gtx480,lrr,0,0,256x1x1,"), "%s", table);
    free(table);
    /* the statistics are those of the program run by hand with the same settings */
    char rdir[700], result[800];
    snprintf(rdir, sizeof rdir, "%s/runs/vecadd__core.sched=lrr__preset=gtx480__r0", res);
    snprintf(result, sizeof result, "%s/result.json", rdir);
    json_object *r = json_object_from_file(result), *st, *stats;
    cr_assert_not_null(r);
    cr_assert(json_object_object_get_ex(r, "status", &st));
    cr_expect_eq(json_object_get_int(st), 0);
    cr_assert(json_object_object_get_ex(r, "stats", &stats));
    const char *byhand = xt_tmp("byhand.json");
    rc = xt_runf(&out, "XGPU_MODE=timing XGPU_CONFIG=gtx480 XGPU_SET=core.sched=lrr "
                       "XGPU_STATS=%s %s 3000", byhand, VECADD);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    json_object *h = json_object_from_file(byhand);
    cr_assert_not_null(h);
    cr_expect_eq(launch_cycles(stats, 0), launch_cycles(h, 0));
    json_object_put(h);
    json_object_put(r);
    /* a rerun runs nothing; with one result gone it runs that one only */
    struct stat before, after;
    char other[800];
    snprintf(other, sizeof other,
             "%s/runs/vecadd__core.sched=gto__preset=accelsim-rtx2060__r0/result.json", res);
    cr_assert_eq(stat(other, &before), 0);
    rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "4 of 4 runs already complete"), "%s", out);
    free(out);
    cr_assert_eq(unlink(result), 0);
    rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "3 of 4 runs already complete"), "%s", out);
    cr_expect(strstr(out, "[1/1] done 1"), "%s", out);
    free(out);
    cr_expect_eq(access(result, R_OK), 0, "rerun wrote it again");
    cr_assert_eq(stat(other, &after), 0);
    cr_expect_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec, "a complete run is left alone");
    cr_expect_eq(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
}

/* The value of a "KEY": "VALUE" pair in a result file, or "" */
static char *json_value(const char *path, const char *key)
{
    json_object *r = json_object_from_file(path), *env, *v;
    cr_assert_not_null(r, "%s", path);
    char *text = strdup("");
    if (json_object_object_get_ex(r, "env", &env) && json_object_object_get_ex(env, key, &v)) {
        free(text);
        text = strdup(json_object_get_string(v));
    }
    json_object_put(r);
    return text;
}

Test(sweep, a_changed_configuration_is_run_again)
{
    static const char *file_text =
        "mode = \"functional\"\n"
        "[set]\n\"gpu.sm_count\" = 4\n"
        "[[program]]\nname = \"vec\"\ncommand = [\"" VECADD "\", \"100\"]\n"
        "[axes]\n\"emu.quantum\" = [16, 0]\n";
    const char *file = sweep_file("c.toml", file_text);
    char res[512], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("cres"));
    int rc = xt_runf(&out, "%s run %s --out %s --jobs 1", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    /* another [set] value and mode: both runs again, said so */
    rc = xt_runf(&out, "sed -i 's/= 4/= 8/; s/\"functional\"/\"timing\"/' %s && "
                       "%s run %s --out %s --jobs 1", file, SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "2 complete runs were made with another configuration") &&
                  strstr(out, "differs in XGPU_MODE, XGPU_SET") &&
                  strstr(out, "running them again") && !strstr(out, "already complete"),
              "%s", out);
    cr_expect(strstr(out, "2 of 2 runs complete"), "%s", out);
    free(out);
    char path[700];
    snprintf(path, sizeof path, "%s/runs/vec__emu.quantum=0__r0/result.json", res);
    char *v = json_value(path, "XGPU_SET");
    cr_expect_str_eq(v, "gpu.sm_count=8;emu.quantum=0");
    free(v);
    v = json_value(path, "XGPU_MODE");
    cr_expect_str_eq(v, "timing");
    free(v);
    /* results.csv has the timing runs' cycles (functional runs count none) */
    rc = xt_runf(&out, "python3 -c \"import csv,sys\n"
                       "for r in csv.DictReader(open(sys.argv[1])): print(r['run'], r['cycles'])\" "
                       "%s/results.csv", res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 2, "%s", out);
    cr_expect(!strstr(out, " 0\n") && !strstr(out, " \n"), "cycles of a functional run: %s", out);
    free(out);
    /* another command: collect leaves the old results out, run runs them again */
    rc = xt_runf(&out, "sed -i 's/\"100\"/\"120\"/' %s && %s collect %s --out %s", file, SWEEP,
                 file, res);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "2 runs have results of another configuration only") &&
                  strstr(out, "0 of 2 runs complete"), "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/results.csv", res);
    cr_expect_eq(lines(path), 1, "only the header");
    rc = xt_runf(&out, "%s run %s --out %s --jobs 1", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "differs in command") && strstr(out, "2 of 2 runs complete"), "%s",
              out);
    free(out);
    /* the same file again: nothing to do */
    rc = xt_runf(&out, "%s run %s --out %s --jobs 1", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "2 of 2 runs already complete") && !strstr(out, "another"), "%s", out);
    free(out);
}

Test(sweep, a_failed_run_is_recorded_and_run_again)
{
    const char *file = sweep_file("f.toml",
                                  "[[program]]\nname = \"bad\"\n"
                                  "command = [\"sh\", \"-c\", \"echo boom-$XGPU_CONFIG >&2; exit 3\"]\n"
                                  "[[program]]\nname = \"good\"\n"
                                  "command = [\"" VECADD "\", \"100\"]\n"
                                  "[axes]\npreset = [\"gtx480\"]\n");
    char res[512], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("fres"));
    int rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, res);
    cr_expect_eq(rc, 1, "a failed run fails the sweep: %s", out);
    cr_expect(strstr(out, "run bad__preset=gtx480__r0 failed: exit status 3"), "%s", out);
    cr_expect(strstr(out, "1 of 2 runs complete"), "%s", out);
    free(out);
    char path[700];
    snprintf(path, sizeof path, "%s/runs/bad__preset=gtx480__r0/result.json", res);
    json_object *r = json_object_from_file(path), *v;
    cr_assert_not_null(r);
    cr_assert(json_object_object_get_ex(r, "status", &v));
    cr_expect_eq(json_object_get_int(v), 3);
    cr_assert(json_object_object_get_ex(r, "stderr_tail", &v));
    cr_expect(strstr(json_object_get_string(v), "boom-gtx480"), "%s", json_object_get_string(v));
    json_object_put(r);
    snprintf(path, sizeof path, "%s/results.csv", res);
    char *table = xt_read(path, NULL);
    cr_expect(strstr(table, "bad__preset=gtx480__r0,bad,0,gtx480,3,"), "%s", table);
    free(table);
    /* the rerun tries the failed run again, not the complete one */
    rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, res);
    cr_expect_eq(rc, 1);
    cr_expect(strstr(out, "1 of 2 runs already complete"), "%s", out);
    free(out);
}

Test(sweep, an_interrupted_sweep_leaves_no_result_for_the_killed_run)
{
    const char *file = sweep_file("i.toml",
                                  "[[program]]\nname = \"quick\"\ncommand = [\"true\"]\n"
                                  "[[program]]\nname = \"slow\"\ncommand = [\"sleep\", \"30\"]\n"
                                  "mode = \"functional\"\n");
    /* 'mode' above is inside the program table: an unknown key there */
    char *out = NULL;
    int rc = xt_runf(&out, "%s plan %s", SWEEP, file);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "program 2: unknown key 'mode'"), "%s", out);
    free(out);
    file = sweep_file("i.toml", "mode = \"functional\"\n"
                                "[[program]]\nname = \"quick\"\ncommand = [\"true\"]\n"
                                "[[program]]\nname = \"slow\"\ncommand = [\"sleep\", \"30\"]\n");
    char res[512];
    snprintf(res, sizeof res, "%s", xt_tmp("ires"));
    /* SIGINT once the quick run's result is there (the slow one is running then) */
    rc = xt_runf(&out,
                 "%s run %s --out %s --jobs 2 & pid=$!; "
                 "for i in $(seq 100); do [ -e '%s/runs/quick__r0/result.json' ] && break; "
                 "sleep 0.1; done; sleep 0.3; kill -INT $pid; wait $pid; echo rc=$?",
                 SWEEP, file, res, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "interrupted") && strstr(out, "rc=130"), "%s", out);
    free(out);
    char path[700];
    snprintf(path, sizeof path, "%s/runs/slow__r0/result.json", res);
    cr_expect_neq(access(path, F_OK), 0, "the killed run has no result");
    /* "true" writes no statistics: recorded as a failure, not dropped */
    snprintf(path, sizeof path, "%s/runs/quick__r0/result.json", res);
    char *text = xt_read(path, NULL);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "wrote no statistics"), "%s", text);
    free(text);
}

Test(sweep, bad_files_are_named)
{
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"", "no [[program]] table"},
        {"colour = 1\n[[program]]\nname = \"a\"\ncommand = [\"true\"]\n", "unknown key 'colour'"},
        {"[[program]]\nname = \"a b\"\ncommand = [\"true\"]\n", "program 1: 'name' must be"},
        {"[[program]]\nname = \"a\"\n", "give 'command' or 'source'"},
        {"[[program]]\nname = \"a\"\ncommand = [\"true\"]\n[axes]\npreset = \"gtx480\"\n",
         "axis 'preset' must be a non-empty list"},
        {"[[program]]\nname = \"a\"\ncommand = [\"true\"]\n[axes]\nx = [1, 1]\n",
         "axis 'x' lists a value twice"},
        {"[[program]]\nname = \"a\"\ncommand = [\"true\"]\nrepetitions = 0\n",
         "program 1: unknown key 'repetitions'"},
        {"repetitions = 0\n[[program]]\nname = \"a\"\ncommand = [\"true\"]\n",
         "'repetitions' must be a positive integer"},
        {"[[program]]\nname = \"a\"\ncommand = [\"true\"]\n[axes]\nx = [1]\n[[point]]\nx = 2\n",
         "point 1 sets 'x', which is also an axis"},
        {"[[program\n", "a.toml: "},
        {"[[program]]\nname = \"a\"\ncommand = [\"true\"]\n[[program.point]]\nx = 1\n"
         "[[program.point]]\nx = 1\n",
         "program 'a': point 2 repeats an earlier one"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out = NULL;
        const char *f = sweep_file("a.toml", cases[i].text);
        int rc = xt_runf(&out, "%s plan %s", SWEEP, f);
        cr_expect_eq(rc, 2, "case %zu: %s", i, out);
        cr_expect(strstr(out, "xgpu-sweep: error: ") && strstr(out, f) &&
                      strstr(out, cases[i].error),
                  "case %zu: want '%s' in:\n%s", i, cases[i].error, out);
        free(out);
    }
    char *out = NULL;
    int rc = xt_runf(&out, "%s plan %s", SWEEP, xt_tmp("missing.toml"));
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "No such file"), "%s", out);
    free(out);
}

Test(sweep, a_program_from_source_is_compiled_once)
{
    const char *file = sweep_file("s.toml",
                                  "[[program]]\nname = \"vecadd\"\n"
                                  "source = \"" XGPU_SOURCE_DIR "/samples/vecadd.cu\"\n"
                                  "flags = [\"-O2\"]\nargs = [\"500\"]\n"
                                  "[axes]\n\"core.sched\" = [\"gto\", \"lrr\"]\n");
    char res[512], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("sres"));
    int rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char path[700];
    snprintf(path, sizeof path, "%s/runs/vecadd__core.sched=lrr__r0/stdout.txt", res);
    char *text = xt_read(path, NULL);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "vecadd n=500: PASS"), "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/build/vecadd", res);
    cr_expect_eq(access(path, X_OK), 0);
}

Test(sweep, slurm_dry_run_writes_the_array_job)
{
    const char *file = sweep_file("a.toml", basic);
    char res[512], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("dres"));
    int rc = xt_runf(&out, "PATH=/nonexistent:$PATH %s run %s --out %s --backend slurm --dry-run "
                           "--chunk 3 --partition gpu --time 0:30:00 --mem 4G "
                           "--sbatch-arg=--qos=short",
                     SWEEP, file, res);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "4 runs in 2 array tasks (not submitted)"), "%s", out);
    free(out);
    char path[700];
    snprintf(path, sizeof path, "%s/slurm/job.sh", res);
    char *job = xt_read(path, NULL);
    cr_assert_not_null(job);
    static const char *want[] = {"#SBATCH --array=0-1\n", "#SBATCH --partition=gpu\n",
                                 "#SBATCH --time=0:30:00\n", "#SBATCH --mem=4G\n",
                                 "#SBATCH --qos=short\n", "/slurm/task-%a.out\n",
                                 " task ", "--task \"$SLURM_ARRAY_TASK_ID\"\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(job, want[i]), "missing %s in:\n%s", want[i], job);
    free(job);
    snprintf(path, sizeof path, "%s/slurm/job.json", res);
    cr_expect_neq(access(path, F_OK), 0, "nothing submitted");
}

/* The statistics of every run of a sweep directory, host times left out, one line each. */
static char *stats_of(const char *dir)
{
    char *out = NULL;
    int rc = xt_runf(&out,
                     "python3 -c \"import json,glob,os,sys\n"
                     "for p in sorted(glob.glob(sys.argv[1] + '/runs/*/result.json')):\n"
                     "  r = json.load(open(p))\n"
                     "  s = r['stats'] or {}\n"
                     "  for l in s.get('launches', []) + [s.get('totals', {})]:\n"
                     "    l.pop('host_seconds', 0); l.pop('host_cpu_seconds', 0)\n"
                     "  print(r['id'], r['status'], json.dumps(r['stats'], sort_keys=True))\" %s",
                     dir);
    cr_assert_eq(rc, 0, "%s", out);
    return out;
}

/* Needs a reachable Slurm cluster (.ci/run starts one: scripts/slurm-local.sh). */
Test(sweep, slurm_backend_gives_the_local_results, .timeout = 300)
{
    char *out = NULL;
    if (xt_run("sinfo -h -o %t | grep -Eq '^(idle|mix|alloc)'", &out) != 0) {
        free(out);
        cr_skip_test("no Slurm cluster with a free node (scripts/slurm-local.sh start)");
    }
    free(out);
    const char *file = sweep_file("a.toml", basic);
    char local[512], cluster[512];
    snprintf(local, sizeof local, "%s", xt_tmp("local"));
    snprintf(cluster, sizeof cluster, "%s", xt_tmp("cluster"));
    int rc = xt_runf(&out, "%s run %s --out %s", SWEEP, file, local);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    rc = xt_runf(&out, "%s run %s --out %s --backend slurm --chunk 3 --poll 0.3", SWEEP, file,
                 cluster);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "submitted Slurm job") && strstr(out, "(2 tasks, 4 runs)"), "%s", out);
    cr_expect(strstr(out, "4 of 4 runs complete"), "%s", out);
    free(out);
    char *a = stats_of(local), *b = stats_of(cluster);
    cr_expect_eq(xt_count(a, "\n"), 4, "%s", a);
    cr_expect(strstr(a, "\"cycles\": ") != NULL, "%s", a);
    cr_expect_str_eq(a, b, "the cluster's statistics differ from the local ones");
    free(a);
    free(b);
    /* a resubmission has nothing to do */
    rc = xt_runf(&out, "%s run %s --out %s --backend slurm", SWEEP, file, cluster);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "4 of 4 runs already complete") && !strstr(out, "submitted"), "%s",
              out);
    free(out);    /* a job still running: a second submission into its directory is refused; collect
     * reports what is there */
    const char *slow = sweep_file("slow.toml", "mode = \"functional\"\n[[program]]\n"
                                               "name = \"slow\"\ncommand = [\"sleep\", \"4\"]\n");
    char sres[512];
    snprintf(sres, sizeof sres, "%s", xt_tmp("slow"));
    rc = xt_runf(&out, "%s run %s --out %s --backend slurm --no-wait && "
                       "%s run %s --out %s --backend slurm; echo rc=$?",
                 SWEEP, slow, sres, SWEEP, slow, sres);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "is still queued or running") && strstr(out, "rc=2"), "%s", out);
    free(out);
    rc = xt_runf(&out, "while squeue -h -n xgpu-sweep -o %%T | grep -q .; do sleep 0.5; done; "
                       "%s collect %s --out %s", SWEEP, slow, sres);
    cr_expect_eq(rc, 1, "sleep writes no statistics: a failed run, %s", out);
    cr_expect(strstr(out, "0 of 1 runs complete"), "%s", out);
    free(out);
}
