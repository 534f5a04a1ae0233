/*
 * l2.c - an L2 slice (l2.h).
 *
 * Reads and atomics: a hit responds l2.latency cycles after the lookup; a miss allocates
 * the line (LRU victim among ways with no miss in flight; a victim with dirty sectors is
 * written back to DRAM at once, counted in l2.writebacks), takes an MSHR and asks DRAM,
 * l2.latency cycles after the lookup, for the sectors that are neither valid nor pending;
 * a read whose missing sectors are all pending merges. Requests waiting on an MSHR are
 * answered in the cycle their sectors come back from DRAM. Atomics are performed here:
 * they mark their sectors dirty. A read the insertion slot bypasses evicts nothing (its
 * MSHR alone holds it); an atomic or a write to its line waits until it is answered.
 * Writes: write-back, write-allocate, no fetch: the written sectors become valid and
 * dirty (a partial-sector write is treated as covering its sector; the functional model
 * holds the data). Writes are not answered.
 * Atomics are performed in the slice's atomic unit, one line request after another in
 * the order they are looked up (a hit) or filled (a miss), each starting when the unit
 * is free: a request with at most s lanes on one address and n lanes in all (CoalAtomic,
 * counted by the coalescer) holds the unit
 *     busy = max(s x l2.atomic_latency, ceil(n / l2.atomic_per_cycle))
 * cycles, since operations on one address are performed one after the other, each
 * l2.atomic_latency after the one before, and the unit performs at most
 * l2.atomic_per_cycle operations a cycle. l2.latency covers a lone operation (busy =
 * lone), so a hit is answered at start + busy - lone + l2.latency (start: the lookup, or
 * the cycle the unit frees), a filled atomic at start + busy - lone (start: the fill, or
 * later). Reads and writes do not wait for the unit; the lookups go on.
 * l2.atomic_latency = 0 leaves operations on one address unserialized and
 * l2.atomic_per_cycle = 0 the unit's throughput unlimited; both 0: an atomic costs what a
 * read does.
 * Addresses are global line addresses; the set index skips the slice-selection bits
 * (cache set_div = l2.slices).
 * The coherence slot's memory side (slots.h) may refuse a read hit (the line's sectors
 * are dropped, its way kept, and the read misses: l2.coherence_invalidations), gives
 * every filled line its meta and hears of every valid line replaced. With its
 * write_through, writes (and atomics) leave no dirty line: each is written through to
 * memory, a write with L2_ANSWER_TAG, whose answer (l2_answer) goes on to the SM.
 */
#include "timing/l2.h"

#include <stdio.h>
#include <stdlib.h>
#include "timing/coalescer.h"
#include "timing/slots.h"

int l2_init(L2Slice *s, const EmuConfig *cfg, unsigned id, TmCounters *ctr, char *err,
            size_t n)
{
    s->id = id, s->latency = cfg->l2_latency, s->ctr = ctr, s->tried = 0;
    s->atom_latency = cfg->l2_atomic_latency, s->atom_per_cycle = cfg->l2_atomic_per_cycle;
    s->atom_free = s->atom_last = 0;
    if (!(s->fill_at = calloc(cfg->l2_mshr_merge ? cfg->l2_mshr_merge : 1,
                              sizeof *s->fill_at))) {
        snprintf(err, n, "l2 slice %u: out of memory", id);
        return -1;
    }
    if (cache_init(&s->c, "l2", cfg->l2_sets, cfg->l2_ways, cfg->l1_line, cfg->l1_sector,
                   cfg->l2_policy, cfg->l2_index, cfg->l2_mshrs, cfg->l2_mshr_merge, err,
                   n) < 0)
        return -1;
    s->c.set_div = cfg->l2_slices;
    return tm_insertion_open(&s->ins, &s->ins_state, cfg, 2, err, n);
}

void l2_free(L2Slice *s)
{
    free(s->fill_at);
    s->fill_at = NULL;
    cache_free(&s->c);
    if (s->ins && s->ins->free)
        s->ins->free(s->ins_state);
}

static L2Act writeback(uint64_t line, uint8_t dirty, Cycle at)
{
    return (L2Act){.kind = L2_DRAM_WRITE, .at = at,
                   .r = {.line = line, .sectors = dirty, .kind = TM_WRITE}};
}

static void l2_gone(L2Slice *s, uint64_t line)
{
    if (s->gone)
        s->gone(s->gone_ctx, s->id, line);
}

/* The coherence slot hears of the valid line l the slice replaces with line by. */
static void l2_replaced(L2Slice *s, const CacheLine *l, uint64_t by, Cycle t)
{
    if (!l->used || !l->valid || l->addr == by)
        return;
    if (s->coh && s->coh->l2_evict)
        s->coh->l2_evict(s->coh_state, s->ctr, s->id, l->addr, l->meta, t);
    l2_gone(s, l->addr);
}

/* Performs atomic r in the atomic unit, which it reaches at cycle t: returns how much
 * later than a lone operation its operations are done. */
static Cycle l2_atomic(L2Slice *s, const TmReq *r, Cycle t)
{
    CoalAtomic c = coal_atomic_ops(r);
    if (t < s->atom_last)
        s->atom_free = 0; /* the clock went back: a new launch (l2_next_launch) */
    s->atom_last = t;
    Cycle start = t > s->atom_free ? t : s->atom_free;
    Cycle serial = (Cycle)c.serial * s->atom_latency;
    Cycle per = s->atom_per_cycle;
    Cycle thru = per ? (c.lanes + per - 1) / per : 0;
    Cycle busy = serial > thru ? serial : thru;
    s->atom_free = start + busy;
    Cycle lone = s->atom_latency || !s->atom_per_cycle ? s->atom_latency : 1;
    return start + busy - lone - t;
}

void l2_next_launch(L2Slice *s)
{
    s->atom_free = s->atom_last = 0;
}

static int l2_through(const L2Slice *s)
{
    return s->coh && s->coh->write_through;
}

static int l2_write(L2Slice *s, const TmReq *r, Cycle t, L2Act *act)
{
    int n = 0;
    CacheLine *l = cache_find(&s->c, r->line);
    if (!l && s->c.lineless && cache_mshr_find(&s->c, r->line))
        return -1; /* a bypassing read of the line is in flight: allocate after it */
    if (l) {
        cache_touch(&s->c, l);
    } else {
        l = cache_victim(&s->c, r->line);
        if (!l)
            return -1;
        if (l->used && l->dirty) {
            act[n++] = writeback(l->addr, l->dirty, t);
            s->ctr->l2_writebacks++;
        }
        l2_replaced(s, l, r->line, t);
        cache_install(&s->c, l, r->line);
    }
    l->valid |= r->sectors;
    s->ctr->l2_writes++;
    if (!l2_through(s)) {
        l->dirty |= r->sectors;
        return n;
    }
    TmReq w = *r;
    w.tag |= L2_ANSWER_TAG;
    act[n++] = (L2Act){.kind = L2_DRAM_WRITE, .at = t + s->latency, .r = w};
    return n;
}

/* The coherence slot may refuse a read hit: the line's sectors go (its way stays), and
 * the read misses. */
static void l2_coherence(L2Slice *s, const TmReq *r, Cycle t)
{
    CacheLine *l = cache_find(&s->c, r->line);
    if (l && !l->mshr && !l->dirty && l->valid && !(r->sectors & ~l->valid) &&
        !s->coh->l2_read(s->coh_state, s->ctr, s->id, l->meta, t)) {
        l->valid = 0;
        s->ctr->l2_coherence_invalidations++;
        l2_gone(s, l->addr);
    }
}

/* A prefetch (L2_PREFETCH_TAG): fetches the line when it is neither present nor on its
 * way, else is dropped; never blocks the slice and is never answered. */
static int l2_prefetch(L2Slice *s, const TmReq *r, Cycle t, L2Act *act)
{
    CachePlan p;
    int n = 0;
    cache_plan(&s->c, r, &p);
    if (p.out != CACHE_MISS || !p.line) { /* !line: a bypassing miss would not keep it */
        s->ctr->l2_prefetch_dropped += p.out == CACHE_STALL;
        s->ctr->l2_prefetch_redundant += p.out != CACHE_STALL;
        return 0;
    }
    if (p.evict_dirty) {
        act[n++] = writeback(p.evict, p.evict_dirty, t);
        s->ctr->l2_writebacks++;
    }
    l2_replaced(s, p.line, r->line, t);
    cache_apply(&s->c, r, &p);
    p.line->prefetched = 1;
    s->ctr->l2_prefetches++;
    act[n++] = (L2Act){.kind = L2_DRAM_READ, .at = t + s->latency,
                       .r = {.line = r->line, .sectors = p.fetch, .kind = TM_READ}};
    return n;
}

static int l2_read(L2Slice *s, const TmReq *r, Cycle t, L2Act *act)
{
    CachePlan p;
    int n = 0;
    if (s->coh && s->coh->l2_read && r->kind == TM_READ)
        l2_coherence(s, r, t);
    cache_plan(&s->c, r, &p);
    if (p.out == CACHE_STALL || (r->kind == TM_ATOMIC && !p.line))
        return -1; /* an atomic waits for a bypassing read of its line to finish */
    if (p.out != CACHE_MISS && p.line && p.line->prefetched) { /* a prefetch's first use */
        p.line->prefetched = 0;
        s->ctr->l2_prefetch_hits += p.out == CACHE_HIT;
    }
    if (s->ins->place && cache_plan_installs(&p, r)) {
        p.insert = s->ins->place(s->ins_state, r);
        if (p.insert == TM_INSERT_BYPASS && r->kind == TM_ATOMIC)
            p.insert = TM_INSERT_MRU; /* an atomic's line is written: it stays */
        s->ctr->l2_insert_lru += p.insert == TM_INSERT_LRU;
        s->ctr->l2_bypasses += p.insert == TM_INSERT_BYPASS;
        s->ctr->l2_pins_soft += p.insert == TM_INSERT_SOFT_PIN;
    }
    if (p.evict_dirty && p.insert != TM_INSERT_BYPASS) {
        act[n++] = writeback(p.evict, p.evict_dirty, t);
        s->ctr->l2_writebacks++;
    }
    if (cache_plan_installs(&p, r) && p.insert != TM_INSERT_BYPASS)
        l2_replaced(s, p.line, r->line, t);
    cache_apply(&s->c, r, &p);
    if (s->obs && r->kind == TM_READ)
        s->obs->outcome(s->obs_state, r, 2,
                        p.out == CACHE_HIT ? TM_OUT_HIT : p.out == CACHE_MISS ? TM_OUT_MISS
                                                                              : TM_OUT_MERGE);
    /* a hit's atomic is performed now; a miss's when its line comes (l2_fill_req) */
    Cycle done = r->kind == TM_ATOMIC && p.out == CACHE_HIT ? l2_atomic(s, r, t) : 0;
    if (r->kind == TM_ATOMIC && !l2_through(s)) {
        p.line->dirty |= r->sectors;
    } else if (r->kind == TM_ATOMIC) { /* its write goes through, unanswered */
        act[n++] = (L2Act){.kind = L2_DRAM_WRITE, .at = t + done + s->latency,
                           .r = {.line = r->line, .sectors = r->sectors, .kind = TM_WRITE,
                                 .sm = r->sm}};
    }
    if (p.out == CACHE_HIT) {
        s->ctr->l2_hits++;
        act[n] = (L2Act){.kind = L2_RESPOND, .at = t + done + s->latency, .r = *r};
        act[n++].r.meta = p.line->meta;
    } else if (p.out == CACHE_MISS) {
        s->ctr->l2_misses++;
        act[n++] = (L2Act){.kind = L2_DRAM_READ, .at = t + s->latency,
                           .r = {.line = r->line, .sectors = p.fetch, .kind = TM_READ}};
    } else {
        s->ctr->l2_mshr_merges++;
    }
    return n;
}

int l2_access(L2Slice *s, const TmReq *r, Cycle t, L2Act *act)
{
    if (r->tag & L2_PREFETCH_TAG)
        return l2_prefetch(s, r, t, act);
    int n = r->kind == TM_WRITE ? l2_write(s, r, t, act) : l2_read(s, r, t, act);
    if (n < 0) {
        s->ctr->l2_mshr_stalls += !s->tried;
        s->tried = 1;
    } else {
        s->tried = 0;
    }
    return n;
}

unsigned l2_fill(L2Slice *s, uint64_t line, uint8_t sectors, TmReq *out, Cycle now)
{
    return l2_fill_req(s, &(TmReq){.line = line, .sectors = sectors, .kind = TM_READ}, out,
                       now);
}

unsigned l2_fill_req(L2Slice *s, const TmReq *r, TmReq *out, Cycle now)
{
    CacheMshr *m = cache_mshr_find(&s->c, r->line);
    if (!m)
        return 0;
    uint64_t meta = s->coh && s->coh->l2_fill ? s->coh->l2_fill(s->coh_state, s->ctr, s->id,
                                                                r, now)
                                              : 0;
    CacheLine *l = m->lineless ? NULL : cache_find(&s->c, r->line);
    if (l)
        l->meta = meta;
    l2_gone(s, r->line);
    unsigned k = cache_fill(&s->c, m, r->sectors, out, s->c.merge, now);
    for (unsigned i = 0; i < k; i++) {
        s->fill_at[i] = now + (out[i].kind == TM_ATOMIC ? l2_atomic(s, &out[i], now) : 0);
        out[i].meta = meta;
    }
    return k;
}

Cycle l2_fill_at(const L2Slice *s, unsigned i)
{
    return s->fill_at[i];
}

void l2_answer(L2Slice *s, const TmReq *r, TmReq *resp, Cycle now)
{
    uint64_t meta = s->coh && s->coh->l2_fill ? s->coh->l2_fill(s->coh_state, s->ctr, s->id,
                                                                r, now)
                                              : 0;
    CacheLine *l = cache_find(&s->c, r->line);
    if (l && !l->mshr)
        l->meta = meta;
    *resp = *r;
    resp->tag &= ~L2_ANSWER_TAG;
    resp->meta = meta;
}

unsigned l2_flush(L2Slice *s, TmReq *wb)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->c.sets * s->c.ways; i++) {
        CacheLine *l = &s->c.lines[i];
        if (l->used && l->dirty && !l->mshr) {
            wb[n++] = (TmReq){.line = l->addr, .sectors = l->dirty, .kind = TM_WRITE};
            s->ctr->l2_writebacks++;
        }
    }
    cache_invalidate(&s->c);
    l2_gone(s, UINT64_MAX);
    return n;
}

void l2_dump(const L2Slice *s, FILE *f)
{
    char what[32];
    snprintf(what, sizeof what, "l2 slice %u", s->id);
    cache_dump(&s->c, what, f);
}
