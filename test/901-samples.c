/*
 * 901-samples: every program in samples/ (every .cu file there), compiled by the
 * build into build/samples/, runs on the emulator, prints PASS and its CPU reference time,
 * and exits 0; a few run with other sizes; with XGPU_STATS a run also writes statistics
 * that name its kernels, identical from run to run.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static void run_sample(const char *name, const char *args)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s/samples/%s %s", XGPU_BUILD_DIR, name, args);
    cr_assert_eq(rc, 0, "%s %s exited %d:\n%s", name, args, rc, out);
    cr_assert(strstr(out, "PASS") != NULL, "%s printed no PASS:\n%s", name, out);
    cr_assert(strstr(out, "FAIL") == NULL, "%s printed FAIL:\n%s", name, out);
    free(out);
}

/* Runs every sample with its default arguments; reports each failure, then fails. */
Test(samples, every_sample_passes, .timeout = 1700)
{
    DIR *d = opendir(XGPU_SOURCE_DIR "/samples");
    cr_assert_not_null(d);
    struct dirent *e;
    int count = 0, failed = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".cu"))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n - 3), e->d_name);
        if (xt_sample_skip_name(name, 901))
            continue;
        char *out = NULL;
        int rc = xt_runf(&out, "%s/samples/%s", XGPU_BUILD_DIR, name);
        int ok = rc == 0 && out && strstr(out, "PASS") && !strstr(out, "FAIL") &&
                 strstr(out, "cpu_reference_seconds:");
        cr_expect(ok, "sample %s: exit %d, output:\n%s", name, rc, out ? out : "");
        failed += !ok;
        count++;
        free(out);
    }
    closedir(d);
    cr_assert_geq(count, 3, "only %d samples found", count);
    cr_assert_eq(failed, 0, "%d of %d samples failed", failed, count);
}

Test(samples, vecadd) { run_sample("vecadd", ""); }
Test(samples, vecadd_odd_size) { run_sample("vecadd", "1001"); }
Test(samples, matmul) { run_sample("matmul", ""); }
Test(samples, matmul_ragged) { run_sample("matmul", "33 17 45"); }
Test(samples, reduction) { run_sample("reduction", ""); }
Test(samples, reduction_small) { run_sample("reduction", "1000"); }

Test(samples, stats_json_names_kernels)
{
    const char *stats = xt_tmp("reduction.json");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_STATS=%s %s/samples/reduction 5000", stats, XGPU_BUILD_DIR);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    json_object *root = json_object_from_file(stats);
    cr_assert_not_null(root, "stats file %s is not JSON", stats);
    json_object *launches, *totals, *v;
    cr_assert(json_object_object_get_ex(root, "launches", &launches));
    cr_assert_eq(json_object_array_length(launches), 2);
    json_object *l0 = json_object_array_get_idx(launches, 0);
    cr_assert(json_object_object_get_ex(l0, "name", &v));
    cr_assert(strstr(json_object_get_string(v), "reduce") != NULL);
    cr_assert(json_object_object_get_ex(l0, "warp_instructions", &v));
    cr_assert_gt(json_object_get_int64(v), 0);
    cr_assert(json_object_object_get_ex(l0, "thread_instructions", &v));
    cr_assert_gt(json_object_get_int64(v), 0);
    cr_assert(json_object_object_get_ex(l0, "grid", &v));
    cr_assert_eq(json_object_get_int(json_object_array_get_idx(v, 0)), 64);
    cr_assert(json_object_object_get_ex(l0, "block", &v));
    cr_assert_eq(json_object_get_int(json_object_array_get_idx(v, 0)), 256);
    cr_assert(json_object_object_get_ex(l0, "host_seconds", &v));
    cr_assert(json_object_object_get_ex(root, "totals", &totals));
    json_object_put(root);
}

Test(samples, stats_are_deterministic)
{
    const char *a = xt_tmp("a.json"), *b = xt_tmp("b.json");
    cr_assert_eq(xt_runf(NULL, "XGPU_STATS=%s %s/samples/matmul", a, XGPU_BUILD_DIR), 0);
    cr_assert_eq(xt_runf(NULL, "XGPU_STATS=%s %s/samples/matmul", b, XGPU_BUILD_DIR), 0);
    json_object *ra = json_object_from_file(a), *rb = json_object_from_file(b), *la, *lb, *x, *y;
    cr_assert(ra && rb);
    cr_assert(json_object_object_get_ex(ra, "launches", &la));
    cr_assert(json_object_object_get_ex(rb, "launches", &lb));
    json_object *ka = json_object_array_get_idx(la, 0), *kb = json_object_array_get_idx(lb, 0);
    const char *fields[] = {"warp_instructions", "thread_instructions"};
    for (int i = 0; i < 2; i++) {
        cr_assert(json_object_object_get_ex(ka, fields[i], &x));
        cr_assert(json_object_object_get_ex(kb, fields[i], &y));
        cr_assert_eq(json_object_get_int64(x), json_object_get_int64(y), "%s differs", fields[i]);
    }
    json_object_put(ra);
    json_object_put(rb);
}
