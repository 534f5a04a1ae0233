/*
 * 460-stats-json.c - the statistics printers: the per-launch and total JSON fields
 * ("cycles", "ipc", "timing" with every counter and the derived ratios) and their types,
 * null for zero denominators, totals as sums, determinism, the text summary, and the
 * interval series' absence when off. The derived figures are checked with synthetic
 * counter vectors (printer.h), independent of the timing core.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../emulator/stats/printer.h"
#include "300-emu-util.h"
#include "xtest.h"

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "missing \"%s\"", key);
    return v;
}

static int is_null(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "missing \"%s\"", key);
    return v == NULL;
}

/* A counter vector with the named counters set (all others 0); skipped if undeclared. */
static uint64_t *vec(const char *const *names, const uint64_t *values)
{
    uint64_t *v = calloc(emu_stat_nfields() + 1, sizeof *v);
    for (; *names; names++, values++) {
        int i = emu_stat_field_index(*names);
        if (i < 0)
            cr_skip_test("counter %s is not declared yet", *names);
        v[i] = *values;
    }
    return v;
}

static double derived(const EmuStatView *v, const char *name, int *ok)
{
    for (size_t i = 0; i < emu_stat_nderived(); i++)
        if (strcmp(emu_stat_derived_name(i), name) == 0) {
            double x = 0;
            *ok = emu_stat_derived(i, v, &x) == 0;
            return x;
        }
    cr_assert_fail("no derived figure %s", name);
    return 0;
}

Test(stats_printer, ratios_and_nulls)
{
    uint64_t *c = vec((const char *[]){"l1.hits", "l1.misses", "dram.row_hits",
                                       "dram.row_misses", NULL},
                      (const uint64_t[]){3, 1, 1, 3});
    EmuStatView v = {c, 200, 100, 10, 32, {0}, 0};
    int ok;
    cr_expect_float_eq(derived(&v, "l1.hit_rate", &ok), 0.75, 1e-12);
    cr_expect(ok);
    cr_expect_float_eq(derived(&v, "dram.row_hit_rate", &ok), 0.25, 1e-12);
    cr_expect(ok);
    derived(&v, "l2.hit_rate", &ok);
    cr_expect(!ok, "0 / 0 has no value");
    cr_expect_float_eq(derived(&v, "ipc", &ok), 0.5, 1e-12);
    v.cycles = 0;
    derived(&v, "ipc", &ok);
    cr_expect(!ok, "no cycles, no IPC");
    json_object *t = emu_stats_timing_json(&v);
    for (size_t i = 0; i < emu_stat_nfields(); i++) {
        json_object *x = get(t, emu_stat_field_name(i));
        cr_expect(json_object_is_type(x, json_type_int), "%s", emu_stat_field_name(i));
        cr_expect_eq(json_object_get_uint64(x), c[i], "%s", emu_stat_field_name(i));
    }
    cr_expect_float_eq(json_object_get_double(get(t, "l1.hit_rate")), 0.75, 1e-12);
    cr_expect(json_object_is_type(get(t, "l1.hit_rate"), json_type_double));
    cr_expect(is_null(t, "l2.hit_rate"));
    cr_expect(is_null(t, "occupancy"), "no cycles");
    json_object_put(t);
    free(c);
}

Test(stats_printer, occupancy_and_stall_shares)
{
    uint64_t *c = vec((const char *[]){"core.active_warp_cycles", "core.subcore_cycles",
                                       "core.issued", "stall.scoreboard", NULL},
                      (const uint64_t[]){640, 100, 25, 75});
    EmuStatView v = {c, 10, 25, 2, 32, {0}, 0}; /* 10 cycles x 2 SMs x 32 warps = 640 slots */
    int ok;
    cr_expect_float_eq(derived(&v, "occupancy", &ok), 1.0, 1e-12);
    cr_expect(ok);
    cr_expect_float_eq(derived(&v, "core.issued_fraction", &ok), 0.25, 1e-12);
    cr_expect_float_eq(derived(&v, "stall.scoreboard_fraction", &ok), 0.75, 1e-12);
    cr_expect(ok);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    emu_stats_summary(f, (EmuSummaryRow[]){{"k", 1, v}}, 1);
    fclose(f);
    cr_expect(strstr(text, "scoreboard 75%") != NULL, "top stall: %s", text);
    free(text);
    free(c);
}

Test(stats_printer, summary_table)
{
    uint64_t *c = vec((const char *[]){"l1.hits", "l1.misses", NULL}, (const uint64_t[]){1, 3});
    EmuSummaryRow rows[2] = {{"saxpy", 2, {c, 1000, 2500, 10, 32, {0}, 0}},
                             {"total", 2, {c, 1000, 2500, 10, 32, {0}, 0}}};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    emu_stats_summary(f, rows, 2);
    fclose(f);
    cr_expect(strstr(text, "xgpu summary") != NULL, "%s", text);
    cr_expect(strstr(text, "saxpy") != NULL, "%s", text);
    cr_expect(strstr(text, "2.500") != NULL, "IPC: %s", text);
    cr_expect(strstr(text, "25.0%") != NULL, "L1 hit rate: %s", text);
    cr_expect(strstr(text, "\ntotal") != NULL, "%s", text);
    free(text);
    free(c);
}

static const char *src = ".kernel k\n  s2r r0, %tid.x\n  add.u32 r0, r0, 1\n  exit\n";

/* Runs k twice (1 and 3 CTAs) and returns the JSON text with the host's times zeroed. */
static char *run_json(void)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    cr_assert_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(64, 1, 1), 0, NULL, 0, NULL, NULL),
                 EMU_OK);
    cr_assert_eq(emu_launch(d, m, 0, DIM(3, 1, 1), DIM(32, 1, 1), 0, NULL, 0, NULL, NULL),
                 EMU_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(emu_write_stats_json(d, f), 0);
    fclose(f);
    emu_destroy(d);
    json_object *root = json_tokener_parse(text);
    cr_assert_not_null(root, "%s", text);
    free(text);
    json_object *ls = get(root, "launches");
    static const char *host[] = {"host_seconds", "host_cpu_seconds"};
    for (int h = 0; h < 2; h++) {
        for (size_t i = 0; i < json_object_array_length(ls); i++)
            json_object_object_add(json_object_array_get_idx(ls, i), host[h],
                                   json_object_new_double(0));
        json_object_object_add(get(root, "totals"), host[h], json_object_new_double(0));
    }
    char *out = strdup(json_object_to_json_string(root));
    json_object_put(root);
    return out;
}

Test(stats_json, launch_and_total_fields)
{
    char *text = run_json();
    json_object *root = json_tokener_parse(text);
    json_object *ls = get(root, "launches"), *tot = get(root, "totals");
    cr_assert_eq(json_object_array_length(ls), 2);
    uint64_t winsns = 0, cycles = 0;
    for (size_t i = 0; i < 2; i++) {
        json_object *l = json_object_array_get_idx(ls, i);
        cr_expect(json_object_is_type(get(l, "cycles"), json_type_int));
        cycles += json_object_get_uint64(get(l, "cycles"));
        winsns += json_object_get_uint64(get(l, "warp_instructions"));
        if (json_object_get_uint64(get(l, "cycles")) == 0)
            cr_expect(is_null(l, "ipc"), "no cycles (functional mode): ipc is null");
        json_object *t = get(l, "timing");
        for (size_t f = 0; f < emu_stat_nfields(); f++)
            cr_expect(json_object_is_type(get(t, emu_stat_field_name(f)), json_type_int));
        for (size_t f = 0; f < emu_stat_nderived(); f++)
            if (strcmp(emu_stat_derived_name(f), "ipc") != 0)
                get(t, emu_stat_derived_name(f));
        json_object *iv = NULL;
        cr_expect(!json_object_object_get_ex(l, "intervals", &iv), "no series unless asked");
    }
    cr_expect_eq(winsns, 2 * 3 + 3 * 3);
    cr_expect_eq(json_object_get_uint64(get(tot, "warp_instructions")), winsns);
    cr_expect_eq(json_object_get_uint64(get(tot, "cycles")), cycles, "totals are sums");
    json_object *tt = get(tot, "timing");
    for (size_t f = 0; f < emu_stat_nfields(); f++) {
        uint64_t sum = 0;
        for (size_t i = 0; i < 2; i++)
            sum += json_object_get_uint64(
                get(get(json_object_array_get_idx(ls, i), "timing"), emu_stat_field_name(f)));
        cr_expect_eq(json_object_get_uint64(get(tt, emu_stat_field_name(f))), sum);
    }
    json_object_put(root);
    free(text);
}

Test(stats_json, deterministic)
{
    char *a = run_json(), *b = run_json();
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
}

Test(stats_json, intervals_present_when_asked)
{
    setenv("XGPU_SET", "emu.interval_cycles=100", 1);
    char *text = run_json();
    json_object *root = json_tokener_parse(text);
    json_object *l = json_object_array_get_idx(get(root, "launches"), 0);
    cr_expect(json_object_is_type(get(l, "intervals"), json_type_array));
    json_object *cfg = get(root, "config");
    cr_expect_eq(json_object_get_int(get(cfg, "emu.interval_cycles")), 100);
    cr_expect(json_object_is_type(get(cfg, "emu.summary"), json_type_boolean));
    cr_expect_str_eq(json_object_get_string(get(cfg, "emu.progress")), "auto");
    json_object_put(root);
    free(text);
}

Test(stats_json, summary_on_destroy)
{
    const char *path = xt_tmp("460-stderr.txt");
    cr_assert_not_null(freopen(path, "w", stderr));
    setenv("XGPU_SUMMARY", "1", 1);
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    cr_assert_eq(emu_launch(d, m, 0, DIM(2, 1, 1), DIM(32, 1, 1), 0, NULL, 0, NULL, NULL),
                 EMU_OK);
    emu_destroy(d);
    fflush(stderr);
    char *text = xt_read(path, NULL);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "xgpu summary") && strstr(text, "\nk ") && strstr(text, "\ntotal"),
              "%s", text);
    free(text);
}
