/*
 * 461-per-unit-stats.c - stats.per_unit = true breaks a launch's counters down per SM,
 * per L2 slice and per DRAM channel ("units" in the statistics JSON, docs/stats.md):
 * one object per unit, with the counters that are not 0; the units' counters add up to
 * the launch's (the crossbar's icnt.* are the GPU's, in no unit); every SM and slice of
 * a spread-out kernel has work; and breaking down changes no figure (the "timing"
 * objects with and without it are identical, and without it there is no "units").
 */
#include <json-c/json.h>

#include "400-timing-util.h"

static const char *src = TM_GATHER_SRC; /* 400-timing-util.h */

#define UNITS "gpu.sm_count=4;l2.slices=4;dram.channels=2;emu.mode=timing"

/* The statistics JSON of one launch of src with settings set. */
static json_object *run(const char *set)
{
    EmuDevice *d = NULL;
    char err[256] = "";
    cr_assert_eq(emu_create_with(&d, NULL, set, err, sizeof err), EMU_OK, "%s", err);
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, (2048 + 4096) * 4, &buf), EMU_OK);
    cr_assert_eq(emu_memset(d, buf, 1, (2048 + 4096) * 4), EMU_OK);
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(8, 1, 1), DIM(256, 1, 1), 0, &buf, 8, NULL, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert(out);
    cr_assert_eq(emu_write_stats_json(d, out), 0);
    fclose(out);
    json_object *root = json_tokener_parse(text);
    cr_assert(root, "not JSON");
    free(text);
    emu_destroy(d);
    return root;
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static json_object *launch0(json_object *root)
{
    return json_object_array_get_idx(get(root, "launches"), 0);
}

/* The sum of counter name over the units of kind (sm, l2, dram), and how many have it. */
static uint64_t unit_sum(json_object *units, const char *kind, const char *name, int *have)
{
    json_object *a = get(units, kind);
    uint64_t sum = 0;
    *have = 0;
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *v = get(json_object_array_get_idx(a, i), name);
        if (v)
            sum += json_object_get_uint64(v), (*have)++;
    }
    return sum;
}

Test(per_unit, units_add_up_to_the_launch)
{
    json_object *root = run(UNITS ";stats.per_unit=true");
    json_object *l = launch0(root), *units = get(l, "units"), *timing = get(l, "timing");
    cr_assert(units, "no \"units\"");
    cr_expect_eq(json_object_array_length(get(units, "sm")), 4);
    cr_expect_eq(json_object_array_length(get(units, "l2")), 4);
    cr_expect_eq(json_object_array_length(get(units, "dram")), 2);
    int checked = 0;
    json_object_object_foreach(timing, name, val)
    {
        if (!json_object_is_type(val, json_type_int))
            continue; /* derived figures (rates, fractions) are not counters */
        uint64_t total = json_object_get_uint64(val), sum = 0;
        int have, units_with = 0;
        const char *kinds[] = {"sm", "l2", "dram"};
        for (int k = 0; k < 3; k++) {
            sum += unit_sum(units, kinds[k], name, &have);
            units_with += have;
        }
        if (strncmp(name, "icnt.", 5) == 0) {
            cr_expect_eq(units_with, 0, "%s is the crossbar's, counted in a unit", name);
            continue;
        }
        cr_expect_eq(sum, total, "%s: units %llu, launch %llu", name,
                     (unsigned long long)sum, (unsigned long long)total);
        checked += total != 0;
    }
    cr_expect_gt(checked, 10, "only %d counters moved", checked);
    int have;
    for (int i = 0; i < 4; i++) {
        json_object *sm = json_object_array_get_idx(get(units, "sm"), (size_t)i);
        cr_expect(get(sm, "core.warp_instructions"), "SM %d issued nothing", i);
        json_object *sl = json_object_array_get_idx(get(units, "l2"), (size_t)i);
        cr_expect(get(sl, "l2.hits") || get(sl, "l2.misses"), "L2 slice %d saw nothing", i);
        cr_expect_null(get(sl, "core.warp_instructions"), "a slice issued instructions");
    }
    cr_expect_gt(unit_sum(units, "dram", "dram.reads", &have), 0);
    cr_expect_eq(have, 2, "both channels read");
    json_object_put(root);
}

Test(per_unit, breaking_down_changes_no_figure)
{
    json_object *with = run(UNITS ";stats.per_unit=true"), *without = run(UNITS);
    cr_expect_null(get(launch0(without), "units"));
    cr_expect_str_eq(json_object_to_json_string(get(launch0(with), "timing")),
                     json_object_to_json_string(get(launch0(without), "timing")));
    cr_expect_str_eq(json_object_to_json_string(get(get(with, "totals"), "timing")),
                     json_object_to_json_string(get(get(without, "totals"), "timing")));
    json_object_put(with);
    json_object_put(without);
}
