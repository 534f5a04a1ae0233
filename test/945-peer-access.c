/*
 * 945-peer-access: separate devices with peer access (docs/multi-device.md).
 * test/e2e/peer_access.cu enables device 0's access to device 1, gathers from and
 * scatters into device 1's memory from device 0's kernels and checks every element,
 * and the errors of enabling twice, disabling what is not enabled and touching device
 * 1's memory after disabling (PASS), in timing and functional mode. In timing mode device
 * 0's statistics count the remote line requests (peer.accesses) and the bytes they moved
 * over its link, and device 1 ran nothing.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static long long total(const char *path, const char *key)
{
    json_object *root = json_object_from_file(path), *t, *v;
    cr_assert(root, "no statistics at %s", path);
    long long r = -1;
    if (json_object_object_get_ex(root, "totals", &t) &&
        json_object_object_get_ex(t, "timing", &t) && json_object_object_get_ex(t, key, &v))
        r = json_object_get_int64(v);
    json_object_put(root);
    return r;
}

Test(peer_access, remote_loads_and_stores, .timeout = 300)
{
    const char *exe = xt_compile_e2e("peer_access", "-O2");
    for (int timing = 0; timing < 2; timing++) {
        char *out = NULL;
        const char *json = xt_tmp(timing ? "peer-timing.json" : "peer-func.json");
        int rc = xt_runf(&out, "XGPU_MODE=%s XGPU_SET='system.gpus=2' XGPU_STATS=%s %s 2>&1",
                         timing ? "timing" : "functional", json, exe);
        cr_assert_eq(rc, 0, "%s", out);
        cr_expect(strstr(out, "PASS"), "%s", out);
        free(out);
        if (!timing)
            continue;
        /* 8192 floats read and 8192 written remotely: 256 lines each way at least */
        cr_expect_geq(total(json, "peer.accesses"), 512);
        cr_expect_gt(total(json, "link.out_bytes"), 8192 * 4 * 2 / 2);
        cr_expect_gt(total(json, "link.in_bytes"), 8192 * 4);
    }
}
