/*
 * memsys_dram.c - a request's way from its L2 slice into its DRAM channel (memsys_int.h,
 * MsDramSide): the channel, bank and row it maps to, what the memory-side transform
 * (mem.transform) makes of it, the transform's metadata reads and writes, and the
 * requests that wait because their channel's queue is full.
 *
 * Address mapping, with L = address / line size and the slice s a line maps to
 * (memsys_topo.c):
 *   channel = s mod dram.channels
 *   local   = (L / slices) x ceil(slices / channels) + s / channels
 *   bank    = (local / lines per row) mod dram.banks;  row = local / (lines per row x banks)
 * so each channel sees its lines densely numbered and a row holds row_bytes / line
 * consecutive lines of one channel. (With xor and a slice count that is not a power of
 * two, two lines may share a DRAM location: only their timing interacts, which is
 * harmless; with a power of two the mapping is one-to-one.) In a shared device of
 * several GPUs s is the line's slice over all their slices, so every GPU maps a line
 * alike; in a NUMA device the zone's own channels serve it: channel z x cpg +
 * (h mod spg) mod cpg, local = L / spg x ceil(spg / cpg) + (h mod spg) / cpg. The
 * DRAM-mapping slot (dram.mapping) may then move the line's bank and row.
 *
 * Back-pressure: a request that finds its DRAM channel's queue full waits in order at
 * the channel (MsChan.w) and its slice looks nothing up until the channel has taken it
 * (ms_chan_accept, after each request the channel completes). A read whose transform
 * needs metadata first is parked until that metadata line is back (ms_meta_back).
 */
#include "timing/memsys_int.h"

int ms_dram_init(MemSys *m, const EmuConfig *cfg)
{
    MsDramSide *d = &m->dram;
    d->gsub = (m->topo.spg + m->topo.cpg - 1) / m->topo.cpg;
    d->banks = cfg->dram_banks ? cfg->dram_banks : 1;
    d->lines_per_row = cfg->dram_row_bytes / cfg->l1_line;
    d->nsub = (m->nslice + m->nchan - 1) / m->nchan;
    d->parked = calloc(m->nchan, sizeof *d->parked);
    return d->parked ? 0 : -1;
}

void ms_dram_free(MemSys *m)
{
    MsDramSide *d = &m->dram;
    if (d->map && d->map->free)
        d->map->free(d->map_state);
    free(d->linebuf);
    for (unsigned i = 0; d->parked && i < m->nchan; i++) {
        free(d->parked[i].v);
        free(d->parked[i].w);
    }
    free(d->parked);
}

const uint8_t *ms_line(MemSys *m, uint64_t line)
{
    MsDramSide *d = &m->dram;
    return d->read && d->read(d->read_ctx, line, d->linebuf, m->line) == 0 ? d->linebuf
                                                                            : NULL;
}

/* The transform's metadata lives above every data row of its channel. */
#define MS_META_ROW (1ull << 40)

static DramReq ms_meta_req(const MemSys *m, uint64_t meta, int write)
{
    const MsDramSide *d = &m->dram;
    return (DramReq){.line = meta, .row = MS_META_ROW + meta / d->lines_per_row / d->banks,
                     .bank = (unsigned)(meta / d->lines_per_row % d->banks), .sectors = 1,
                     .bursts = 1, .write = (uint8_t)write, .meta = 1};
}

static int park(MsChan *c, uint64_t meta, const DramReq *d)
{
    if (c->n == c->cap) {
        unsigned cap = c->cap ? 2 * c->cap : 16;
        MsParked *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -1;
        c->v = v, c->cap = cap;
    }
    c->v[c->n++] = (MsParked){meta, *d};
    return 0;
}

/* Request d from slice reaches DRAM channel ch at cycle now: it joins the channel's
 * queue, or, when that is full or others already wait, waits in order, and the slice
 * stops looking up until the channel has taken it (ms_chan_accept). */
static void ms_chan_push(MemSys *m, unsigned ch, const DramReq *d, unsigned slice, Cycle now)
{
    MsChan *c = &m->dram.parked[ch];
    if (!c->wn && dram_push(&m->chan[ch], d, now) == 0)
        return;
    if (c->wn == c->wcap) {
        unsigned cap = c->wcap ? 2 * c->wcap : 16;
        MsWait *v = malloc(cap * sizeof *v);
        if (!v)
            return; /* out of host memory: the request is lost and the core reports a deadlock */
        for (unsigned i = 0; i < c->wn; i++)
            v[i] = c->w[(c->whead + i) % c->wcap];
        free(c->w);
        c->w = v, c->whead = 0, c->wcap = cap;
    }
    c->w[(c->whead + c->wn++) % c->wcap] = (MsWait){*d, slice};
    m->chan[ch].ctr->dram_queue_full++;
    if (m->slice[slice].dram_wait++ == 0)
        slice_changed(m, slice);
}

void ms_chan_accept(MemSys *m, unsigned ch, Cycle now)
{
    MsChan *c = &m->dram.parked[ch];
    while (c->wn) {
        MsWait *w = &c->w[c->whead];
        if (dram_push(&m->chan[ch], &w->req, now) < 0)
            return;
        c->whead = (c->whead + 1) % c->wcap, c->wn--;
        MsSlice *s = &m->slice[w->slice];
        if (--s->dram_wait == 0) {
            s->free = s->free > now ? s->free : now; /* it looks up again from now on */
            slice_changed(m, w->slice);
        }
    }
}

/* The transform (if it keeps metadata) says what r moves and what metadata it needs
 * first. */
void ms_to_dram(MemSys *m, const TmReq *r, unsigned slice, Cycle now)
{
    const MsTopo *t = &m->topo;
    MsDramSide *ds = &m->dram;
    uint64_t l = r->line / m->line, local;
    unsigned ch;
    if (t->numa) { /* the zone's own channels */
        unsigned z = slice / t->spg, s = slice % t->spg;
        ch = z * t->cpg + s % t->cpg;
        local = l / t->spg * ds->gsub + s / t->cpg;
    } else { /* one GPU, or the memory side every GPU of a shared system sees alike */
        unsigned vs = t->ngpu > 1 ? ms_hash(t, l, m->nslice, t->slice_bits) : slice;
        ch = vs % m->nchan;
        local = l / m->nslice * ds->nsub + vs / m->nchan;
    }
    DramChan *c = &m->chan[ch];
    DramReq d = {.line = r->line, .row = local / ds->lines_per_row / ds->banks,
                 .bank = (unsigned)(local / ds->lines_per_row % ds->banks),
                 .slice = (uint16_t)slice, .sectors = r->sectors,
                 .write = r->kind == TM_WRITE};
    if (ds->map->map)
        ds->map->map(ds->map_state, r->line, ch, local, &d.bank, &d.row);
    unsigned plain = dram_sector_bursts(c, r->sectors), most = plain;
    TmXfAccess a = {.bursts = plain, .meta_read = TM_XF_NO_META, .meta_wait = TM_XF_NO_META,
                    .meta_write = TM_XF_NO_META};
    if (m->xf->access) { /* up to the whole line: a compressed line moves as one */
        most = dram_sector_bursts(c, (uint8_t)((1u << m->slice[slice].l2.c.nsectors) - 1));
        m->xf->access(m->xf_state, c->ctr, ch, local, r, ms_line(m, r->line), &a);
    } else if (m->xf->bursts) {
        a.bursts = m->xf->bursts(m->xf_state, r, ms_line(m, r->line), plain);
    }
    unsigned b = a.bursts < 1 ? 1 : a.bursts > most ? most : a.bursts;
    if (b < plain)
        c->ctr->dram_bursts_saved += plain - b;
    d.bursts = (uint8_t)b, d.delay = a.delay;
    if (a.whole && !d.write)
        d.sectors = (uint8_t)((1u << m->slice[slice].l2.c.nsectors) - 1);
    if (a.meta_write != TM_XF_NO_META) {
        DramReq w = ms_meta_req(m, a.meta_write, 1);
        w.slice = (uint16_t)slice;
        ms_chan_push(m, ch, &w, slice, now);
    }
    if (a.meta_read != TM_XF_NO_META) {
        DramReq q = ms_meta_req(m, a.meta_read, 0);
        q.slice = (uint16_t)slice;
        ms_chan_push(m, ch, &q, slice, now);
    }
    uint64_t wait = a.meta_wait;
    if (d.write || wait == TM_XF_NO_META || park(&ds->parked[ch], wait, &d) < 0)
        ms_chan_push(m, ch, &d, slice, now); /* (out of host memory: served without waiting) */
    chan_changed(m, ch);
    if (d.write && m->coh->memory) { /* the coherence slot's memory side sees the write */
        Cycle delay = 0;
        TmReq ans = *r;
        ans.meta = m->coh->memory(m->coh_state, c->ctr, slice, r, now, &delay);
        if (r->tag & L2_ANSWER_TAG)
            ms_ev_push(m, now + delay, t->shared ? EV_DOWN : EV_ANSWER, slice, &ans);
    }
}

void ms_meta_back(MemSys *m, unsigned ch, uint64_t meta, Cycle now)
{
    MsChan *c = &m->dram.parked[ch];
    m->xf->meta_done(m->xf_state, ch, meta);
    unsigned k = 0;
    for (unsigned i = 0; i < c->n; i++) {
        if (c->v[i].meta == meta)
            ms_chan_push(m, ch, &c->v[i].req, c->v[i].req.slice, now);
        else
            c->v[k++] = c->v[i];
    }
    c->n = k;
    chan_changed(m, ch);
}
