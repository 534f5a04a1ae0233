/*
 * memsys.c - the memory system below the L1s (memsys.h): crossbar (icnt.c), L2 slices
 * (l2.c) and DRAM channels (dram.c), driven by one time-ordered loop. This file makes
 * and frees it, carries it from launch to launch, says where its units count and dumps
 * it; the work is its parts' (memsys_int.h): the loop (memsys_loop.c), the SMs' side
 * (memsys_port.c), the device's shape (memsys_topo.c) and the way into DRAM
 * (memsys_dram.c).
 *
 * What it is made of: the device's GPUs (one, except in a multi-GPU device:
 * docs/multi-gpu.md) with gpu.sm_count SMs, l2.slices slices and dram.channels channels
 * each, their crossbar and links, and the memory side's policy slots: the coherence
 * slot's memory side (coherence), the L2 prefetcher (l2.prefetch), the memory-side
 * transform (mem.transform), the DRAM mapping (dram.mapping) and the NUMA zone map
 * (numa.map), each made with the memory system and kept while it lives. The slices' and
 * channels' numbers are 16-bit wherever a request carries them, hence the limit on their
 * sum.
 */
#include "timing/memsys.h"

#include <stdlib.h>
#include <string.h>
#include "timing/memsys_int.h"

static int ms_check(const EmuConfig *cfg, char *err, size_t n)
{
    const char *hash = cfg->l2_slice_hash;
    uint64_t gpus = emu_config_device_gpus(cfg);
    if (!cfg->gpu_sm_count || !cfg->l2_slices || cfg->l2_slices > 65535 || !cfg->dram_channels ||
        !cfg->l2_queue) {
        snprintf(err, n, "gpu.sm_count, l2.slices, l2.queue and dram.channels must be positive");
        return -1;
    }
    if (gpus * (cfg->l2_slices + (uint64_t)cfg->dram_channels) > 65535) { /* 16-bit units */
        snprintf(err, n, "l2.slices + dram.channels: %llu units in the device's %llu GPU(s), "
                 "at most 65535", (unsigned long long)(gpus * (cfg->l2_slices +
                 (uint64_t)cfg->dram_channels)), (unsigned long long)gpus);
        return -1;
    }
    if (strcmp(hash, "mod") && strcmp(hash, "xor") && strcmp(hash, "ipoly")) {
        snprintf(err, n, "l2.slice_hash: unknown hash '%s' (mod, xor, ipoly)", hash);
        return -1;
    }
    if (!strcmp(hash, "ipoly") &&
        cache_index_slice_check("l2.slice_hash", hash, cfg->l2_slices, err, n) < 0)
        return -1;
    if (cfg->dram_row_bytes < cfg->l1_line) {
        snprintf(err, n, "dram.row_bytes: %u is smaller than a line (%u)", cfg->dram_row_bytes,
                 cfg->l1_line);
        return -1;
    }
    return 0;
}

static int ms_init_units(MemSys *m, const EmuConfig *cfg, char *err, size_t n)
{
    if (icnt_init(&m->icnt, cfg, m->nsm, m->nslice, m->ctr, err, n) < 0)
        return -1;
    const MsTopo *t = &m->topo;
    if ((t->ngpu > 1 || t->peers) && link_init(&m->link, cfg, t->ngpu, m->ctr, err, n) < 0)
        return -1;
    for (unsigned i = 0; i < m->nslice; i++)
        if (l2_init(&m->slice[i].l2, cfg, i, m->ctr, err, n) < 0)
            return -1;
    for (unsigned i = 0; i < m->nchan; i++)
        if (dram_init(&m->chan[i], cfg, m->ctr, err, n) < 0)
            return -1;
    return 0;
}

/* The shape, the units and every part's own state, before any policy slot. */
static int ms_build(MemSys *m, const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n)
{
    MsTopo *t = &m->topo;
    ms_topo_init(t, cfg, cfg->l1_line);
    m->line = cfg->l1_line;
    m->nsm = t->smpg * t->ngpu, m->nslice = t->spg * t->ngpu, m->nchan = t->cpg * t->ngpu;
    m->ctr = ctr;
    m->slice = calloc(m->nslice, sizeof *m->slice);
    m->chan = calloc(m->nchan, sizeof *m->chan);
    if (!m->slice || !m->chan || ms_dram_init(m, cfg) < 0 ||
        ms_port_init(&m->port, m->nsm, cfg) < 0 || ms_loop_init(m, cfg) < 0) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    return ms_init_units(m, cfg, err, n);
}

/* The coherence slot's memory side, which every slice is told of, and in a shared
 * device the GPUs' stale copies. */
static int ms_coherence(MemSys *m, const EmuConfig *cfg, char *err, size_t n)
{
    if (!(m->coh = tm_coherence_find(cfg->coherence)) ||
        (m->coh->mem_init && !(m->coh_state = m->coh->mem_init(cfg)))) {
        snprintf(err, n, "coherence: %s", m->coh ? "out of host memory" : "unknown policy");
        return -1;
    }
    for (unsigned i = 0; i < m->nslice; i++)
        m->slice[i].l2.coh = m->coh, m->slice[i].l2.coh_state = m->coh_state;
    if (m->topo.shared && ms_stale_new(m) < 0) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    return 0;
}

/* The L2 prefetcher, the transform, the DRAM mapping and a NUMA device's zone map. */
static int ms_policies(MemSys *m, const EmuConfig *cfg, char *err, size_t n)
{
    MsLoop *p = &m->loop;
    MsDramSide *d = &m->dram;
    MsTopo *t = &m->topo;
    p->pf_queue = cfg->l2_prefetch_queue;
    if (!(p->pf = tm_l2_prefetch_find(cfg->l2_prefetch)) ||
        (p->pf->init && !(p->pf_state = p->pf->init(cfg)))) {
        snprintf(err, n, "l2.prefetch: %s", p->pf ? "out of host memory" : "unknown prefetcher");
        return -1;
    }
    if (!(m->xf = tm_transform_find(cfg->mem_transform))) {
        snprintf(err, n, "mem.transform: unknown transform '%s'", cfg->mem_transform);
        return -1;
    }
    if ((m->xf->init && !(m->xf_state = m->xf->init(cfg))) ||
        !(d->linebuf = malloc(m->line))) {
        snprintf(err, n, "mem.transform: out of host memory");
        return -1;
    }
    if (!(d->map = tm_mapping_find(cfg->dram_mapping)) ||
        (d->map->init && !(d->map_state = d->map->init(cfg)))) {
        snprintf(err, n, "dram.mapping: %s", d->map ? "out of host memory" : "unknown mapping");
        return -1;
    }
    if (t->numa && (!(t->zone = tm_zone_find(cfg->numa_map)) ||
                    (t->zone->init && !(t->zone_state = t->zone->init(cfg))))) {
        snprintf(err, n, "numa.map: %s", t->zone ? "out of host memory" : "unknown mapping");
        return -1;
    }
    return 0;
}

MemSys *memsys_new(const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n)
{
    if (ms_check(cfg, err, n) < 0)
        return NULL;
    MemSys *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    if (ms_build(m, cfg, ctr, err, n) < 0 || ms_coherence(m, cfg, err, n) < 0 ||
        ms_policies(m, cfg, err, n) < 0) {
        memsys_free(m);
        return NULL;
    }
    ms_units_reset(&m->loop);
    return m;
}

void memsys_observe(MemSys *m, const TmObserverOps *obs, void *state)
{
    for (unsigned i = 0; i < m->nslice; i++) {
        m->slice[i].l2.obs = obs && obs->outcome ? obs : NULL;
        m->slice[i].l2.obs_state = state;
    }
}

int memsys_bind(MemSys *m, const TmLaunchView *v)
{
    for (unsigned i = 0; i < m->nslice; i++) {
        L2Slice *s = &m->slice[i].l2;
        if (s->ins && s->ins->bind && s->ins->bind(s->ins_state, v) < 0)
            return -1;
    }
    if (m->topo.zone && m->topo.zone->bind && m->topo.zone->bind(m->topo.zone_state, v) < 0)
        return -1;
    return m->dram.map->bind && m->dram.map->bind(m->dram.map_state, v) < 0 ? -1 : 0;
}

void *memsys_coherence_state(const MemSys *m)
{
    return m->coh_state;
}

void memsys_end_launch(MemSys *m, Cycle last)
{
    if (m->coh->mem_launch)
        m->coh->mem_launch(m->coh_state, last);
}

int memsys_flush(MemSys *m, Cycle now)
{
    if (!m->coh->flush)
        return 0;
    TmReq *wb = malloc((size_t)m->slice[0].l2.c.sets * m->slice[0].l2.c.ways * sizeof *wb);
    if (!wb)
        return -1;
    for (unsigned i = 0; i < m->nslice; i++) {
        unsigned n = l2_flush(&m->slice[i].l2, wb);
        for (unsigned k = 0; k < n; k++)
            ms_ev_push(m, now, m->topo.shared ? EV_UP : EV_DRAM, i, &wb[k]);
    }
    free(wb);
    m->loop.quiet = 0;
    return 1;
}

int memsys_next_launch(MemSys *m, TmCounters *ctr)
{
    if (!memsys_idle(m))
        return -1;
    for (unsigned i = 0; i < m->nsm; i++)
        m->icnt.sm_inject[i] = m->icnt.sm_eject[i] = 0, m->port.recv_head[i] = TM_NEVER;
    for (unsigned i = 0; i < m->nslice; i++) {
        MsSlice *s = &m->slice[i];
        m->icnt.slice_inject[i] = m->icnt.slice_eject[i] = 0;
        s->l2.tried = 0;
        l2_next_launch(&s->l2);
        s->free = 0, s->blocked = 0;
    }
    for (unsigned i = 0; i < m->nchan; i++)
        dram_next_launch(&m->chan[i]);
    if (m->topo.ngpu > 1 || m->topo.peers)
        link_next_launch(&m->link);
    memsys_count_into(m, ctr, NULL);
    memsys_count_sms(m, NULL);
    ms_units_reset(&m->loop);
    m->loop.quiet = 0, m->loop.seq = 0;
    return 0;
}

void memsys_count_into(MemSys *m, TmCounters *ctr, TmCounters *unit)
{
    m->ctr = ctr, m->icnt.ctr = ctr;
    for (unsigned i = 0; i < m->nslice; i++)
        m->slice[i].l2.ctr = unit ? &unit[i] : ctr;
    for (unsigned i = 0; i < m->nchan; i++)
        m->chan[i].ctr = unit ? &unit[m->nslice + i] : ctr;
    if (m->topo.ngpu > 1 || m->topo.peers)
        link_count_into(&m->link, ctr,
                        unit && m->topo.ngpu > 1 ? unit + m->nslice + m->nchan : NULL);
}

void memsys_set_reader(MemSys *m, TmLineRead read, void *ctx)
{
    m->dram.read = read, m->dram.read_ctx = ctx;
}

void memsys_free(MemSys *m)
{
    if (!m)
        return;
    if (m->xf && m->xf->free)
        m->xf->free(m->xf_state);
    ms_dram_free(m);
    if (m->topo.zone && m->topo.zone->free)
        m->topo.zone->free(m->topo.zone_state);
    if (m->coh && m->coh->mem_free)
        m->coh->mem_free(m->coh_state);
    stale_free(m->stale);
    link_free(&m->link);
    ms_loop_free(m);
    icnt_free(&m->icnt);
    for (unsigned i = 0; m->slice && i < m->nslice; i++) {
        l2_free(&m->slice[i].l2);
        free(m->slice[i].in.v);
    }
    for (unsigned i = 0; m->chan && i < m->nchan; i++)
        dram_free(&m->chan[i]);
    ms_port_free(&m->port, m->nsm);
    free(m->slice);
    free(m->chan);
    free(m);
}

void memsys_dump(const MemSys *m, FILE *f)
{
    fprintf(f, "memsys: %u events pending%s\n", m->loop.evq.n, m->loop.evq.n ? "" : " (none)");
    if (m->loop.evq.n)
        fprintf(f, "  next event at %llu\n", (unsigned long long)tm_heap_min(&m->loop.evq));
    icnt_dump(&m->icnt, f);
    if (m->topo.ngpu > 1 || m->topo.peers)
        link_dump(&m->link, f);
    for (unsigned i = 0; i < m->nslice; i++) {
        fprintf(f, "slice %u: %u queued%s%s, free at %llu\n", i, m->slice[i].in.n,
                m->slice[i].blocked ? " (blocked on MSHRs)" : "",
                m->slice[i].dram_wait ? " (waiting for DRAM queue room)" : "",
                (unsigned long long)m->slice[i].free);
        l2_dump(&m->slice[i].l2, f);
    }
    for (unsigned i = 0; i < m->nchan; i++) {
        dram_dump(&m->chan[i], i, f);
        if (m->dram.parked[i].n)
            fprintf(f, "  %u reads wait for the transform's metadata\n", m->dram.parked[i].n);
        if (m->dram.parked[i].wn)
            fprintf(f, "  %u requests wait for room in its queues\n", m->dram.parked[i].wn);
    }
    for (unsigned i = 0; i < m->nsm; i++)
        if (m->port.to_sm[i].n)
            fprintf(f, "sm %u: %u responses waiting\n", i, m->port.to_sm[i].n);
}
