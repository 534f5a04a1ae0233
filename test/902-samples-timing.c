/*
 * 902-samples-timing: every sample runs correctly in timing mode on the accelsim-rtx2060 preset:
 * it prints PASS, every launch reports cycles, and the warp instructions executed equal
 * functional mode's (the timing model only decides when instructions run, never what
 * they compute). Sizes are the samples' defaults.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

/* Runs sample `name` in `mode`; returns 0 on PASS and fills the total warp instructions
 * and the number of launches without cycles. */
static int run_mode(const char *name, const char *mode, long long *winsns, int *nocycles,
                    char **out)
{
    char file[300];
    snprintf(file, sizeof file, "%s-%s.json", name, mode);
    const char *stats = xt_tmp(file);
    int rc = xt_runf(out, "XGPU_CONFIG=accelsim-rtx2060 XGPU_MODE=%s XGPU_STATS=%s %s/samples/%s",
                     mode, stats, XGPU_BUILD_DIR, name);
    if (rc != 0 || !*out || !strstr(*out, "PASS"))
        return -1;
    json_object *root = json_object_from_file(stats), *launches, *v;
    if (!root || !json_object_object_get_ex(root, "launches", &launches))
        return -1;
    *winsns = 0;
    *nocycles = 0;
    for (size_t i = 0; i < json_object_array_length(launches); i++) {
        json_object *l = json_object_array_get_idx(launches, i);
        if (json_object_object_get_ex(l, "warp_instructions", &v))
            *winsns += json_object_get_int64(v);
        if (!json_object_object_get_ex(l, "cycles", &v) || json_object_get_int64(v) <= 0)
            (*nocycles)++;
    }
    json_object_put(root);
    return 0;
}

Test(samples_timing, every_sample_in_timing_mode, .timeout = 1700)
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
        if (xt_sample_skip_name(name, 902))
            continue;
        long long wf = 0, wt = 0;
        int nf = 0, nt = 0;
        char *of = NULL, *ot = NULL;
        int okf = run_mode(name, "functional", &wf, &nf, &of) == 0;
        int okt = run_mode(name, "timing", &wt, &nt, &ot) == 0;
        cr_expect(okf, "%s (functional) failed:\n%s", name, of ? of : "");
        cr_expect(okt, "%s (timing) failed:\n%s", name, ot ? ot : "");
        cr_expect(!okt || nt == 0, "%s: %d launches without cycles", name, nt);
        cr_expect(!okf || !okt || wf == wt, "%s: %lld warp instructions in functional mode, "
                                            "%lld in timing mode", name, wf, wt);
        failed += !(okf && okt && nt == 0 && wf == wt);
        count++;
        free(of);
        free(ot);
    }
    closedir(d);
    cr_assert_geq(count, 3);
    cr_assert_eq(failed, 0, "%d of %d samples failed in timing mode", failed, count);
}
