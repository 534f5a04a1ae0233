/*
 * l1.h - one SM's L1 data cache: sectored, LRU (by default), write-through with no
 * write-allocate, MSHRs with merging; the same type is the SM's texture cache (reads
 * only, docs/textures.md) and its constant cache (const and param reads only). It looks
 * up one line request at a time; the LD/ST
 * unit (ldst.c) owns the queue of requests, the per-cycle port budget and the warp-level
 * bookkeeping.
 */
#ifndef EMU_L1_H
#define EMU_L1_H

#include "config/config.h"
#include "timing/cache.h"
#include "timing/memsys.h"
#include "timing/timing.h"

/* The counters one cache of an SM advances (the L1's, the texture or the constant cache's). */
typedef struct L1Counters {
    uint64_t *hits, *misses, *sector_misses, *mshr_merges, *mshr_stalls;
} L1Counters;

typedef struct L1 {
    Cache c;
    unsigned sm, hit_latency;
    uint64_t miss_tag;  /* carried by this cache's misses, so ldst.c routes the fills */
    MemSys *mem;
    TmCounters *ctr;
    L1Counters n;
    const struct TmInsertionOps *ins; /* l1.insertion; NULL: the baseline (texture cache) */
    void *ins_state;
    Cycle pin_period;   /* the insertion policy's pinning timer (0: none) */
    uint64_t pin_epoch; /* periods of it passed when the priorities were last cleared */
    uint32_t pinned;    /* lines with a priority now (l1.pinned_line_cycles) */
    Cycle pinned_since; /* ... since this cycle */
    const struct TmCoherenceOps *coh; /* asked at read hits (ldst_coherence), or NULL */
    void *coh_state;
    /* sees each write before it is sent, and 1 keeps it: the store is done for the warp
     * and whoever kept it sends it (ldst_assist); NULL: every write is sent */
    int (*hold)(void *ctx, TmReq *r, Cycle now);
    void *hold_ctx;
} L1;

typedef enum L1Result {
    L1_DONE,    /* complete at *ready (hits: now + hit latency; stores: now) */
    L1_WAIT,    /* a fill will complete it (l1_fill hands r back) */
    L1_MISS,    /* as L1_WAIT, and it sent sectors to L2 (a read miss) */
    L1_STALL,   /* no MSHR / merge slot / way: retry after a fill */
    L1_BLOCKED, /* the memory system refused the request this cycle: retry next cycle */
} L1Result;

/* The tag of an atomic's request to L2 carries this bit (reads are matched by line); a
 * texture cache's misses carry L1_TEX_TAG, a constant cache's L1_CONST_TAG (a bit the L2
 * does not use: L2_PREFETCH_TAG and L2_ANSWER_TAG are bits 60 and 59). */
#define L1_ATOMIC_TAG (1ull << 63)
#define L1_TEX_TAG (1ull << 62)
#define L1_CONST_TAG (1ull << 58)
/* A prefetch's place on its MSHR carries this tag: no access waits for it. */
#define L1_PREFETCH_TAG (1ull << 61)

int l1_init(L1 *l, const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err, size_t n);
/* The texture cache of SM sm (tex.*): read-only, the L1's line and sector sizes; it takes
 * only reads. */
int l1_init_tex(L1 *l, const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err,
                size_t n);
/* The constant cache of SM sm (const.*): read-only, the L1's line and sector sizes; it
 * takes only const and param reads. */
int l1_init_const(L1 *l, const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err,
                  size_t n);
void l1_free(L1 *l);
/* Gives the insertion policy its launch (TmLaunchView) and starts its pinning timer: 0, or
 * -1 out of host memory. */
struct TmLaunchView;
int l1_bind(L1 *l, const struct TmLaunchView *v);
/* Accounts the pinned lines' cycles up to cycle upto (exclusive) before the counters are
 * read. */
void l1_settle(L1 *l, Cycle upto);
/* Looks up request r (r->tag: the requester's id, returned by l1_fill) at cycle now.
 * first: the first attempt for r (stall statistics count once per request). */
L1Result l1_access(L1 *l, const TmReq *r, Cycle now, int first, Cycle *ready);
/* What a prefetch of a whole line did at its lookup. */
typedef enum L1Prefetch {
    L1_PF_SENT,      /* a miss went to L2 */
    L1_PF_REDUNDANT, /* every sector present or pending: nothing to do */
    L1_PF_DROPPED,   /* no MSHR, merge slot or way */
    L1_PF_BLOCKED,   /* the memory system refused it this cycle: retry */
} L1Prefetch;
L1Prefetch l1_prefetch(L1 *l, uint64_t line, Cycle now);
/* A response arrived: fills the line; copies the completed requests to out (at most
 * l->c.merge) and returns how many. Atomics' responses are returned as they are. */
unsigned l1_fill(L1 *l, const TmReq *resp, TmReq *out, Cycle now);

#endif
