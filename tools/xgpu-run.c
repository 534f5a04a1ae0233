/*
 * xgpu-run - runs a program built with xgpu-cc under a chosen emulator configuration.
 *
 *   xgpu-run [--stats FILE] [--config NAME|FILE] [--set key=value]... [--summary]
 *            [--mode functional|timing] [--interval N] [--profile-reuse FILE]
 *            [--] ./app args...
 *   xgpu-run [--config NAME|FILE] [--set key=value]... [--mode M] --dump-config
 *   xgpu-run --list-presets
 *
 * The flags only become environment variables that libxgpurt and the emulator read
 * when the program creates its device: XGPU_STATS, XGPU_CONFIG, XGPU_SET (the --set
 * pairs and --interval joined with ';', after any XGPU_SET already in the environment,
 * so the flags win), XGPU_MODE, XGPU_SUMMARY and XGPU_REUSE_PROFILE. Then the program replaces this process
 * (execvp), so its exit status is the program's. --dump-config resolves the same
 * environment in process with the emulator's own parser (libxgpuemu) and prints the
 * result as a config file. Bad flags print one line and exit with status 2; a program
 * that cannot be started exits with 127.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../emulator/config/config.h"

typedef struct RunOptions {
    const char *stats, *config, *mode, *reuse;
    char *set;      /* ';'-joined key=value pairs, malloc'd, or NULL */
    int dump, list, summary; /* --dump-config, --list-presets, --summary */
    char **argv;    /* the program and its arguments */
} RunOptions;

static void run_usage(FILE *f)
{
    fputs("usage: xgpu-run [options] [--] PROGRAM [ARGS...]\n"
          "Runs PROGRAM (built with xgpu-cc) on the xgpu emulator.\n"
          "  --stats FILE           write statistics as JSON to FILE at exit (XGPU_STATS)\n"
          "  --config NAME|FILE     configuration preset or file (XGPU_CONFIG)\n"
          "  --set KEY=VALUE        override one configuration key; repeatable (XGPU_SET)\n"
          "  --mode functional|timing   emulation mode (XGPU_MODE)\n"
          "  --interval N           timing mode: record IPC and stalls every N cycles\n"
          "                         (--set emu.interval_cycles=N)\n"
          "  --summary              print a statistics summary on stderr at exit (XGPU_SUMMARY)\n"
          "  --profile-reuse FILE   record Memento reuse distances of the first warps of\n"
          "                         each kernel into FILE (XGPU_REUSE_PROFILE), for\n"
          "                         xgpu-cc --reuse-profile=FILE\n"
          "  --dump-config          print the effective configuration as a config file; exit\n"
          "  --list-presets         print the configuration presets; exit\n"
          "  --help                 show this help\n",
          f);
}

static int run_fail(const char *msg, const char *arg)
{
    fprintf(stderr, "xgpu-run: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return -1;
}

/* Appends one key=value pair to the ';'-joined list. */
static int run_add_set(RunOptions *o, const char *kv)
{
    if (!strchr(kv, '=') || kv[0] == '=')
        return run_fail("--set expects KEY=VALUE", kv);
    size_t old = o->set ? strlen(o->set) : 0;
    char *s = realloc(o->set, old + strlen(kv) + 2);
    if (!s)
        return run_fail("out of memory", NULL);
    if (old)
        s[old++] = ';';
    strcpy(s + old, kv);
    o->set = s;
    return 0;
}

/* Matches "--name VALUE" and "--name=VALUE"; advances *i past what it used. A missing or
 * empty value is reported here, naming the option, and gives *value = NULL. */
static int run_flag(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return 0;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
    } else if (argv[*i][n] != '\0') {
        return 0;
    } else if (*i + 1 >= argc) {
        run_fail("missing value for", name);
        *value = NULL;
        return 1;
    } else {
        *value = argv[++*i];
    }
    if (!**value) {
        fprintf(stderr, "xgpu-run: %s: empty value (give one, or leave the option out)\n", name);
        *value = NULL;
    }
    return 1;
}

/* A flag without a value: sets *on; *value points at a non-empty dummy for the caller. */
static int run_switch(const char *arg, const char *name, int *on, const char **value)
{
    if (strcmp(arg, name) != 0)
        return 0;
    *on = 1;
    *value = name;
    return 1;
}

/* --interval N: a positive cycle count, passed on as emu.interval_cycles. */
static int run_add_interval(RunOptions *o, const char *n)
{
    char *end, kv[64];
    errno = 0;
    unsigned long long v = strtoull(n, &end, 10);
    if (n[0] < '0' || n[0] > '9' || *end || errno || v == 0)
        return run_fail("--interval expects a positive number of cycles", n);
    snprintf(kv, sizeof kv, "emu.interval_cycles=%llu", v);
    return run_add_set(o, kv);
}

/* Returns 0 (run), 1 (help printed) or -1 (bad command line). */
static int run_parse(int argc, char **argv, RunOptions *o)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            run_usage(stdout);
            return 1;
        } else if (run_flag(argc, argv, &i, "--stats", &v)) {
            o->stats = v;
        } else if (run_flag(argc, argv, &i, "--profile-reuse", &v)) {
            o->reuse = v;
        } else if (run_flag(argc, argv, &i, "--config", &v)) {
            o->config = v;
        } else if (run_flag(argc, argv, &i, "--mode", &v)) {
            if (v && strcmp(v, "functional") != 0 && strcmp(v, "timing") != 0)
                return run_fail("--mode must be functional or timing", v);
            o->mode = v;
        } else if (run_flag(argc, argv, &i, "--set", &v)) {
            if (v && run_add_set(o, v))
                return -1;
        } else if (run_flag(argc, argv, &i, "--interval", &v)) {
            if (v && run_add_interval(o, v))
                return -1;
        } else if (run_switch(argv[i], "--dump-config", &o->dump, &v) ||
                   run_switch(argv[i], "--list-presets", &o->list, &v) ||
                   run_switch(argv[i], "--summary", &o->summary, &v)) {
        } else {
            return run_fail("unknown option", argv[i]);
        }
        if (!v)
            return -1;
    }
    if (o->dump || o->list)
        return i < argc ? run_fail("--dump-config and --list-presets take no program", argv[i])
                        : 0;
    if (i >= argc)
        return run_fail("no program to run (see --help)", NULL);
    o->argv = argv + i;
    return 0;
}

static int run_setenv(const char *name, const char *value)
{
    if (value && setenv(name, value, 1) != 0)
        return run_fail("cannot set", name);
    return 0;
}

/* XGPU_SET: what the environment already has, then the flags. */
static int run_export_set(const RunOptions *o)
{
    if (!o->set)
        return 0;
    const char *old = getenv("XGPU_SET");
    if (!old || !*old)
        return run_setenv("XGPU_SET", o->set);
    char *joined = malloc(strlen(old) + strlen(o->set) + 2);
    if (!joined)
        return run_fail("out of memory", NULL);
    sprintf(joined, "%s;%s", old, o->set);
    int r = run_setenv("XGPU_SET", joined);
    free(joined);
    return r;
}

/* --dump-config: the configuration the program would get, on stdout. */
static int run_dump(void)
{
    EmuConfig c;
    char err[512];
    if (emu_config_from_env(&c, err, sizeof err)) {
        fprintf(stderr, "xgpu-run: %s\n", err);
        return 2;
    }
    return emu_config_dump(&c, stdout) || fflush(stdout) ? 1 : 0;
}

static int run_list(void)
{
    if (emu_presets_list(stdout) < 0) {
        fprintf(stderr, "xgpu-run: cannot read the presets directory %s\n", emu_presets_dir());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    RunOptions o = {0};
    int r = run_parse(argc, argv, &o);
    if (r != 0) {
        free(o.set);
        return r > 0 ? 0 : 2;
    }
    if (run_setenv("XGPU_STATS", o.stats) || run_setenv("XGPU_CONFIG", o.config) ||
        run_setenv("XGPU_REUSE_PROFILE", o.reuse) ||
        run_setenv("XGPU_MODE", o.mode) || run_export_set(&o) ||
        run_setenv("XGPU_SUMMARY", o.summary ? "1" : NULL)) {
        free(o.set);
        return 2;
    }
    free(o.set);
    if (o.list)
        return run_list();
    if (o.dump)
        return run_dump();
    execvp(o.argv[0], o.argv);
    fprintf(stderr, "xgpu-run: cannot run %s: %s\n", o.argv[0], strerror(errno));
    return 127;
}
