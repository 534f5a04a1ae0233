/*
 * l1.c - the L1 data cache of one SM (l1.h).
 *
 * Reads: a hit completes hit_latency cycles after the lookup. A miss sends the sectors
 * that are neither valid nor already pending to L2 and parks the request on the line's
 * MSHR (allocating the line where the insertion slot says: LRU victim among ways with no
 * miss in flight and the lowest priority, or no line when it bypasses); a read whose
 * missing sectors are all pending merges into the MSHR and sends nothing. The insertion
 * policy's pinning timer clears every line's priority each period of the launch. The
 * request completes in the cycle its last sector arrives. Only missing sectors are
 * fetched.
 * Stores: write-through, no write-allocate; a store to a present line keeps it (the
 * written sectors are updated in place, valid ones stay valid) and completes when the
 * memory system accepts it. Atomics are performed at L2: they invalidate a present line
 * (unless a miss to it is in flight) and complete when L2's response arrives.
 * The L1 is not coherent; ldst_flush invalidates it at kernel boundaries, and the
 * coherence slot (coherence) may invalidate a line a read would hit, or the whole L1 at
 * a fence (ldst_invalidate_l1).
 * The texture cache is the same cache with its own geometry (tex.*), latency and counters;
 * it sees only reads, and its misses carry L1_TEX_TAG so that their fills come back to it.
 * So is the constant cache (const.*, L1_CONST_TAG), which sees only const and param
 * reads; its key values are checked here, where it is built, each error naming its key.
 */
#include "timing/l1.h"

#include <stdio.h>
#include <string.h>
#include "timing/slots.h"

static int cache_setup(L1 *l, const char *name, uint64_t bytes, unsigned ways,
                       const EmuConfig *cfg, const char *policy, const char *index,
                       unsigned mshrs, unsigned merge, char *err, size_t n)
{
    uint64_t way_bytes = (uint64_t)cfg->l1_line * ways;
    if (!way_bytes || bytes % way_bytes || bytes / way_bytes == 0) {
        snprintf(err, n, "%s.bytes: %llu is not a multiple of l1.line x %s.ways", name,
                 (unsigned long long)bytes, name);
        return -1;
    }
    return cache_init(&l->c, name, (unsigned)(bytes / way_bytes), ways, cfg->l1_line,
                      cfg->l1_sector, policy, index, mshrs, merge, err, n);
}

int l1_init(L1 *l, const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err, size_t n)
{
    *l = (L1){.sm = sm, .hit_latency = cfg->l1_hit_latency, .ctr = ctr,
              .n = {&ctr->l1_hits, &ctr->l1_misses, &ctr->l1_sector_misses,
                    &ctr->l1_mshr_merges, &ctr->l1_mshr_stalls}};
    if (cache_setup(l, "l1", cfg->l1_bytes, cfg->l1_ways, cfg, cfg->l1_policy, cfg->l1_index,
                    cfg->l1_mshrs, cfg->l1_mshr_merge, err, n) < 0)
        return -1;
    return tm_insertion_open(&l->ins, &l->ins_state, cfg, 1, err, n);
}

int l1_init_tex(L1 *l, const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err,
                size_t n)
{
    *l = (L1){.sm = sm, .hit_latency = cfg->tex_hit_latency, .ctr = ctr,
              .miss_tag = L1_TEX_TAG,
              .n = {&ctr->tex_hits, &ctr->tex_misses, &ctr->tex_sector_misses,
                    &ctr->tex_mshr_merges, &ctr->tex_mshr_stalls}};
    return cache_setup(l, "tex", cfg->tex_bytes, cfg->tex_ways, cfg, cfg->tex_policy,
                       cfg->tex_index, cfg->tex_mshrs, cfg->tex_mshr_merge, err, n);
}

int l1_init_const(L1 *l, const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err,
                  size_t n)
{
    *l = (L1){.sm = sm, .hit_latency = cfg->const_hit_latency, .ctr = ctr,
              .miss_tag = L1_CONST_TAG,
              .n = {&ctr->const_hits, &ctr->const_misses, &ctr->const_sector_misses,
                    &ctr->const_mshr_merges, &ctr->const_mshr_stalls}};
    const struct { const char *key; uint64_t v, max; } r[] = {
        {"const.bytes", cfg->const_bytes, 64u << 20},
        {"const.ways", cfg->const_ways, UINT32_MAX},
        {"const.mshrs", cfg->const_mshrs, 4096},
        {"const.mshr_merge", cfg->const_mshr_merge, 1024},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (r[i].v < 1 || r[i].v > r[i].max) {
            snprintf(err, n, "%s: must be 1..%llu, got %llu", r[i].key,
                     (unsigned long long)r[i].max, (unsigned long long)r[i].v);
            return -1;
        }
    return cache_setup(l, "const", cfg->const_bytes, cfg->const_ways, cfg, cfg->const_policy,
                       cfg->const_index, cfg->const_mshrs, cfg->const_mshr_merge, err, n);
}

void l1_free(L1 *l)
{
    cache_free(&l->c);
    if (l->ins && l->ins->free)
        l->ins->free(l->ins_state);
}

int l1_bind(L1 *l, const TmLaunchView *v)
{
    if (!l->ins)
        return 0;
    if (l->ins->bind && l->ins->bind(l->ins_state, v) < 0)
        return -1;
    l->pin_period = l->ins->period ? l->ins->period(l->ins_state) : 0;
    l->pin_epoch = 0;
    return 0;
}

/* The pinned lines change by delta at cycle now (l1.pinned_line_cycles). */
static void l1_pins(L1 *l, Cycle now, int delta)
{
    l->ctr->l1_pinned_line_cycles += (uint64_t)l->pinned * (now - l->pinned_since);
    l->pinned_since = now;
    l->pinned = (uint32_t)((int)l->pinned + delta);
}

/* The pinning timer: every line's priority is cleared at each multiple of the period. No
 * priority is looked at between lookups, so clearing at the first lookup after it is
 * exact. */
static void l1_pin_timer(L1 *l, Cycle now)
{
    if (!l->pin_period)
        return;
    uint64_t epoch = now / l->pin_period;
    if (epoch == l->pin_epoch)
        return;
    cache_unpin(&l->c);
    l1_pins(l, epoch * l->pin_period, -(int)l->pinned); /* cleared when the period ended */
    l->ctr->l1_pin_clears += epoch - l->pin_epoch;
    l->pin_epoch = epoch;
}

void l1_settle(L1 *l, Cycle upto)
{
    l1_pin_timer(l, upto);
    if (l->pinned && upto > l->pinned_since)
        l1_pins(l, upto, 0);
}

/* A line the plan evicts: one a prefetch brought and nothing read (accuracy), or one with
 * a priority (a pinned line lost; l1.pinned_evictions); and the line it installs with a
 * priority (pinned-line occupancy). */
static void l1_evicting(L1 *l, const CachePlan *p, const TmReq *r, Cycle now)
{
    if (!cache_plan_installs(p, r) || p->insert == TM_INSERT_BYPASS)
        return;
    int gone = p->line->used && p->line->prio;
    int comes = p->insert == TM_INSERT_SOFT_PIN || p->insert == TM_INSERT_HARD_PIN;
    l->ctr->l1_prefetch_evicted += p->line->used && p->line->prefetched;
    l->ctr->l1_pinned_evictions += gone;
    if (gone != comes)
        l1_pins(l, now, comes - gone);
}

/* A line dropped outside replacement (an atomic, the coherence slot). */
static void l1_drop(L1 *l, CacheLine *line, Cycle now)
{
    if (line->prio)
        l1_pins(l, now, -1);
    memset(line, 0, sizeof *line);
}

static L1Result l1_write(L1 *l, const TmReq *r, Cycle now, Cycle *ready)
{
    TmReq w = *r; /* the hold may mark it */
    if (l->hold && memsys_send_at(l->mem, r->sm) > now) { /* refused: not shown to the hold */
        memsys_count_refusals(l->mem, r->sm, 1);
        return L1_BLOCKED;
    }
    if (l->hold && !memsys_room(l->mem, r)) {
        memsys_send(l->mem, &w, now); /* its slice is full: refused and counted there */
        return L1_BLOCKED;
    }
    if ((!l->hold || !l->hold(l->hold_ctx, &w, now)) && memsys_send(l->mem, &w, now) < 0)
        return L1_BLOCKED;
    l->ctr->l1_writes++;
    *ready = now;
    return L1_DONE;
}

static L1Result l1_atomic(L1 *l, const TmReq *r, Cycle now)
{
    TmReq a = *r;
    a.tag = L1_ATOMIC_TAG | r->tag;
    if (memsys_send(l->mem, &a, now) < 0)
        return L1_BLOCKED;
    CacheLine *line = cache_find(&l->c, r->line);
    l1_pin_timer(l, now);
    if (line && !line->mshr)
        l1_drop(l, line, now);
    l->ctr->l1_atomics++;
    return L1_WAIT;
}

/* The coherence slot may invalidate a line a read would hit. */
static void l1_coherence(L1 *l, const TmReq *r, Cycle now)
{
    CacheLine *line = cache_find(&l->c, r->line);
    if (line && !line->mshr && !(r->sectors & ~line->valid) &&
        !l->coh->l1_read(l->coh_state, l->sm, r->line, line->meta, line->filled, now)) {
        l1_drop(l, line, now);
        l->ctr->l1_coherence_invalidations++;
    }
}

static L1Result l1_read(L1 *l, const TmReq *r, Cycle now, int first, Cycle *ready)
{
    CachePlan p;
    l1_pin_timer(l, now); /* first: every change of the pinned lines comes after it */
    if (l->coh && l->coh->l1_read)
        l1_coherence(l, r, now);
    cache_plan(&l->c, r, &p);
    if (p.out == CACHE_STALL) {
        *l->n.mshr_stalls += first != 0;
        return L1_STALL;
    }
    if (p.out == CACHE_MISS) {
        TmReq miss = {.line = r->line, .sectors = p.fetch, .kind = TM_READ,
                      .sm = (uint16_t)l->sm, .warp = r->warp, .pc = r->pc, .atom = r->atom,
                      .desc = r->desc, .tag = l->miss_tag, .issued = now};
        if (memsys_send(l->mem, &miss, now) < 0)
            return L1_BLOCKED;
        ++*l->n.misses;
        *l->n.sector_misses += p.sector_miss;
        if (l->ins && l->ins->place && cache_plan_installs(&p, r)) {
            p.insert = l->ins->place(l->ins_state, r);
            l->ctr->l1_insert_lru += p.insert == TM_INSERT_LRU;
            l->ctr->l1_bypasses += p.insert == TM_INSERT_BYPASS;
            l->ctr->l1_pins_soft += p.insert == TM_INSERT_SOFT_PIN;
            l->ctr->l1_pins_hard += p.insert == TM_INSERT_HARD_PIN;
        }
        l1_evicting(l, &p, r, now);
    }
    if (p.line && p.line->prefetched && p.out != CACHE_MISS) { /* a prefetch's first use */
        p.line->prefetched = 0;
        l->ctr->l1_prefetch_hits += p.out == CACHE_HIT;
        l->ctr->l1_prefetch_late += p.out == CACHE_MERGE;
    }
    cache_apply(&l->c, r, &p);
    if (p.out == CACHE_HIT) {
        ++*l->n.hits;
        *ready = now + l->hit_latency;
        return L1_DONE;
    }
    *l->n.mshr_merges += p.out == CACHE_MERGE;
    return p.out == CACHE_MISS ? L1_MISS : L1_WAIT;
}

L1Prefetch l1_prefetch(L1 *l, uint64_t line, Cycle now)
{
    TmReq r = {.line = line, .sectors = (uint8_t)((1u << l->c.nsectors) - 1),
               .kind = TM_READ, .sm = (uint16_t)l->sm, .atom = TM_NO_ATOM,
               .tag = L1_PREFETCH_TAG, .issued = now};
    CachePlan p;
    l1_pin_timer(l, now);
    cache_plan(&l->c, &r, &p);
    if (p.out == CACHE_STALL)
        return L1_PF_DROPPED;
    if (p.out != CACHE_MISS || !p.line) /* !line: a bypassing miss would not keep it */
        return L1_PF_REDUNDANT;
    TmReq miss = {.line = line, .sectors = p.fetch, .kind = TM_READ, .sm = (uint16_t)l->sm,
                  .atom = TM_NO_ATOM, .tag = l->miss_tag, .issued = now};
    if (memsys_send(l->mem, &miss, now) < 0)
        return L1_PF_BLOCKED;
    l1_evicting(l, &p, &r, now);
    cache_apply(&l->c, &r, &p);
    p.line->prefetched = 1;
    l->ctr->l1_prefetches++;
    return L1_PF_SENT;
}

L1Result l1_access(L1 *l, const TmReq *r, Cycle now, int first, Cycle *ready)
{
    switch (r->kind) {
    case TM_WRITE: return l1_write(l, r, now, ready);
    case TM_ATOMIC: return l1_atomic(l, r, now);
    default: return l1_read(l, r, now, first, ready);
    }
}

unsigned l1_fill(L1 *l, const TmReq *resp, TmReq *out, Cycle now)
{
    if (resp->tag & L1_ATOMIC_TAG) {
        out[0] = *resp;
        out[0].tag &= ~L1_ATOMIC_TAG;
        return 1;
    }
    uint64_t meta = l->coh && l->coh->l1_fill ? l->coh->l1_fill(l->coh_state, l->sm, resp, now)
                                              : 0;
    if (resp->kind == TM_WRITE) { /* a written-through write's answer (write_through) */
        CacheLine *line = cache_find(&l->c, resp->line);
        if (line)
            line->meta = meta;
        return 0;
    }
    CacheMshr *m = cache_mshr_find(&l->c, resp->line);
    if (!m)
        return 0; /* not ours: cannot happen, the memory system answers each request once */
    CacheLine *line = m->lineless ? NULL : cache_find(&l->c, resp->line);
    if (line)
        line->meta = meta;
    return cache_fill(&l->c, m, resp->sectors, out, l->c.merge, now);
}
