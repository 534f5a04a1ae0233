/*
 * cache.c - the sectored tag store and MSHR table behind the L1 and the L2 slices
 * (cache.h). Replacement policies are a small table chosen by name: "lru" restamps a
 * line on every hit, "fifo" only when it is installed; both evict the smallest stamp
 * among the unreserved ways of the lowest priority, after any unused way. Set index: a
 * function chosen by name (cache_index.c: linear, xor, fermi, ipoly) of the line number
 * line / line size / set_div, where an L2 slice sets set_div to the number of slices.
 */
#include "timing/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void touch_lru(Cache *c, CacheLine *l, int hit)
{
    l->stamp = ++c->clock;
}

static void touch_fifo(Cache *c, CacheLine *l, int hit)
{
    if (!hit)
        l->stamp = ++c->clock;
}

static CacheLine *victim_oldest(Cache *c, CacheLine *set)
{
    CacheLine *best = NULL;
    for (unsigned w = 0; w < c->ways; w++) {
        CacheLine *l = &set[w];
        if (l->mshr)
            continue;
        if (!l->used)
            return l;
        if (!best || l->prio < best->prio || (l->prio == best->prio && l->stamp < best->stamp))
            best = l;
    }
    if (best && best->prio == TM_PIN_HARD && !set[0].mshr)
        return &set[0]; /* the whole set is pinned: a fixed way goes */
    return best;
}

static const CachePolicy cache_policies[] = {
    /* name    touch       victim */
    {"lru",    touch_lru,  victim_oldest},
    {"fifo",   touch_fifo, victim_oldest},
};

static int is_pow2(unsigned v)
{
    return v && !(v & (v - 1));
}

static const CachePolicy *policy_find(const char *name)
{
    for (size_t i = 0; i < sizeof cache_policies / sizeof cache_policies[0]; i++)
        if (strcmp(cache_policies[i].name, name) == 0)
            return &cache_policies[i];
    return NULL;
}

int cache_init(Cache *c, const char *what, unsigned sets, unsigned ways, unsigned line,
               unsigned sector, const char *policy, const char *index, unsigned mshrs,
               unsigned merge, char *err, size_t n)
{
    memset(c, 0, sizeof *c);
    if (!sets || !ways || !mshrs || !merge) {
        snprintf(err, n, "%s: sets, ways, mshrs and mshr_merge must be positive", what);
        return -1;
    }
    if (!is_pow2(line) || !is_pow2(sector) || sector > line || line / sector > 8) {
        snprintf(err, n, "%s: line and sector must be powers of two with at most 8 sectors "
                 "per line", what);
        return -1;
    }
    c->pol = policy_find(policy);
    if (!c->pol) {
        snprintf(err, n, "%s.policy: unknown replacement policy '%s' (lru, fifo)", what, policy);
        return -1;
    }
    char key[64];
    snprintf(key, sizeof key, "%s.index", what);
    c->index = cache_index_open(key, what, index ? index : "linear", sets, err, n);
    if (!c->index)
        return -1;
    c->set_div = 1;
    c->sets = sets, c->ways = ways, c->line = line, c->sector = sector;
    c->nsectors = line / sector, c->mshrs = mshrs, c->merge = merge;
    c->lines = calloc((size_t)sets * ways, sizeof *c->lines);
    c->mshr = calloc(mshrs, sizeof *c->mshr);
    c->waitbuf = calloc((size_t)mshrs * merge, sizeof *c->waitbuf);
    if (!c->lines || !c->mshr || !c->waitbuf) {
        cache_free(c);
        snprintf(err, n, "%s: out of memory", what);
        return -1;
    }
    for (unsigned i = 0; i < mshrs; i++)
        c->mshr[i].wait = &c->waitbuf[(size_t)i * merge];
    return 0;
}

void cache_free(Cache *c)
{
    free(c->lines);
    free(c->mshr);
    free(c->waitbuf);
    c->lines = NULL, c->mshr = NULL, c->waitbuf = NULL;
}

/* index(line / line size / set_div, sets), dividing by shifts for powers of two. */
static CacheLine *set_of(Cache *c, uint64_t line)
{
    uint64_t l = line >> __builtin_ctz(c->line); /* a power of two (cache_init) */
    unsigned d = c->set_div;
    if (d > 1)
        l = d & (d - 1) ? l / d : l >> __builtin_ctz(d);
    return &c->lines[(size_t)c->index->set(l, c->sets) * c->ways];
}

CacheLine *cache_find(Cache *c, uint64_t line)
{
    CacheLine *set = set_of(c, line);
    for (unsigned w = 0; w < c->ways; w++)
        if (set[w].used && set[w].addr == line)
            return &set[w];
    return NULL;
}

CacheLine *cache_victim(Cache *c, uint64_t line)
{
    return c->pol->victim(c, set_of(c, line));
}

void cache_install(Cache *c, CacheLine *l, uint64_t line)
{
    l->addr = line, l->valid = 0, l->dirty = 0, l->used = 1, l->mshr = 0, l->prefetched = 0;
    l->prio = TM_PIN_NONE;
    c->pol->touch(c, l, 0);
}

void cache_touch(Cache *c, CacheLine *l)
{
    c->pol->touch(c, l, 1);
}

CacheMshr *cache_mshr_find(Cache *c, uint64_t line)
{
    if (!c->mshrs_used)
        return NULL;
    for (unsigned i = 0; i < c->mshrs; i++)
        if (c->mshr[i].used && c->mshr[i].line == line)
            return &c->mshr[i];
    return NULL;
}

static CacheMshr *mshr_alloc(Cache *c, uint64_t line)
{
    for (unsigned i = 0; i < c->mshrs; i++)
        if (!c->mshr[i].used) {
            CacheMshr *m = &c->mshr[i];
            m->line = line, m->pending = 0, m->used = 1, m->nwait = 0, m->lineless = 0;
            m->got = 0;
            c->mshrs_used++;
            return m;
        }
    return NULL;
}

/* A miss on a line that is absent: needs a free MSHR and an unreserved way. */
static void plan_absent(Cache *c, const TmReq *r, CachePlan *p)
{
    p->line = c->mshrs_used < c->mshrs ? cache_victim(c, r->line) : NULL;
    if (!p->line) {
        p->out = CACHE_STALL;
        return;
    }
    p->out = CACHE_MISS;
    p->fetch = r->sectors;
    if (p->line->used && p->line->dirty) {
        p->evict = p->line->addr;
        p->evict_dirty = p->line->dirty;
    }
}

/* A read of a line whose bypassing miss is in flight: merges, or extends the MSHR with
 * the sectors that are neither pending nor arrived. */
static void plan_lineless(Cache *c, const TmReq *r, CachePlan *p)
{
    if (p->mshr->nwait >= c->merge) {
        p->out = CACHE_STALL;
        return;
    }
    p->fetch = r->sectors & ~(p->mshr->pending | p->mshr->got);
    p->out = p->fetch ? CACHE_MISS : CACHE_MERGE;
}

void cache_plan(Cache *c, const TmReq *r, CachePlan *p)
{
    memset(p, 0, sizeof *p);
    p->line = cache_find(c, r->line);
    if (!p->line && c->lineless && (p->mshr = cache_mshr_find(c, r->line))) {
        plan_lineless(c, r, p);
        return;
    }
    if (!p->line) {
        plan_absent(c, r, p);
        return;
    }
    uint8_t missing = r->sectors & ~p->line->valid;
    if (!missing) {
        p->out = CACHE_HIT;
        return;
    }
    p->mshr = p->line->mshr ? cache_mshr_find(c, r->line) : NULL;
    if (p->mshr ? p->mshr->nwait >= c->merge : c->mshrs_used >= c->mshrs) {
        p->out = CACHE_STALL;
        return;
    }
    p->fetch = missing & ~(p->mshr ? p->mshr->pending : 0);
    p->out = p->fetch ? CACHE_MISS : CACHE_MERGE;
    p->sector_miss = p->fetch != 0;
}

CacheMshr *cache_apply(Cache *c, const TmReq *r, const CachePlan *p)
{
    if (p->out == CACHE_HIT) {
        cache_touch(c, p->line);
        return NULL;
    }
    if (p->out == CACHE_STALL)
        return NULL;
    CacheMshr *m = p->mshr;
    int absent = !m && (!p->line->used || p->line->addr != r->line);
    if (absent && p->insert == TM_INSERT_BYPASS) {
        m = mshr_alloc(c, r->line);
        m->lineless = 1;
        c->lineless++;
    } else if (!m) {
        if (absent) {
            cache_install(c, p->line, r->line);
            if (p->insert == TM_INSERT_LRU)
                p->line->stamp = 0; /* older than any line installed as the policy does */
            p->line->prio = p->insert == TM_INSERT_HARD_PIN   ? TM_PIN_HARD
                            : p->insert == TM_INSERT_SOFT_PIN ? TM_PIN_SOFT
                                                              : TM_PIN_NONE;
        } else {
            cache_touch(c, p->line);
        }
        m = mshr_alloc(c, r->line);
        p->line->mshr = 1;
    }
    m->pending |= p->fetch;
    m->wait[m->nwait++] = *r;
    return m;
}

unsigned cache_fill(Cache *c, CacheMshr *m, uint8_t sectors, TmReq *out, unsigned max,
                    Cycle now)
{
    CacheLine *l = m->lineless ? NULL : cache_find(c, m->line);
    m->pending &= ~sectors;
    m->got |= sectors;
    if (l)
        l->valid |= sectors, l->filled = now;
    uint8_t have = l ? l->valid : m->got;
    unsigned k = 0, keep = 0;
    for (unsigned i = 0; i < m->nwait; i++) {
        if ((m->wait[i].sectors & ~have) == 0 && k < max)
            out[k++] = m->wait[i];
        else
            m->wait[keep++] = m->wait[i];
    }
    m->nwait = keep;
    if (!m->pending && !m->nwait) {
        m->used = 0;
        c->mshrs_used--;
        c->lineless -= m->lineless;
        m->lineless = 0;
        if (l)
            l->mshr = 0;
    }
    return k;
}

void cache_invalidate(Cache *c)
{
    for (size_t i = 0; i < (size_t)c->sets * c->ways; i++)
        if (!c->lines[i].mshr)
            memset(&c->lines[i], 0, sizeof c->lines[i]);
}

void cache_unpin(Cache *c)
{
    for (size_t i = 0; i < (size_t)c->sets * c->ways; i++)
        c->lines[i].prio = TM_PIN_NONE;
}

void cache_dump(const Cache *c, const char *what, FILE *f)
{
    size_t valid = 0, dirty = 0;
    for (size_t i = 0; i < (size_t)c->sets * c->ways; i++) {
        valid += (int)tm_nsectors(c->lines[i].valid);
        dirty += (int)tm_nsectors(c->lines[i].dirty);
    }
    fprintf(f, "%s: %u sets x %u ways x %u B (%s), %zu valid / %zu dirty sectors, "
            "%u/%u MSHRs busy\n", what, c->sets, c->ways, c->line, c->pol->name, valid, dirty,
            c->mshrs_used, c->mshrs);
    for (unsigned i = 0; i < c->mshrs; i++)
        if (c->mshr[i].used)
            fprintf(f, "  mshr %u: line 0x%llx pending 0x%02x waiters %u%s\n", i,
                    (unsigned long long)c->mshr[i].line, c->mshr[i].pending, c->mshr[i].nwait,
                    c->mshr[i].lineless ? " (bypassing)" : "");
}
