/*
 * memsys_int.h - what the parts of the memory system (memsys.h) share, and nothing
 * outside them includes: the MemSys structure, the queues and events that pass requests
 * between the parts, and the few small helpers that several parts call for every
 * request. Each part keeps its state in a structure of its own inside MemSys:
 *   memsys.c       making and freeing it, launch boundaries, where its units count,
 *                  the dump
 *   memsys_loop.c  the time-ordered loop: events, each slice's and channel's next time,
 *                  what a slice's lookup or a channel's completion sets off (MsLoop)
 *   memsys_port.c  the SMs' side: room and injection, the outboxes, the responses
 *                  waiting for their SMs (MsPorts)
 *   memsys_topo.c  the device's shape: which slice serves a line, the GPUs' links, peer
 *                  devices, the stale copies of a shared memory (MsTopo)
 *   memsys_dram.c  a request's way into its DRAM channel: channel, bank and row, the
 *                  transform's metadata, the requests waiting for room (MsDramSide)
 * The helpers below are static inline rather than functions of one part because they
 * run for every request (the slice a line maps to, the queues, the units' next times),
 * where a call across files would cost what one file's inlining saved.
 */
#ifndef EMU_TIMING_MEMSYS_INT_H
#define EMU_TIMING_MEMSYS_INT_H

#include <stdlib.h>
#include "timing/cache_index.h"
#include "timing/dram.h"
#include "timing/heap.h"
#include "timing/icnt.h"
#include "timing/l2.h"
#include "timing/link.h"
#include "timing/memsys.h"
#include "timing/slots.h"
#include "timing/stale.h"

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

/* The device's shape (memsys_topo.c), fixed when the memory system is made: how a line
 * maps to a slice, and the device's GPUs, their SMs, slices and channels per GPU, and
 * how they share memory (shared and numa both 0 with one GPU). */
typedef struct MsTopo {
    unsigned slice_bits, line_shift;
    int xor_hash;
    const CacheIndex *slice_ix; /* l2.slice_hash = ipoly, else NULL */
    unsigned ngpu, smpg, spg, cpg, gslice_bits;
    int shared, numa, peers;
    unsigned peer_latency;
    const TmZoneOps *zone;    /* numa.map */
    void *zone_state;
} MsTopo;

/* The SMs' side (memsys_port.c). */
typedef struct MsPorts {
    unsigned slice_queue; /* l2.queue */
    MsQueue *to_sm;       /* [nsm] responses with their arrival cycle */
    MsOutbox *out;        /* [nsm] requests sent this cycle (memsys_send, memsys_take) */
    Cycle *recv_head;     /* [nsm] arrival cycle of each queue's first response, or TM_NEVER */
    TmCounters *sm_ctr;   /* [nsm] where each SM's injection stalls count, or NULL: ctr */
} MsPorts;

/* The time-ordered loop (memsys_loop.c): pending events, and each slice's and channel's
 * next time with the tournament tree over them. */
typedef struct MsLoop {
    MsEvent *ev;      /* [evcap] pending events' payloads, by the heap's index */
    uint32_t *evfree, nevfree, evcap;
    TmHeap evq;       /* pending events by cycle, then creation order */
    uint64_t seq;
    TmReq *fillbuf;   /* [l2.mshr_merge] */
    Cycle *unext;     /* [upow] next step of each slice, then each channel, then TM_NEVER */
    uint16_t *uwin;   /* [2 upow] tournament tree over unext: uwin[k] (k < upow) is the
                       * unit of k's subtree that acts first, uwin[upow + i] = i */
    unsigned upow;    /* the least power of two >= nslice + nchan */
    const TmL2PrefetchOps *pf; /* l2.prefetch: the lookups it observes are the loop's */
    void *pf_state;
    unsigned pf_queue;        /* l2.prefetch_queue */
    Cycle quiet;      /* no event, slice or channel acts before this cycle; memsys_send,
                       * which queues at a slice, resets it */
} MsLoop;

/* The way into the DRAM channels (memsys_dram.c). */
typedef struct MsDramSide {
    unsigned lines_per_row, banks;
    unsigned nsub, gsub;      /* slices per channel, over the device and per GPU, rounded up */
    const TmMappingOps *map;  /* dram.mapping */
    void *map_state;
    MsChan *parked;           /* [nchan] reads waiting for metadata, requests for room */
    TmLineRead read;          /* the transform's view of device memory, or NULL */
    void *read_ctx;
    uint8_t *linebuf;         /* [line] */
} MsDramSide;

struct MemSys {
    unsigned nsm, nslice, nchan, line;
    MsTopo topo;
    MsPorts port;
    MsLoop loop;
    MsDramSide dram;
    Link link;                /* the GPUs' links; with peers, the device's own (node 0) */
    const TmCoherenceOps *coh; /* coherence: its memory side */
    void *coh_state;
    const TmTransformOps *xf; /* mem.transform */
    void *xf_state;
    Stale *stale;             /* shared: each GPU's stale copies (stale.h), else NULL */
    Icnt icnt;
    MsSlice *slice;
    DramChan *chan;
    TmCounters *ctr;
};

/* --- queues ------------------------------------------------------------------------------ */

static inline int q_push(MsQueue *q, Cycle at, const TmReq *r)
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

static inline const MsItem *q_front(const MsQueue *q)
{
    return q->n ? &q->v[q->head] : NULL;
}

static inline void q_pop(MsQueue *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

/* --- where a line goes (the mapping: memsys_topo.c) --------------------------------------- */

/* Line number l's slice among n of one GPU (bits = ceil(log2(n))), by l2.slice_hash. */
static inline unsigned ms_hash(const MsTopo *t, uint64_t l, unsigned n, unsigned bits)
{
    if (t->slice_ix)
        return cache_index_slice(t->slice_ix, l, n);
    if (!t->xor_hash)
        return (unsigned)(l % n);
    return (unsigned)((l ^ l >> bits ^ l >> 2 * bits) % n);
}

/* A NUMA zone's slices: a multiplicative hash, since a zone's lines are any subset. */
static inline unsigned ms_numa_hash(uint64_t l)
{
    return (unsigned)((l * 0x9E3779B97F4A7C15ull) >> 32);
}

/* The slice a request of GPU gpu for the line at addr goes to (in a NUMA device the zone
 * slot may record the touch). */
static inline unsigned ms_slice(MsTopo *t, unsigned gpu, uint64_t addr)
{
    uint64_t l = addr >> t->line_shift;
    if (t->numa) {
        unsigned z = t->zone->zone(t->zone_state, l << t->line_shift, gpu);
        return z * t->spg + ms_numa_hash(l) % t->spg;
    }
    return gpu * t->spg + ms_hash(t, l, t->spg, t->gslice_bits);
}

/* --- the units' next times (the loop: memsys_loop.c) -------------------------------------- */

static inline Cycle slice_next(const MsSlice *s)
{
    const MsItem *h = q_front(&s->in);
    if (!h || s->blocked || s->dram_wait)
        return TM_NEVER;
    return h->at > s->free ? h->at : s->free;
}

/* Unit i's next time is t: the tree's path from i to the root is replayed. */
static inline void unit_set(MsLoop *p, unsigned i, Cycle t)
{
    p->unext[i] = t;
    for (unsigned k = (p->upow + i) >> 1; k; k >>= 1) {
        unsigned a = p->uwin[2 * k], b = p->uwin[2 * k + 1];
        p->uwin[k] = (uint16_t)(p->unext[b] < p->unext[a] ? b : a);
    }
}

/* Slice i's, or channel i's, next time may have changed. */
static inline void slice_changed(MemSys *m, unsigned i)
{
    unit_set(&m->loop, i, slice_next(&m->slice[i]));
}

static inline void chan_changed(MemSys *m, unsigned i)
{
    unit_set(&m->loop, m->nslice + i, dram_next(&m->chan[i]));
}

/* --- between the parts -------------------------------------------------------------------- */

/* memsys_loop.c */
int ms_loop_init(MemSys *m, const EmuConfig *cfg);
void ms_loop_free(MemSys *m);
/* Every unit idle: each subtree's winner is its lowest unit. */
void ms_units_reset(MsLoop *p);
/* An event at cycle at (out of host memory: the request is lost and the core reports a
 * deadlock). */
void ms_ev_push(MemSys *m, Cycle at, MsEvKind kind, unsigned slice, const TmReq *r);

/* memsys_port.c */
int ms_port_init(MsPorts *p, unsigned nsm, const EmuConfig *cfg);
void ms_port_free(MsPorts *p, unsigned nsm);
/* Response r reaches its SM's queue at cycle at. */
void ms_port_deliver(MsPorts *p, Cycle at, const TmReq *r);

/* memsys_topo.c */
void ms_topo_init(MsTopo *t, const EmuConfig *cfg, unsigned line);
/* Each GPU's stale copies of a shared memory (m->stale), the slices told to drop them:
 * 0, or -1 out of host memory. */
int ms_stale_new(MemSys *m);
/* Bytes of r on a link as a request (response = 0) or as its response (1). */
unsigned ms_link_bytes(const MemSys *m, const TmReq *r, int response);
/* A request for another device's line (peer access), sent at cycle start. */
void ms_remote(MemSys *m, const TmReq *r, Cycle start);

/* memsys_dram.c */
int ms_dram_init(MemSys *m, const EmuConfig *cfg);
void ms_dram_free(MemSys *m);
/* The line's current bytes in device memory for the transform, or NULL. */
const uint8_t *ms_line(MemSys *m, uint64_t line);
/* Request r of slice reaches its DRAM channel at cycle now. */
void ms_to_dram(MemSys *m, const TmReq *r, unsigned slice, Cycle now);
/* Channel ch may have room: the requests waiting for it enter in order. */
void ms_chan_accept(MemSys *m, unsigned ch, Cycle now);
/* Metadata line meta of channel ch is back: the reads that waited for it go to DRAM. */
void ms_meta_back(MemSys *m, unsigned ch, uint64_t meta, Cycle now);

#endif
