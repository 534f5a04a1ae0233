/*
 * series.c - the interval time series of timing launches.
 *
 * State lives in d->series, created by the first emu_series_begin. The series keeps the
 * counters seen at the last record, so every interval holds increments only; the
 * pending intervals of the running launch move to that launch's slot when it is recorded
 * (emu_series_launch_done), or to the statistics stream (emu_series_take). The progress line is progress.c's.
 */
#include <stdlib.h>
#include <string.h>
#include "stats/stats.h"

#define NCTR (sizeof(TmCounters) / sizeof(uint64_t))

typedef struct IntervalList {
    EmuInterval *v;
    size_t n, cap;
} IntervalList;

struct EmuSeries {
    TmCounters last;      /* counters at the last record */
    Cycle last_cycle;
    uint64_t last_insns;
    IntervalList pending; /* the running launch's intervals */
    IntervalList *launch; /* per recorded launch */
    size_t nlaunch;
};

void emu_series_begin(EmuDevice *d, const TmCounters *now)
{
    if (!d->series && !(d->series = calloc(1, sizeof *d->series)))
        return;
    EmuSeries *s = d->series;
    s->last = *now;
    s->last_cycle = 0;
    s->last_insns = 0;
    s->pending.n = 0;
}

static EmuInterval *list_push(IntervalList *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        EmuInterval *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    return &l->v[l->n++];
}

void emu_interval_record(EmuDevice *d, Cycle cycle, uint64_t warp_insns, const TmCounters *now)
{
    EmuSeries *s = d->series;
    if (!s || d->cfg.emu_interval_cycles == 0 || cycle <= s->last_cycle)
        return;
    EmuInterval *iv = list_push(&s->pending);
    if (!iv)
        return; /* the series is best effort */
    iv->cycle = cycle;
    iv->cycles = cycle - s->last_cycle;
    iv->warp_insns = warp_insns - s->last_insns;
    const uint64_t *a = (const uint64_t *)now, *b = (const uint64_t *)&s->last;
    uint64_t *out = (uint64_t *)&iv->ctr;
    for (size_t i = 0; i < NCTR; i++)
        out[i] = a[i] - b[i];
    s->last = *now;
    s->last_cycle = cycle;
    s->last_insns = warp_insns;
}

void emu_series_launch_done(EmuDevice *d, size_t i)
{
    EmuSeries *s = d->series;
    if (!s)
        return;
    if (i >= s->nlaunch) {
        IntervalList *l = realloc(s->launch, (i + 1) * sizeof *l);
        if (!l)
            return;
        memset(l + s->nlaunch, 0, (i + 1 - s->nlaunch) * sizeof *l);
        s->launch = l;
        s->nlaunch = i + 1;
    }
    free(s->launch[i].v);
    s->launch[i] = s->pending;
    memset(&s->pending, 0, sizeof s->pending);
}

EmuInterval *emu_series_take(EmuDevice *d, size_t *n)
{
    EmuSeries *s = d->series;
    *n = s ? s->pending.n : 0;
    if (!*n)
        return NULL;
    EmuInterval *v = s->pending.v;
    memset(&s->pending, 0, sizeof s->pending);
    return v;
}

const EmuInterval *emu_launch_intervals(const EmuDevice *d, size_t i, size_t *n)
{
    const EmuSeries *s = d ? d->series : NULL;
    *n = s && i < s->nlaunch ? s->launch[i].n : 0;
    return *n ? s->launch[i].v : NULL;
}

void emu_series_free(EmuDevice *d)
{
    EmuSeries *s = d->series;
    if (!s)
        return;
    for (size_t i = 0; i < s->nlaunch; i++)
        free(s->launch[i].v);
    free(s->launch);
    free(s->pending.v);
    free(s);
    d->series = NULL;
}
