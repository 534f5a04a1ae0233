/*
 * 852-xgpu-sweep-hostile: the sweep tool (tools/xgpu-sweep, docs/sweeps.md) facing input
 * meant to make it do something else. A newline in any value written into the Slurm job
 * script is refused (a shell command would follow it) and every value there is quoted;
 * a key or value that would set other keys through XGPU_SET (';', '=' in a key, a
 * newline) is refused with the file and the key named; symbolic links planted in the
 * output directory never redirect a write outside it; SIGHUP kills the runs like
 * SIGTERM; a plan of billions of runs is refused before it is built; an output directory
 * that cannot be written is one line and exit status 2, never a traceback.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xtest.h"

#define SWEEP XGPU_BIN_DIR "/xgpu-sweep"

static const char *sweep_file(const char *name, const char *text)
{
    const char *path = xt_tmp(name);
    cr_assert_eq(xt_write(path, text), 0);
    return path;
}

/* out is exactly one line, xgpu-sweep's error, holding each of the fragments. */
static void expect_one_error(const char *out, const char *a, const char *b)
{
    cr_expect(strncmp(out, "xgpu-sweep: error: ", 19) == 0, "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line, got:\n%s", out);
    cr_expect(!strstr(out, "Traceback"), "%s", out);
    cr_expect(strstr(out, a), "want '%s' in:\n%s", a, out);
    if (b)
        cr_expect(strstr(out, b), "want '%s' in:\n%s", b, out);
}

static const char *one_true = "[[program]]\nname = \"t\"\ncommand = [\"true\"]\n";

Test(sweep_hostile, no_newline_reaches_the_slurm_job_script)
{
    char dir[512], *out = NULL;
    snprintf(dir, sizeof dir, "%s", xt_tmp("job"));
    /* 'out' in the file with a command on its own line */
    char text[1024];
    snprintf(text, sizeof text, "out = \"o\\ntouch %s/PWNED\\n#\"\n%s", dir, one_true);
    const char *f = sweep_file("inj.toml", text);
    int rc = xt_runf(&out, "%s run %s --backend slurm --dry-run", SWEEP, f);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "'out': a control character", "\\ntouch ");
    free(out);
    /* the command line's values: each refused, naming the option */
    f = sweep_file("s.toml", one_true);
    static const char *opts[][2] = {
        {"--partition", "--partition \"$(printf 'p\\necho INJECTED')\""},
        {"--time", "--time \"$(printf '1:00\\necho INJECTED')\""},
        {"--mem", "--mem \"$(printf '4G\\recho INJECTED')\""},
        {"--sbatch-arg", "--sbatch-arg=\"$(printf -- '--qos=a\\necho INJECTED')\""},
        {"--out", "--out \"$(printf 'o\\necho INJECTED')\""},
    };
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        rc = xt_runf(&out, "cd %s/.. && %s run %s --out %s/o --backend slurm --dry-run %s",
                     dir, SWEEP, f, dir, opts[i][1]);
        cr_expect_eq(rc, 2, "%s: %s", opts[i][0], out);
        expect_one_error(out, opts[i][0], "a control character");
        free(out);
    }
    char path[700];
    snprintf(path, sizeof path, "%s/o/slurm/job.sh", dir);
    cr_expect_neq(access(path, F_OK), 0, "no job script written");
    snprintf(path, sizeof path, "%s/PWNED", dir);
    cr_expect_neq(access(path, F_OK), 0);
}

Test(sweep_hostile, job_script_values_are_quoted)
{
    /* an output directory and options with spaces, quotes and '#': one word each, for
     * sbatch and for the shell */
    char dir[512], *out = NULL;
    snprintf(dir, sizeof dir, "%s/o 'x' #y", xt_tmpdir());
    const char *f = sweep_file("s.toml", one_true);
    int rc = xt_runf(&out, "%s run %s --out \"%s\" --backend slurm --dry-run "
                           "--partition 'a b;c' --sbatch-arg='--comment=it'\"'\"'s #1'",
                     SWEEP, f, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char job[700];
    snprintf(job, sizeof job, "%s/slurm/job.sh", dir);
    /* the #SBATCH words as a POSIX shell splits them (sbatch quotes alike) */
    rc = xt_runf(&out,
                 "python3 -c \"import shlex,sys\n"
                 "for l in open(sys.argv[1]):\n"
                 "  if l.startswith('#SBATCH '): print(shlex.split(l[8:]))\" \"%s\"",
                 job);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "['--partition=a b;c']"), "%s", out);
    cr_expect(strstr(out, "[\"--comment=it's #1\"]"), "%s", out);
    cr_expect(strstr(out, "/o 'x' #y/slurm/task-%a.out"), "%s", out);
    free(out);
    /* one command after the #SBATCH lines; run as a node would, it records the run in
     * the output directory named by the file */
    rc = xt_runf(&out, "grep -vc '^#' \"%s\"; SLURM_ARRAY_TASK_ID=0 sh \"%s\"; echo rc=$?",
                 job, job);
    cr_expect(strncmp(out, "1\n", 2) == 0, "%s", out);
    cr_expect(strstr(out, "rc=0"), "%s", out);
    free(out);
    char result[800];
    snprintf(result, sizeof result, "%s/runs/t__r0/result.json", dir);
    cr_expect_eq(access(result, R_OK), 0, "the task wrote its run");
    /* a backslash, which sbatch and the shell read differently, is refused */
    rc = xt_runf(&out, "%s run %s --out %s --backend slurm --dry-run --time '1\\\\0'", SWEEP,
                 f, xt_tmp("bs"));
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "--time: a backslash", NULL);
    free(out);
}

Test(sweep_hostile, settings_cannot_set_other_keys)
{
    static const struct {
        const char *text, *key, *why;
    } cases[] = {
        {"[axes]\n\"gpu.name\" = [\"a;gpu.sm_count=3\"]\n", "axis 'gpu.name'", "contains ';'"},
        {"[axes]\n\"l1.ways=4;l1.mshrs\" = [64]\n", "axis 'l1.ways=4;l1.mshrs'",
         "cannot contain ';', '='"},
        {"[axes]\n\"l1.ways=4\" = [64]\n", "axis 'l1.ways=4'", "cannot contain"},
        {"[set]\n\"gpu.name\" = \"x\\ngpu.sm_count=3\"\n", "[set] key 'gpu.name'",
         "control character"},
        {"[set]\n\"a;b\" = 1\n", "[set] key 'a;b'", "cannot contain"},
        {"[[point]]\n\"core.sched\" = \"gto;l1.ways=1\"\n", "point 1: key 'core.sched'",
         "contains ';'"},
        {"[axes]\npreset = [\"gtx480\\n\"]\n", "axis 'preset'", "control character"},
        {"[[program]]\nname = \"e\"\ncommand = [\"true\"]\nenv = { XGPU_SET = \"l1.ways=1\" }\n",
         "env 'XGPU_SET' is set by the sweep", NULL},
        {"[[program]]\nname = \"e\"\ncommand = [\"true\"]\nenv = { \"A=B\" = \"1\" }\n",
         "env 'A=B': not a variable name", NULL},
        {"[[program]]\nname = \"e\"\ncommand = [\"tr\\u0000ue\"]\n", "'command' must be",
         "NUL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024], *out = NULL;
        snprintf(text, sizeof text, "%s%s", one_true, cases[i].text);
        const char *f = sweep_file("k.toml", text);
        int rc = xt_runf(&out, "%s run %s --out %s", SWEEP, f, xt_tmp("kres"));
        cr_expect_eq(rc, 2, "case %zu: %s", i, out);
        expect_one_error(out, f, cases[i].key);
        if (cases[i].why)
            cr_expect(strstr(out, cases[i].why), "case %zu: want '%s' in %s", i, cases[i].why,
                      out);
        free(out);
        cr_expect_neq(access(xt_tmp("kres"), F_OK), 0, "case %zu: nothing ran", i);
    }
    /* '=' in a value is the value's own */
    char *out = NULL;
    char text[512];
    snprintf(text, sizeof text, "%s[axes]\n\"gpu.name\" = [\"a=b\"]\n", one_true);
    int rc = xt_runf(&out, "%s plan %s", SWEEP, sweep_file("v.toml", text));
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "XGPU_SET=gpu.name=a=b "), "%s", out);
    free(out);
}

Test(sweep_hostile, planted_links_do_not_redirect_writes)
{
    const char *victim = xt_tmp("victim.txt");
    cr_assert_eq(xt_write(victim, "precious\n"), 0);
    char res[512], *out = NULL;
    snprintf(res, sizeof res, "%s", xt_tmp("lres"));
    const char *f = sweep_file("l.toml", "[[program]]\nname = \"t\"\n"
                                         "command = [\"sh\", \"-c\", \"echo overwritten; "
                                         "echo overwritten >&2\"]\n");
    /* every file the sweep writes, planted as a link to the victim */
    int rc = xt_runf(&out,
                     "mkdir -p %s/runs/t__r0 && cd %s && "
                     "for l in runs/t__r0/stdout.txt runs/t__r0/stderr.txt runs/t__r0/stats.json "
                     "runs/t__r0/result.json runs/t__r0/result.json.tmp results.csv "
                     "results.csv.tmp sweep.json sweep.json.tmp; do ln -s %s $l || exit 1; done; "
                     "%s run %s --out %s --jobs 1",
                     res, res, victim, SWEEP, f, res);
    cr_expect_eq(rc, 1, "true writes no statistics: a failed run, %s", out);
    cr_expect(strstr(out, "0 of 1 runs complete"), "%s", out);
    free(out);
    char *text = xt_read(victim, NULL);
    cr_expect_str_eq(text, "precious\n");
    free(text);
    char path[700];
    struct stat st;
    snprintf(path, sizeof path, "%s/runs/t__r0/stdout.txt", res);
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISREG(st.st_mode), "the link was replaced by the run's own file");
    text = xt_read(path, NULL);
    cr_expect_str_eq(text, "overwritten\n");
    free(text);
    /* a run directory that is a link to a directory elsewhere: refused, nothing written */
    const char *elsewhere = xt_tmp("elsewhere");
    cr_assert_eq(mkdir(elsewhere, 0755), 0);
    rc = xt_runf(&out, "rm -r %s/runs/t__r0 && ln -s %s %s/runs/t__r0 && %s run %s --out %s",
                 res, elsewhere, res, SWEEP, f, res);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "/runs/t__r0: a symbolic link", NULL);
    free(out);
    rc = xt_runf(&out, "ls -A %s", elsewhere);
    cr_expect_str_eq(out, "", "nothing written through the link");
    free(out);
}

Test(sweep_hostile, sighup_kills_the_runs)
{
    char res[512], text[1024], *out = NULL;
    const char *pids = xt_tmp("pids");
    snprintf(res, sizeof res, "%s", xt_tmp("hres"));
    snprintf(text, sizeof text,
             "[[program]]\nname = \"sl\"\n"
             "command = [\"sh\", \"-c\", \"echo $$ >> %s; exec sleep 30\"]\n"
             "[axes]\nx = [1, 2]\n",
             pids);
    const char *f = sweep_file("h.toml", text);
    /* SIGHUP once both runs are running */
    int rc = xt_runf(&out,
                     "%s run %s --out %s --jobs 2 & pid=$!; "
                     "for i in $(seq 150); do [ \"$(cat %s 2>/dev/null | wc -l)\" = 2 ] && break; "
                     "sleep 0.1; done; kill -HUP $pid; wait $pid; echo rc=$?; "
                     "for p in $(cat %s); do kill -0 $p 2>/dev/null && echo alive $p; done; true",
                     SWEEP, f, res, pids, pids);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "interrupted") && strstr(out, "rc=130"), "%s", out);
    cr_expect(!strstr(out, "alive"), "a run outlived the sweep: %s", out);
    free(out);
    char path[700];
    snprintf(path, sizeof path, "%s/runs/sl__x=1__r0/result.json", res);
    cr_expect_neq(access(path, F_OK), 0, "the killed run has no result");
}

Test(sweep_hostile, an_absurd_plan_is_refused_before_it_is_built)
{
    /* 10 axes of 10 values: 10^10 runs, under a memory limit that building them would
     * pass at once (and a time limit that building them would pass too) */
    char text[2048] = "[[program]]\nname = \"a\"\ncommand = [\"true\"]\n[axes]\n";
    for (int i = 0; i < 10; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "k%d = [0,1,2,3,4,5,6,7,8,9]\n", i);
    char *out = NULL;
    const char *f = sweep_file("bomb.toml", text);
    int rc = xt_runf(&out, "ulimit -v 1000000; timeout 60 %s plan %s", SWEEP, f);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "10000000000 runs", "more than the 100000");
    free(out);
    f = sweep_file("reps.toml", "repetitions = 1000000000\n"
                                "[[program]]\nname = \"a\"\ncommand = [\"true\"]\n");
    rc = xt_runf(&out, "ulimit -v 1000000; timeout 60 %s run %s --out %s", SWEEP, f,
                 xt_tmp("bres"));
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "1000000000 runs", NULL);
    free(out);
    cr_expect_neq(access(xt_tmp("bres"), F_OK), 0, "nothing made");
    /* two programs: the count is per program; one over the limit is refused */
    f = sweep_file("two.toml", "repetitions = 50001\n"
                               "[[program]]\nname = \"a\"\ncommand = [\"true\"]\n"
                               "[[program]]\nname = \"b\"\ncommand = [\"true\"]\n");
    rc = xt_runf(&out, "%s plan %s", SWEEP, f);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "100002 runs", NULL);
    free(out);
    /* a long plan read only in part (plan | head) ends quietly */
    f = sweep_file("long.toml", "repetitions = 3000\n"
                                "[[program]]\nname = \"a\"\ncommand = [\"true\"]\n");
    rc = xt_runf(&out, "%s plan %s | head -1", SWEEP, f);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strncmp(out, "a__r0: ", 7) == 0 && xt_count(out, "\n") == 1, "%s", out);
    free(out);
}

Test(sweep_hostile, a_bad_output_directory_is_one_line)
{
    const char *f = sweep_file("s.toml", one_true);
    const char *file = xt_tmp("file");
    cr_assert_eq(xt_write(file, "x\n"), 0);
    char *out = NULL;
    /* a regular file, and a path under one */
    int rc = xt_runf(&out, "%s run %s --out %s --jobs 1", SWEEP, f, file);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, file, ": not a directory");
    free(out);
    rc = xt_runf(&out, "%s run %s --out %s/sub --jobs 1", SWEEP, f, file);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "/file/sub: not a directory", NULL);
    free(out);
    /* a run's directory that is a file, results.csv that is a directory */
    char res[512];
    snprintf(res, sizeof res, "%s", xt_tmp("bres"));
    rc = xt_runf(&out, "mkdir -p %s/runs && echo x > %s/runs/t__r0 && %s run %s --out %s --jobs 1",
                 res, res, SWEEP, f, res);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "/runs/t__r0: not a directory", NULL);
    free(out);
    rc = xt_runf(&out, "rm %s/runs/t__r0 && mkdir %s/results.csv && %s collect %s --out %s",
                 res, res, SWEEP, f, res);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "/results.csv: Is a directory", NULL);
    free(out);
    /* a directory without write permission (root may write anyway) */
    if (geteuid() == 0)
        return;
    char ro[512];
    snprintf(ro, sizeof ro, "%s", xt_tmp("ro"));
    cr_assert_eq(mkdir(ro, 0555), 0);
    rc = xt_runf(&out, "%s run %s --out %s/sub --jobs 1", SWEEP, f, ro);
    cr_expect_eq(rc, 2, "%s", out);
    expect_one_error(out, "/ro/sub: Permission denied", NULL);
    free(out);
}
