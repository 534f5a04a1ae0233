/*
 * log.c - what the timing model leaves of each launch on the device: its counters
 * (TmCounters, by launch index) and its observer's report (TmReport), kept from
 * tm_record until emu_destroy (with stats.per_unit the report holds the units'
 * counters); and the lookups of both (emu_launch_counters, emu_launch_counter,
 * emu_launch_report). The device's statistics stream (stream.c) hangs here too: with
 * one, tm_record hands the launch's figures to it instead, and nothing is kept per
 * launch.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "stats/log.h"
#include "stats/stats_int.h"
#include "timing/memsys.h"

void tm_report_free(TmReport *r)
{
    free(r->name);
    free(r->value);
    free(r->unit);
    free(r->gpu);
    free(r->gpu_cycles);
    *r = (TmReport){0};
}

typedef struct TmLog {
    TmCounters **ctr; /* per launch; NULL: functional */
    TmReport *rep;    /* per launch: the observer's figures */
    size_t n, cap;
    EmuStatsStream *stream; /* XGPU_STATS (or NULL) */
} TmLog;

EmuStatsStream *emu_log_stream(const EmuDevice *d)
{
    return d && d->tm_log ? d->tm_log->stream : NULL;
}

int emu_log_set_stream(EmuDevice *d, EmuStatsStream *s)
{
    if (!d->tm_log && !(d->tm_log = calloc(1, sizeof *d->tm_log)))
        return -1;
    d->tm_log->stream = s;
    return 0;
}

void tm_record(EmuDevice *d, size_t i, const TmCounters *ctr, TmReport *rep)
{
    TmLog *log = d->tm_log;
    if (log && log->stream) {
        emu_stream_timing(d, log->stream, i, ctr, rep);
        return;
    }
    if (!log && !(log = d->tm_log = calloc(1, sizeof *log)))
        return;
    if (i >= log->cap) {
        size_t cap = i + 1 > 2 * log->cap ? i + 1 : 2 * log->cap;
        TmCounters **p = realloc(log->ctr, cap * sizeof *p);
        if (p)
            log->ctr = p;
        TmReport *r = p ? realloc(log->rep, cap * sizeof *r) : NULL;
        if (!r)
            return;
        memset(p + log->cap, 0, (cap - log->cap) * sizeof *p);
        memset(r + log->cap, 0, (cap - log->cap) * sizeof *r);
        log->rep = r, log->cap = cap;
    }
    if (rep) { /* taken over */
        tm_report_free(&log->rep[i]);
        log->rep[i] = *rep;
        *rep = (TmReport){0};
    }
    if (!log->ctr[i] && !(log->ctr[i] = malloc(sizeof *ctr)))
        return;
    *log->ctr[i] = *ctr;
    log->n = i + 1 > log->n ? i + 1 : log->n;
}

const TmReport *emu_launch_report(const EmuDevice *d, size_t i)
{
    const TmLog *log = d ? d->tm_log : NULL;
    if (log && log->stream) /* written with its launch */
        return NULL;
    const TmReport *r = log && i < log->n ? &log->rep[i] : NULL;
    return r && (r->n || r->unit || r->gpu) ? r : NULL;
}

const TmCounters *emu_launch_counters(const EmuDevice *d, size_t i)
{
    const TmLog *log = d ? d->tm_log : NULL;
    if (log && log->stream) {
        const EmuStatsStream *s = log->stream;
        return s->have && s->has_ctr && i == s->index ? &s->ctr : NULL;
    }
    return log && i < log->n ? log->ctr[i] : NULL;
}

void tm_device_free(EmuDevice *d)
{
    memsys_free(d->tm_mem);
    d->tm_mem = NULL;
    TmLog *log = d->tm_log;
    if (!log)
        return;
    emu_stream_free(log->stream); /* emu_destroy has closed it */
    for (size_t i = 0; i < log->n; i++) {
        free(log->ctr[i]);
        tm_report_free(&log->rep[i]);
    }
    free(log->ctr);
    free(log->rep);
    free(log);
    d->tm_log = NULL;
}

static const struct {
    const char *name;
    size_t offset;
} counter_names[] = {
#define TSTAT(field, name, desc) {name, offsetof(TmCounters, field)},
#include "timing/core_stats.def"
#include "timing/mem_stats.def"
#undef TSTAT
};

EmuStatus emu_launch_counter(const EmuDevice *d, size_t i, const char *name, uint64_t *value)
{
    if (!d || i >= d->nlaunches || !name || !value)
        return EMU_ERR_INVALID_VALUE;
    const TmCounters *c = emu_launch_counters(d, i);
    for (size_t k = 0; c && k < sizeof counter_names / sizeof counter_names[0]; k++)
        if (strcmp(counter_names[k].name, name) == 0) {
            memcpy(value, (const char *)c + counter_names[k].offset, sizeof *value);
            return EMU_OK;
        }
    return EMU_ERR_NOT_FOUND;
}
