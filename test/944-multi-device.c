/*
 * 944-multi-device: a system.gpus = N configuration is N CUDA devices in one process
 * (docs/multi-device.md). test/e2e/multi_gpu.cu gives each device its own slice, launch
 * and copies, reads every device's memory while device 0 is current, gathers with
 * cudaMemcpyPeer and checks the results itself (PASS), in timing and functional mode.
 * Here: each device writes its own statistics file (XGPU_STATS, then .gpu1, .gpu2)
 * naming its GPU and holding exactly its own launches (device d runs d + 1 of the scale
 * kernel; device 0 also the N - 1 sums), the same launch gives bit-identical counters on
 * every device (each GPU's memory hierarchy sees its lines at GPU 0's addresses), and a
 * bad system.gpus fails cudaGetDeviceCount with the key's name.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

enum { NDEV = 3 };

static json_object *stats_of(const char *path)
{
    size_t len;
    char *text = xt_read(path, &len);
    cr_assert(text, "no statistics at %s", path);
    json_object *o = json_tokener_parse(text);
    free(text);
    cr_assert(o, "%s is not JSON", path);
    return o;
}

static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "no \"%s\"", key);
    return v;
}

Test(multi_device, every_device_has_its_memory_launches_and_statistics, .timeout = 300)
{
    const char *exe = xt_compile_e2e("multi_gpu", "-O2");
    char *out = NULL;
    const char *json = xt_tmp("stats.json");
    /* gtx480: six L2 slices, so a GPU's addresses would map to other slices than GPU 0's
     * if its memory hierarchy indexed by them */
    int rc = xt_runf(&out, "XGPU_CONFIG=gtx480 XGPU_SET='system.gpus=%d' XGPU_STATS=%s %s 2>&1",
                     NDEV, json, exe);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "devices: 3") && strstr(out, "PASS"), "%s", out);
    free(out);

    const char *first = NULL;
    char *first_copy = NULL;
    for (int d = 0; d < NDEV; d++) {
        char path[512];
        if (d == 0)
            snprintf(path, sizeof path, "%s", json);
        else
            snprintf(path, sizeof path, "%.*s.gpu%d.json", (int)(strlen(json) - 5), json, d);
        json_object *root = stats_of(path);
        cr_expect_eq(json_object_get_int(member(root, "gpu")), d, "%s", path);
        json_object *launches = member(root, "launches");
        size_t n = json_object_array_length(launches), want = d + 1 + (d == 0 ? NDEV - 1 : 0);
        cr_expect_eq(n, want, "device %d ran %zu launches, want %zu", d, n, want);
        for (size_t i = 0; i < n; i++) {
            const char *k = json_object_get_string(
                member(json_object_array_get_idx(launches, i), "name"));
            cr_expect_str_eq(k, i <= (size_t)d ? "_Z5scalePfif" : "_Z8sum_intoPfPKfi",
                             "device %d launch %zu", d, i);
        }
        /* the first launch is the same work on every device: the same counters */
        const char *t = json_object_to_json_string(
            member(json_object_array_get_idx(launches, 0), "timing"));
        if (d == 0)
            first = first_copy = strdup(t);
        else
            cr_expect_str_eq(t, first, "device %d's first launch differs from device 0's", d);
        json_object_put(root);
    }
    free(first_copy);
}

Test(multi_device, functional_mode, .timeout = 300)
{
    const char *exe = xt_compile_e2e("multi_gpu", "-O2");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=functional XGPU_SET='system.gpus=2' %s 2>&1", exe);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "devices: 2") && strstr(out, "PASS"), "%s", out);
    free(out);
}

Test(multi_device, bad_gpu_count_names_the_key, .timeout = 300)
{
    const char *exe = xt_compile_e2e("multi_gpu", "-O2");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_SET='system.gpus=0' %s 2>&1", exe);
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "system.gpus") && strstr(out, "cudaGetDeviceCount"), "%s", out);
    free(out);
    /* one device: the program's own check refuses to run, the runtime reports 1 */
    rc = xt_runf(&out, "%s 2>&1", exe);
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "devices: 1"), "%s", out);
    free(out);
}
