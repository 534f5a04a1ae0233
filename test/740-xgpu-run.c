/*
 * 740-xgpu-run: xgpu-run turns its flags into the environment variables the runtime and
 * the emulator read, then execs the program (here the shell, printing them back). Bad
 * flags exit with 2 and one line naming the flag, an unknown program with 127. Skipped
 * when xgpu-run is not built.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define XGPU_RUN XGPU_BIN_DIR "/xgpu-run"
#define PRINT_ENV " -- sh -c 'echo \"$XGPU_STATS|$XGPU_CONFIG|$XGPU_SET|$XGPU_MODE\"; exit 3'"

/* Runs `xgpu-run ARGS` through the shell; returns its exit status, output in out. */
static int run(const char *args, char *out, size_t n)
{
    if (access(XGPU_RUN, X_OK) != 0)
        cr_skip_test("xgpu-run is not built");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "env -u XGPU_SET %s %s 2>&1", XGPU_RUN, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int status = pclose(p);
    cr_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

Test(xgpu_run, flags_become_environment)
{
    char out[512];
    int rc = run("--stats s.json --config gv100 --set a=1 --set=b.c=2 --mode timing" PRINT_ENV,
                 out, sizeof out);
    cr_assert_eq(rc, 3, "the program's exit status: %s", out);
    cr_assert_str_eq(out, "s.json|gv100|a=1;b.c=2|timing\n");
}

Test(xgpu_run, nothing_set_without_flags)
{
    char out[512];
    cr_assert_eq(run("--mode=functional" PRINT_ENV, out, sizeof out), 3);
    cr_assert_str_eq(out, "|||functional\n");
}

Test(xgpu_run, bad_flags)
{
    char out[512];
    cr_assert_eq(run("--bogus -- true", out, sizeof out), 2);
    cr_assert_not_null(strstr(out, "unknown option"), "%s", out);
    cr_assert_eq(run("--mode fast -- true", out, sizeof out), 2);
    cr_assert_eq(run("--set novalue -- true", out, sizeof out), 2);
    cr_assert_eq(run("--stats", out, sizeof out), 2);
    cr_assert_eq(run("--stats x.json", out, sizeof out), 2, "no program");
}

/* An empty value is named by its option, whichever way it was written. */
Test(xgpu_run, empty_values_name_the_option)
{
    char out[512];
    cr_assert_eq(run("--stats '' -- true", out, sizeof out), 2);
    cr_assert_str_eq(out, "xgpu-run: --stats: empty value (give one, or leave the option out)\n");
    cr_assert_eq(run("--mode= -- true", out, sizeof out), 2);
    cr_assert_str_eq(out, "xgpu-run: --mode: empty value (give one, or leave the option out)\n");
    cr_assert_eq(run("--set '' -- true", out, sizeof out), 2);
    cr_assert_not_null(strstr(out, "xgpu-run: --set: empty value"), "%s", out);
}

Test(xgpu_run, help_and_missing_program)
{
    char out[2048];
    cr_assert_eq(run("--help", out, sizeof out), 0);
    cr_assert_not_null(strstr(out, "usage: xgpu-run"));
    cr_assert_eq(run("-- ./no-such-program-740", out, sizeof out), 127);
    cr_assert_not_null(strstr(out, "cannot run"), "%s", out);
}
