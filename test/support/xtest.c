/*
 * xtest.c - see xtest.h. Test support code; process-wide state is fine here.
 */
#define _GNU_SOURCE
#include "xtest.h"
#include "xgpu/gpubin.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int xt_run(const char *cmd, char **out)
{
    char *full = NULL;
    if (asprintf(&full, "( %s ) 2>&1", cmd) < 0)
        return -1;
    FILE *p = popen(full, "r");
    free(full);
    if (!p)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += r;
        if (cap - n < 2048) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    if (buf)
        buf[n] = 0;
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    if (st < 0)
        return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
}

int xt_runf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd = NULL;
    int ok = vasprintf(&cmd, fmt, ap);
    va_end(ap);
    if (ok < 0)
        return -1;
    int rc = xt_run(cmd, out);
    free(cmd);
    return rc;
}

static char tmpdir[256];

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(tmpdir);
}

const char *xt_tmpdir(void)
{
    static pid_t owner;
    if (!tmpdir[0] || owner != getpid()) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/xgpu-test-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir))
            return "/nonexistent";
        owner = getpid();
        if (!getenv("XGPU_KEEP_TEST_FILES"))
            atexit(remove_tmpdir);
    }
    return tmpdir;
}

const char *xt_tmp(const char *name)
{
    static char slots[8][512];
    static unsigned next;
    char *s = slots[next++ % 8];
    snprintf(s, sizeof slots[0], "%s/%s", xt_tmpdir(), name);
    return s;
}

int xt_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

char *xt_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, r;
    char *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n < 1024)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

void *xt_fat_from_asm(const char *src)
{
    XGpubin *g;
    char err[256];
    cr_assert_eq(xasm_assemble(src, &g, err, sizeof err), 0, "%s", err);
    const char *path = xt_tmp("module.fatbin");
    cr_assert_eq(xgpubin_write_fat(g, path, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    void *buf = xt_read(path, NULL);
    cr_assert_not_null(buf);
    unlink(path);
    return buf;
}

const char *xt_compile_e2e(const char *name, const char *opt)
{
    char exe[128];
    snprintf(exe, sizeof exe, "%s%s", name, opt);
    for (char *p = exe; *p; p++)
        if (*p == ' ' || *p == '=' || *p == '/')
            *p = '_';
    const char *bin = xt_tmp(exe);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc %s %s/test/e2e/%s.cu -o %s", XGPU_BIN_DIR, opt,
                     XGPU_SOURCE_DIR, name, bin);
    cr_assert_eq(rc, 0, "xgpu-cc %s %s failed (%d):\n%s", opt, name, rc, out);
    free(out);
    return bin;
}

void xt_expect_pass(const char *path, const char *args)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s %s", path, args);
    cr_assert_eq(rc, 0, "%s %s exited %d:\n%s", path, args, rc, out);
    cr_assert(out && strstr(out, "PASS"), "%s %s:\n%s", path, args, out);
    free(out);
}

void xt_expect_pass_both_modes(const char *name, const char *opt)
{
    const char *exe = xt_compile_e2e(name, opt);
    xt_expect_pass(exe, "");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=functional %s", exe);
    cr_assert_eq(rc, 0, "%s %s, functional mode, exited %d:\n%s", name, opt, rc, out);
    cr_assert(out && strstr(out, "PASS"), "%s %s, functional mode:\n%s", name, opt, out);
    free(out);
}

int xt_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; *needle && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

int xt_sanitize_tier(void)
{
    const char *tier = getenv("XGPU_TEST_TIER");
    return tier && strcmp(tier, "sanitize") == 0;
}

int xt_sample_skip_name(const char *name, unsigned salt)
{
    unsigned h = salt;
    for (const char *p = name; *p; p++)
        h += (unsigned char)*p;
    return xt_sanitize_tier() && h % XT_SAMPLE_STRIDE != 0;
}
