/*
 * 210-lower-golden.c - golden tests of the whole device lowering: every
 * test/golden/NAME.ll is lowered (opt level 0: prepare's cleanup only) and its
 * disassembly compared with test/golden/NAME.s. With XGPU_UPDATE_GOLDEN=1 the .s files
 * are rewritten instead (review the diff before committing it).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

#define GOLDEN_DIR XGPU_SOURCE_DIR "/test/golden"

static char *read_all(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    cr_assert(s);
    size_t got = n > 0 ? fread(s, 1, (size_t)n, f) : 0;
    s[got] = 0;
    return s;
}

/* First differing line, for a readable failure. */
static void report_diff(const char *name, const char *want, const char *got)
{
    int line = 1;
    while (*want && *want == *got) {
        line += *want == '\n';
        want++, got++;
    }
    cr_log_error("%s.s: first difference at line %d:\n  want: %.60s\n  got:  %.60s", name,
                 line, want, got);
}

static int check_one(const char *name, int update)
{
    char ll[512], s[512];
    snprintf(ll, sizeof ll, "%s/%s.ll", GOLDEN_DIR, name);
    snprintf(s, sizeof s, "%s/%s.s", GOLDEN_DIR, name);
    FILE *out = tmpfile();
    cr_assert(out);
    XgpuLowerOptions o = {.opt_level = 0, .source_name = ll};
    int rc = xgpu_lower_file(ll, &o, NULL, out);
    cr_expect_eq(rc, 0, "%s: lowering failed", name);
    char *got = read_all(out);
    fclose(out);
    int ok = rc == 0;
    if (update && ok) {
        FILE *w = fopen(s, "w");
        cr_assert(w, "cannot write %s", s);
        fputs(got, w);
        fclose(w);
    } else if (ok) {
        FILE *r = fopen(s, "r");
        cr_expect(r, "%s missing (run with XGPU_UPDATE_GOLDEN=1)", s);
        char *want = r ? read_all(r) : NULL;
        if (r)
            fclose(r);
        ok = want && strcmp(want, got) == 0;
        if (want && !ok)
            report_diff(name, want, got);
        free(want);
    }
    free(got);
    return ok;
}

Test(golden, every_ll_matches_its_s)
{
    const char *env = getenv("XGPU_UPDATE_GOLDEN");
    int update = env && strcmp(env, "0") != 0;
    DIR *d = opendir(GOLDEN_DIR);
    cr_assert(d, "no %s", GOLDEN_DIR);
    int n = 0, bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".ll"))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - 3), e->d_name);
        n++;
        if (!check_one(name, update)) {
            bad++;
            cr_log_error("golden %s differs", name);
        }
    }
    closedir(d);
    cr_expect_geq(n, 8, "expected at least 8 golden inputs, found %d", n);
    cr_expect_eq(bad, 0, "%d of %d golden outputs differ", bad, n);
}
