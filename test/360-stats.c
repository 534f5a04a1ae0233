/*
 * 360-stats.c - launch statistics: exact instruction counts for a known snippet, the
 * launch log, the JSON document (parsed back with json-c), and determinism.
 */
#include <json-c/json.h>
#include <stdint.h>
#include "300-emu-util.h"

/* 40 threads: warp 0 is full, warp 1 has 8 lanes. Odd threads run one extra add. */
static const char *src =
    ".kernel counted\n.param 8\n"
    "  s2r r0, %tid.x\n  and.u32 r1, r0, 1\n  brc.not r1, join, join\n"
    "  add.u32 r0, r0, 1\n"
    "join:\n  s2r r2, %clock\n  ld.param.u64 r4, [0]\n  cvt.u64.u32 r6, r0\n"
    "  shl.u64 r6, r6, 2\n  add.u64 r4, r4, r6\n  st.global.u32 [r4], r2\n  exit\n";

static void run(EmuDevice *d, EmuLaunchStats *st, uint32_t *clk)
{
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, 64 * 4, &buf), EMU_OK);
    cr_assert_eq(emu_launch(d, m, 0, DIM(3, 1, 1), DIM(40, 1, 1), 16, &buf, 8, st, NULL),
                 EMU_OK);
    emu_copy_from_device(d, clk, buf, 64 * 4);
}

Test(stats, exact_counts)
{
    EmuDevice *d = t_dev();
    EmuLaunchStats st;
    uint32_t clk[64];
    run(d, &st, clk);
    /* per warp: 11 instructions (3 + add + 7), 3 CTAs x 2 warps */
    cr_expect_eq(st.warp_instructions, 3 * 2 * 11);
    /* threads: 40 x 10 + 20 odd threads x 1, per CTA */
    cr_expect_eq(st.thread_instructions, 3 * (40 * 10 + 20));
    cr_expect_str_eq(st.kernel, "counted");
    cr_expect_eq(st.grid.x, 3);
    cr_expect_eq(st.block.x, 40);
    cr_expect_eq(st.shared_dynamic, 16);
    cr_expect_eq(st.status, EMU_OK);
    cr_expect_geq(st.host_seconds, 0.0);
    cr_expect_geq(st.host_cpu_seconds, 0.0);
    /* the functional clock counts the warp's earlier instructions: 4 in every warp
     * that had an odd lane (all do), whatever the lane */
    for (int i = 0; i <= 40; i++) /* out[r0]: odd threads stored at tid + 1 */
        cr_expect_eq(clk[i], i & 1 ? 0 : 4, "slot %d", i);
    cr_expect_eq(emu_launch_count(d), 1);
    cr_expect_eq(emu_launch_stats(d, 0)->warp_instructions, st.warp_instructions);
    cr_expect_null(emu_launch_stats(d, 1));
    emu_destroy(d);
}

Test(stats, identical_runs_identical_counts)
{
    EmuLaunchStats a, b;
    uint32_t ca[64], cb[64];
    EmuDevice *d = t_dev();
    run(d, &a, ca);
    emu_destroy(d);
    d = t_dev();
    run(d, &b, cb);
    emu_destroy(d);
    cr_expect_eq(a.warp_instructions, b.warp_instructions);
    cr_expect_eq(a.thread_instructions, b.thread_instructions);
    cr_expect_arr_eq(ca, cb, sizeof ca);
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "missing \"%s\"", key);
    return v;
}

Test(stats, json_document)
{
    setenv("XGPU_SET", "gpu.sm_count=7", 1);
    EmuDevice *d = t_dev();
    EmuLaunchStats st;
    uint32_t clk[64];
    run(d, &st, clk);
    EmuModule *m = t_load(d, ".kernel boom\n  trap\n");
    cr_assert_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1, 1, 1), 0, NULL, 0, NULL, NULL),
                 EMU_ERR_LAUNCH_FAILURE);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(emu_write_stats_json(d, f), 0);
    fclose(f);
    json_object *root = json_tokener_parse(text);
    cr_assert_not_null(root, "not JSON:\n%s", text);
    cr_expect_str_eq(json_object_get_string(get(root, "device")), "xgpu-default");
    json_object *cfg = get(root, "config");
    cr_expect_eq(json_object_get_int(get(cfg, "gpu.sm_count")), 7);
    cr_expect_str_eq(json_object_get_string(get(cfg, "emu.mode")), "functional");
    get(cfg, "emu.max_warp_insns");
    get(cfg, "gpu.cc_major");
    json_object *ls = get(root, "launches");
    cr_assert_eq(json_object_array_length(ls), 2);
    json_object *l0 = json_object_array_get_idx(ls, 0);
    cr_expect_str_eq(json_object_get_string(get(l0, "name")), "counted");
    cr_expect_eq(json_object_get_int(json_object_array_get_idx(get(l0, "grid"), 0)), 3);
    cr_expect_eq(json_object_get_int(json_object_array_get_idx(get(l0, "block"), 0)), 40);
    cr_expect_eq(json_object_get_int(get(l0, "shared_dynamic")), 16);
    cr_expect_eq(json_object_get_uint64(get(l0, "warp_instructions")), st.warp_instructions);
    cr_expect_eq(json_object_get_uint64(get(l0, "thread_instructions")), st.thread_instructions);
    get(l0, "host_seconds");
    cr_expect_leq(json_object_get_double(get(l0, "host_cpu_seconds")),
                  json_object_get_double(get(l0, "host_seconds")) + 0.01,
                  "one thread: no more CPU time than wall time");
    cr_expect_str_eq(json_object_get_string(get(l0, "status")), "ok");
    json_object *l1 = json_object_array_get_idx(ls, 1);
    cr_expect_str_eq(json_object_get_string(get(l1, "status")), "launch failure");
    json_object *tot = get(root, "totals");
    cr_expect_eq(json_object_get_int(get(tot, "launches")), 2);
    cr_expect_eq(json_object_get_uint64(get(tot, "warp_instructions")), st.warp_instructions + 1);
    get(tot, "thread_instructions");
    get(tot, "host_seconds");
    get(tot, "host_cpu_seconds");
    json_object_put(root);
    free(text);
    emu_destroy(d);
}
