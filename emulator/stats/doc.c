/*
 * doc.c - the statistics document (schema: docs/stats.md), written a value at a time
 * through jsonw.h: the head (device, config, the opening of "launches"), one launch
 * record, and the tail (the totals). emu_write_stats_json writes a whole log this way;
 * the XGPU_STATS stream writes each launch as it finishes (stream.c). Nothing here
 * allocates: a document of any size is written in constant memory.
 *
 * The "config" object is generated from the key table, so every key appears with its
 * effective value. Totals are sums (EmuStatsAcc); ratios are derived by the printer from
 * the sums, never averaged.
 */
#include <string.h>
#include "mech/registry.h"
#include "stats/stats_int.h"

static void dim3(JsonW *w, const char *key, EmuDim3 v)
{
    jw_array(w, key);
    jw_u64(w, NULL, v.x);
    jw_u64(w, NULL, v.y);
    jw_u64(w, NULL, v.z);
    jw_end(w);
}

static void config(JsonW *w, const EmuConfig *c)
{
    jw_object(w, "config");
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        const EmuCfgKey *k = &emu_cfg_keys[i];
        const char *field = (const char *)c + k->offset;
        char buf[80];
        switch (k->type) {
        case EMU_CFG_U32:
            jw_u64(w, k->key, *(const uint32_t *)field);
            break;
        case EMU_CFG_U64:
            jw_u64(w, k->key, *(const uint64_t *)field);
            break;
        case EMU_CFG_F64:
            jw_real(w, k->key, *(const double *)field);
            break;
        case EMU_CFG_BOOL:
            jw_bool(w, k->key, *(const bool *)field);
            break;
        case EMU_CFG_U64_AUTO: /* a number, or the string "auto" */
            if (*(const uint64_t *)field != EMU_CFG_AUTO) {
                jw_u64(w, k->key, *(const uint64_t *)field);
                break;
            }
            __attribute__((fallthrough));
        default:
            emu_config_format(c, k, buf, sizeof buf);
            jw_str(w, k->key, buf);
            break;
        }
    }
    jw_end(w);
}

static void ipc(JsonW *w, const EmuStatView *v)
{
    double x;
    if (emu_stat_ipc(v, &x))
        jw_null(w, "ipc");
    else
        jw_real(w, "ipc", x);
}

void emu_doc_head(JsonW *w, const EmuDevice *d)
{
    jw_object(w, NULL);
    jw_str(w, "device", d->props.name);
    jw_u64(w, "gpu", d->props.gpu_index);
    config(w, &d->cfg);
    jw_array(w, "launches");
}

/* "intervals": IPC and the stall counters of each interval. */
static void intervals(JsonW *w, const EmuDevice *d, const EmuLaunchRec *r)
{
    size_t pre = sizeof EMU_STAT_STALL_PREFIX - 1;
    jw_array(w, "intervals");
    for (size_t k = 0; k < r->niv; k++) {
        const EmuInterval *iv = &r->iv[k];
        EmuStatView v;
        emu_stats_view_init(d, &v);
        v.ctr = (const uint64_t *)&iv->ctr;
        v.cycles = iv->cycles;
        v.warp_insns = iv->warp_insns;
        jw_object(w, NULL);
        jw_u64(w, "cycle", iv->cycle);
        jw_u64(w, "cycles", iv->cycles);
        jw_u64(w, "warp_instructions", v.warp_insns);
        ipc(w, &v);
        for (size_t m = 0; m < emu_nmechs && v.cycles; m++) /* the mechanisms' figures */
            if (emu_mechs[m]->interval)
                emu_mechs[m]->interval(w, &v, &d->cfg, d->props.sm_count);
        jw_object(w, "stalls");
        for (size_t f = 0; f < emu_stat_nfields(); f++) {
            const char *name = emu_stat_field_name(f);
            if (strncmp(name, EMU_STAT_STALL_PREFIX, pre) == 0)
                jw_u64(w, name + pre, v.ctr[f]);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
}

/* n units' counters from u: an array of objects of the counters that are not 0; with
 * cycles (per GPU), each object also gets "cycles" and "ipc". */
static void unit_array(JsonW *w, const char *key, const TmCounters *u, size_t n,
                       const uint64_t *cycles)
{
    jw_array(w, key);
    for (size_t k = 0; k < n; k++) {
        const uint64_t *v = (const uint64_t *)&u[k];
        jw_object(w, NULL);
        for (size_t f = 0; f < emu_stat_nfields(); f++)
            if (v[f])
                jw_u64(w, emu_stat_field_name(f), v[f]);
        if (cycles) {
            jw_u64(w, "cycles", cycles[k]);
            jw_real(w, "ipc", cycles[k] ? (double)u[k].warp_insns / (double)cycles[k] : 0);
        }
        jw_end(w);
    }
    jw_end(w);
}

/* The request observer's figures (mem.observer), a name's values summed. */
static void observed(JsonW *w, const TmReport *r)
{
    EmuNameSums m = {0};
    int bad = 0;
    for (size_t k = 0; k < r->n && !bad; k++)
        bad = emu_sums_add(&m, r->name[k], r->value[k]);
    jw_object(w, "observed");
    for (size_t k = 0; k < (bad ? r->n : m.n); k++) /* out of memory: as reported */
        jw_u64(w, bad ? r->name[k] : m.name[k], bad ? r->value[k] : m.value[k]);
    jw_end(w);
    emu_sums_free(&m);
}

void emu_doc_launch(JsonW *w, const EmuDevice *d, const EmuLaunchRec *r)
{
    const EmuLaunchStats *s = r->s;
    EmuStatView v;
    emu_stats_view_init(d, &v);
    v.ctr = (const uint64_t *)r->ctr;
    v.cycles = s->cycles;
    v.warp_insns = s->warp_instructions;
    jw_object(w, NULL);
    jw_str(w, "name", s->kernel);
    dim3(w, "grid", s->grid);
    dim3(w, "block", s->block);
    jw_u64(w, "shared_dynamic", s->shared_dynamic);
    jw_u64(w, "warp_instructions", s->warp_instructions);
    jw_u64(w, "thread_instructions", s->thread_instructions);
    jw_real(w, "host_seconds", s->host_seconds);
    jw_real(w, "host_cpu_seconds", s->host_cpu_seconds);
    jw_u64(w, "emulated_ns", s->emulated_ns);
    jw_u64(w, "printf_bytes", s->printf_bytes);
    jw_u64(w, "printf_dropped", s->printf_dropped);
    jw_u64(w, "invalid_accesses", s->invalid_accesses);
    jw_str(w, "status", emu_status_name(s->status));
    jw_u64(w, "cycles", s->cycles);
    ipc(w, &v);
    emu_stats_timing_write(w, "timing", &v);
    const TmReport *rep = r->rep;
    if (rep && rep->n)
        observed(w, rep);
    if (rep && rep->unit) { /* stats.per_unit: every SM's, L2 slice's and DRAM channel's */
        jw_object(w, "units");
        unit_array(w, "sm", rep->unit, rep->nsm, NULL);
        unit_array(w, "l2", rep->unit + rep->nsm, rep->nslice, NULL);
        unit_array(w, "dram", rep->unit + rep->nsm + rep->nslice, rep->nchan, NULL);
        jw_end(w);
    }
    if (rep && rep->gpu) /* a device of several GPUs: each GPU's cycles, IPC, counters */
        unit_array(w, "gpus", rep->gpu, rep->ngpu, rep->gpu_cycles);
    if (d->cfg.emu_interval_cycles)
        intervals(w, d, r);
    jw_end(w);
}

void emu_doc_tail(JsonW *w, const EmuDevice *d, const EmuStatsAcc *a)
{
    jw_end(w); /* "launches" */
    EmuStatView sum;
    emu_stats_view_init(d, &sum);
    sum.ctr = a->ctr;
    sum.cycles = a->cycles;
    sum.warp_insns = a->winsns;
    jw_object(w, "totals");
    jw_u64(w, "launches", a->launches);
    jw_u64(w, "warp_instructions", a->winsns);
    jw_u64(w, "thread_instructions", a->tinsns);
    jw_real(w, "host_seconds", a->secs);
    jw_real(w, "host_cpu_seconds", a->cpu);
    jw_u64(w, "emulated_ns", a->ns);
    jw_u64(w, "printf_bytes", a->pbytes);
    jw_u64(w, "printf_dropped", a->pdropped);
    jw_u64(w, "invalid_accesses", a->bad);
    jw_u64(w, "cycles", a->cycles);
    ipc(w, &sum);
    emu_stats_timing_write(w, "timing", &sum);
    if (a->observed.n) {
        jw_object(w, "observed");
        for (size_t k = 0; k < a->observed.n; k++)
            jw_u64(w, a->observed.name[k], a->observed.value[k]);
        jw_end(w);
    }
    jw_end(w); /* "totals" */
    jw_end(w); /* the document */
}
