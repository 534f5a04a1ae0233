/*
 * ldst.c - one SM's load/store unit (ldst.h): the coalescer, the L1 and the shared-memory
 * banks behind one issue port.
 *
 * Global, local, const and param accesses: ldst_issue coalesces the warp access into line
 * requests and queues them for the L1, which looks up l1.ports requests per cycle,
 * starting in the issue cycle. A new such access is refused (-1) while the previous one
 * still has requests waiting for a lookup, so an L1 stall (MSHRs full) or a refused
 * injection backs up into the issue stage. The access completes when its last request
 * does (hits: lookup + l1.hit_latency; misses: the cycle the last sector arrives; stores:
 * the cycle the memory system accepted the last request).
 * Texel loads (ld.tex) take the same path but look up the SM's texture cache (tex.*)
 * instead of the L1; its misses carry L1_TEX_TAG, so each response goes back to the cache
 * that asked for it.
 * Const and param accesses look up the SM's constant cache (const.*) through a port and
 * a request queue of their own, so they neither take the L1's lookup slots nor wait
 * behind its queue. The cache serves one distinct address per cycle: an access whose
 * active lanes read d distinct 4-byte words (a lane counts by the word its address falls
 * in) holds the port for d cycles, and completes d - 1 cycles after its last line
 * request would have completed alone (a broadcast, d = 1, adds nothing). Its line
 * requests are all looked up in the issue cycle (the serialization is the d cycles);
 * the next const or param access is refused until the port is free and every request
 * of the previous one has been looked up. Misses carry L1_CONST_TAG.
 * L1 prefetching (the l1.prefetch slot, slots.h): the prefetcher sees every demand read
 * access of global memory as it is split, and the lines it names wait in a queue of
 * l1.prefetch_queue; the lookup slots the demand requests left free in a cycle look
 * prefetches up at the start of the next, oldest first: a line already present or
 * pending is dropped as redundant, one that finds no MSHR or way is dropped, one the
 * memory system refuses waits for the next cycle. A prefetch takes its line's MSHR like a
 * miss, with no access waiting on it.
 * Shared accesses bypass the L1: an access whose lanes need k bank cycles (smem.c) holds
 * the banks for k cycles (2k for atomics: read then write) and completes smem.latency +
 * k - 1 cycles after issue (+ k more for atomics); the next shared access is refused
 * until the banks are free.
 * The per-cycle lookup budget is kept per cycle, so it does not matter whether the core
 * calls ldst_tick before or after ldst_issue within a cycle.
 * A head request that the memory system's injection port refused is refused again every
 * cycle until the port frees (memsys_send_at), unless the L1 changes meanwhile (a fill or
 * a prefetch lookup, which may turn it into a hit or a merge): until then the lookup is
 * not repeated, only its refusal counted, and the SM may sleep to that cycle
 * (ldst_next, ldst_skip). Without a coherence hook on the L1 the refused lookup has no
 * other effect, so the results are those of retrying every cycle. Both request queues
 * (the L1's or texture cache's, and the constant cache's) follow these rules each.
 */
#include "timing/ldst.h"

#include <stdlib.h>
#include <string.h>
#include "timing/coalescer.h"
#include "timing/heap.h"
#include "timing/l1.h"
#include "hints.h"
#include "timing/slots.h"
#include "timing/smem.h"
#include "uvm.h"

typedef struct LdAccess {
    uint64_t tag;   /* the core's id */
    uint64_t seq;   /* issue order (ties in completion order) */
    Cycle done;     /* latest completion among resolved requests */
    Cycle serial;   /* cycles added after the last request (constant-cache serialization) */
    unsigned left;  /* requests not resolved yet */
    uint8_t used;
} LdAccess;

/* The line requests of one access waiting for their cache's lookups. */
typedef struct LdQueue {
    L1 *cache;              /* the one the queued requests look up */
    unsigned ports;         /* lookups per cycle */
    TmReq req[COAL_MAX];    /* requests of the access being looked up */
    unsigned head, len;
    int stalled;            /* head waits for an MSHR (cleared by a fill) */
    Cycle refused_until;    /* head refused by the injection port, which takes nothing
                             * from this SM before then (0: not refused; cleared when
                             * a cache changes) */
    int head_tried;         /* head already stalled once (statistics) */
    Cycle port_cycle;       /* lookup budget: cycle and lookups used in it */
    unsigned port_used;
} LdQueue;

struct LdSt {
    L1 l1;
    L1 tex;                 /* the texture cache (texel loads) */
    L1 konst;               /* the constant cache (const and param loads) */
    unsigned sm, smem_banks, smem_bank_bytes, smem_latency;
    TmCounters *ctr;
    LdAccess *acc;          /* [nacc] access slots */
    unsigned nacc, inflight;
    unsigned *free, nfree;  /* [nacc] free slots */
    TmHeap done;            /* complete accesses by completion cycle, then issue order */
    uint64_t seq;
    LdQueue q;              /* global, local and texel accesses (the L1 or texture cache) */
    LdQueue kq;             /* const and param accesses (the constant cache) */
    Cycle konst_free;       /* first cycle the constant cache's port takes a new access */
    int const_waiting;      /* a warp waits for a constant-bank operand */
    int const_news;         /* ... which may be ready now: a constant cache fill arrived, or
                             * its fill was refused (ldst_const_news) */
    Cycle smem_free;        /* first cycle the shared-memory banks take a new access */
    TmReq *fillbuf;         /* [l1.mshr_merge] requests one fill completes */
    EmuUvm *uvm;            /* managed pages (NULL: none to migrate) */
    const EmuHintTable *hints; /* atoms and descriptors (NULL: none) */
    /* Lines in [home_lo, home_lo + home_size), this GPU's part of the global window, go
     * to the memory hierarchy home_by lower: at GPU 0's addresses (ldst_connect). */
    uint64_t home_lo, home_size, home_by;
    int peers;        /* the GPU is one of several devices: other lines are remote */
    const TmObserverOps *obs;  /* mem.observer (NULL: none) */
    void *obs_state;
    const TmPrefetchOps *pf; /* l1.prefetch */
    void *pf_state;
    const TmLookupOps *lk;   /* mem.hint_lookup */
    void *lk_state;
    uint64_t *pfq;          /* [pfq_cap] lines to prefetch, a ring */
    unsigned pfq_cap, pfq_head, pfq_len;
    LdPark park;            /* the assist slot's (ldst_assist), or NULL */
    void *assist_ctx;
};

LdSt *ldst_new(const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err, size_t n)
{
    unsigned bb = cfg->smem_bank_bytes;
    if (!cfg->l1_ports || !cfg->smem_banks || cfg->smem_banks > 64 || !bb || (bb & (bb - 1))) {
        snprintf(err, n, "l1.ports and smem.banks (1..64) must be positive, smem.bank_bytes "
                         "a power of two");
        return NULL;
    }
    LdSt *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    if (l1_init(&u->l1, cfg, sm, ctr, err, n) < 0) {
        free(u);
        return NULL;
    }
    if (l1_init_tex(&u->tex, cfg, sm, ctr, err, n) < 0) {
        l1_free(&u->l1);
        free(u);
        return NULL;
    }
    if (l1_init_const(&u->konst, cfg, sm, ctr, err, n) < 0) {
        l1_free(&u->l1);
        l1_free(&u->tex);
        free(u);
        return NULL;
    }
    u->q.cache = &u->l1, u->q.ports = cfg->l1_ports, u->q.port_cycle = TM_NEVER;
    u->kq.cache = &u->konst, u->kq.ports = COAL_MAX, u->kq.port_cycle = TM_NEVER;
    u->sm = sm, u->ctr = ctr;
    u->pf = tm_prefetch_find(cfg->l1_prefetch);
    if (!u->pf) {
        snprintf(err, n, "l1.prefetch: unknown prefetcher '%s'", cfg->l1_prefetch);
        ldst_free(u);
        return NULL;
    }
    u->lk = tm_lookup_find(cfg->mem_hint_lookup);
    if (!u->lk || (u->lk->init && !(u->lk_state = u->lk->init(cfg)))) {
        snprintf(err, n, "mem.hint_lookup: %s", u->lk ? "out of host memory" : "unknown lookup");
        ldst_free(u);
        return NULL;
    }
    u->pfq_cap = cfg->l1_prefetch_queue ? cfg->l1_prefetch_queue : 1;
    if (u->pf->init && !(u->pf_state = u->pf->init(cfg))) {
        snprintf(err, n, "out of memory");
        ldst_free(u);
        return NULL;
    }
    if ((u->pf->observe || u->pf->miss) && !(u->pfq = calloc(u->pfq_cap, sizeof *u->pfq))) {
        snprintf(err, n, "out of memory");
        ldst_free(u);
        return NULL;
    }
    u->smem_banks = cfg->smem_banks, u->smem_bank_bytes = cfg->smem_bank_bytes;
    u->smem_latency = cfg->smem_latency;
    unsigned merge = u->l1.c.merge > u->tex.c.merge ? u->l1.c.merge : u->tex.c.merge;
    merge = merge > u->konst.c.merge ? merge : u->konst.c.merge;
    u->fillbuf = calloc(merge, sizeof *u->fillbuf);
    if (!u->fillbuf) {
        snprintf(err, n, "out of memory");
        ldst_free(u);
        return NULL;
    }
    return u;
}

void ldst_free(LdSt *u)
{
    if (!u)
        return;
    l1_free(&u->l1);
    l1_free(&u->tex);
    l1_free(&u->konst);
    if (u->pf && u->pf->free)
        u->pf->free(u->pf_state);
    if (u->lk && u->lk->free)
        u->lk->free(u->lk_state);
    free(u->pfq);
    free(u->acc);
    free(u->free);
    tm_heap_free(&u->done);
    free(u->fillbuf);
    free(u);
}

void ldst_connect(LdSt *u, MemSys *m, EmuUvm *uvm, const EmuProps *p)
{
    u->l1.mem = m, u->tex.mem = m, u->konst.mem = m;
    u->uvm = uvm;
    u->home_lo = p->global_base;
    u->home_size = p->global_limit - p->global_base;
    u->home_by = p->global_base - XGPU_GLOBAL_BASE;
    u->peers = p->gpus > 1;
}

/* Queue q's lines as the GPU's own memory sees them: every GPU of a system indexes its
 * caches, slices and banks alike (docs/multi-device.md); another device's lines (peer
 * access) are marked TM_REMOTE_LINE. */
static void ldst_home(LdSt *u, LdQueue *q)
{
    for (unsigned i = 0; i < q->len; i++) {
        uint64_t l = q->req[i].line;
        if (l - u->home_lo < u->home_size)
            q->req[i].line -= u->home_by;
        else if (l - XGPU_GLOBAL_BASE < XGPU_PARAM_BASE - XGPU_GLOBAL_BASE)
            q->req[i].line |= TM_REMOTE_LINE; /* global, another device's */
    }
}

/* A free access slot (the table grows; slots are reused). Returns its index or -1. */
static int acc_alloc(LdSt *u, uint64_t tag)
{
    if (!u->nfree) {
        unsigned n = u->nacc ? 2 * u->nacc : 16;
        LdAccess *a = realloc(u->acc, n * sizeof *a);
        if (a)
            u->acc = a;
        unsigned *f = a ? realloc(u->free, n * sizeof *f) : NULL;
        if (!f)
            return -1;
        memset(a + u->nacc, 0, (n - u->nacc) * sizeof *a);
        u->free = f;
        for (unsigned k = n; k > u->nacc; k--) /* lowest slot first */
            u->free[u->nfree++] = k - 1;
        u->nacc = n;
    }
    unsigned i = u->free[--u->nfree];
    u->acc[i] = (LdAccess){.tag = tag, .seq = u->seq++, .used = 1};
    u->inflight++;
    return (int)i;
}

/* Access a has all its requests resolved: it completes at a->done. */
static void acc_complete(LdSt *u, const LdAccess *a)
{
    /* Out of host memory, the access never completes: the core reports the stall. */
    (void)tm_heap_push(&u->done, a->done + a->serial, a->seq, (uint32_t)(a - u->acc));
}

static void acc_resolve(LdSt *u, unsigned slot, Cycle at)
{
    LdAccess *a = &u->acc[slot];
    if (at > a->done)
        a->done = at;
    if (--a->left == 0)
        acc_complete(u, a);
}

int ldst_observe(LdSt *u, const TmLaunchView *v, const TmObserverOps *obs, void *state)
{
    u->hints = emu_hints_any(v->hints) ? v->hints : NULL;
    u->obs = obs && obs->request ? obs : NULL;
    u->obs_state = state;
    if ((u->pf->bind && u->pf->bind(u->pf_state, v) < 0) ||
        (u->lk->bind && u->lk->bind(u->lk_state, v) < 0))
        return -1;
    return l1_bind(&u->l1, v);
}

/* Tags the requests of access a (in slot acc, queued in q) with the hints, through the
 * hint lookup slot, which may make the access wait; shows them to the observer. */
static void ldst_hints(LdSt *u, LdQueue *q, const TmAccess *a, LdAccess *acc, Cycle now)
{
    if (u->hints && a->space != TM_LOCAL && a->space != TM_PARAM) {
        Cycle ready = u->lk->tag(u->lk_state, u->ctr, u->hints, q->req, q->len, now);
        if (ready > acc->done)
            acc->done = ready;
    }
    if (u->obs)
        for (unsigned i = 0; i < q->len; i++)
            u->obs->request(u->obs_state, &q->req[i]);
}

/* The prefetcher names a line (TmPrefetchEmit). */
static void pf_emit(void *ctx, uint64_t line)
{
    LdSt *u = ctx;
    if (u->pfq_len == u->pfq_cap) {
        u->ctr->l1_prefetch_dropped++;
        return;
    }
    u->pfq[(u->pfq_head + u->pfq_len++) % u->pfq_cap] = line;
}

/* Prefetches take the lookup slots the demand requests left free in the last cycle the
 * unit looked anything up (all of them after idle cycles), and go out at cycle now: a
 * demand request never waits for a prefetch, whichever of ldst_tick and ldst_issue the
 * core calls first. Returns lookups done. */
static int pf_lookup(LdSt *u, Cycle now)
{
    int work = 0;
    LdQueue *q = &u->q;
    unsigned left = q->port_cycle + 1 == now ? q->ports - q->port_used : q->ports;
    while (u->pfq_len && left) {
        L1Prefetch res = l1_prefetch(&u->l1, u->pfq[u->pfq_head], now);
        if (res == L1_PF_BLOCKED)
            break;
        q->refused_until = 0; /* the L1 may have changed */
        u->ctr->l1_prefetch_redundant += res == L1_PF_REDUNDANT;
        u->ctr->l1_prefetch_dropped += res == L1_PF_DROPPED;
        u->pfq_head = (u->pfq_head + 1) % u->pfq_cap, u->pfq_len--;
        left--, work++;
    }
    return work;
}

/* Looks up q's requests while this cycle's budget lasts. Returns lookups done. */
static int ldst_lookup(LdSt *u, LdQueue *q, Cycle now)
{
    if (q->port_cycle != now)
        q->port_cycle = now, q->port_used = 0;
    int work = 0;
    while (q->head < q->len && !q->stalled && q->port_used < q->ports) {
        if (now < q->refused_until) { /* refused again: counted, not repeated */
            memsys_count_refusals(q->cache->mem, u->sm, 1);
            break;
        }
        const TmReq *r = &q->req[q->head];
        Cycle ready = now;
        L1Result res = l1_access(q->cache, r, now, !q->head_tried, &ready);
        q->refused_until = 0;
        if (res == L1_STALL || res == L1_BLOCKED) {
            q->stalled = res == L1_STALL;
            q->head_tried = 1;
            if (res == L1_BLOCKED && !q->cache->coh)
                q->refused_until = memsys_send_at(q->cache->mem, u->sm);
            break;
        }
        q->port_used++, q->head++, q->head_tried = 0, work++;
        if (u->obs && u->obs->outcome && r->kind == TM_READ && q->cache == &u->l1)
            u->obs->outcome(u->obs_state, r, 1,
                            res == L1_DONE ? TM_OUT_HIT : res == L1_MISS ? TM_OUT_MISS
                                                                         : TM_OUT_MERGE);
        if (res == L1_DONE)
            acc_resolve(u, (unsigned)r->tag, ready);
        else if (res == L1_MISS && u->pf->miss && q->cache == &u->l1)
            u->pf->miss(u->pf_state, r, pf_emit, u);
    }
    return work;
}

static int issue_shared(LdSt *u, const TmAccess *a, uint64_t tag, Cycle now)
{
    if (now < u->smem_free)
        return -1;
    int slot = acc_alloc(u, tag);
    if (slot < 0)
        return -1;
    SmemCost c = smem_cost(a, u->smem_banks, u->smem_bank_bytes);
    unsigned busy = a->kind == TM_ATOMIC ? 2 * c.cycles : c.cycles;
    u->smem_free = now + busy;
    u->acc[slot].done = now + u->smem_latency + busy - 1;
    acc_complete(u, &u->acc[slot]);
    u->ctr->smem_accesses++;
    u->ctr->smem_bank_conflicts += a->kind == TM_ATOMIC ? 2 * c.conflicts : c.conflicts;
    return 0;
}

/* The distinct 4-byte words the active lanes' addresses fall in (the constant cache
 * serves one a cycle); 0 without active lanes. */
static unsigned const_words(const TmAccess *a)
{
    uint64_t w[32];
    unsigned n = 0;
    for (uint32_t m = a->mask; m; m &= m - 1) {
        uint64_t x = a->addr[__builtin_ctz(m)] >> 2;
        unsigned k = 0;
        while (k < n && w[k] != x)
            k++;
        if (k == n)
            w[n++] = x;
    }
    return n;
}

static int is_const(const TmAccess *a)
{
    return a->space == TM_CONST || a->space == TM_PARAM;
}

int ldst_refuses(const LdSt *u, const TmAccess *a, Cycle now)
{
    if (a->space == TM_SHARED)
        return now < u->smem_free;
    if (is_const(a))
        return now < u->konst_free || u->kq.head < u->kq.len;
    return u->q.head < u->q.len;
}

int ldst_issue(LdSt *u, const TmAccess *a, uint64_t tag, Cycle now)
{
    if (a->space == TM_SHARED)
        return issue_shared(u, a, tag, now);
    int konst = is_const(a);
    LdQueue *q = konst ? &u->kq : &u->q;
    if (q->head < q->len || (konst && now < u->konst_free))
        return -1;
    int slot = acc_alloc(u, tag);
    if (slot < 0)
        return -1;
    q->len = coal_split(a, u->sm, u->l1.c.line, u->l1.c.sector, q->req);
    q->head = 0, q->stalled = 0, q->head_tried = 0, q->refused_until = 0;
    if (!konst)
        q->cache = a->space == TM_TEX ? &u->tex : &u->l1;
    for (unsigned i = 0; i < q->len; i++)
        q->req[i].tag = (uint64_t)slot, q->req[i].issued = now;
    u->acc[slot].left = q->len;
    u->acc[slot].done = now;
    if (konst) {
        unsigned d = const_words(a);
        u->konst_free = now + (d ? d : 1);
        u->acc[slot].serial = d > 1 ? d - 1 : 0;
        u->ctr->const_accesses++;
        u->ctr->const_serial_cycles += u->acc[slot].serial;
    }
    if (u->uvm && u->uvm->n && u->uvm->on && a->space != TM_LOCAL && a->space != TM_PARAM)
        /* a migration holds the access back */
        u->acc[slot].done = uvm_touch(u->uvm, a, now, u->ctr);
    if (!q->len)
        acc_complete(u, &u->acc[slot]);
    u->ctr->ldst_accesses++;
    u->ctr->tex_accesses += a->space == TM_TEX;
    if (u->hints || u->obs)
        ldst_hints(u, q, a, &u->acc[slot], now);
    if (u->home_by || u->peers)
        ldst_home(u, q);
    if (u->pf->observe && a->kind == TM_READ && a->space == TM_GLOBAL)
        u->pf->observe(u->pf_state, a, q->req, q->len, pf_emit, u);
    u->ctr->coal_requests += q->len;
    for (unsigned i = 0; i < q->len; i++)
        u->ctr->coal_sectors += tm_nsectors(q->req[i].sectors);
    ldst_lookup(u, q, now);
    return 0;
}

/* --- constant-bank operands ------------------------------------------------------------ */

/* The constant cache's request for the parameter word at offset off (an XF_CONST operand:
 * as a param load's, whose lines are the parameter buffer's offsets). */
static TmReq const_req(const LdSt *u, uint32_t off, Cycle now)
{
    const Cache *c = &u->konst.c;
    uint64_t line = off & ~(uint64_t)(c->line - 1);
    return (TmReq){.line = line, .sectors = (uint8_t)(1u << ((off - line) / c->sector)),
                   .kind = TM_READ, .sm = (uint16_t)u->sm, .atom = TM_NO_ATOM,
                   .tag = L1_PREFETCH_TAG, .issued = now};
}

int ldst_const_ready(LdSt *u, uint32_t off, Cycle now)
{
    TmReq r = const_req(u, off, now);
    CachePlan p;
    cache_plan(&u->konst.c, &r, &p);
    if (p.out == CACHE_HIT)
        return 1;
    if (p.out == CACHE_MISS) { /* else the fill is on its way, or an MSHR will free */
        Cycle ready;
        L1Result res = l1_access(&u->konst, &r, now, 1, &ready);
        u->ctr->const_operand_misses += res == L1_MISS;
        u->const_news |= res == L1_BLOCKED; /* try again next cycle */
    }
    u->const_waiting = 1;
    return 0;
}

void ldst_const_read(LdSt *u, uint32_t off, Cycle now)
{
    TmReq r = const_req(u, off, now);
    Cycle ready;
    l1_access(&u->konst, &r, now, 1, &ready); /* a hit (ldst_const_ready): counted, touched */
    u->ctr->const_operands++;
}

int ldst_const_news(LdSt *u)
{
    int news = u->const_news;
    u->const_news = 0;
    u->const_waiting &= !news; /* the scans will say again who still waits */
    return news;
}

void ldst_fill(LdSt *u, const TmReq *resp, Cycle now)
{
    L1 *c = resp->tag & L1_TEX_TAG ? &u->tex : resp->tag & L1_CONST_TAG ? &u->konst : &u->l1;
    u->const_news |= c == &u->konst && u->const_waiting;
    unsigned k = l1_fill(c, resp, u->fillbuf, now);
    for (unsigned i = 0; i < k; i++)
        if (!(u->fillbuf[i].tag & L1_PREFETCH_TAG)) /* a prefetch: nobody waits */
            acc_resolve(u, (unsigned)u->fillbuf[i].tag, now);
    u->q.stalled = u->kq.stalled = 0;    /* an MSHR or a way may have been freed */
    u->q.refused_until = u->kq.refused_until = 0; /* the head may hit or merge now */
}

/* Takes the responses that have arrived; each may complete several merged requests. A
 * response the memory side marked for the assist slot goes there instead, which hands
 * it back with ldst_fill. */
static int ldst_receive(LdSt *u, Cycle now)
{
    TmReq resp;
    int work = 0;
    while (memsys_recv(u->l1.mem, u->sm, &resp, now)) {
        if (resp.assist && u->park)
            u->park(u->assist_ctx, &resp, now);
        else
            ldst_fill(u, &resp, now);
        work++;
    }
    return work;
}

void ldst_settle(LdSt *u, Cycle upto)
{
    l1_settle(&u->l1, upto);
}

void ldst_assist(LdSt *u, LdPark park, LdHold hold, void *ctx)
{
    u->park = park;
    u->assist_ctx = ctx;
    u->l1.hold = hold;
    u->l1.hold_ctx = ctx;
}

int ldst_tick(LdSt *u, Cycle now)
{
    int work = u->l1.mem ? ldst_receive(u, now) : 0;
    if (u->pfq_len && u->q.port_cycle != now) /* before this cycle's budget starts */
        work += pf_lookup(u, now);
    work += ldst_lookup(u, &u->kq, now);
    return work + ldst_lookup(u, &u->q, now);
}

int ldst_done(LdSt *u, uint64_t *tag, Cycle now)
{
    if (tm_heap_min(&u->done) > now)
        return 0;
    LdAccess *a = &u->acc[tm_heap_pop(&u->done).idx];
    *tag = a->tag;
    a->used = 0;
    u->free[u->nfree++] = (unsigned)(a - u->acc);
    u->inflight--;
    return 1;
}

/* The next cycle q looks anything up (TM_NEVER: it waits for a fill or has nothing). */
static Cycle queue_next(const LdQueue *q, Cycle now)
{
    if (q->head >= q->len || q->stalled)
        return TM_NEVER;
    return q->refused_until > now + 1 ? q->refused_until : now + 1;
}

Cycle ldst_next(const LdSt *u, Cycle now)
{
    Cycle next = queue_next(&u->q, now), k = queue_next(&u->kq, now);
    Cycle done = tm_heap_min(&u->done);
    next = k < next ? k : next;
    if (u->pfq_len)
        next = now + 1;
    if (done != TM_NEVER)
        done = done > now ? done : now + 1;
    return done < next ? done : next;
}

Cycle ldst_wake(const LdSt *u, Cycle now)
{
    Cycle next = ldst_next(u, now);
    if (u->smem_free > now && u->smem_free < next)
        next = u->smem_free;
    if (u->const_news)
        return now + 1;
    return u->konst_free > now && u->konst_free < next ? u->konst_free : next;
}

void ldst_skip(LdSt *u, uint64_t n)
{
    const LdQueue *qs[2] = {&u->q, &u->kq};
    for (unsigned i = 0; i < 2; i++)
        if (qs[i]->head < qs[i]->len && !qs[i]->stalled && qs[i]->refused_until)
            memsys_count_refusals(qs[i]->cache->mem, u->sm, n);
}

int ldst_idle(const LdSt *u)
{
    return u->inflight == 0 && u->q.head >= u->q.len && u->kq.head >= u->kq.len &&
           !u->pfq_len;
}

void ldst_coherence(LdSt *u, const TmCoherenceOps *coh, void *state)
{
    u->l1.coh = coh && (coh->l1_read || coh->l1_fill) ? coh : NULL;
    u->l1.coh_state = state;
}

void ldst_invalidate_l1(LdSt *u)
{
    cache_invalidate(&u->l1.c);
    u->q.refused_until = 0;
}

void ldst_flush(LdSt *u)
{
    cache_invalidate(&u->l1.c);
    cache_invalidate(&u->tex.c);
    cache_invalidate(&u->konst.c);
    u->pfq_len = 0;
    u->q.refused_until = u->kq.refused_until = 0;
}

void ldst_dump(const LdSt *u, FILE *f)
{
    fprintf(f, "ldst sm %u: %u accesses in flight, %u/%u requests looked up%s, "
            "%u/%u constant requests looked up%s, smem free at %llu, constant port free "
            "at %llu\n", u->sm, u->inflight, u->q.head, u->q.len,
            u->q.stalled ? " (stalled on MSHRs)" : "", u->kq.head, u->kq.len,
            u->kq.stalled ? " (stalled on MSHRs)" : "", (unsigned long long)u->smem_free,
            (unsigned long long)u->konst_free);
    for (unsigned i = 0; i < u->nacc; i++)
        if (u->acc[i].used)
            fprintf(f, "  access tag %llu: %u requests left, done >= %llu\n",
                    (unsigned long long)u->acc[i].tag, u->acc[i].left,
                    (unsigned long long)u->acc[i].done);
    cache_dump(&u->l1.c, "  l1", f);
    cache_dump(&u->tex.c, "  tex", f);
    cache_dump(&u->konst.c, "  const", f);
}
