/*
 * stats.c - the device's launch log, its JSON form (schema: docs/stats.md) and the
 * summary printed at emu_destroy.
 *
 * The functional core counts with plain uint64 increments into its launch context;
 * emu_launch hands the finished EmuLaunchStats here, where it is appended to the log.
 * The timing core keeps each launch's counter difference (emu_launch_counters). Totals
 * are sums over the log, computed when printed; ratios are derived by the printer from
 * the sums (never averaged). The "config" object is generated from the key table, so
 * every key appears with its effective value.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "stats/stats.h"

#define NCTR (sizeof(TmCounters) / sizeof(uint64_t))

void emu_stats_record(EmuDevice *d, const EmuLaunchStats *s)
{
    if (d->nlaunches == d->caplaunches) {
        size_t cap = d->caplaunches ? d->caplaunches * 2 : 16;
        EmuLaunchStats *p = realloc(d->launches, cap * sizeof *p);
        if (!p)
            return; /* the log is best effort; the launch itself already happened */
        d->launches = p;
        d->caplaunches = cap;
    }
    emu_series_launch_done(d, d->nlaunches);
    d->launches[d->nlaunches++] = *s;
}

static void view_init(const EmuDevice *d, EmuStatView *v)
{
    memset(v, 0, sizeof *v);
    v->sm_count = d->props.sm_count;
    v->max_warps_per_sm = d->cfg.gpu_max_threads_per_sm / XGPU_WARP_SIZE;
    const EmuConfig *c = &d->cfg;
    const double e[9] = {c->energy_bank_read,     c->energy_bank_write, c->energy_xbar,
                         c->energy_ct_read,       c->energy_ct_write,   c->energy_arbiter,
                         c->energy_dram_activate, c->energy_dram_burst, c->energy_icnt_flit};
    memcpy(v->energy, e, sizeof e);
    v->energy_placeholder = c->energy_placeholder;
}

void emu_stats_view(const EmuDevice *d, size_t i, EmuStatView *v)
{
    view_init(d, v);
    v->ctr = emu_launch_counters ? (const uint64_t *)emu_launch_counters(d, i) : NULL;
    v->cycles = d->launches[i].cycles;
    v->warp_insns = d->launches[i].warp_instructions;
}

/* Adds launch i's counters to a running sum (sum has NCTR entries). */
static void view_add(const EmuDevice *d, size_t i, EmuStatView *sum, uint64_t *ctr)
{
    EmuStatView v;
    emu_stats_view(d, i, &v);
    sum->cycles += v.cycles;
    sum->warp_insns += v.warp_insns;
    for (size_t k = 0; v.ctr && k < NCTR; k++)
        ctr[k] += v.ctr[k];
}

size_t emu_launch_count(const EmuDevice *d)
{
    return d ? d->nlaunches : 0;
}

const EmuLaunchStats *emu_launch_stats(const EmuDevice *d, size_t i)
{
    return d && i < d->nlaunches ? &d->launches[i] : NULL;
}

static json_object *dim3_json(EmuDim3 v)
{
    json_object *a = json_object_new_array();
    json_object_array_add(a, json_object_new_int64(v.x));
    json_object_array_add(a, json_object_new_int64(v.y));
    json_object_array_add(a, json_object_new_int64(v.z));
    return a;
}

static json_object *config_json(const EmuConfig *c)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        const EmuCfgKey *k = &emu_cfg_keys[i];
        const char *field = (const char *)c + k->offset;
        json_object *v;
        char buf[80];
        switch (k->type) {
        case EMU_CFG_U32:
            v = json_object_new_int64(*(const uint32_t *)field);
            break;
        case EMU_CFG_U64:
            v = json_object_new_uint64(*(const uint64_t *)field);
            break;
        case EMU_CFG_F64:
            v = json_object_new_double(*(const double *)field);
            break;
        case EMU_CFG_BOOL:
            v = json_object_new_boolean(*(const bool *)field);
            break;
        case EMU_CFG_U64_AUTO: /* a number, or the string "auto" */
            if (*(const uint64_t *)field != EMU_CFG_AUTO) {
                v = json_object_new_uint64(*(const uint64_t *)field);
                break;
            }
            __attribute__((fallthrough));
        default:
            emu_config_format(c, k, buf, sizeof buf);
            v = json_object_new_string(buf);
            break;
        }
        json_object_object_add(o, k->key, v);
    }
    return o;
}

static json_object *ipc_json(const EmuStatView *v)
{
    double ipc;
    return emu_stat_ipc(v, &ipc) ? NULL : json_object_new_double(ipc);
}

/* Zorua's figures of an interval (docs/zorua.md): the mean schedulable warps per SM and
 * the mean o_thresh of each resource per SM, in sets (warp slots for threads). */
static void zorua_interval(json_object *o, const EmuStatView *v, uint32_t nsm)
{
    static const char *const res[][2] = {{"reg", "zorua.othresh_reg_cycles"},
                                         {"smem", "zorua.othresh_smem_cycles"},
                                         {"thread", "zorua.othresh_thread_cycles"}};
    double sm_cycles = (double)v->cycles * nsm;
    json_object *t = json_object_new_object();
    for (size_t r = 0; r < 3; r++)
        json_object_object_add(
            t, res[r][0], json_object_new_double((double)emu_stat_get(v, res[r][1]) / sm_cycles));
    json_object_object_add(o, "othresh", t);
    json_object_object_add(
        o, "schedulable_warps",
        json_object_new_double((double)emu_stat_get(v, "core.schedulable_warp_cycles") /
                               sm_cycles));
}

/* "intervals": IPC and the stall counters of each interval. */
static json_object *intervals_json(const EmuDevice *d, size_t i)
{
    size_t n;
    const EmuInterval *iv = emu_launch_intervals(d, i, &n);
    json_object *a = json_object_new_array();
    size_t pre = sizeof EMU_STAT_STALL_PREFIX - 1;
    for (size_t k = 0; k < n; k++) {
        EmuStatView v;
        view_init(d, &v);
        v.ctr = (const uint64_t *)&iv[k].ctr;
        v.cycles = iv[k].cycles;
        v.warp_insns = iv[k].warp_insns;
        json_object *o = json_object_new_object(), *st = json_object_new_object();
        json_object_object_add(o, "cycle", json_object_new_uint64(iv[k].cycle));
        json_object_object_add(o, "cycles", json_object_new_uint64(iv[k].cycles));
        json_object_object_add(o, "warp_instructions", json_object_new_uint64(v.warp_insns));
        json_object_object_add(o, "ipc", ipc_json(&v));
        if (strncmp(d->cfg.core_sched, "memento", 7) == 0 && v.cycles) /* mean STHLD */
            json_object_object_add(
                o, "sthld",
                json_object_new_double((double)emu_stat_get(&v, "memento.sthld_cycles") /
                                       (double)v.cycles));
        if (strcmp(d->cfg.core_resource_mgr, "zorua") == 0 && v.cycles)
            zorua_interval(o, &v, d->props.sm_count);
        for (size_t f = 0; f < emu_stat_nfields(); f++) {
            const char *name = emu_stat_field_name(f);
            if (strncmp(name, EMU_STAT_STALL_PREFIX, pre) == 0)
                json_object_object_add(st, name + pre, json_object_new_uint64(v.ctr[f]));
        }
        json_object_object_add(o, "stalls", st);
        json_object_array_add(a, o);
    }
    return a;
}

/* Adds report r's figures to object o (summing figures of the same name). */
static void report_add(json_object *o, const TmReport *r)
{
    for (size_t k = 0; r && k < r->n; k++) {
        json_object *v;
        uint64_t have =
            json_object_object_get_ex(o, r->name[k], &v) ? json_object_get_uint64(v) : 0;
        json_object_object_add(o, r->name[k], json_object_new_uint64(have + r->value[k]));
    }
}

static const TmReport *launch_report(const EmuDevice *d, size_t i)
{
    return emu_launch_report ? emu_launch_report(d, i) : NULL;
}

/* n units' counters from u: an array of objects of the counters that are not 0. */
static json_object *unit_array(const TmCounters *u, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t k = 0; k < n; k++) {
        const uint64_t *v = (const uint64_t *)&u[k];
        json_object *o = json_object_new_object();
        for (size_t f = 0; f < emu_stat_nfields(); f++)
            if (v[f])
                json_object_object_add(o, emu_stat_field_name(f), json_object_new_uint64(v[f]));
        json_object_array_add(a, o);
    }
    return a;
}

/* stats.per_unit: every SM's, L2 slice's and DRAM channel's own counters. */
static json_object *units_json(const TmReport *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "sm", unit_array(r->unit, r->nsm));
    json_object_object_add(o, "l2", unit_array(r->unit + r->nsm, r->nslice));
    json_object_object_add(o, "dram", unit_array(r->unit + r->nsm + r->nslice, r->nchan));
    return o;
}

/* A device of several GPUs: each GPU's cycles (to its last CTA's end), IPC and counters. */
static json_object *gpus_json(const TmReport *r)
{
    json_object *a = unit_array(r->gpu, r->ngpu);
    for (uint32_t k = 0; k < r->ngpu; k++) {
        json_object *o = json_object_array_get_idx(a, k);
        uint64_t cyc = r->gpu_cycles[k];
        json_object_object_add(o, "cycles", json_object_new_uint64(cyc));
        json_object_object_add(o, "ipc", json_object_new_double(
                                             cyc ? (double)r->gpu[k].warp_insns / cyc : 0));
    }
    return a;
}

static json_object *launch_json(const EmuDevice *d, size_t i)
{
    const EmuLaunchStats *s = &d->launches[i];
    EmuStatView v;
    emu_stats_view(d, i, &v);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(s->kernel));
    json_object_object_add(o, "grid", dim3_json(s->grid));
    json_object_object_add(o, "block", dim3_json(s->block));
    json_object_object_add(o, "shared_dynamic", json_object_new_uint64(s->shared_dynamic));
    json_object_object_add(o, "warp_instructions", json_object_new_uint64(s->warp_instructions));
    json_object_object_add(o, "thread_instructions",
                           json_object_new_uint64(s->thread_instructions));
    json_object_object_add(o, "host_seconds", json_object_new_double(s->host_seconds));
    json_object_object_add(o, "host_cpu_seconds", json_object_new_double(s->host_cpu_seconds));
    json_object_object_add(o, "emulated_ns", json_object_new_uint64(s->emulated_ns));
    json_object_object_add(o, "printf_bytes", json_object_new_uint64(s->printf_bytes));
    json_object_object_add(o, "printf_dropped", json_object_new_uint64(s->printf_dropped));
    json_object_object_add(o, "invalid_accesses", json_object_new_uint64(s->invalid_accesses));
    json_object_object_add(o, "status", json_object_new_string(emu_status_name(s->status)));
    json_object_object_add(o, "cycles", json_object_new_uint64(s->cycles));
    json_object_object_add(o, "ipc", ipc_json(&v));
    json_object_object_add(o, "timing", emu_stats_timing_json(&v));
    const TmReport *r = launch_report(d, i);
    if (r && r->n) { /* the request observer's figures (mem.observer) */
        json_object *ob = json_object_new_object();
        report_add(ob, r);
        json_object_object_add(o, "observed", ob);
    }
    if (r && r->unit)
        json_object_object_add(o, "units", units_json(r));
    if (r && r->gpu)
        json_object_object_add(o, "gpus", gpus_json(r));
    if (d->cfg.emu_interval_cycles)
        json_object_object_add(o, "intervals", intervals_json(d, i));
    return o;
}

int emu_write_stats_json(const EmuDevice *d, FILE *f)
{
    if (!d || !f)
        return -1;
    json_object *root = json_object_new_object();
    json_object *launches = json_object_new_array();
    uint64_t winsns = 0, tinsns = 0, ns = 0, pbytes = 0, pdropped = 0, bad = 0;
    uint64_t ctr[NCTR + 1];
    memset(ctr, 0, sizeof ctr);
    EmuStatView sum;
    view_init(d, &sum);
    sum.ctr = ctr;
    double secs = 0, cpu = 0;
    json_object *observed = json_object_new_object();
    for (size_t i = 0; i < d->nlaunches; i++) {
        const EmuLaunchStats *s = &d->launches[i];
        json_object_array_add(launches, launch_json(d, i));
        report_add(observed, launch_report(d, i));
        view_add(d, i, &sum, ctr);
        winsns += s->warp_instructions;
        tinsns += s->thread_instructions;
        secs += s->host_seconds;
        cpu += s->host_cpu_seconds;
        ns += s->emulated_ns;
        pbytes += s->printf_bytes;
        pdropped += s->printf_dropped;
        bad += s->invalid_accesses;
    }
    json_object *totals = json_object_new_object();
    json_object_object_add(totals, "launches", json_object_new_uint64(d->nlaunches));
    json_object_object_add(totals, "warp_instructions", json_object_new_uint64(winsns));
    json_object_object_add(totals, "thread_instructions", json_object_new_uint64(tinsns));
    json_object_object_add(totals, "host_seconds", json_object_new_double(secs));
    json_object_object_add(totals, "host_cpu_seconds", json_object_new_double(cpu));
    json_object_object_add(totals, "emulated_ns", json_object_new_uint64(ns));
    json_object_object_add(totals, "printf_bytes", json_object_new_uint64(pbytes));
    json_object_object_add(totals, "printf_dropped", json_object_new_uint64(pdropped));
    json_object_object_add(totals, "invalid_accesses", json_object_new_uint64(bad));
    json_object_object_add(totals, "cycles", json_object_new_uint64(sum.cycles));
    json_object_object_add(totals, "ipc", ipc_json(&sum));
    json_object_object_add(totals, "timing", emu_stats_timing_json(&sum));
    if (json_object_object_length(observed))
        json_object_object_add(totals, "observed", observed);
    else
        json_object_put(observed);
    json_object_object_add(root, "device", json_object_new_string(d->props.name));
    json_object_object_add(root, "gpu", json_object_new_uint64(d->props.gpu_index));
    json_object_object_add(root, "config", config_json(&d->cfg));
    json_object_object_add(root, "launches", launches);
    json_object_object_add(root, "totals", totals);
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = fprintf(f, "%s\n", text) < 0 ? -1 : 0;
    json_object_put(root);
    return rc;
}

/* Launches of one kernel are summed into one row, in order of first launch. */
void emu_stats_print_summary(const EmuDevice *d, FILE *f)
{
    size_t n = d->nlaunches, nrows = 0;
    EmuSummaryRow *rows = calloc(n + 1, sizeof *rows);
    uint64_t *ctr = calloc((n + 1) * (NCTR + 1), sizeof *ctr);
    if (!rows || !ctr) {
        free(rows);
        free(ctr);
        return;
    }
    for (size_t i = 0; i <= n; i++) { /* row n: the total */
        size_t r = nrows;
        for (size_t k = 0; i < n && k < nrows; k++)
            if (strcmp(rows[k].name, d->launches[i].kernel) == 0)
                r = k;
        if (r == nrows) {
            rows[r].name = i < n ? d->launches[i].kernel : "total";
            view_init(d, &rows[r].view);
            rows[r].view.ctr = ctr + r * (NCTR + 1);
            nrows++;
        }
        for (size_t k = 0; k < (i < n ? 1 : n); k++) {
            size_t l = i < n ? i : k;
            view_add(d, l, &rows[r].view, ctr + r * (NCTR + 1));
            rows[r].launches++;
        }
    }
    emu_stats_summary(f, rows, nrows);
    free(rows);
    free(ctr);
}
