/*
 * 951-stats-streaming.c - XGPU_STATS writes each launch's record as the launch finishes
 * and the totals at exit: the program's memory does not grow with its launches (a whole
 * document used to be built at exit, ~50 KB per launch), the file is one valid JSON
 * document at exit, also after a launch error, and a statistics file that cannot be
 * written costs one line on stderr, never the program's output or its exit status.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "xtest.h"

/* argv[1] launches of nop; with argv[2], then one launch that writes far out of bounds. */
static const char program[] =
    "#include <cuda_runtime.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "__global__ void nop(int *o) { o[threadIdx.x] = 1; }\n"
    "__global__ void bad(int *o) { o[threadIdx.x + (1 << 28)] = 1; }\n"
    "int main(int argc, char **argv) {\n"
    "    int n = atoi(argv[1]), *o;\n"
    "    cudaMalloc((void **)&o, 128);\n"
    "    printf(\"start\\n\");\n"
    "    for (int i = 0; i < n; i++) nop<<<1, 32>>>(o);\n"
    "    if (argc > 2) bad<<<1, 32>>>(o);\n"
    "    printf(\"%s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n"
    "    return argc > 2 ? 3 : 0;\n"
    "}\n";

/* The program, compiled once for all the tests of this run (they run one at a time, each
 * in a process of its own): kept in the build directory under the runner's pid. */
static const char *bin_path(pid_t runner)
{
    static char bin[512];
    snprintf(bin, sizeof bin, "%s/test-951-many-%ld", XGPU_BUILD_DIR, (long)runner);
    return bin;
}

ReportHook(POST_ALL)(struct criterion_global_stats *st)
{
    (void)st;
    remove(bin_path(getpid()));
}

static const char *compile(void)
{
    const char *bin = bin_path(getppid());
    if (access(bin, X_OK) == 0)
        return bin;
    const char *src = xt_tmp("many.cu");
    cr_assert_eq(xt_write(src, program), 0);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc -O2 %s -o %s 2>&1", XGPU_BIN_DIR, src, bin);
    cr_assert_eq(rc, 0, "xgpu-cc: %s", out ? out : "");
    free(out);
    return bin;
}

typedef struct Run {
    int status;   /* exit status, or 128 + signal */
    long maxrss;  /* KiB */
    char *out, *err;
} Run;

/* Runs bin with n launches (fault: and a bad one) under env (NAME=VALUE strings), stdout
 * and stderr to files. */
static Run run(const char *bin, int n, int fault, const char *const *env)
{
    char count[16], outp[512], errp[512];
    snprintf(count, sizeof count, "%d", n);
    snprintf(outp, sizeof outp, "%s", xt_tmp("stdout"));
    snprintf(errp, sizeof errp, "%s", xt_tmp("stderr"));
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        unsetenv("XGPU_STATS");
        unsetenv("XGPU_CONFIG");
        unsetenv("XGPU_SUMMARY");
        setenv("XGPU_MODE", "functional", 1);
        setenv("XGPU_SET", "emu.memcheck=on", 1); /* the bad launch faults */
        for (size_t i = 0; env[i]; i++)
            putenv((char *)env[i]);
        execl(bin, bin, count, fault ? "fault" : (char *)NULL, (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
    Run r = {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ru.ru_maxrss,
             xt_read(outp, NULL), xt_read(errp, NULL)};
    cr_assert(r.out && r.err);
    return r;
}

static void run_free(Run *r)
{
    free(r->out);
    free(r->err);
}

static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "no \"%s\"", key);
    return v;
}

/* The statistics at path, checked to list n launches (and as many in the totals). */
static json_object *stats(const char *path, size_t n)
{
    json_object *root = json_object_from_file(path);
    cr_assert_not_null(root, "%s is not one valid JSON document", path);
    cr_assert_eq(json_object_array_length(member(root, "launches")), n);
    cr_assert_eq(json_object_get_int64(member(member(root, "totals"), "launches")), (int64_t)n);
    return root;
}

Test(stats_streaming, memory_does_not_grow_with_the_launches, .timeout = 120)
{
    const char *bin = compile();
    const char *few[] = {"XGPU_STATS=", NULL}, *many[] = {"XGPU_STATS=", NULL};
    char a[600], b[600];
    snprintf(a, sizeof a, "XGPU_STATS=%s", xt_tmp("few.json"));
    snprintf(b, sizeof b, "XGPU_STATS=%s", xt_tmp("many.json"));
    few[0] = a, many[0] = b;
    Run r1 = run(bin, 100, 0, few), r2 = run(bin, 1200, 0, many);
    cr_expect_eq(r1.status, 0, "%s", r1.err);
    cr_expect_eq(r2.status, 0, "%s", r2.err);
    cr_expect_str_eq(r2.out, "start\ncudaSuccess\n");
    cr_expect_str_eq(r2.err, "");
    /* the whole document in memory: ~50 KB per launch, ~55 MB more for 1100 launches */
    cr_expect_lt(r2.maxrss - r1.maxrss, 16 << 10, "%ld KiB for 100 launches, %ld for 1200",
                 r1.maxrss, r2.maxrss);
    json_object_put(stats(a + 11, 100));
    json_object *root = stats(b + 11, 1200);
    json_object *last = json_object_array_get_idx(member(root, "launches"), 1199);
    cr_expect_str_eq(json_object_get_string(member(last, "name")), "_Z3nopPi");
    cr_expect_str_eq(json_object_get_string(member(last, "status")), "ok");
    cr_expect_eq(json_object_get_int64(member(last, "warp_instructions")),
                 json_object_get_int64(member(member(root, "totals"), "warp_instructions")) /
                     1200);
    json_object_put(root);
    DIR *dir = opendir(xt_tmpdir());
    cr_assert_not_null(dir);
    for (struct dirent *e; (e = readdir(dir));)
        cr_expect(strstr(e->d_name, ".part") == NULL, "%s stays behind", e->d_name);
    closedir(dir);
    run_free(&r1);
    run_free(&r2);
}

Test(stats_streaming, a_launch_error_leaves_a_valid_document, .timeout = 60)
{
    const char *bin = compile();
    char a[600];
    snprintf(a, sizeof a, "XGPU_STATS=%s", xt_tmp("fault.json"));
    const char *env[] = {a, NULL};
    Run r = run(bin, 5, 1, env);
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(strncmp(r.out, "start\ncudaError", 15) == 0, "%s", r.out);
    json_object *root = stats(a + 11, 6);
    json_object *last = json_object_array_get_idx(member(root, "launches"), 5);
    cr_expect_str_eq(json_object_get_string(member(last, "name")), "_Z3badPi");
    cr_expect_str_eq(json_object_get_string(member(last, "status")), "illegal address");
    json_object_put(root);
    run_free(&r);
}

/* stderr is exactly one line, starting with want. */
static void one_line(const char *err, const char *want)
{
    cr_expect(strncmp(err, want, strlen(want)) == 0, "%s", err);
    const char *nl = strchr(err, '\n');
    cr_expect(nl && nl[1] == 0, "not one line: %s", err);
}

Test(stats_streaming, a_file_that_cannot_be_written_costs_one_line, .timeout = 60)
{
    const char *bin = compile();
    /* writes fail as the launches finish */
    const char *full[] = {"XGPU_STATS=/dev/full", NULL};
    Run r = run(bin, 300, 0, full);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "start\ncudaSuccess\n");
    one_line(r.err, "xgpu: cannot write statistics to /dev/full: No space left on device\n");
    run_free(&r);
    /* the file cannot be made */
    char a[600], want[700];
    snprintf(a, sizeof a, "XGPU_STATS=%s/no-such-directory/s.json", xt_tmpdir());
    snprintf(want, sizeof want, "xgpu: cannot write statistics to %s: No such file or "
             "directory\n", a + 11);
    const char *env[] = {a, NULL};
    r = run(bin, 3, 0, env);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "start\ncudaSuccess\n");
    one_line(r.err, want);
    run_free(&r);
    /* a directory */
    snprintf(a, sizeof a, "XGPU_STATS=%s", xt_tmpdir());
    snprintf(want, sizeof want, "xgpu: cannot write statistics to %s: Is a directory\n",
             a + 11);
    r = run(bin, 3, 0, env);
    cr_expect_eq(r.status, 0, "%s", r.err);
    one_line(r.err, want);
    run_free(&r);
}

/* Timing launches are written once the timing model has added their counters. */
Test(stats_streaming, timing_launches_carry_their_counters, .timeout = 60)
{
    const char *bin = compile();
    char a[600];
    snprintf(a, sizeof a, "XGPU_STATS=%s", xt_tmp("timing.json"));
    const char *env[] = {a, "XGPU_MODE=timing",
                         "XGPU_SET=emu.interval_cycles=20;stats.per_unit=true;emu.memcheck=on", NULL};
    Run r = run(bin, 3, 0, env);
    cr_expect_eq(r.status, 0, "%s", r.err);
    json_object *root = stats(a + 11, 3);
    int64_t cycles = 0, issued = 0;
    for (size_t i = 0; i < 3; i++) {
        json_object *l = json_object_array_get_idx(member(root, "launches"), i);
        int64_t c = json_object_get_int64(member(l, "cycles"));
        cr_expect_gt(c, 0);
        cycles += c;
        issued += json_object_get_int64(member(member(l, "timing"), "core.issued"));
        cr_expect_gt(json_object_array_length(member(l, "intervals")), 0);
        cr_expect_eq(json_object_array_length(member(member(l, "units"), "sm")),
                     json_object_get_int64(member(member(root, "config"), "gpu.sm_count")));
    }
    json_object *totals = member(root, "totals");
    cr_expect_gt(issued, 0);
    cr_expect_eq(json_object_get_int64(member(totals, "cycles")), cycles);
    cr_expect_eq(json_object_get_int64(member(member(totals, "timing"), "core.issued")), issued);
    json_object_put(root);
    run_free(&r);
}
