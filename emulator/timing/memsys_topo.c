/*
 * memsys_topo.c - the memory system's shape (memsys_int.h, MsTopo): which L2 slice serves
 * a line, the device's GPUs and the links between them, requests for a peer device's
 * memory, and the stale copies GPUs with L2s of their own keep of a shared memory.
 *
 * A line's slice, with L = address / line size and b = ceil(log2(l2.slices)):
 *   slice   = L mod slices                              (l2.slice_hash = mod)
 *           = (L xor L >> b xor L >> 2b) mod slices     (xor)
 *           = IPOLY over the next power of two, mod slices (ipoly; cache_index.h)
 * (ms_slice, in memsys_int.h: the SMs ask it for every request they send). Where the
 * slice's requests go in DRAM is memsys_dram.c's.
 *
 * A device of G GPUs (system.memory = shared or numa; docs/multi-gpu.md) has G times
 * the SMs, slices and channels; GPU g's are the g-th block of each, and its crossbar
 * joins only its own SMs and slices.
 *   shared  each GPU's L2 caches all of memory: GPU g's request goes to slice
 *           g x spg + (the mapping above over spg = l2.slices slices); what a slice
 *           sends to DRAM, and DRAM's data back, cross g's link to the memory side
 *           (link.c), whose channels are interleaved over all G x l2.slices slices, so
 *           every GPU maps a line to the same channel, bank and row. A GPU's L2 may
 *           then hold a line another GPU has written since (stale.h): the GPUs' loads
 *           read through a view that sees such stale bytes while the L2 would hit them.
 *   numa    each module's L2 caches its own zone (memory-side): the zone slot
 *           (numa.map) names the line's module z, the line goes to slice
 *           z x spg + h mod spg, with h a multiplicative hash of the line (the zone's
 *           lines are any subset of memory). A request from another module crosses the
 *           links both ways.
 * A device among several (a peer access, TM_REMOTE_LINE) sends the request over its own
 * link and gets the answer back system.peer_latency cycles later; the peer is not
 * simulated.
 */
#include <string.h>
#include "func/exec.h"
#include "timing/memsys_int.h"

void ms_topo_init(MsTopo *t, const EmuConfig *cfg, unsigned line)
{
    t->ngpu = emu_config_device_gpus(cfg);
    t->smpg = cfg->gpu_sm_count, t->spg = cfg->l2_slices, t->cpg = cfg->dram_channels;
    t->shared = t->ngpu > 1 && strcmp(cfg->system_memory, "shared") == 0;
    t->numa = t->ngpu > 1 && strcmp(cfg->system_memory, "numa") == 0;
    t->peers = emu_config_devices(cfg) > 1, t->peer_latency = cfg->system_peer_latency;
    while ((1u << t->gslice_bits) < t->spg)
        t->gslice_bits++;
    t->xor_hash = strcmp(cfg->l2_slice_hash, "xor") == 0;
    if (strcmp(cfg->l2_slice_hash, "ipoly") == 0)
        t->slice_ix = cache_index_find("ipoly");
    while ((1u << t->slice_bits) < t->spg * t->ngpu)
        t->slice_bits++;
    while ((1u << t->line_shift) < line)
        t->line_shift++;
}

/* --- the stale copies of a shared memory --------------------------------------------------- */

/* The stale copies' view of memory (StaleRead): through the device's reader. */
static int ms_stale_read(void *ctx, uint64_t line, uint8_t *buf, unsigned n)
{
    MemSys *m = ctx;
    return m->dram.read ? m->dram.read(m->dram.read_ctx, line, buf, n) : -1;
}

/* StaleHolds: GPU gpu's L2 has valid bytes of line. */
static int ms_holds(void *ctx, unsigned gpu, uint64_t line)
{
    MemSys *m = ctx;
    Cache *c = &m->slice[ms_slice(&m->topo, gpu, line)].l2.c;
    CacheLine *l = cache_find(c, line);
    return l && l->valid;
}

/* L2Slice.gone: the slice's GPU no longer holds a stale copy of line. */
static void ms_gone(void *ctx, unsigned slice, uint64_t line)
{
    MemSys *m = ctx;
    stale_drop(m->stale, slice / m->topo.spg, line);
}

int ms_stale_new(MemSys *m)
{
    if (!(m->stale = stale_new(m->topo.ngpu, m->line, ms_stale_read, ms_holds, m)))
        return -1;
    for (unsigned i = 0; i < m->nslice; i++)
        m->slice[i].l2.gone = ms_gone, m->slice[i].l2.gone_ctx = m;
    return 0;
}

void memsys_write(MemSys *m, unsigned sm, uint64_t addr, unsigned n, int after)
{
    if (!m->stale)
        return;
    unsigned lost = 0;
    if (after) {
        stale_write_after(m->stale, sm / m->topo.smpg, addr, n);
        return;
    }
    m->ctr->stale_copies += stale_write_before(m->stale, sm / m->topo.smpg, addr, n, &lost);
    m->ctr->stale_lost += lost;
}

/* EmuView.read of an SM of the device (ctx: the memory system, who: the SM): its GPU's
 * stale copy, while the L2 would let a read hit it (the coherence slot's l2_peek) */
static int ms_view_read(const EmuView *v, uint64_t addr, unsigned n, void *out)
{
    MemSys *m = (MemSys *)v->ctx; /* read only: ms_slice of a shared device changes nothing */
    unsigned gpu = v->who / m->topo.smpg, s = ms_slice(&m->topo, gpu, addr);
    if (m->coh->l2_peek) {
        CacheLine *l = cache_find(&m->slice[s].l2.c, addr & ~(uint64_t)(m->line - 1));
        if (!l || !m->coh->l2_peek(m->coh_state, s, l->meta, *v->now))
            return 0; /* the read would miss and fetch memory's bytes */
    }
    return stale_read(m->stale, gpu, addr, n, out);
}

int memsys_view(const MemSys *m, unsigned sm, const uint64_t *now, EmuView *v)
{
    if (!m->stale)
        return 0;
    *v = (EmuView){.read = ms_view_read, .live = stale_live(m->stale), .ctx = m, .who = sm,
                   .now = now};
    return 1;
}

/* --- links --------------------------------------------------------------------------------- */

/* A header, and the data of writes, atomics and reads' responses (as on the crossbar,
 * icnt.c). */
unsigned ms_link_bytes(const MemSys *m, const TmReq *r, int response)
{
    int data = response ? r->kind != TM_WRITE : r->kind != TM_READ;
    unsigned bytes = r->xbytes ? r->xbytes : tm_nsectors(r->sectors) * m->icnt.sector;
    return link_packet(&m->link, data ? bytes : 0) + (response ? m->coh->stamp_bytes : 0);
}

/* Over the device's link, served at the other device system.peer_latency cycles later
 * (not simulated there), and its answer back over the link to the SM; a write is not
 * answered. */
void ms_remote(MemSys *m, const TmReq *r, Cycle start)
{
    m->ctr->peer_accesses++;
    Cycle at = link_send(&m->link, 0, LINK_MEMORY, ms_link_bytes(m, r, 0),
                         start + m->icnt.latency);
    if (r->kind != TM_WRITE)
        ms_ev_push(m, at + m->topo.peer_latency, EV_REMOTE, 0, r);
}

unsigned memsys_slice(MemSys *m, unsigned gpu, uint64_t addr)
{
    return ms_slice(&m->topo, gpu, addr);
}
