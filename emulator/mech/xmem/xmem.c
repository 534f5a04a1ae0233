/*
 * xmem.c - XMem's hardware on the GPU (xmem.mode; N. Vijaykumar, A. Jain, D. Majumdar,
 * K. Hsieh, G. Pekhimenko, E. Ebrahimi, N. Hajinazar, P. B. Gibbons, O. Mutlu, "A Case
 * for Richer Cross-layer Abstractions: Bridging the Semantic Gap with Expressive Memory",
 * ISCA 2018, §4-§5; docs/xmem.md). The program's atoms (emu_set_hints: the address map,
 * the Atom Status Table and each atom's attributes) reach three policy slots:
 *
 *   hint lookup (mem.hint_lookup = amu): the atom management unit. The atom address map
 *     (AAM) holds one 8-bit atom id per 512-byte block (8 per 4 KB page: the atom of the
 *     first mapped range that overlaps the block); each SM's atom lookaside buffer (ALB,
 *     xmem.alb_entries page entries, xmem.alb_ways-way set-associative, LRU) caches a
 *     page's 8 ids. A request whose page misses fills the entry, and its access completes
 *     no earlier than xmem.alb_miss_latency cycles after it issued (the AAM read;
 *     counters xmem.alb_hits, xmem.alb_misses). Descriptors are looked up exactly.
 *
 *   insertion (l1.insertion, l2.insertion = xmem): use case 1, cache management, from the
 *     private attribute table of each cache (the active atoms' attributes at launch):
 *       - an atom with reuse >= xmem.reuse_pin is pinned: its lines go in soft-pinned
 *         (kept ahead of every unpinned line), up to a budget of xmem.pin_share percent
 *         of the cache (an L1, or the whole L2) shared among such atoms by decreasing
 *         reuse, then intensity: the first bytes of an atom's mapped ranges, in address
 *         order, up to its share. Its lines past the share go in at the LRU end, so a
 *         tile larger than the cache keeps part of itself instead of thrashing;
 *       - an atom that is write-only or has reuse 0 streams: its lines bypass;
 *       - any other line, or a line of an inactive atom, goes in as the baseline's.
 *
 *   DRAM mapping (dram.mapping = xmem): use case 2, placement. The active atoms whose
 *     intensity is at least xmem.hot_intensity (most intense first) get disjoint groups
 *     of each channel's banks, so that their rows stop closing each other's; a line of
 *     such an atom stays in its channel (the interleaving's) and is spread over its
 *     group's banks as the interleaving spreads lines over all banks, in rows of its
 *     own. Every other line (a streaming atom's, data in no atom) keeps the interleaving
 *     over all banks. With fewer than two hot atoms nothing changes.
 */
#include <stdlib.h>
#include <string.h>
#include "hints.h"
#include "mech/mech.h"
#include "xgpu/xmem.h"
#include "mech/registry.h"

enum { PAGE_SHIFT = 12, BLOCK_SHIFT = 9, BLOCKS = 1 << (PAGE_SHIFT - BLOCK_SHIFT) };

/* --- the atom management unit ----------------------------------------------------------- */

typedef struct AlbEntry {
    uint64_t page, stamp;
    uint8_t id[BLOCKS];
    uint8_t valid;
} AlbEntry;

typedef struct Amu {
    AlbEntry *e;   /* [sets * ways] */
    unsigned sets, ways;
    uint64_t clock;
    Cycle miss;
} Amu;

static void *amu_init(const EmuConfig *cfg)
{
    Amu *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->ways = cfg->xmem_alb_ways;
    a->sets = cfg->xmem_alb_entries / a->ways; /* emu_config_check: ways divides entries */
    a->miss = cfg->xmem_alb_miss_latency;
    if (!(a->e = calloc((size_t)a->sets * a->ways, sizeof *a->e))) {
        free(a);
        return NULL;
    }
    return a;
}

static void amu_free(void *state)
{
    Amu *a = state;
    if (a)
        free(a->e);
    free(a);
}

/* The ALB is empty at each launch (the launch's map may differ from the last one's). */
static int amu_bind(void *state, const TmLaunchView *v)
{
    (void)v;
    Amu *a = state;
    memset(a->e, 0, (size_t)a->sets * a->ways * sizeof *a->e);
    a->clock = 0;
    return 0;
}

/* The ALB entry of page, filled from the AAM on a miss (*missed = 1). */
static const AlbEntry *alb_lookup(Amu *a, const EmuHintTable *h, uint64_t page, int *missed)
{
    AlbEntry *set = &a->e[(size_t)(page % a->sets) * a->ways], *victim = &set[0];
    for (unsigned w = 0; w < a->ways; w++) {
        if (set[w].valid && set[w].page == page) {
            set[w].stamp = ++a->clock;
            return &set[w];
        }
        if (!set[w].valid || (victim->valid && set[w].stamp < victim->stamp))
            victim = &set[w];
    }
    *missed = 1;
    victim->page = page, victim->valid = 1, victim->stamp = ++a->clock;
    for (unsigned b = 0; b < BLOCKS; b++) {
        uint64_t lo = page << PAGE_SHIFT | (uint64_t)b << BLOCK_SHIFT;
        victim->id[b] = emu_hint_block_atom(h, lo, lo + (1u << BLOCK_SHIFT));
    }
    return victim;
}

static Cycle amu_tag(void *state, TmCounters *ctr, const EmuHintTable *h, TmReq *r, unsigned n,
                     Cycle now)
{
    Amu *a = state;
    Cycle ready = now;
    for (unsigned i = 0; i < n; i++) {
        int missed = 0;
        const AlbEntry *e = alb_lookup(a, h, r[i].line >> PAGE_SHIFT, &missed);
        r[i].atom = e->id[(r[i].line >> BLOCK_SHIFT) % BLOCKS];
        r[i].desc = emu_hint_desc(h, r[i].line);
        ctr->xmem_alb_hits += !missed;
        ctr->xmem_alb_misses += missed;
        if (missed && now + a->miss > ready)
            ready = now + a->miss;
    }
    return ready;
}

const TmLookupOps tm_lookup_amu = {
    .name = "amu", .init = amu_init, .free = amu_free, .bind = amu_bind, .tag = amu_tag,
};

/* --- the atoms a launch treats specially ------------------------------------------------ */

/* The active atoms with known attributes that pass keep(), most important first (by the
 * key given, then the other attribute, then id): their ids in out[], how many. */
static unsigned ranked(const EmuHintTable *h, int by_reuse, int (*keep)(const EmuAtomAttr *,
                                                                        const EmuConfig *),
                       const EmuConfig *cfg, uint8_t *out)
{
    unsigned n = 0;
    for (unsigned a = 0; a < h->nattrs && a < TM_NO_ATOM; a++) {
        const EmuAtomAttr *x = &h->attrs[a];
        if (!emu_hint_active(h, (uint8_t)a) || !keep(x, cfg))
            continue;
        unsigned k1 = by_reuse ? x->reuse : x->intensity, k2 = by_reuse ? x->intensity : x->reuse;
        unsigned j = n++;
        for (; j > 0; j--) {
            const EmuAtomAttr *y = &h->attrs[out[j - 1]];
            unsigned y1 = by_reuse ? y->reuse : y->intensity;
            unsigned y2 = by_reuse ? y->intensity : y->reuse;
            if (y1 > k1 || (y1 == k1 && y2 >= k2))
                break;
            out[j] = out[j - 1];
        }
        out[j] = (uint8_t)a;
    }
    return n;
}

static int streams(const EmuAtomAttr *x)
{
    return x->rw == XMEM_WRITE_ONLY || x->reuse == 0;
}

static int reused(const EmuAtomAttr *x, const EmuConfig *cfg)
{
    return !streams(x) && x->reuse >= cfg->xmem_reuse_pin;
}

static int hot(const EmuAtomAttr *x, const EmuConfig *cfg)
{
    return x->intensity >= cfg->xmem_hot_intensity;
}

/* --- use case 1: cache management ------------------------------------------------------- */

enum { XM_PLAIN, XM_PIN, XM_STREAM };

typedef struct XmCache {
    const EmuConfig *cfg;
    uint64_t capacity;        /* bytes the policy manages: an L1, or the whole L2 */
    const EmuHintTable *h;
    uint8_t kind[TM_NO_ATOM];
    uint64_t pinned[TM_NO_ATOM]; /* XM_PIN: bytes of the atom pinned, from its start */
    uint64_t *before;         /* [h->natoms]: the atom's bytes in earlier ranges */
} XmCache;

static void *ins_init(const EmuConfig *cfg, int level)
{
    XmCache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cfg = cfg;
    uint64_t l2 = (uint64_t)cfg->l2_sets * cfg->l2_ways * cfg->l1_line * cfg->l2_slices;
    c->capacity = level == 1 ? cfg->l1_bytes : l2;
    return c;
}

static void ins_free(void *state)
{
    XmCache *c = state;
    if (c)
        free(c->before);
    free(c);
}

/* The private attribute table of this cache for the launch: each atom's treatment, the
 * pinned atoms' shares, and where each range starts within its atom. */
static int ins_bind(void *state, const TmLaunchView *v)
{
    XmCache *c = state;
    const EmuHintTable *h = v->hints;
    c->h = h;
    memset(c->kind, XM_PLAIN, sizeof c->kind);
    memset(c->pinned, 0, sizeof c->pinned);
    free(c->before);
    c->before = NULL;
    if (!h || !h->natoms)
        return 0;
    uint64_t size[TM_NO_ATOM] = {0};
    if (!(c->before = malloc(h->natoms * sizeof *c->before)))
        return -1;
    for (size_t i = 0; i < h->natoms; i++) {
        uint8_t a = h->atoms[i].atom;
        c->before[i] = size[a];
        size[a] += h->atoms[i].hi - h->atoms[i].lo;
    }
    for (unsigned a = 0; a < h->nattrs && a < TM_NO_ATOM; a++)
        if (emu_hint_active(h, (uint8_t)a) && streams(&h->attrs[a]))
            c->kind[a] = XM_STREAM;
    uint8_t order[TM_NO_ATOM];
    unsigned n = ranked(h, 1, reused, c->cfg, order);
    uint64_t left = c->capacity * c->cfg->xmem_pin_share / 100;
    for (unsigned i = 0; i < n; i++) {
        uint8_t a = order[i];
        c->kind[a] = XM_PIN;
        c->pinned[a] = size[a] < left ? size[a] : left;
        left -= c->pinned[a];
    }
    return 0;
}

static TmInsert ins_place(void *state, const TmReq *r)
{
    const XmCache *c = state;
    if (r->atom == TM_NO_ATOM || !c->h)
        return TM_INSERT_MRU;
    switch (c->kind[r->atom]) {
    case XM_STREAM: return TM_INSERT_BYPASS;
    case XM_PIN: {
        long i = emu_hint_range(c->h, r->line);
        if (i < 0 || c->h->atoms[i].atom != r->atom)
            return TM_INSERT_MRU; /* the block's atom, not this line's */
        uint64_t at = c->before[i] + (r->line - c->h->atoms[i].lo);
        return at < c->pinned[r->atom] ? TM_INSERT_SOFT_PIN : TM_INSERT_LRU;
    }
    default: return TM_INSERT_MRU;
    }
}

const TmInsertionOps tm_ins_xmem = {
    .name = "xmem", .init = ins_init, .free = ins_free, .bind = ins_bind, .place = ins_place,
};

/* --- use case 2: DRAM placement --------------------------------------------------------- */

typedef struct XmMap {
    const EmuConfig *cfg;
    const EmuHintTable *h;
    unsigned banks, lines_per_row;
    uint16_t first[TM_NO_ATOM], count[TM_NO_ATOM]; /* each hot atom's banks (count 0: none) */
    unsigned nhot;
} XmMap;

static void *map_init(const EmuConfig *cfg)
{
    XmMap *m = calloc(1, sizeof *m);
    if (m) {
        m->cfg = cfg;
        m->banks = cfg->dram_banks ? cfg->dram_banks : 1;
        m->lines_per_row = cfg->dram_row_bytes / cfg->l1_line;
    }
    return m;
}

/* The hot atoms, most intense first, each get banks / k banks (the last one the rest). */
static int map_bind(void *state, const TmLaunchView *v)
{
    XmMap *m = state;
    m->h = v->hints;
    memset(m->count, 0, sizeof m->count);
    uint8_t order[TM_NO_ATOM];
    unsigned k = m->h ? ranked(m->h, 0, hot, m->cfg, order) : 0;
    k = k < m->banks ? k : m->banks;
    m->nhot = k >= 2 ? k : 0;
    for (unsigned i = 0; i < m->nhot; i++) {
        unsigned g = m->banks / k;
        m->first[order[i]] = (uint16_t)(i * g);
        m->count[order[i]] = (uint16_t)(i + 1 == k ? m->banks - i * g : g);
    }
    return 0;
}

static void map_line(void *state, uint64_t line, unsigned chan, uint64_t local,
                     unsigned *bank, uint64_t *row)
{
    (void)chan;
    const XmMap *m = state;
    if (!m->nhot)
        return;
    uint8_t a = emu_hint_atom(m->h, line);
    if (a == TM_NO_ATOM || !m->count[a])
        return;
    uint64_t r = local / m->lines_per_row;
    *bank = m->first[a] + (unsigned)(r % m->count[a]);
    *row = r / m->count[a] | (uint64_t)(a + 1) << 48; /* rows of its own */
}

const TmMappingOps tm_map_xmem = {
    .name = "xmem", .init = map_init, .free = free, .bind = map_bind, .map = map_line,
};

/* XMem's lookaside buffer and pinning share (docs/xmem.md). */
static int xmem_check(const EmuConfig *c, char *err, size_t n)
{
    if (!c->xmem_alb_ways || c->xmem_alb_entries % c->xmem_alb_ways ||
        c->xmem_alb_entries > 65536) {
        snprintf(err, n, "xmem.alb_entries: a multiple of xmem.alb_ways (>= 1), at most "
                 "65536, got %u entries of %u ways", c->xmem_alb_entries, c->xmem_alb_ways);
        return -1;
    }
    if (c->xmem_pin_share > 100) {
        snprintf(err, n, "xmem.pin_share: expected a percentage in [0, 100], got %u",
                 c->xmem_pin_share);
        return -1;
    }
    return 0;
}

const EmuMech emu_mech_xmem = {.name = "xmem", .check = xmem_check};
