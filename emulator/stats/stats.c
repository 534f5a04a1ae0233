/*
 * stats.c - the device's launch log, the sums behind the totals and the summary, and the
 * whole-log JSON document (schema: docs/stats.md; written by doc.c).
 *
 * The functional core counts with plain uint64 increments into its launch context;
 * emu_launch hands the finished EmuLaunchStats here. Without a statistics stream it is
 * appended to the log, which keeps every launch until emu_destroy; with one (XGPU_STATS,
 * emu_stats_stream) it goes to the stream, which writes it out and keeps only the latest
 * launch, so a program's memory does not grow with its launches. The timing core keeps
 * each launch's counter difference (log.c). Totals and the summary's per-kernel rows are
 * sums (EmuStatsAcc), taken as launches are written; ratios are derived by the printer
 * from the sums (never averaged).
 */
#include <stdlib.h>
#include <string.h>
#include "stats/stats_int.h"

void emu_stats_record(EmuDevice *d, const EmuLaunchStats *s)
{
    EmuStatsStream *st = emu_log_stream(d);
    if (st) {
        emu_stream_launch(d, st, s);
        return;
    }
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

void emu_stats_view_init(const EmuDevice *d, EmuStatView *v)
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

size_t emu_launch_count(const EmuDevice *d)
{
    return d ? d->nlaunches : 0;
}

const EmuLaunchStats *emu_launch_stats(const EmuDevice *d, size_t i)
{
    const EmuStatsStream *st = emu_log_stream(d);
    if (st)
        return st->have && i == st->index ? &st->st : NULL;
    return d && i < d->nlaunches ? &d->launches[i] : NULL;
}

void emu_stats_rec(const EmuDevice *d, size_t i, EmuLaunchRec *r)
{
    r->s = emu_launch_stats(d, i);
    r->ctr = emu_launch_counters ? emu_launch_counters(d, i) : NULL;
    r->rep = emu_launch_report ? emu_launch_report(d, i) : NULL;
    r->iv = emu_launch_intervals(d, i, &r->niv);
}

void emu_stats_view(const EmuDevice *d, size_t i, EmuStatView *v)
{
    EmuLaunchRec r;
    emu_stats_rec(d, i, &r);
    emu_stats_view_init(d, v);
    v->ctr = (const uint64_t *)r.ctr;
    v->cycles = r.s ? r.s->cycles : 0;
    v->warp_insns = r.s ? r.s->warp_instructions : 0;
}

/* --- sums by name ------------------------------------------------------------------------ */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int sums_rehash(EmuNameSums *m, size_t nslot)
{
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t k = 0; k < m->n; k++) {
        size_t h = name_hash(m->name[k]) & (nslot - 1);
        while (slot[h])
            h = (h + 1) & (nslot - 1);
        slot[h] = (uint32_t)k + 1;
    }
    free(m->slot);
    m->slot = slot, m->nslot = nslot;
    return 0;
}

int emu_sums_add(EmuNameSums *m, const char *name, uint64_t v)
{
    if (2 * (m->n + 1) > m->nslot && sums_rehash(m, m->nslot ? 2 * m->nslot : 64))
        return -1;
    size_t h = name_hash(name) & (m->nslot - 1);
    for (; m->slot[h]; h = (h + 1) & (m->nslot - 1))
        if (strcmp(m->name[m->slot[h] - 1], name) == 0) {
            m->value[m->slot[h] - 1] += v;
            return 0;
        }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        char(*nm)[64] = realloc(m->name, cap * sizeof *nm);
        if (nm)
            m->name = nm;
        uint64_t *val = nm ? realloc(m->value, cap * sizeof *val) : NULL;
        if (!val)
            return -1;
        m->value = val, m->cap = cap;
    }
    snprintf(m->name[m->n], sizeof m->name[m->n], "%s", name);
    m->value[m->n] = v;
    m->slot[h] = (uint32_t)++m->n;
    return 0;
}

void emu_sums_free(EmuNameSums *m)
{
    free(m->name);
    free(m->value);
    free(m->slot);
    memset(m, 0, sizeof *m);
}

/* --- the sums of launches ---------------------------------------------------------------- */

/* The row of kernel `name`, added when new; NULL when out of memory. */
static EmuKernelSum *kernel_row(EmuStatsAcc *a, const char *name)
{
    for (size_t k = a->nkernel; k-- > 0;)
        if (strcmp(a->kernel[k].name, name) == 0)
            return &a->kernel[k];
    if (a->nkernel == a->capkernel) {
        size_t cap = a->capkernel ? 2 * a->capkernel : 8;
        EmuKernelSum *p = realloc(a->kernel, cap * sizeof *p);
        if (!p)
            return NULL;
        a->kernel = p, a->capkernel = cap;
    }
    EmuKernelSum *r = &a->kernel[a->nkernel++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

void emu_acc_add(EmuStatsAcc *a, const EmuLaunchRec *r)
{
    const EmuLaunchStats *s = r->s;
    const uint64_t *ctr = (const uint64_t *)r->ctr;
    a->launches++;
    a->winsns += s->warp_instructions;
    a->tinsns += s->thread_instructions;
    a->secs += s->host_seconds;
    a->cpu += s->host_cpu_seconds;
    a->ns += s->emulated_ns;
    a->pbytes += s->printf_bytes;
    a->pdropped += s->printf_dropped;
    a->bad += s->invalid_accesses;
    a->cycles += s->cycles;
    for (size_t k = 0; ctr && k < EMU_NCTR; k++)
        a->ctr[k] += ctr[k];
    for (size_t k = 0; r->rep && k < r->rep->n; k++)
        if (emu_sums_add(&a->observed, r->rep->name[k], r->rep->value[k]))
            a->oom = 1;
    EmuKernelSum *row = a->per_kernel ? kernel_row(a, s->kernel) : NULL;
    if (a->per_kernel && !row)
        a->oom = 1;
    if (!row)
        return;
    row->launches++;
    row->cycles += s->cycles;
    row->warp_insns += s->warp_instructions;
    for (size_t k = 0; ctr && k < EMU_NCTR; k++)
        row->ctr[k] += ctr[k];
}

void emu_acc_free(EmuStatsAcc *a)
{
    emu_sums_free(&a->observed);
    free(a->kernel);
    a->kernel = NULL;
    a->nkernel = a->capkernel = 0;
}

/* The log's launches summed (per kernel too with per_kernel); 0, or -1 out of memory. */
static int log_sums(const EmuDevice *d, EmuStatsAcc *a, int per_kernel)
{
    memset(a, 0, sizeof *a);
    a->per_kernel = per_kernel;
    for (size_t i = 0; i < d->nlaunches; i++) {
        EmuLaunchRec r;
        emu_stats_rec(d, i, &r);
        emu_acc_add(a, &r);
    }
    return a->oom ? -1 : 0;
}

int emu_write_stats_json(const EmuDevice *d, FILE *f)
{
    if (!d || !f || emu_log_stream(d))
        return -1; /* a stream has the launches */
    JsonW w;
    jw_init(&w, f);
    emu_doc_head(&w, d);
    for (size_t i = 0; i < d->nlaunches; i++) {
        EmuLaunchRec r;
        emu_stats_rec(d, i, &r);
        emu_doc_launch(&w, d, &r);
    }
    EmuStatsAcc a;
    int oom = log_sums(d, &a, 0);
    emu_doc_tail(&w, d, &a);
    emu_acc_free(&a);
    return jw_finish(&w) || oom ? -1 : 0;
}

/* One line per kernel (its launches summed, in order of first launch) and the total. */
void emu_stats_print_summary(const EmuDevice *d, FILE *f)
{
    EmuStatsStream *st = emu_log_stream(d);
    EmuStatsAcc own, *a = st ? &st->acc : &own;
    if (!st)
        log_sums(d, &own, 1);
    EmuSummaryRow *rows = calloc(a->nkernel + 1, sizeof *rows);
    for (size_t k = 0; rows && k <= a->nkernel; k++) {
        EmuSummaryRow *r = &rows[k];
        emu_stats_view_init(d, &r->view);
        if (k == a->nkernel) {
            r->name = "total";
            r->launches = a->launches;
            r->view.ctr = a->ctr;
            r->view.cycles = a->cycles;
            r->view.warp_insns = a->winsns;
        } else {
            r->name = a->kernel[k].name;
            r->launches = a->kernel[k].launches;
            r->view.ctr = a->kernel[k].ctr;
            r->view.cycles = a->kernel[k].cycles;
            r->view.warp_insns = a->kernel[k].warp_insns;
        }
    }
    if (rows)
        emu_stats_summary(f, rows, a->nkernel + 1);
    free(rows);
    if (!st)
        emu_acc_free(&own);
}
