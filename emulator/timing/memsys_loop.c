/*
 * memsys_loop.c - the memory system's time-ordered loop (memsys_int.h, MsLoop): timed
 * events, each L2 slice's and DRAM channel's next time, and what a slice's lookup, a
 * channel's completion or an event sets off.
 *
 * Path of a read miss: memsys_send reserves the crossbar and queues the request at its
 * slice with its arrival cycle (memsys_port.c); the slice looks up one request per
 * cycle, in arrival order (a request that cannot get an MSHR blocks its slice until a
 * fill); a hit's response leaves the slice l2.latency cycles later; a miss reaches its
 * DRAM channel l2.latency cycles after the lookup (memsys_dram.c), and the data comes
 * back to the slice at the cycle dram.c computes, which answers every request waiting on
 * the line at once; responses cross back and wait in their SM's queue for memsys_recv.
 * In a shared device of several GPUs what a slice sends to DRAM, and DRAM's data back,
 * first cross the GPU's link (EV_UP, EV_DOWN; memsys_topo.c).
 *
 * Pending work is kept as timed events (a binary heap ordered by cycle, then creation
 * order) plus the slices' and channels' own next times; memsys_tick(now) handles all of
 * it up to now in time order (events first at equal cycles, then slices, then channels,
 * each by index), so skipping idle cycles gives the same result as ticking every cycle.
 * Each slice's and channel's next time is cached (unext) and refreshed whenever the unit
 * changes (slice_changed, chan_changed), in a tournament tree whose root is the unit
 * that acts first (the lowest index among equal times), so a step costs log2(units)
 * comparisons, not a scan; the time of the next step overall is kept until memsys_take
 * queues a new request.
 */
#include "timing/memsys_int.h"

int ms_loop_init(MemSys *m, const EmuConfig *cfg)
{
    MsLoop *p = &m->loop;
    p->fillbuf = calloc(cfg->l2_mshr_merge ? cfg->l2_mshr_merge : 1, sizeof *p->fillbuf);
    for (p->upow = 1; p->upow < m->nslice + m->nchan; p->upow *= 2)
        ;
    p->unext = malloc(p->upow * sizeof *p->unext);
    p->uwin = malloc(2 * p->upow * sizeof *p->uwin);
    return p->fillbuf && p->unext && p->uwin ? 0 : -1;
}

void ms_loop_free(MemSys *m)
{
    MsLoop *p = &m->loop;
    if (p->pf && p->pf->free)
        p->pf->free(p->pf_state);
    free(p->fillbuf);
    free(p->unext);
    free(p->uwin);
    free(p->ev);
    free(p->evfree);
    tm_heap_free(&p->evq);
}

void ms_units_reset(MsLoop *p)
{
    for (unsigned i = 0; i < p->upow; i++)
        p->unext[i] = TM_NEVER, p->uwin[p->upow + i] = (uint16_t)i;
    for (unsigned k = p->upow - 1; k; k--)
        p->uwin[k] = p->uwin[2 * k];
}

void ms_ev_push(MemSys *m, Cycle at, MsEvKind kind, unsigned slice, const TmReq *r)
{
    MsLoop *p = &m->loop;
    if (!p->nevfree) {
        uint32_t cap = p->evcap ? 2 * p->evcap : 64;
        MsEvent *v = realloc(p->ev, cap * sizeof *v);
        if (v)
            p->ev = v;
        uint32_t *f = v ? realloc(p->evfree, cap * sizeof *f) : NULL;
        if (!f)
            return; /* out of memory: the request is lost and the core reports a deadlock */
        p->evfree = f;
        for (uint32_t i = cap; i > p->evcap; i--)
            p->evfree[p->nevfree++] = i - 1;
        p->evcap = cap;
    }
    uint32_t i = p->evfree[--p->nevfree];
    if (tm_heap_push(&p->evq, at, p->seq++, i) < 0) {
        p->evfree[p->nevfree++] = i;
        return; /* as above */
    }
    p->ev[i] = (MsEvent){at, (uint8_t)kind, (uint16_t)slice, *r};
}

static MsEvent ev_pop(MsLoop *p)
{
    uint32_t i = tm_heap_pop(&p->evq).idx;
    p->evfree[p->nevfree++] = i;
    return p->ev[i];
}

/* Turns the slice's decisions into events (in a shared system what goes to DRAM first
 * crosses the GPU's link). */
static void ms_act(MemSys *m, unsigned slice, const L2Act *act, int n)
{
    MsEvKind mem = m->topo.shared ? EV_UP : EV_DRAM;
    for (int i = 0; i < n; i++)
        ms_ev_push(m, act[i].at, act[i].kind == L2_RESPOND ? EV_RESPOND : mem, slice,
                   &act[i].r);
}

/* Where the L2 prefetcher's lines go (TmPrefetchEmit's context). */
typedef struct MsEmit {
    MemSys *m;
    Cycle at;     /* the lookup that prompted them */
    unsigned gpu; /* of the slice that looked it up */
} MsEmit;

/* TmPrefetchEmit: the line joins its slice's queue the cycle after the lookup, unless
 * that queue is already l2.prefetch_queue long. */
static void l2pf_emit(void *ctx, uint64_t line)
{
    MsEmit *e = ctx;
    MemSys *m = e->m;
    unsigned s = ms_slice(&m->topo, e->gpu, line);
    if (m->slice[s].in.n >= m->loop.pf_queue) {
        m->slice[s].l2.ctr->l2_prefetch_dropped++;
        return;
    }
    TmReq r = {.line = line & ~(uint64_t)(m->line - 1),
               .sectors = (uint8_t)((1u << m->slice[s].l2.c.nsectors) - 1), .kind = TM_READ,
               .atom = TM_NO_ATOM, .tag = L2_PREFETCH_TAG, .issued = e->at};
    if (q_push(&m->slice[s].in, e->at + 1, &r) == 0)
        slice_changed(m, s);
}

static void slice_step(MemSys *m, unsigned i, Cycle t)
{
    MsSlice *s = &m->slice[i];
    L2Act act[3];
    TmReq r = q_front(&s->in)->r;
    int n = l2_access(&s->l2, &r, t, act);
    if (n < 0) {
        s->blocked = 1;
        slice_changed(m, i);
        return;
    }
    q_pop(&s->in);
    if (r.kind != TM_READ && m->xf->written)
        m->xf->written(m->xf_state, s->l2.ctr, &r);
    s->free = t + 1;
    slice_changed(m, i);
    ms_act(m, i, act, n);
    const TmL2PrefetchOps *pf = m->loop.pf;
    if (pf->observe && r.kind != TM_WRITE && !(r.tag & L2_PREFETCH_TAG)) {
        int miss = 0;
        for (int k = 0; k < n; k++)
            miss |= act[k].kind == L2_DRAM_READ;
        MsEmit e = {m, t, i / m->topo.spg};
        pf->observe(m->loop.pf_state, &r, miss, l2pf_emit, &e);
    }
}

static void chan_step(MemSys *m, unsigned i, Cycle t)
{
    DramDone d;
    int done = dram_pick(&m->chan[i], &d);
    if (done)
        ms_chan_accept(m, i, t);
    if (done && !d.req.write) {
        TmReq r = {.line = d.req.line, .sectors = d.req.sectors, .kind = TM_READ, .tag = i};
        if (d.req.meta) {
            ms_ev_push(m, d.at, EV_META, 0, &r);
        } else {
            Cycle delay = 0;
            if (m->coh->memory) /* the coherence slot's memory side: the fill's meta */
                r.meta = m->coh->memory(m->coh_state, m->chan[i].ctr, d.req.slice, &r, d.at,
                                        &delay);
            ms_ev_push(m, d.at + d.req.delay, m->topo.shared ? EV_DOWN : EV_FILL,
                       d.req.slice, &r);
        }
    }
    chan_changed(m, i);
}

/* A read response under a transform that keeps lines transformed in the L2: the bytes it
 * crosses as (r->xbytes) and the cycles it then takes to reach its SM. */
static unsigned ms_respond(MemSys *m, TmReq *r, unsigned slice)
{
    if (!m->xf->respond || r->kind != TM_READ)
        return 0;
    TmXfResponse out = {0};
    m->xf->respond(m->xf_state, m->slice[slice].l2.ctr, r, ms_line(m, r->line), &out);
    r->xbytes = (uint16_t)(out.bytes < m->line ? out.bytes : m->line);
    r->assist = out.assist ? tm_assist_mark(out.assist - 1u, out.enc) : 0;
    return out.delay;
}

/* DRAM's data is back at the slice: the requests it completes are answered. */
static void ms_fill(MemSys *m, const MsEvent *e)
{
    MsSlice *s = &m->slice[e->slice];
    TmReq *fill = m->loop.fillbuf;
    unsigned k = l2_fill_req(&s->l2, &e->r, fill, e->at);
    for (unsigned i = 0; i < k; i++)
        if (!(fill[i].tag & L2_PREFETCH_TAG)) /* nobody waits for a prefetch */
            ms_ev_push(m, l2_fill_at(&s->l2, i), EV_RESPOND, e->slice, &fill[i]);
    if (s->blocked) /* the head retries its lookup now, not when it first failed */
        s->free = s->free > e->at ? s->free : e->at;
    s->blocked = 0;
    slice_changed(m, e->slice);
}

static void ev_step(MemSys *m)
{
    const MsTopo *t = &m->topo;
    MsEvent e = ev_pop(&m->loop);
    if (e.kind == EV_RESPOND) {
        unsigned delay = ms_respond(m, &e.r, e.slice), z = e.slice / t->spg;
        unsigned gpu = e.r.sm / t->smpg;
        Cycle from = e.at;
        if (t->numa && z != gpu) /* across the zone's crossbar, back to the requesting module */
            from = link_send(&m->link, z, gpu, ms_link_bytes(m, &e.r, 1),
                             from + m->icnt.latency);
        Cycle at = icnt_to_sm(&m->icnt, &e.r, e.slice, from) + delay;
        ms_port_deliver(&m->port, at, &e.r);
    } else if (e.kind == EV_DRAM) {
        ms_to_dram(m, &e.r, e.slice, e.at);
    } else if (e.kind == EV_UP) {
        Cycle at = link_send(&m->link, e.slice / t->spg, LINK_MEMORY,
                             ms_link_bytes(m, &e.r, 0), e.at);
        ms_ev_push(m, at, EV_DRAM, e.slice, &e.r);
    } else if (e.kind == EV_DOWN) {
        Cycle at = link_send(&m->link, LINK_MEMORY, e.slice / t->spg,
                             ms_link_bytes(m, &e.r, 1), e.at);
        ms_ev_push(m, at, e.r.kind == TM_WRITE ? EV_ANSWER : EV_FILL, e.slice, &e.r);
    } else if (e.kind == EV_REMOTE) {
        Cycle at = link_send(&m->link, LINK_MEMORY, 0, ms_link_bytes(m, &e.r, 1), e.at) +
                   m->icnt.latency;
        ms_port_deliver(&m->port, at, &e.r);
    } else if (e.kind == EV_ANSWER) {
        TmReq resp;
        l2_answer(&m->slice[e.slice].l2, &e.r, &resp, e.at);
        ms_ev_push(m, e.at, EV_RESPOND, e.slice, &resp);
    } else if (e.kind == EV_META) {
        ms_meta_back(m, (unsigned)e.r.tag, e.r.line, e.at);
    } else {
        ms_fill(m, &e);
    }
}

int memsys_tick(MemSys *m, Cycle now)
{
    int lost = 0;
    for (unsigned i = 0; i < m->nsm; i++) /* what memsys_take has not taken yet */
        if (m->port.out[i].n)
            lost |= memsys_take(m, i) < 0;
    int work = memsys_step(m, now);
    return lost ? -1 : work;
}

int memsys_step(MemSys *m, Cycle now)
{
    MsLoop *p = &m->loop;
    int work = 0;
    if (p->quiet > now)
        return 0;
    for (;;) {
        Cycle t = tm_heap_min(&p->evq);
        int unit = -1; /* -1: event; [0, nslice): slice; above: channel */
        if (p->unext[p->uwin[1]] < t)
            t = p->unext[p->uwin[1]], unit = p->uwin[1];
        if (t == TM_NEVER || t > now) {
            p->quiet = t;
            break;
        }
        if (unit < 0)
            ev_step(m);
        else if ((unsigned)unit < m->nslice)
            slice_step(m, (unsigned)unit, t);
        else
            chan_step(m, (unsigned)unit - m->nslice, t);
        work++;
    }
    return work;
}

Cycle memsys_next(const MemSys *m, Cycle now)
{
    const MsLoop *p = &m->loop;
    Cycle t = tm_heap_min(&p->evq);
    t = p->unext[p->uwin[1]] < t ? p->unext[p->uwin[1]] : t;
    for (unsigned i = 0; i < m->nsm; i++) {
        const MsItem *h = q_front(&m->port.to_sm[i]);
        if (h && h->at < t)
            t = h->at;
    }
    return t == TM_NEVER || t > now ? t : now + 1;
}

int memsys_idle(const MemSys *m)
{
    if (m->loop.evq.n)
        return 0;
    for (unsigned i = 0; i < m->nslice; i++)
        if (m->slice[i].in.n)
            return 0;
    for (unsigned i = 0; i < m->nchan; i++)
        if (!dram_idle(&m->chan[i]) || m->dram.parked[i].wn)
            return 0;
    for (unsigned i = 0; i < m->nsm; i++)
        if (m->port.to_sm[i].n || m->port.out[i].n)
            return 0;
    return 1;
}
