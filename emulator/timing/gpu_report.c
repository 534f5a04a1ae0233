/*
 * gpu_report.c - what a timing launch tells when it ends (gpu_int.h), and its counters
 * so far while it runs. The counters live in pieces: the launch's own (g->ctr), every
 * SM's (the SMs may tick on different host threads) and, with stats.per_unit or several
 * GPUs, every L2 slice's, DRAM channel's and GPU link's (g->unit); whoever reads them
 * sums the pieces. At the end the SMs' execution contexts are summed into the launch's,
 * and the report gets each GPU's counters, the units' and the observer's figures.
 */
#include <stdlib.h>
#include <string.h>
#include "timing/gpu_int.h"
#include "timing/sm.h"

uint64_t tm_warp_insns(const TmGpu *g)
{
    uint64_t n = g->ctr.warp_insns;
    for (uint32_t i = 0; g->unit && i < g->nsm; i++)
        n += g->unit[i].warp_insns;
    return n;
}

/* *to += *from, counter by counter. */
static void counters_add(TmCounters *to, const TmCounters *from)
{
    uint64_t *o = (uint64_t *)to;
    const uint64_t *v = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *to / sizeof *o; i++)
        o[i] += v[i];
}

void tm_counters_now(const TmGpu *g, TmCounters *out)
{
    *out = g->ctr;
    for (size_t u = 0; g->unit && u < (size_t)g->nsm + g->nslice + g->nchan + g->nlink; u++)
        counters_add(out, &g->unit[u]);
}

/* After the loop: the SMs' refusals counted while they slept reach the counters, and the
 * launch's execution context gets what the SMs' counted (instructions, invalid
 * accesses and the first of them, printf bytes). */
void tm_gpu_sum_exec(TmGpu *g)
{
    EmuExec *x = g->x;
    for (uint32_t i = 0; i < g->nsm; i++) {
        const EmuExec *y = &g->sm[i]->x;
        if (g->mem)
            memsys_take(g->mem, i);
        emu_memcheck_take(x, y);
        x->winsns += y->winsns, x->tinsns += y->tinsns, x->bad_accesses += y->bad_accesses;
        x->pf_bytes += y->pf_bytes, x->pf_dropped += y->pf_dropped;
    }
}

/* Each GPU's counters into the report: its SMs', its slices', its link's and in a NUMA
 * device its zone's channels' (a shared memory side's channels are no GPU's). */
static void gpu_report_gpus(const TmGpu *g, TmReport *rep)
{
    rep->gpu = calloc(g->ngpu, sizeof *rep->gpu);
    rep->gpu_cycles = calloc(g->ngpu, sizeof *rep->gpu_cycles);
    if (!rep->gpu || !rep->gpu_cycles) { /* out of host memory: no breakdown */
        free(rep->gpu), free(rep->gpu_cycles);
        rep->gpu = NULL, rep->gpu_cycles = NULL;
        return;
    }
    int numa = strcmp(g->cfg->system_memory, "numa") == 0;
    uint32_t spg = g->nslice / g->ngpu, cpg = g->nchan / g->ngpu;
    for (uint32_t k = 0; k < g->ngpu; k++) {
        TmCounters *c = &rep->gpu[k];
        for (uint32_t i = 0; i < g->gpu_sms; i++)
            counters_add(c, &g->unit[k * g->gpu_sms + i]);
        for (uint32_t i = 0; i < spg; i++)
            counters_add(c, &g->unit[g->nsm + k * spg + i]);
        for (uint32_t i = 0; numa && i < cpg; i++)
            counters_add(c, &g->unit[g->nsm + g->nslice + k * cpg + i]);
        if (g->nlink)
            counters_add(c, &g->unit[g->nsm + g->nslice + g->nchan + k]);
        rep->gpu_cycles[k] = g->gpu_done[k] + 1;
    }
    rep->ngpu = g->ngpu;
}

/* TmReportEmit: appends a figure to the launch's report. */
static void report_emit(void *ctx, const char *name, uint64_t value)
{
    TmReport *r = ctx;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char (*nm)[64] = realloc(r->name, cap * sizeof *nm);
        if (nm)
            r->name = nm;
        uint64_t *v = nm ? realloc(r->value, cap * sizeof *v) : NULL;
        if (!v)
            return; /* out of host memory: the figure is lost, not the launch */
        r->value = v, r->cap = cap;
    }
    snprintf(r->name[r->n], sizeof r->name[r->n], "%s", name);
    r->value[r->n++] = value;
}

void tm_gpu_report(TmGpu *g, TmReport *rep)
{
    if (g->ngpu > 1 && rep)
        gpu_report_gpus(g, rep);
    if (g->cfg->stats_per_unit && g->unit && rep) { /* the report takes the units over */
        rep->unit = g->unit, g->unit = NULL;
        rep->nsm = g->nsm, rep->nslice = g->nslice, rep->nchan = g->nchan;
    }
    if (g->obs && g->obs->report && g->mech[TM_SLOT_OBSERVER].state && rep)
        g->obs->report(g, g->mech[TM_SLOT_OBSERVER].state, report_emit, rep);
}
