/*
 * halcone.c - HALCONE's timestamp coherence for GPUs that share a memory (coherence =
 * halcone; Mojumder et al., "HALCONE: A Hardware-Level Timestamp-based Cache Coherence
 * Scheme for Multi-GPU Systems", arXiv 2007.04292, 2020; docs/halcone.md).
 *
 * Every L1 and every L2 slice has a logical time, cts; every block it holds keeps the
 * lease it was given, a read timestamp rts and a write timestamp wts (16 bits each). A
 * read hits only while cts <= rts; a fill or a write's answer moves cts to max(cts, wts).
 * The timestamp storage unit (TSU) beside memory keeps, per recently used block, its
 * memory timestamp memts (the end of every lease granted) and the timestamp of its last
 * write, lwts (no data). A request carries its L2's cts, c:
 *     read:  wts = lwts;         memts = max(memts, c + Mrts);  rts = memts
 *     write: wts = memts + 1;    memts = memts + Mwts;          rts = memts
 * (Mrts = halcone.read_lease, Mwts = halcone.write_lease), so a write is placed after
 * every lease granted before it, and a cache that sees it (its cts moves to its wts)
 * stops hitting the blocks whose leases ended earlier. L1s and L2s write through (the
 * slot's write_through: memory answers every write, through the L2, which keeps the
 * block's new lease, to the L1); a block is not locked while its write is on its way
 * (docs/halcone.md says what that leaves out). These rules give every number of the
 * paper's Fig. 5 walk-through (test/537-halcone.c).
 *
 * Choices where the paper is silent (docs/halcone.md):
 *   - the TSU keeps lwts beside memts, and a read lease runs from the requester's clock
 *     (Tardis's rule, Yu and Devadas, PACT 2015): with wts = memts and leases stacked on
 *     memts, every fill of a much-read block would push its L2's cts past the leases of
 *     every other block it holds (measured: gemm's L2 hit rate fell from 80% to 4%). A
 *     write is placed by the block's memts alone, as the paper's requests carry no
 *     timestamp of the writer;
 *   - floor register: a new TSU entry starts at the largest memts the TSU evicted, so
 *     write timestamps never go back after an eviction;
 *   - an L2 that evicts a block drops its TSU entry only when memts <= the L2's cts (no
 *     lease of it may be running anywhere that this L2 has not outlived);
 *   - progress: every cache's cts advances by 1 each halcone.tick cycles, so that a
 *     spinning reader's lease runs out and it sees remote writes; at a kernel boundary
 *     every L2's cts moves past the largest write timestamp given so far, so that a
 *     kernel sees every write of the kernels before it (CUDA's guarantee); an L1's cts
 *     starts at 0 with each launch (its lines are gone);
 *   - overflow: when a timestamp would pass 0xFFFF, every timestamp restarts: the TSU is
 *     emptied, the floor goes to 0, and a generation number (kept with each block's
 *     lease, cts with each cache) voids every lease and clock of the old generation, so
 *     each block costs one more miss. An L1 whose clock reaches 0xFFFF between two
 *     memory-side overflows stays there (it misses) until the next one restarts it.
 *
 * A block's meta word (TmReq.meta, CacheLine.meta): rts in bits 0-15, wts in 16-31, the
 * generation's low 16 bits in 32-47, bit 48 set (a lease).
 */
#include <stdlib.h>
#include <string.h>
#include "mech/mech.h"
#include "timing/gpu.h"
#include "mech/registry.h"

#define HC_MAX 0xFFFFu
#define HC_LEASE (1ull << 48)

typedef struct HcClock {
    uint64_t cts;  /* at tick `at` of the current launch */
    uint64_t at;
    uint32_t gen;
} HcClock;

/* The memory side: the TSU and every L2 slice's clock. */
typedef struct HcMem {
    uint64_t tick;
    uint32_t rlease, wlease, latency;
    uint32_t sets, ways;
    uint64_t *tag;    /* [sets * ways] line address + 1 (0: free) */
    uint32_t *memts;  /* the end of every lease granted */
    uint32_t *lwts;   /* the last write's timestamp */
    uint64_t floor;
    uint64_t max_wts; /* the largest write timestamp given (this generation) */
    uint32_t gen;     /* overflows so far */
    HcClock *l2;      /* [slices] */
    uint32_t nslice;
} HcMem;

static uint64_t hc_meta(uint64_t rts, uint64_t wts, uint32_t gen)
{
    return HC_LEASE | (uint64_t)(gen & 0xFFFFu) << 32 | wts << 16 | rts;
}

static uint64_t meta_rts(uint64_t m) { return m & 0xFFFFu; }
static uint64_t meta_wts(uint64_t m) { return m >> 16 & 0xFFFFu; }

static int meta_current(uint64_t m, uint32_t gen)
{
    return (m & HC_LEASE) && (m >> 32 & 0xFFFFu) == (gen & 0xFFFFu);
}

/* A cache's cts at cycle now: restarted when a memory-side overflow voided its
 * generation, advanced by the ticks since it was last read. Values above HC_MAX are
 * left for the caller (an L2's starts an overflow, an L1's saturates). */
static uint64_t clock_at(const HcMem *h, HcClock *c, Cycle now)
{
    uint64_t t = h->tick ? now / h->tick : 0;
    if (c->gen != h->gen)
        c->cts = 0, c->gen = h->gen, c->at = t;
    if (t > c->at)
        c->cts += t - c->at, c->at = t;
    return c->cts;
}

/* Every timestamp restarts (the header: overflow). */
static void hc_overflow(HcMem *h, TmCounters *ctr)
{
    memset(h->tag, 0, (size_t)h->sets * h->ways * sizeof *h->tag);
    h->floor = h->max_wts = 0;
    h->gen++;
    ctr->halcone_overflows++;
}

static uint64_t l2_clock(HcMem *h, TmCounters *ctr, unsigned slice, Cycle now)
{
    uint64_t cts = clock_at(h, &h->l2[slice], now);
    if (cts > HC_MAX) {
        hc_overflow(h, ctr);
        cts = clock_at(h, &h->l2[slice], now);
    }
    return cts;
}

static void hc_mem_free(void *ms)
{
    HcMem *h = ms;
    free(h->tag), free(h->memts), free(h->lwts), free(h->l2), free(h);
}

static void *hc_mem_init(const EmuConfig *cfg)
{
    HcMem *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    uint32_t gpus = emu_config_device_gpus(cfg);
    uint64_t lines = (uint64_t)cfg->l2_sets * cfg->l2_ways * cfg->l2_slices * gpus;
    uint64_t entries = cfg->halcone_tsu_entries ? cfg->halcone_tsu_entries : lines;
    h->tick = cfg->halcone_tick, h->latency = cfg->halcone_tsu_latency;
    h->rlease = cfg->halcone_read_lease, h->wlease = cfg->halcone_write_lease;
    h->ways = cfg->halcone_tsu_ways;
    h->sets = (uint32_t)(entries / h->ways ? entries / h->ways : 1);
    h->nslice = cfg->l2_slices * gpus;
    h->tag = calloc((size_t)h->sets * h->ways, sizeof *h->tag);
    h->memts = calloc((size_t)h->sets * h->ways, sizeof *h->memts);
    h->lwts = calloc((size_t)h->sets * h->ways, sizeof *h->lwts);
    h->l2 = calloc(h->nslice, sizeof *h->l2);
    if (!h->tag || !h->memts || !h->lwts || !h->l2) {
        hc_mem_free(h);
        return NULL;
    }
    return h;
}

/* The kernel boundary: each L2's cts takes the launch's last ticks, moves past every
 * write of the launch (the largest write timestamp given) and one more, and the next
 * launch's cycles start at 0. So a kernel sees every write of the kernels before it. */
static void hc_mem_launch(void *ms, Cycle last)
{
    HcMem *h = ms;
    for (uint32_t i = 0; i < h->nslice; i++) {
        HcClock *c = &h->l2[i];
        clock_at(h, c, last);
        c->cts = (c->cts > h->max_wts ? c->cts : h->max_wts) + 1, c->at = 0;
    }
}

static size_t tsu_set(const HcMem *h, uint64_t line)
{
    uint64_t l = line >> 6; /* lines are at least 64 bytes (the TSU's blocks) */
    return (size_t)((l ^ l >> 17) % h->sets) * h->ways;
}

/* The TSU entry of line, or -1. */
static long tsu_find(const HcMem *h, uint64_t line)
{
    size_t s = tsu_set(h, line);
    for (uint32_t w = 0; w < h->ways; w++)
        if (h->tag[s + w] == line + 1)
            return (long)(s + w);
    return -1;
}

/* The entry of line, allocated at the floor if it has none (its last write is at most
 * the floor): a free way, else the lowest memts (the floor keeps the largest evicted). */
static size_t tsu_entry(HcMem *h, TmCounters *ctr, uint64_t line)
{
    long e = tsu_find(h, line);
    if (e >= 0) {
        ctr->halcone_tsu_hits++;
        return (size_t)e;
    }
    ctr->halcone_tsu_misses++;
    size_t s = tsu_set(h, line), v = s;
    for (uint32_t w = 0; w < h->ways; w++) {
        if (!h->tag[s + w]) {
            v = s + w;
            break;
        }
        if (h->memts[s + w] < h->memts[v])
            v = s + w;
    }
    if (h->tag[v]) {
        ctr->halcone_tsu_evictions++;
        h->floor = h->memts[v] > h->floor ? h->memts[v] : h->floor;
    }
    h->tag[v] = line + 1, h->memts[v] = h->lwts[v] = (uint32_t)h->floor;
    return v;
}

static uint64_t hc_memory(void *ms, TmCounters *ctr, unsigned slice, const TmReq *r,
                          Cycle now, Cycle *delay)
{
    HcMem *h = ms;
    int write = r->kind == TM_WRITE;
    uint64_t c = l2_clock(h, ctr, slice, now);
    size_t e = tsu_entry(h, ctr, r->line);
    if ((write ? h->memts[e] + 1ull + h->wlease : c + h->rlease) > HC_MAX) { /* 16 bits */
        hc_overflow(h, ctr);
        c = l2_clock(h, ctr, slice, now);
        e = tsu_entry(h, ctr, r->line);
    }
    uint64_t wts;
    if (write) {
        wts = h->memts[e] + 1ull;
        h->memts[e] += h->wlease;
        h->lwts[e] = (uint32_t)wts;
        h->max_wts = wts > h->max_wts ? wts : h->max_wts;
    } else {
        wts = h->lwts[e];
        if (c + h->rlease > h->memts[e])
            h->memts[e] = (uint32_t)(c + h->rlease);
    }
    *delay = write ? h->latency : 0;
    ctr->halcone_stamp_bytes += 4;
    return hc_meta(h->memts[e], wts, h->gen);
}

/* hc_l2_read's answer, changing nothing (the clock as clock_at would make it). */
static int hc_l2_peek(const void *ms, unsigned slice, uint64_t meta, Cycle now)
{
    const HcMem *h = ms;
    HcClock c = h->l2[slice];
    uint64_t cts = clock_at(h, &c, now);
    return meta_current(meta, h->gen) && cts <= HC_MAX && cts <= meta_rts(meta);
}

static int hc_l2_read(void *ms, TmCounters *ctr, unsigned slice, uint64_t meta, Cycle now)
{
    HcMem *h = ms;
    uint64_t cts = l2_clock(h, ctr, slice, now);
    return meta_current(meta, h->gen) && cts <= meta_rts(meta);
}

static uint64_t hc_l2_fill(void *ms, TmCounters *ctr, unsigned slice, const TmReq *r,
                           Cycle now)
{
    HcMem *h = ms;
    HcClock *c = &h->l2[slice];
    uint64_t cts = l2_clock(h, ctr, slice, now);
    if (!meta_current(r->meta, h->gen))
        return 0; /* stamped before an overflow: no lease */
    if (meta_wts(r->meta) > cts)
        c->cts = meta_wts(r->meta);
    return r->meta;
}

static void hc_l2_evict(void *ms, TmCounters *ctr, unsigned slice, uint64_t line,
                        uint64_t meta, Cycle now)
{
    (void)meta;
    HcMem *h = ms;
    long e = tsu_find(h, line);
    if (e >= 0 && h->memts[e] <= l2_clock(h, ctr, slice, now)) {
        h->tag[e] = 0;
        ctr->halcone_tsu_drops++;
    }
}

/* The L1s' part: one clock per SM, for the launch. */
typedef struct HcLaunch {
    const HcMem *mem;
    HcClock *l1;
} HcLaunch;

static int hc_begin(TmGpu *g, void **state, char *err, size_t n)
{
    HcLaunch *L = calloc(1, sizeof *L);
    if (L)
        L->l1 = calloc(g->nsm_total, sizeof *L->l1);
    if (!L || !L->l1 || !g->mem) {
        free(L ? L->l1 : NULL), free(L);
        snprintf(err, n, "coherence = halcone: %s",
                 L ? "the memory system is not there" : "out of host memory");
        return -1;
    }
    L->mem = memsys_coherence_state(g->mem);
    for (uint32_t i = 0; i < g->nsm_total; i++)
        L->l1[i].gen = L->mem->gen;
    *state = L;
    return 0;
}

static void hc_end(TmGpu *g, void *state)
{
    (void)g;
    HcLaunch *L = state;
    free(L->l1);
    free(L);
}

static uint64_t l1_clock(const HcLaunch *L, unsigned sm, Cycle now)
{
    uint64_t cts = clock_at(L->mem, &L->l1[sm], now);
    return cts > HC_MAX ? HC_MAX : cts;
}

static int hc_l1_read(void *state, unsigned sm, uint64_t line, uint64_t meta, Cycle filled,
                      Cycle now)
{
    (void)line, (void)filled;
    const HcLaunch *L = state;
    return meta_current(meta, L->mem->gen) && l1_clock(L, sm, now) <= meta_rts(meta);
}

static uint64_t hc_l1_fill(void *state, unsigned sm, const TmReq *r, Cycle now)
{
    HcLaunch *L = state;
    uint64_t cts = l1_clock(L, sm, now);
    if (!meta_current(r->meta, L->mem->gen))
        return 0;
    if (meta_wts(r->meta) > cts)
        L->l1[sm].cts = meta_wts(r->meta);
    return r->meta;
}

const TmCoherenceOps tm_coh_halcone = {
    .name = "halcone",
    .launch = {.begin = hc_begin, .end = hc_end},
    .l1_read = hc_l1_read,
    .l1_fill = hc_l1_fill,
    .mem_init = hc_mem_init,
    .mem_free = hc_mem_free,
    .mem_launch = hc_mem_launch,
    .l2_read = hc_l2_read,
    .l2_peek = hc_l2_peek,
    .l2_fill = hc_l2_fill,
    .l2_evict = hc_l2_evict,
    .memory = hc_memory,
    .write_through = 1,
    .stamp_bytes = 4,
};

/* HALCONE's timestamps travel through the memory system (docs/halcone.md). */
static int halcone_check(const EmuConfig *c, char *err, size_t n)
{
    if (strcmp(c->coherence, "halcone") == 0 && c->core_mem_latency) {
        snprintf(err, n, "coherence = halcone needs the memory system (core.mem_latency = 0)");
        return -1;
    }
    return 0;
}

const EmuMech emu_mech_halcone = {.name = "halcone", .check = halcone_check};
