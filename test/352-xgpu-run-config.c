/*
 * 352-xgpu-run-config.c - xgpu-run's configuration flags: --dump-config (a valid config
 * file: loading the dump back gives the same configuration), --config by preset name and
 * by path, --set and --mode on top, --list-presets, --interval and --summary, and errors
 * that name the flag or key. Skipped when xgpu-run is not built.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xtest.h"

#define XGPU_RUN XGPU_BIN_DIR "/xgpu-run"
#define CLEAN "env -u XGPU_SET -u XGPU_CONFIG -u XGPU_MODE -u XGPU_SUMMARY "

static int run(char **out, const char *args)
{
    if (access(XGPU_RUN, X_OK) != 0)
        cr_skip_test("xgpu-run is not built");
    return xt_runf(out, CLEAN "%s %s 2>&1", XGPU_RUN, args);
}

/* The "key = value" line of key in a dump, or NULL. */
static int has_line(const char *dump, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = dump; (p = strstr(p, line)); p += n)
        if ((p == dump || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}

Test(xgpu_run_config, dump_round_trip)
{
    char *a = NULL, *b = NULL;
    cr_assert_eq(run(&a, "--config gtx480 --set gpu.sm_count=7 --dump-config"), 0, "%s", a);
    cr_expect(has_line(a, "gpu.name = gtx480"), "%s", a);
    cr_expect(has_line(a, "gpu.sm_count = 7"), "--set wins over the preset");
    cr_expect(has_line(a, "gpu.regs_per_sm = 32768"));
    cr_expect(has_line(a, "emu.mode = timing"), "timing is the default mode");
    cr_expect(strstr(a, "# streaming multiprocessors\n") != NULL, "descriptions as comments");
    cr_expect(strstr(a, "[bytes]") != NULL, "units as comments");
    const char *path = xt_tmp("352-dump.ini");
    cr_assert_eq(xt_write(path, a), 0);
    char args[512];
    snprintf(args, sizeof args, "--config %s --dump-config", path);
    cr_assert_eq(run(&b, args), 0, "%s", b);
    cr_expect_str_eq(a, b, "the dump loaded back dumps the same");
    free(a);
    free(b);
}

Test(xgpu_run_config, every_key_is_dumped)
{
    char *a = NULL;
    cr_assert_eq(run(&a, "--dump-config"), 0, "%s", a);
    size_t keys = 0;
    for (const char *p = a; (p = strstr(p, "\n")); p++)
        if (p[1] && p[1] != '#' && p[1] != '\n')
            keys++;
    cr_expect_geq(keys, 16, "%zu keys", keys);
    cr_expect(has_line(a, "gpu.name = xgpu-default"));
    cr_expect(has_line(a, "emu.progress = auto"));
    free(a);
}

Test(xgpu_run_config, config_by_path_and_env)
{
    const char *path = xt_tmp("352-mine.ini");
    xt_write(path, "gpu.name = mine\ngpu.sm_count = 2\n");
    char *out = NULL, args[512];
    snprintf(args, sizeof args, "--config %s --mode functional --interval 500 --dump-config",
             path);
    cr_assert_eq(run(&out, args), 0, "%s", out);
    cr_expect(has_line(out, "gpu.name = mine"), "%s", out);
    cr_expect(has_line(out, "gpu.sm_count = 2"));
    cr_expect(has_line(out, "emu.interval_cycles = 500"));
    free(out);
    cr_assert_eq(xt_runf(&out, CLEAN "XGPU_CONFIG=maxwell XGPU_SET=gpu.sm_count=4 XGPU_SUMMARY=1 "
                               "%s --dump-config", XGPU_RUN), 0);
    cr_expect(has_line(out, "gpu.name = maxwell"), "%s", out);
    cr_expect(has_line(out, "gpu.sm_count = 4"));
    cr_expect(has_line(out, "emu.summary = true"));
    free(out);
}

Test(xgpu_run_config, list_presets)
{
    char *out = NULL;
    cr_assert_eq(run(&out, "--list-presets"), 0, "%s", out);
    const char *names[] = {"accelsim-rtx2060 ", "gtx480 ", "kepler ", "maxwell ", "rtx2060 "};
    for (int i = 0; i < 5; i++)
        cr_expect(strstr(out, names[i]) != NULL, "%s in %s", names[i], out);
    cr_expect(strstr(out, "the machine the Memento paper simulated") != NULL, "titles: %s", out); /* first lines */
    free(out);
    cr_assert_eq(xt_runf(&out, "XGPU_PRESETS_DIR=%s %s --list-presets", xt_tmpdir(), XGPU_RUN),
                 0, "an empty directory lists nothing: %s", out);
    cr_expect_str_eq(out, "");
    free(out);
}

Test(xgpu_run_config, errors_name_the_flag_or_key)
{
    char *out = NULL;
    cr_expect_eq(run(&out, "--config no-such-gpu --dump-config"), 2);
    cr_expect(strstr(out, "no-such-gpu") && strstr(out, "unknown preset"), "%s", out);
    free(out);
    cr_expect_eq(run(&out, "--set l2.wayz=2 --dump-config"), 2);
    cr_expect(strstr(out, "l2.wayz") != NULL, "%s", out);
    free(out);
    cr_expect_eq(run(&out, "--set emu.progress=loud --dump-config"), 2);
    cr_expect(strstr(out, "emu.progress") && strstr(out, "auto|never|always"), "%s", out);
    free(out);
    cr_expect_eq(run(&out, "--interval 0 -- true"), 2);
    cr_expect(strstr(out, "--interval") != NULL, "%s", out);
    free(out);
    cr_expect_eq(run(&out, "--interval x -- true"), 2);
    free(out);
    cr_expect_eq(run(&out, "--dump-config -- true"), 2, "no program with --dump-config");
    free(out);
    cr_expect_eq(run(&out, "--dump-configs"), 2);
    cr_expect(strstr(out, "unknown option") && strstr(out, "--dump-configs"), "%s", out);
    free(out);
}

Test(xgpu_run_config, summary_and_interval_become_environment)
{
    char *out = NULL;
    cr_assert_eq(run(&out, "--summary --interval 1000 --set a=1 -- sh -c "
                           "'echo \"$XGPU_SUMMARY|$XGPU_SET\"'"), 0, "%s", out);
    cr_expect_str_eq(out, "1|emu.interval_cycles=1000;a=1\n");
    free(out);
}
