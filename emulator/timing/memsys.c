/*
 * memsys.c - the memory system below the L1s (memsys.h): crossbar (icnt.c), L2 slices
 * (l2.c) and DRAM channels (dram.c), driven by one time-ordered loop.
 *
 * Path of a read miss: memsys_send reserves the crossbar and queues the request at its
 * slice with its arrival cycle; the slice looks up one request per cycle, in arrival
 * order (a request that cannot get an MSHR blocks its slice until a fill); a hit's
 * response leaves the slice l2.latency cycles later; a miss reaches its DRAM channel
 * l2.latency cycles after the lookup, and the data comes back to the slice at the cycle
 * dram.c computes, which answers every request waiting on the line at once; responses
 * cross back and wait in their SM's queue for memsys_recv.
 * Back-pressure: memsys_send refuses a request whose slice's queue (the requests crossing
 * to it included) holds l2.queue; a request that finds its DRAM channel's queue full
 * waits in order at the channel (MsChan.w) and its slice looks nothing up until the
 * channel has taken it (ms_chan_accept, after each request the channel completes).
 * Pending work is kept as timed events (a binary heap ordered by cycle, then creation
 * order) plus the slices' and channels' own next times; memsys_tick(now) handles all of
 * it up to now in time order (events first at equal cycles, then slices, then channels,
 * each by index), so skipping idle cycles gives the same result as ticking every cycle.
 * Each slice's and channel's next time is cached (unext) and refreshed whenever the unit
 * changes, in a tournament tree whose root is the unit that acts first (the lowest index
 * among equal times), so a step costs log2(units) comparisons, not a scan; the time of
 * the next step overall is kept until memsys_take queues a new request.
 *
 * Address mapping, with L = address / line size and b = ceil(log2(l2.slices)):
 *   slice   = L mod slices                              (l2.slice_hash = mod)
 *           = (L xor L >> b xor L >> 2b) mod slices     (xor)
 *           = IPOLY over the next power of two, mod slices (ipoly; cache_index.h)
 *   channel = slice mod dram.channels
 *   local   = (L / slices) x ceil(slices / channels) + slice / channels
 *   bank    = (local / lines per row) mod dram.banks;  row = local / (lines per row x banks)
 * so each channel sees its lines densely numbered and a row holds row_bytes / line
 * consecutive lines of one channel. (With xor and a slice count that is not a power of
 * two, two lines may share a DRAM location: only their timing interacts, which is
 * harmless; with a power of two the mapping is one-to-one.)
 *
 * A device of G GPUs (system.memory = shared or numa; docs/multi-gpu.md) has G times
 * the SMs, slices and channels; GPU g's are the g-th block of each, and its crossbar
 * joins only its own SMs and slices.
 *   shared  each GPU's L2 caches all of memory: GPU g's request goes to slice
 *           g x spg + (the mapping above over spg = l2.slices slices); what a slice
 *           sends to DRAM, and DRAM's data back, cross g's link to the memory side
 *           (link.c), whose channels are interleaved as above over all G x l2.slices
 *           slices, so every GPU maps a line to the same channel, bank and row.
 *   numa    each module's L2 caches its own zone (memory-side): the zone slot
 *           (numa.map) names the line's module z, the line goes to slice
 *           z x spg + h mod spg and its DRAM channel z x cpg + (h mod spg) mod cpg, with
 *           h a multiplicative hash of the line (the zone's lines are any subset of
 *           memory); local = L / spg x ceil(spg / cpg) + (h mod spg) / cpg. A request
 *           from another module crosses the links both ways.
 */
#include "timing/memsys.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "func/exec.h"
#include "timing/cache_index.h"
#include "timing/dram.h"
#include "timing/heap.h"
#include "timing/icnt.h"
#include "timing/l2.h"
#include "timing/link.h"
#include "timing/stale.h"
#include "timing/slots.h"

typedef struct MsItem {
    Cycle at;
    TmReq r;
} MsItem;

typedef struct MsQueue { /* growable ring of items in arrival order */
    MsItem *v;
    unsigned head, n, cap;
} MsQueue;

typedef enum MsEvKind {
    EV_RESPOND, /* r leaves slice for its SM */
    EV_DRAM,    /* r (read or write-back) reaches the slice's DRAM channel */
    EV_FILL,    /* DRAM data for r.line, r.sectors is back at slice */
    EV_META,    /* the transform's metadata line r.line of channel r.tag is back */
    EV_UP,      /* r leaves slice for DRAM over its GPU's link (shared) */
    EV_DOWN,    /* DRAM data for r, or memory's answer to write r, leaves the memory side
                 * for slice's GPU (shared) */
    EV_ANSWER,  /* memory's answer to write r, written through, is back at slice */
    EV_REMOTE,  /* the device that holds remote line r has answered it */
} MsEvKind;

typedef struct MsEvent {
    Cycle at;
    uint8_t kind;   /* MsEvKind */
    uint16_t slice;
    TmReq r;
} MsEvent;

/* Requests an SM sent in the cycle being simulated, in send order, each with the cycle
 * it took the SM's injection port; and the refusals it counted. memsys_take moves them
 * into the memory system. */
typedef struct MsOutbox {
    MsItem *v;
    unsigned n, cap;
} MsOutbox;

/* A DRAM read that waits for the transform's metadata (TmXfAccess.meta_read/wait). */
typedef struct MsParked {
    uint64_t meta;
    DramReq req;
} MsParked;

/* A request for a DRAM channel whose queue was full, and the slice it came from. */
typedef struct MsWait {
    DramReq req;
    unsigned slice;
} MsWait;

typedef struct MsChan {
    MsParked *v;   /* reads waiting for the transform's metadata */
    unsigned n, cap;
    MsWait *w;     /* a ring of requests waiting for room in the channel's queues, in order */
    unsigned whead, wn, wcap;
} MsChan;

typedef struct MsSlice {
    L2Slice l2;
    MsQueue in;    /* requests from the crossbar */
    Cycle free;    /* next lookup no earlier than this */
    int blocked;   /* head waits for a fill */
    unsigned dram_wait; /* its requests waiting for room at a DRAM channel: no lookups */
} MsSlice;

struct MemSys {
    unsigned nsm, nslice, nchan, slice_bits, line, line_shift, lines_per_row, banks, nsub;
    unsigned slice_queue;     /* l2.queue */
    int xor_hash;
    const CacheIndex *slice_ix; /* l2.slice_hash = ipoly, else NULL */
    /* the device's GPUs (docs/multi-gpu.md): SMs, slices and channels per GPU, and how
     * they share memory (both 0 with one GPU) */
    unsigned ngpu, smpg, spg, cpg, gslice_bits, gsub;
    int shared, numa, peers;
    unsigned peer_latency;
    Link link;                /* the GPUs' links; with peers, the device's own (node 0) */
    const TmZoneOps *zone;    /* numa.map */
    void *zone_state;
    const TmCoherenceOps *coh; /* coherence: its memory side */
    void *coh_state;
    Stale *stale;             /* shared: each GPU's stale copies (stale.h), else NULL */
    Icnt icnt;
    MsSlice *slice;
    DramChan *chan;
    MsQueue *to_sm;   /* [nsm] responses with their arrival cycle */
    MsOutbox *out;    /* [nsm] requests sent this cycle (memsys_send, memsys_take) */
    Cycle *recv_head; /* [nsm] arrival cycle of each queue's first response, or TM_NEVER */
    MsEvent *ev;      /* [evcap] pending events' payloads, by the heap's index */
    uint32_t *evfree, nevfree, evcap;
    TmHeap evq;       /* pending events by cycle, then creation order */
    uint64_t seq;
    TmReq *fillbuf;   /* [l2.mshr_merge] */
    Cycle *unext;     /* [upow] next step of each slice, then each channel, then TM_NEVER */
    uint16_t *uwin;   /* [2 upow] tournament tree over unext: uwin[k] (k < upow) is the
                       * unit of k's subtree that acts first, uwin[upow + i] = i */
    unsigned upow;    /* the least power of two >= nslice + nchan */
    TmCounters *ctr;
    TmCounters *sm_ctr; /* [nsm] where each SM's injection stalls count, or NULL: ctr */
    const TmL2PrefetchOps *pf; /* l2.prefetch */
    void *pf_state;
    unsigned pf_queue;        /* l2.prefetch_queue */
    const TmTransformOps *xf; /* mem.transform */
    void *xf_state;
    const TmMappingOps *map;  /* dram.mapping */
    void *map_state;
    MsChan *parked;           /* [nchan] reads waiting for metadata */
    TmLineRead read;          /* the transform's view of device memory, or NULL */
    void *read_ctx;
    uint8_t *linebuf;         /* [line] */
    Cycle quiet;      /* no event, slice or channel acts before this cycle; memsys_send,
                       * which queues at a slice, resets it */
};

static int q_push(MsQueue *q, Cycle at, const TmReq *r)
{
    if (q->n == q->cap) {
        unsigned cap = q->cap ? 2 * q->cap : 32;
        MsItem *v = malloc(cap * sizeof *v);
        if (!v)
            return -1;
        for (unsigned i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v, q->head = 0, q->cap = cap;
    }
    q->v[(q->head + q->n++) % q->cap] = (MsItem){at, *r};
    return 0;
}

/* Pushes in arrival order: after every item that arrives at or before `at`. */
static int q_push_sorted(MsQueue *q, Cycle at, const TmReq *r)
{
    if (q_push(q, at, r) < 0)
        return -1;
    for (unsigned i = q->n - 1; i > 0; i--) {
        MsItem *a = &q->v[(q->head + i - 1) % q->cap], *b = &q->v[(q->head + i) % q->cap];
        if (a->at <= b->at)
            break;
        MsItem t = *a;
        *a = *b, *b = t;
    }
    return 0;
}

static const MsItem *q_front(const MsQueue *q)
{
    return q->n ? &q->v[q->head] : NULL;
}

static void q_pop(MsQueue *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

static void ev_push(MemSys *m, Cycle at, MsEvKind kind, unsigned slice, const TmReq *r)
{
    if (!m->nevfree) {
        uint32_t cap = m->evcap ? 2 * m->evcap : 64;
        MsEvent *v = realloc(m->ev, cap * sizeof *v);
        if (v)
            m->ev = v;
        uint32_t *f = v ? realloc(m->evfree, cap * sizeof *f) : NULL;
        if (!f)
            return; /* out of memory: the request is lost and the core reports a deadlock */
        m->evfree = f;
        for (uint32_t i = cap; i > m->evcap; i--)
            m->evfree[m->nevfree++] = i - 1;
        m->evcap = cap;
    }
    uint32_t i = m->evfree[--m->nevfree];
    if (tm_heap_push(&m->evq, at, m->seq++, i) < 0) {
        m->evfree[m->nevfree++] = i;
        return; /* as above */
    }
    m->ev[i] = (MsEvent){at, (uint8_t)kind, (uint16_t)slice, *r};
}

static MsEvent ev_pop(MemSys *m)
{
    uint32_t i = tm_heap_pop(&m->evq).idx;
    m->evfree[m->nevfree++] = i;
    return m->ev[i];
}

/* Line number l's slice among n of one GPU (bits = ceil(log2(n))), by l2.slice_hash. */
static unsigned ms_hash(const MemSys *m, uint64_t l, unsigned n, unsigned bits)
{
    if (m->slice_ix)
        return cache_index_slice(m->slice_ix, l, n);
    if (!m->xor_hash)
        return (unsigned)(l % n);
    return (unsigned)((l ^ l >> bits ^ l >> 2 * bits) % n);
}

/* A NUMA zone's slices: a multiplicative hash, since a zone's lines are any subset. */
static unsigned ms_numa_hash(uint64_t l)
{
    return (unsigned)((l * 0x9E3779B97F4A7C15ull) >> 32);
}

/* The slice a request of GPU gpu for the line at addr goes to. */
static unsigned ms_slice(MemSys *m, unsigned gpu, uint64_t addr)
{
    uint64_t l = addr >> m->line_shift;
    if (m->numa) {
        unsigned z = m->zone->zone(m->zone_state, l << m->line_shift, gpu);
        return z * m->spg + ms_numa_hash(l) % m->spg;
    }
    return gpu * m->spg + ms_hash(m, l, m->spg, m->gslice_bits);
}

/* The line's current bytes in device memory for the transform, or NULL. */
static const uint8_t *ms_line(MemSys *m, uint64_t line)
{
    return m->read && m->read(m->read_ctx, line, m->linebuf, m->line) == 0 ? m->linebuf
                                                                            : NULL;
}

static void chan_changed(MemSys *m, unsigned i);

/* The transform's metadata lives above every data row of its channel. */
#define MS_META_ROW (1ull << 40)

static DramReq ms_meta_req(const MemSys *m, uint64_t meta, int write)
{
    return (DramReq){.line = meta, .row = MS_META_ROW + meta / m->lines_per_row / m->banks,
                     .bank = (unsigned)(meta / m->lines_per_row % m->banks), .sectors = 1,
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

static void slice_changed(MemSys *m, unsigned i);

/* Request d from slice reaches DRAM channel ch at cycle now: it joins the channel's
 * queue, or, when that is full or others already wait, waits in order, and the slice
 * stops looking up until the channel has taken it (ms_chan_accept). */
static void ms_chan_push(MemSys *m, unsigned ch, const DramReq *d, unsigned slice, Cycle now)
{
    MsChan *c = &m->parked[ch];
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

/* Channel ch may have room: the requests waiting for it enter in order. */
static void ms_chan_accept(MemSys *m, unsigned ch, Cycle now)
{
    MsChan *c = &m->parked[ch];
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

/* Request r of slice reaches its DRAM channel at cycle now: the transform (if it keeps
 * metadata) says what it moves and what metadata it needs first. */
static void ms_to_dram(MemSys *m, const TmReq *r, unsigned slice, Cycle now)
{
    uint64_t l = r->line / m->line, local;
    unsigned ch;
    if (m->numa) { /* the zone's own channels */
        unsigned z = slice / m->spg, s = slice % m->spg;
        ch = z * m->cpg + s % m->cpg;
        local = l / m->spg * m->gsub + s / m->cpg;
    } else { /* one GPU, or the memory side every GPU of a shared system sees alike */
        unsigned vs = m->ngpu > 1 ? ms_hash(m, l, m->nslice, m->slice_bits) : slice;
        ch = vs % m->nchan;
        local = l / m->nslice * m->nsub + vs / m->nchan;
    }
    DramChan *c = &m->chan[ch];
    DramReq d = {.line = r->line, .row = local / m->lines_per_row / m->banks,
                 .bank = (unsigned)(local / m->lines_per_row % m->banks),
                 .slice = (uint16_t)slice, .sectors = r->sectors,
                 .write = r->kind == TM_WRITE};
    if (m->map->map)
        m->map->map(m->map_state, r->line, ch, local, &d.bank, &d.row);
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
    if (d.write || wait == TM_XF_NO_META || park(&m->parked[ch], wait, &d) < 0)
        ms_chan_push(m, ch, &d, slice, now); /* (out of host memory: served without waiting) */
    chan_changed(m, ch);
    if (d.write && m->coh->memory) { /* the coherence slot's memory side sees the write */
        Cycle delay = 0;
        TmReq ans = *r;
        ans.meta = m->coh->memory(m->coh_state, c->ctr, slice, r, now, &delay);
        if (r->tag & L2_ANSWER_TAG)
            ev_push(m, now + delay, m->shared ? EV_DOWN : EV_ANSWER, slice, &ans);
    }
}

/* Metadata line meta of channel ch is back: the reads that waited for it go to DRAM. */
static void ms_meta_back(MemSys *m, unsigned ch, uint64_t meta, Cycle now)
{
    MsChan *c = &m->parked[ch];
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
    if ((m->ngpu > 1 || m->peers) && link_init(&m->link, cfg, m->ngpu, m->ctr, err, n) < 0)
        return -1;
    for (unsigned i = 0; i < m->nslice; i++)
        if (l2_init(&m->slice[i].l2, cfg, i, m->ctr, err, n) < 0)
            return -1;
    for (unsigned i = 0; i < m->nchan; i++)
        if (dram_init(&m->chan[i], cfg, m->ctr, err, n) < 0)
            return -1;
    return 0;
}

/* Every unit idle: each subtree's winner is its lowest unit. */
static void units_reset(MemSys *m)
{
    for (unsigned i = 0; i < m->upow; i++)
        m->unext[i] = TM_NEVER, m->uwin[m->upow + i] = (uint16_t)i;
    for (unsigned k = m->upow - 1; k; k--)
        m->uwin[k] = m->uwin[2 * k];
}

/* The stale copies' view of memory (StaleRead): through the device's reader. */
static int ms_stale_read(void *ctx, uint64_t line, uint8_t *buf, unsigned n)
{
    MemSys *m = ctx;
    return m->read ? m->read(m->read_ctx, line, buf, n) : -1;
}

/* StaleHolds: GPU gpu's L2 has valid bytes of line. */
static int ms_holds(void *ctx, unsigned gpu, uint64_t line)
{
    MemSys *m = ctx;
    Cache *c = &m->slice[ms_slice(m, gpu, line)].l2.c;
    CacheLine *l = cache_find(c, line);
    return l && l->valid;
}

/* L2Slice.gone: the slice's GPU no longer holds a stale copy of line. */
static void ms_gone(void *ctx, unsigned slice, uint64_t line)
{
    MemSys *m = ctx;
    stale_drop(m->stale, slice / m->spg, line);
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
    m->ngpu = emu_config_device_gpus(cfg);
    m->smpg = cfg->gpu_sm_count, m->spg = cfg->l2_slices, m->cpg = cfg->dram_channels;
    m->nsm = m->smpg * m->ngpu, m->nslice = m->spg * m->ngpu, m->nchan = m->cpg * m->ngpu;
    m->shared = m->ngpu > 1 && strcmp(cfg->system_memory, "shared") == 0;
    m->numa = m->ngpu > 1 && strcmp(cfg->system_memory, "numa") == 0;
    m->peers = emu_config_devices(cfg) > 1, m->peer_latency = cfg->system_peer_latency;
    m->gsub = (m->spg + m->cpg - 1) / m->cpg;
    while ((1u << m->gslice_bits) < m->spg)
        m->gslice_bits++;
    m->line = cfg->l1_line, m->banks = cfg->dram_banks ? cfg->dram_banks : 1;
    m->slice_queue = cfg->l2_queue;
    m->lines_per_row = cfg->dram_row_bytes / cfg->l1_line;
    m->nsub = (m->nslice + m->nchan - 1) / m->nchan;
    m->xor_hash = strcmp(cfg->l2_slice_hash, "xor") == 0;
    if (strcmp(cfg->l2_slice_hash, "ipoly") == 0)
        m->slice_ix = cache_index_find("ipoly");
    while ((1u << m->slice_bits) < m->nslice)
        m->slice_bits++;
    while ((1u << m->line_shift) < m->line)
        m->line_shift++;
    m->ctr = ctr;
    m->slice = calloc(m->nslice, sizeof *m->slice);
    m->chan = calloc(m->nchan, sizeof *m->chan);
    m->parked = calloc(m->nchan, sizeof *m->parked);
    m->to_sm = calloc(m->nsm, sizeof *m->to_sm);
    m->out = calloc(m->nsm, sizeof *m->out);
    m->recv_head = malloc(m->nsm * sizeof *m->recv_head);
    m->fillbuf = calloc(cfg->l2_mshr_merge ? cfg->l2_mshr_merge : 1, sizeof *m->fillbuf);
    for (m->upow = 1; m->upow < m->nslice + m->nchan; m->upow *= 2)
        ;
    m->unext = malloc(m->upow * sizeof *m->unext);
    m->uwin = malloc(2 * m->upow * sizeof *m->uwin);
    if (!m->slice || !m->chan || !m->parked || !m->to_sm || !m->out || !m->recv_head ||
        !m->fillbuf || !m->unext || !m->uwin) {
        snprintf(err, n, "out of memory");
        memsys_free(m);
        return NULL;
    }
    if (ms_init_units(m, cfg, err, n) < 0) {
        memsys_free(m);
        return NULL;
    }
    if (!(m->coh = tm_coherence_find(cfg->coherence)) ||
        (m->coh->mem_init && !(m->coh_state = m->coh->mem_init(cfg)))) {
        snprintf(err, n, "coherence: %s", m->coh ? "out of host memory" : "unknown policy");
        memsys_free(m);
        return NULL;
    }
    for (unsigned i = 0; i < m->nslice; i++)
        m->slice[i].l2.coh = m->coh, m->slice[i].l2.coh_state = m->coh_state;
    if (m->shared && !(m->stale = stale_new(m->ngpu, m->line, ms_stale_read, ms_holds, m))) {
        snprintf(err, n, "out of host memory");
        memsys_free(m);
        return NULL;
    }
    for (unsigned i = 0; m->stale && i < m->nslice; i++)
        m->slice[i].l2.gone = ms_gone, m->slice[i].l2.gone_ctx = m;
    m->pf_queue = cfg->l2_prefetch_queue;
    if (!(m->pf = tm_l2_prefetch_find(cfg->l2_prefetch)) ||
        (m->pf->init && !(m->pf_state = m->pf->init(cfg)))) {
        snprintf(err, n, "l2.prefetch: %s", m->pf ? "out of host memory" : "unknown prefetcher");
        memsys_free(m);
        return NULL;
    }
    if (!(m->xf = tm_transform_find(cfg->mem_transform))) {
        snprintf(err, n, "mem.transform: unknown transform '%s'", cfg->mem_transform);
        memsys_free(m);
        return NULL;
    }
    if ((m->xf->init && !(m->xf_state = m->xf->init(cfg))) ||
        !(m->linebuf = malloc(m->line))) {
        snprintf(err, n, "mem.transform: out of host memory");
        memsys_free(m);
        return NULL;
    }
    if (!(m->map = tm_mapping_find(cfg->dram_mapping)) ||
        (m->map->init && !(m->map_state = m->map->init(cfg)))) {
        snprintf(err, n, "dram.mapping: %s", m->map ? "out of host memory" : "unknown mapping");
        memsys_free(m);
        return NULL;
    }
    if (m->numa && (!(m->zone = tm_zone_find(cfg->numa_map)) ||
                    (m->zone->init && !(m->zone_state = m->zone->init(cfg))))) {
        snprintf(err, n, "numa.map: %s", m->zone ? "out of host memory" : "unknown mapping");
        memsys_free(m);
        return NULL;
    }
    units_reset(m);
    for (unsigned i = 0; i < m->nsm; i++)
        m->recv_head[i] = TM_NEVER;
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
    if (m->zone && m->zone->bind && m->zone->bind(m->zone_state, v) < 0)
        return -1;
    return m->map->bind && m->map->bind(m->map_state, v) < 0 ? -1 : 0;
}

void memsys_write(MemSys *m, unsigned sm, uint64_t addr, unsigned n, int after)
{
    if (!m->stale)
        return;
    unsigned lost = 0;
    if (after) {
        stale_write_after(m->stale, sm / m->smpg, addr, n);
        return;
    }
    m->ctr->stale_copies += stale_write_before(m->stale, sm / m->smpg, addr, n, &lost);
    m->ctr->stale_lost += lost;
}

/* EmuView.read of an SM of the device (ctx: the memory system, who: the SM). */
/* EmuView.read of an SM of the device (ctx: the memory system, who: the SM): its GPU's
 * stale copy, while the L2 would let a read hit it (the coherence slot's l2_peek) */
static int ms_view_read(const EmuView *v, uint64_t addr, unsigned n, void *out)
{
    MemSys *m = (MemSys *)v->ctx; /* read only: ms_slice of a shared device changes nothing */
    unsigned gpu = v->who / m->smpg, s = ms_slice(m, gpu, addr);
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
            ev_push(m, now, m->shared ? EV_UP : EV_DRAM, i, &wb[k]);
    }
    free(wb);
    m->quiet = 0;
    return 1;
}

int memsys_next_launch(MemSys *m, TmCounters *ctr)
{
    if (!memsys_idle(m))
        return -1;
    for (unsigned i = 0; i < m->nsm; i++)
        m->icnt.sm_inject[i] = m->icnt.sm_eject[i] = 0, m->recv_head[i] = TM_NEVER;
    for (unsigned i = 0; i < m->nslice; i++) {
        MsSlice *s = &m->slice[i];
        m->icnt.slice_inject[i] = m->icnt.slice_eject[i] = 0;
        s->l2.tried = 0;
        l2_next_launch(&s->l2);
        s->free = 0, s->blocked = 0;
    }
    for (unsigned i = 0; i < m->nchan; i++)
        dram_next_launch(&m->chan[i]);
    if (m->ngpu > 1 || m->peers)
        link_next_launch(&m->link);
    memsys_count_into(m, ctr, NULL);
    memsys_count_sms(m, NULL);
    units_reset(m);
    m->quiet = 0, m->seq = 0;
    return 0;
}

void memsys_count_into(MemSys *m, TmCounters *ctr, TmCounters *unit)
{
    m->ctr = ctr, m->icnt.ctr = ctr;
    for (unsigned i = 0; i < m->nslice; i++)
        m->slice[i].l2.ctr = unit ? &unit[i] : ctr;
    for (unsigned i = 0; i < m->nchan; i++)
        m->chan[i].ctr = unit ? &unit[m->nslice + i] : ctr;
    if (m->ngpu > 1 || m->peers)
        link_count_into(&m->link, ctr,
                        unit && m->ngpu > 1 ? unit + m->nslice + m->nchan : NULL);
}

void memsys_count_sms(MemSys *m, TmCounters *sm)
{
    m->sm_ctr = sm;
}

void memsys_set_reader(MemSys *m, TmLineRead read, void *ctx)
{
    m->read = read, m->read_ctx = ctx;
}

void memsys_free(MemSys *m)
{
    if (!m)
        return;
    if (m->xf && m->xf->free)
        m->xf->free(m->xf_state);
    if (m->map && m->map->free)
        m->map->free(m->map_state);
    if (m->zone && m->zone->free)
        m->zone->free(m->zone_state);
    if (m->coh && m->coh->mem_free)
        m->coh->mem_free(m->coh_state);
    stale_free(m->stale);
    link_free(&m->link);
    if (m->pf && m->pf->free)
        m->pf->free(m->pf_state);
    free(m->linebuf);
    for (unsigned i = 0; m->parked && i < m->nchan; i++) {
        free(m->parked[i].v);
        free(m->parked[i].w);
    }
    free(m->parked);
    icnt_free(&m->icnt);
    for (unsigned i = 0; m->slice && i < m->nslice; i++) {
        l2_free(&m->slice[i].l2);
        free(m->slice[i].in.v);
    }
    for (unsigned i = 0; m->chan && i < m->nchan; i++)
        dram_free(&m->chan[i]);
    for (unsigned i = 0; m->to_sm && i < m->nsm; i++)
        free(m->to_sm[i].v);
    for (unsigned i = 0; m->out && i < m->nsm; i++)
        free(m->out[i].v);
    free(m->out);
    free(m->slice);
    free(m->chan);
    free(m->to_sm);
    free(m->recv_head);
    free(m->fillbuf);
    free(m->unext);
    free(m->uwin);
    free(m->ev);
    free(m->evfree);
    tm_heap_free(&m->evq);
    free(m);
}

static Cycle slice_next(const MsSlice *s)
{
    const MsItem *h = q_front(&s->in);
    if (!h || s->blocked || s->dram_wait)
        return TM_NEVER;
    return h->at > s->free ? h->at : s->free;
}

/* Unit i's next time is t: the tree's path from i to the root is replayed. */
static void unit_set(MemSys *m, unsigned i, Cycle t)
{
    m->unext[i] = t;
    for (unsigned k = (m->upow + i) >> 1; k; k >>= 1) {
        unsigned a = m->uwin[2 * k], b = m->uwin[2 * k + 1];
        m->uwin[k] = (uint16_t)(m->unext[b] < m->unext[a] ? b : a);
    }
}

static void slice_changed(MemSys *m, unsigned i)
{
    unit_set(m, i, slice_next(&m->slice[i]));
}

static void chan_changed(MemSys *m, unsigned i)
{
    unit_set(m, m->nslice + i, dram_next(&m->chan[i]));
}

int memsys_room(const MemSys *m, const TmReq *r)
{
    if (m->numa || (m->peers && (r->line & TM_REMOTE_LINE)))
        return 1; /* a zone's mapping may keep state; a peer's line crosses the link */
    unsigned s = m->smpg ? ms_slice((MemSys *)m, r->sm / m->smpg, r->line) : 0;
    return m->slice[s].in.n < m->slice_queue;
}

int memsys_send(MemSys *m, const TmReq *r, Cycle now)
{
    assert(r->sm < m->nsm);
    MsOutbox *o = &m->out[r->sm];
    if (!memsys_room(m, r)) {
        (m->sm_ctr ? &m->sm_ctr[r->sm] : m->ctr)->icnt_slice_full++;
        return -1;
    }
    if (!icnt_can_send(&m->icnt, r->sm, now)) {
        memsys_count_refusals(m, r->sm, 1);
        return -1;
    }
    if (o->n == o->cap) {
        unsigned cap = o->cap ? 2 * o->cap : 16;
        MsItem *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return -1; /* out of host memory: refused, and the core reports a deadlock */
        o->v = v, o->cap = cap;
    }
    o->v[o->n++] = (MsItem){icnt_inject(&m->icnt, r, now), *r};
    return 0;
}

/* Bytes of r on a link as a request (response = 0) or as its response (1): a header, and
 * the data of writes, atomics and reads' responses (as on the crossbar, icnt.c). */
static unsigned ms_link_bytes(const MemSys *m, const TmReq *r, int response)
{
    int data = response ? r->kind != TM_WRITE : r->kind != TM_READ;
    unsigned bytes = r->xbytes ? r->xbytes : tm_nsectors(r->sectors) * m->icnt.sector;
    return link_packet(&m->link, data ? bytes : 0) + (response ? m->coh->stamp_bytes : 0);
}

/* A request for another device's line (peer access): over the device's link, served at
 * the other device system.peer_latency cycles later (not simulated there), and its
 * answer back over the link to the SM; a write is not answered. */
static void ms_remote(MemSys *m, const TmReq *r, Cycle start)
{
    m->ctr->peer_accesses++;
    Cycle at = link_send(&m->link, 0, LINK_MEMORY, ms_link_bytes(m, r, 0),
                         start + m->icnt.latency);
    if (r->kind != TM_WRITE)
        ev_push(m, at + m->peer_latency, EV_REMOTE, 0, r);
}

int memsys_take(MemSys *m, unsigned sm)
{
    MsOutbox *o = &m->out[sm];
    unsigned gpu = sm / m->smpg;
    int ok = 0;
    for (unsigned i = 0; i < o->n; i++) {
        const TmReq *r = &o->v[i].r;
        if (m->peers && (r->line & TM_REMOTE_LINE)) {
            ms_remote(m, r, o->v[i].at);
            m->quiet = 0;
            continue;
        }
        unsigned s = ms_slice(m, gpu, r->line);
        Cycle start = o->v[i].at;
        if (m->numa) { /* another module's slice: over the links */
            unsigned z = s / m->spg;
            TmCounters *c = m->link.ctr[gpu];
            c->numa_local += z == gpu;
            c->numa_remote += z != gpu;
            if (z != gpu)
                start = link_send(&m->link, gpu, z, ms_link_bytes(m, r, 0),
                                  start + m->icnt.latency);
        }
        Cycle at = icnt_to_slice(&m->icnt, r, s, start);
        m->quiet = 0;
        ok |= q_push(&m->slice[s].in, at, r);
        slice_changed(m, s);
    }
    o->n = 0;
    return ok;
}

Cycle memsys_send_at(const MemSys *m, unsigned sm)
{
    return icnt_send_at(&m->icnt, sm);
}

void memsys_count_refusals(MemSys *m, unsigned sm, uint64_t n)
{
    (m->sm_ctr ? &m->sm_ctr[sm] : m->ctr)->icnt_inject_stalls += n;
}

/* Turns the slice's decisions into events (in a shared system what goes to DRAM first
 * crosses the GPU's link). */
static void ms_act(MemSys *m, unsigned slice, const L2Act *act, int n)
{
    MsEvKind mem = m->shared ? EV_UP : EV_DRAM;
    for (int i = 0; i < n; i++)
        ev_push(m, act[i].at, act[i].kind == L2_RESPOND ? EV_RESPOND : mem, slice, &act[i].r);
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
    unsigned s = ms_slice(m, e->gpu, line);
    if (m->slice[s].in.n >= m->pf_queue) {
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
    if (m->pf->observe && r.kind != TM_WRITE && !(r.tag & L2_PREFETCH_TAG)) {
        int miss = 0;
        for (int k = 0; k < n; k++)
            miss |= act[k].kind == L2_DRAM_READ;
        MsEmit e = {m, t, i / m->spg};
        m->pf->observe(m->pf_state, &r, miss, l2pf_emit, &e);
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
            ev_push(m, d.at, EV_META, 0, &r);
        } else {
            Cycle delay = 0;
            if (m->coh->memory) /* the coherence slot's memory side: the fill's meta */
                r.meta = m->coh->memory(m->coh_state, m->chan[i].ctr, d.req.slice, &r, d.at,
                                        &delay);
            ev_push(m, d.at + d.req.delay, m->shared ? EV_DOWN : EV_FILL, d.req.slice, &r);
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

static void ev_step(MemSys *m)
{
    MsEvent e = ev_pop(m);
    if (e.kind == EV_RESPOND) {
        unsigned delay = ms_respond(m, &e.r, e.slice), z = e.slice / m->spg;
        unsigned gpu = e.r.sm / m->smpg;
        Cycle from = e.at;
        if (m->numa && z != gpu) /* across the zone's crossbar, back to the requesting module */
            from = link_send(&m->link, z, gpu, ms_link_bytes(m, &e.r, 1),
                             from + m->icnt.latency);
        Cycle at = icnt_to_sm(&m->icnt, &e.r, e.slice, from) + delay;
        q_push_sorted(&m->to_sm[e.r.sm], at, &e.r);
        const MsItem *h = q_front(&m->to_sm[e.r.sm]);
        m->recv_head[e.r.sm] = h ? h->at : TM_NEVER;
    } else if (e.kind == EV_DRAM) {
        ms_to_dram(m, &e.r, e.slice, e.at);
    } else if (e.kind == EV_UP) {
        Cycle at = link_send(&m->link, e.slice / m->spg, LINK_MEMORY,
                             ms_link_bytes(m, &e.r, 0), e.at);
        ev_push(m, at, EV_DRAM, e.slice, &e.r);
    } else if (e.kind == EV_DOWN) {
        Cycle at = link_send(&m->link, LINK_MEMORY, e.slice / m->spg,
                             ms_link_bytes(m, &e.r, 1), e.at);
        ev_push(m, at, e.r.kind == TM_WRITE ? EV_ANSWER : EV_FILL, e.slice, &e.r);
    } else if (e.kind == EV_REMOTE) {
        Cycle at = link_send(&m->link, LINK_MEMORY, 0, ms_link_bytes(m, &e.r, 1), e.at) +
                   m->icnt.latency;
        q_push_sorted(&m->to_sm[e.r.sm], at, &e.r);
        const MsItem *h = q_front(&m->to_sm[e.r.sm]);
        m->recv_head[e.r.sm] = h ? h->at : TM_NEVER;
    } else if (e.kind == EV_ANSWER) {
        TmReq resp;
        l2_answer(&m->slice[e.slice].l2, &e.r, &resp, e.at);
        ev_push(m, e.at, EV_RESPOND, e.slice, &resp);
    } else if (e.kind == EV_META) {
        ms_meta_back(m, (unsigned)e.r.tag, e.r.line, e.at);
    } else {
        MsSlice *s = &m->slice[e.slice];
        unsigned k = l2_fill_req(&s->l2, &e.r, m->fillbuf, e.at);
        for (unsigned i = 0; i < k; i++)
            if (!(m->fillbuf[i].tag & L2_PREFETCH_TAG)) /* nobody waits for a prefetch */
                ev_push(m, l2_fill_at(&s->l2, i), EV_RESPOND, e.slice, &m->fillbuf[i]);
        if (s->blocked) /* the head retries its lookup now, not when it first failed */
            s->free = s->free > e.at ? s->free : e.at;
        s->blocked = 0;
        slice_changed(m, e.slice);
    }
}

int memsys_tick(MemSys *m, Cycle now)
{
    int lost = 0;
    for (unsigned i = 0; i < m->nsm; i++) /* what memsys_take has not taken yet */
        if (m->out[i].n)
            lost |= memsys_take(m, i) < 0;
    int work = memsys_step(m, now);
    return lost ? -1 : work;
}

int memsys_step(MemSys *m, Cycle now)
{
    int work = 0;
    if (m->quiet > now)
        return 0;
    for (;;) {
        Cycle t = tm_heap_min(&m->evq);
        int unit = -1; /* -1: event; [0, nslice): slice; above: channel */
        if (m->unext[m->uwin[1]] < t)
            t = m->unext[m->uwin[1]], unit = m->uwin[1];
        if (t == TM_NEVER || t > now) {
            m->quiet = t;
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

int memsys_recv(MemSys *m, unsigned sm, TmReq *r, Cycle now)
{
    const MsItem *h = q_front(&m->to_sm[sm]);
    if (!h || h->at > now)
        return 0;
    *r = h->r;
    q_pop(&m->to_sm[sm]);
    h = q_front(&m->to_sm[sm]);
    m->recv_head[sm] = h ? h->at : TM_NEVER;
    return 1;
}

const Cycle *memsys_recv_heads(const MemSys *m)
{
    return m->recv_head;
}

Cycle memsys_next(const MemSys *m, Cycle now)
{
    Cycle t = tm_heap_min(&m->evq);
    t = m->unext[m->uwin[1]] < t ? m->unext[m->uwin[1]] : t;
    for (unsigned i = 0; i < m->nsm; i++) {
        const MsItem *h = q_front(&m->to_sm[i]);
        if (h && h->at < t)
            t = h->at;
    }
    return t == TM_NEVER || t > now ? t : now + 1;
}

int memsys_idle(const MemSys *m)
{
    if (m->evq.n)
        return 0;
    for (unsigned i = 0; i < m->nslice; i++)
        if (m->slice[i].in.n)
            return 0;
    for (unsigned i = 0; i < m->nchan; i++)
        if (!dram_idle(&m->chan[i]) || m->parked[i].wn)
            return 0;
    for (unsigned i = 0; i < m->nsm; i++)
        if (m->to_sm[i].n || m->out[i].n)
            return 0;
    return 1;
}

void memsys_dump(const MemSys *m, FILE *f)
{
    fprintf(f, "memsys: %u events pending%s\n", m->evq.n, m->evq.n ? "" : " (none)");
    if (m->evq.n)
        fprintf(f, "  next event at %llu\n", (unsigned long long)tm_heap_min(&m->evq));
    icnt_dump(&m->icnt, f);
    if (m->ngpu > 1 || m->peers)
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
        if (m->parked[i].n)
            fprintf(f, "  %u reads wait for the transform's metadata\n", m->parked[i].n);
        if (m->parked[i].wn)
            fprintf(f, "  %u requests wait for room in its queues\n", m->parked[i].wn);
    }
    for (unsigned i = 0; i < m->nsm; i++)
        if (m->to_sm[i].n)
            fprintf(f, "sm %u: %u responses waiting\n", i, m->to_sm[i].n);
}

unsigned memsys_slice(MemSys *m, unsigned gpu, uint64_t addr)
{
    return ms_slice(m, gpu, addr);
}
