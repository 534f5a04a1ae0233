/*
 * cache.h - a sectored set-associative tag store with MSHRs, shared by the L1 and the L2
 * slices. It keeps only state (tags, per-sector valid and dirty bits, replacement stamps,
 * misses in flight); the owning unit decides timing and what to send where.
 *
 * A read is planned first (cache_plan: no state changes) and applied afterwards
 * (cache_apply), so a unit can check that it can send the resulting miss before it
 * commits. Invariants: a line with an MSHR is "reserved" and is never chosen as a victim;
 * an MSHR's pending sectors are exactly the sectors requested below and not yet filled;
 * every waiter's sectors are covered by valid or pending sectors of its line.
 */
#ifndef EMU_CACHE_H
#define EMU_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "timing/cache_index.h"
#include "timing/timing.h"

typedef struct CacheLine {
    uint64_t addr;  /* line-aligned address */
    uint64_t stamp; /* replacement order (policy-defined) */
    uint8_t valid;  /* sectors present */
    uint8_t dirty;  /* sectors modified (write-back caches) */
    uint8_t used;   /* the way holds a line (possibly with no valid sector yet) */
    uint8_t mshr;   /* reserved: a miss to it is in flight */
    uint8_t prefetched; /* brought by a prefetch and not yet read by a demand request */
    uint8_t prio;   /* TmPin: evicted after every line of lower priority (pinning) */
    Cycle filled;   /* the cycle its last fill arrived (the coherence slot's lease) */
    uint64_t meta;  /* the coherence slot's word for the line (TmReq.meta of its fill) */
} CacheLine;

typedef struct CacheMshr {
    uint64_t line;    /* line address */
    uint8_t pending;  /* sectors requested and not yet filled */
    uint8_t used;
    uint8_t lineless; /* a bypassing miss: no way holds its line (TM_INSERT_BYPASS) */
    uint8_t got;      /* lineless: the sectors that arrived so far */
    unsigned nwait;
    TmReq *wait;      /* [merge] requests waiting for this line, oldest first */
} CacheMshr;

typedef struct Cache Cache;

/* Replacement policy: chosen by name (cache_init), two hooks. A victim is a free way,
 * else the unreserved way of lowest priority (CacheLine.prio), the policy's order among
 * equals; when every unreserved way is hard-pinned, way 0 (unless it is reserved). */
typedef struct CachePolicy {
    const char *name;
    void (*touch)(Cache *c, CacheLine *l, int hit); /* on a hit (hit=1) or an install */
    CacheLine *(*victim)(Cache *c, CacheLine *set); /* among unreserved ways; NULL if none */
} CachePolicy;

struct Cache {
    unsigned sets, ways, line, sector, nsectors;
    unsigned set_div;  /* set = index(addr / line / set_div, sets); 1 unless the owner
                        * sees only every set_div-th line (an L2 slice) */
    const CacheIndex *index; /* the set-index function (cache_index.h) */
    unsigned mshrs, merge, mshrs_used;
    unsigned lineless; /* MSHRs of bypassing misses in use (cache_plan looks them up) */
    CacheLine *lines; /* [sets * ways] */
    CacheMshr *mshr;  /* [mshrs] */
    TmReq *waitbuf;   /* [mshrs * merge] */
    const CachePolicy *pol;
    uint64_t clock;   /* replacement stamps */
};

typedef enum CacheOutcome {
    CACHE_HIT,   /* every requested sector is valid */
    CACHE_MERGE, /* the missing sectors are all pending: wait on the MSHR */
    CACHE_MISS,  /* fetch plan.fetch (and wait on a new or extended MSHR) */
    CACHE_STALL, /* no MSHR, no merge slot, or every way of the set reserved */
} CacheOutcome;

typedef struct CachePlan {
    CacheOutcome out;
    uint8_t fetch;        /* CACHE_MISS: sectors to request below */
    uint8_t sector_miss;  /* CACHE_MISS on a line that was present */
    CacheLine *line;      /* the line (present, or the victim way to install into); NULL
                           * when a bypassing miss to the line is in flight (mshr) */
    CacheMshr *mshr;      /* the existing MSHR, or NULL (a new one is needed) */
    uint64_t evict;       /* a victim's address when it had dirty sectors ... */
    uint8_t evict_dirty;  /* ... and those sectors (write-back caches write them out) */
    TmInsert insert;      /* set by the owner before cache_apply when the plan installs a
                           * line: where it goes (TM_INSERT_MRU unless set) */
} CachePlan;

/* Whether applying plan p for r installs a new line (the insertion slot decides where). */
static inline int cache_plan_installs(const CachePlan *p, const TmReq *r)
{
    return p->out == CACHE_MISS && !p->mshr && !(p->line->used && p->line->addr == r->line);
}

/* sets*ways*line bytes; replacement policy and set-index function (NULL: linear) by
 * name, errors naming the keys what.policy and what.index; mshrs entries holding merge
 * requests each. */
int cache_init(Cache *c, const char *what, unsigned sets, unsigned ways, unsigned line,
               unsigned sector, const char *policy, const char *index, unsigned mshrs,
               unsigned merge, char *err, size_t n);
void cache_free(Cache *c);
CacheLine *cache_find(Cache *c, uint64_t line);
/* A victim way for line (a free way first), or NULL when every way is reserved. */
CacheLine *cache_victim(Cache *c, uint64_t line);
/* Puts line into way l (which cache_victim returned), with no valid sector. */
void cache_install(Cache *c, CacheLine *l, uint64_t line);
void cache_touch(Cache *c, CacheLine *l);
CacheMshr *cache_mshr_find(Cache *c, uint64_t line);

/* Read of r->sectors of r->line: what would happen (no state change). */
void cache_plan(Cache *c, const TmReq *r, CachePlan *p);
/* Commits a plan made for r just before: hits touch, misses install the line where
 * p->insert says (the caller has already handled p->evict_dirty), allocate or extend the
 * MSHR and queue r on it. A miss that bypasses (TM_INSERT_BYPASS on an absent line)
 * installs nothing and evicts nothing: its MSHR alone holds the miss, later reads of the
 * line merge into it, and the line is gone once its waiters have their data.
 * Returns the MSHR (CACHE_MERGE / CACHE_MISS) or NULL. */
CacheMshr *cache_apply(Cache *c, const TmReq *r, const CachePlan *p);
/* Sectors arrived for MSHR m at cycle now: marks them valid (and the line filled at now),
 * moves the waiters they complete to out (at most max; returns how many), frees the MSHR
 * once nothing is pending. */
unsigned cache_fill(Cache *c, CacheMshr *m, uint8_t sectors, TmReq *out, unsigned max,
                    Cycle now);
/* Drops every line that is not reserved (kernel boundary). */
void cache_invalidate(Cache *c);
/* Clears every line's priority (the pinning timer). */
void cache_unpin(Cache *c);
void cache_dump(const Cache *c, const char *what, FILE *f);

#endif
