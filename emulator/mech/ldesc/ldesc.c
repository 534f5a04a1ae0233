/*
 * ldesc.c - the Locality Descriptor's hardware (ldesc.mode; N. Vijaykumar, E. Ebrahimi,
 * K. Hsieh, P. B. Gibbons, O. Mutlu, "The Locality Descriptor: A Holistic Cross-Layer
 * Abstraction to Express Data Locality in GPUs", ISCA 2018, §4-§5; docs/ldesc.md). The
 * launch's descriptors (emu_set_hints: the data structure, locality and sharing type,
 * pattern, stride, tiles, priority) drive three policy slots:
 *
 *   CTA placement (core.cta_placement = ldesc; ldesc.mode = cta, all): CTA clustering.
 *     Algorithm 1 turns the C-Tiles of the INTER_THREAD descriptors, highest priority
 *     first, into one cluster shape: each C-Tile is halved along its largest dimension
 *     until the grid holds at least one per SM; the top priority's is the cluster, and
 *     each lower priority's is merged in (the per-dimension maximum) while the grid still
 *     holds a cluster per SM. Clusters are walked in the order of the top descriptor's
 *     compute-data map (rank 1 fastest); an SM with room takes the next CTA of its own
 *     cluster, else the next cluster nobody started, else (the last clusters) the next
 *     CTA of the cluster with the most CTAs left, so the last ones spread over SMs.
 *     Without an INTER_THREAD descriptor it places as rr does.
 *
 *   L1 insertion (l1.insertion = ldesc) and L1 prefetching (l1.prefetch = ldesc;
 *   ldesc.mode = cache, all): the policy flowchart (§5.2) per descriptor:
 *     INTER_THREAD, COACCESSED, REGULAR   guided stride prefetch: a miss at address A
 *                                         fetches the line of A + L1 bytes / (active
 *                                         tiles x tile width) x stride (bytes);
 *     INTER_THREAD, COACCESSED, IRREGULAR soft pinning (evicted after unpinned lines);
 *     INTER_THREAD, NEARBY                next-line prefetch on a miss;
 *     INTRA_THREAD                        hard pinning (top priority; when a set is all
 *                                         pinned, way 0 goes; the timer ldesc.pin_period
 *                                         clears every priority, from the launch's start);
 *     NO_REUSE                            bypass (no line allocated).
 *   Prefetches stay inside their data structure. Tile width = the D-Tile's x extent in
 *   bytes; active tiles = the C-Tiles an SM holds at once: the launch's CTAs per SM divided
 *   by the CTAs of the descriptor's cluster when CTAs are clustered (ldesc.mode = all),
 *   else one per resident CTA, at most the descriptor's C-Tiles.
 */
#include <stdlib.h>
#include <string.h>
#include "hints.h"
#include "mech/ldesc/ldesc.h"
#include "mech/mech.h"
#include "timing/gpu.h"
#include "timing/sm.h"
#include "xgpu/ldesc.h"
#include "mech/registry.h"

/* What the flowchart gives a descriptor at the L1. */
typedef enum LdPolicy { LD_NONE, LD_GUIDED, LD_SOFT, LD_NEXT_LINE, LD_HARD, LD_BYPASS } LdPolicy;

static LdPolicy ld_policy(const EmuDescRange *d)
{
    switch (d->locality) {
    case XLD_INTRA_THREAD: return LD_HARD;
    case XLD_NO_REUSE: return LD_BYPASS;
    case XLD_INTER_THREAD:
        if (d->sharing == XLD_NEARBY)
            return LD_NEXT_LINE;
        if (d->sharing == XLD_COACCESSED)
            return d->pattern == XLD_REGULAR     ? LD_GUIDED
                   : d->pattern == XLD_IRREGULAR ? LD_SOFT
                                                 : LD_NONE;
        return LD_NONE;
    default: return LD_NONE;
    }
}

/* --- Algorithm 1 ------------------------------------------------------------------------ */

void ld_walk(const uint8_t map[3], uint8_t walk[3])
{
    int k = 0;
    for (int r = 1; r <= 3; r++)
        for (int i = 0; i < 3; i++)
            if (map[i] == r)
                walk[k++] = (uint8_t)i;
    for (int i = 0; i < 3; i++)
        if (map[i] < 1 || map[i] > 3)
            walk[k++] = (uint8_t)i;
}

static uint64_t ntiles(EmuDim3 grid, const uint32_t t[3])
{
    return ld_div_up(grid.x, t[0]) * ld_div_up(grid.y, t[1]) * ld_div_up(grid.z, t[2]);
}

/* Descriptor d's C-Tile clipped to the grid and halved along its largest dimension until
 * the grid holds at least nsm of them (or it is one CTA). */
static void ld_split(const EmuDescRange *d, EmuDim3 grid, uint32_t nsm, uint32_t t[3])
{
    const uint32_t g[3] = {grid.x, grid.y, grid.z};
    for (int i = 0; i < 3; i++)
        t[i] = d->ctile[i] < 1 ? 1 : d->ctile[i] > g[i] ? g[i] : d->ctile[i];
    while (ntiles(grid, t) < nsm && t[0] * t[1] * t[2] > 1) {
        int m = t[1] > t[0] ? 1 : 0;
        m = t[2] > t[m] ? 2 : m;
        t[m] = (t[m] + 1) / 2;
    }
}

size_t ld_by_priority(const EmuHintTable *h, int locality, size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < h->ndescs; i++) {
        if (locality >= 0 && h->descs[i].locality != locality)
            continue;
        size_t j = n++;
        for (; j > 0 && h->descs[order[j - 1]].priority < h->descs[i].priority; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    return n;
}

/* The cluster shape (Algorithm 1) in cls; the top descriptor's index, or -1 when no
 * descriptor is INTER_THREAD (no clustering). */
static long ld_cluster(const EmuHintTable *h, EmuDim3 grid, uint32_t nsm, uint32_t cls[3])
{
    size_t *order = h->ndescs ? malloc(h->ndescs * sizeof *order) : NULL;
    size_t n = order ? ld_by_priority(h, XLD_INTER_THREAD, order) : 0;
    if (!n) {
        free(order);
        return -1;
    }
    ld_split(&h->descs[order[0]], grid, nsm, cls);
    for (size_t i = 1; i < n; i++) {
        uint32_t t[3], m[3];
        ld_split(&h->descs[order[i]], grid, nsm, t);
        for (int k = 0; k < 3; k++)
            m[k] = t[k] > cls[k] ? t[k] : cls[k];
        if (ntiles(grid, m) >= nsm)
            memcpy(cls, m, sizeof m);
    }
    long top = (long)order[0];
    free(order);
    return top;
}

/* --- CTA placement ---------------------------------------------------------------------- */

typedef struct LdCursor {
    uint64_t cluster; /* the cluster the SM works on (UINT64_MAX: none) */
    uint64_t next;    /* its next CTA, in x-fastest order within the cluster */
} LdCursor;

typedef struct LdPlace {
    uint32_t cls[3];  /* cluster shape in CTAs */
    uint32_t ncl[3];  /* clusters along x, y, z */
    uint8_t walk[3];  /* cluster dimensions, fastest first (the compute-data map) */
    uint64_t nclusters, next_cluster;
    LdCursor *cur;    /* [nsm] */
    uint32_t rr;
    int on;
    /* a NUMA device with numa.map = ldesc: Algorithm 2's partition; each zone's clusters
     * (those whose first CTA its C-Tiles give it), in walk order, and the next of each
     * list its SMs start */
    LdNuma numa;
    uint64_t **zcl, *zlen, *znext;
    uint32_t zsms;    /* SMs per zone */
} LdPlace;

static void cluster_box(const LdPlace *p, EmuDim3 grid, uint64_t c, uint32_t lo[3],
                        uint32_t ext[3]);

/* The partition of a NUMA device (numa.map = ldesc): every cluster goes to the zone of
 * its first CTA. 0, or -1 out of host memory. */
static int place_zones(TmGpu *g, LdPlace *p)
{
    EmuDim3 grid = g->x->grid;
    unsigned zones = g->ngpu;
    if (ld_numa_plan(&g->d->hints, grid, zones, &p->numa) < 0)
        return -1;
    if (p->numa.top < 0)
        return 0;
    p->zcl = calloc(zones, sizeof *p->zcl);
    p->zlen = calloc(zones, sizeof *p->zlen);
    p->znext = calloc(zones, sizeof *p->znext);
    if (!p->zcl || !p->zlen || !p->znext)
        return -1;
    for (unsigned z = 0; z < zones; z++)
        if (!(p->zcl[z] = malloc(p->nclusters * sizeof **p->zcl)))
            return -1;
    for (uint64_t c = 0; c < p->nclusters; c++) {
        uint32_t lo[3], ext[3];
        cluster_box(p, grid, c, lo, ext);
        int z = ld_numa_cta_zone(&p->numa, (EmuDim3){lo[0], lo[1], lo[2]});
        unsigned zz = z < 0 ? (unsigned)(c % zones) : (unsigned)z;
        p->zcl[zz][p->zlen[zz]++] = c;
    }
    p->zsms = g->gpu_sms;
    p->next_cluster = p->nclusters; /* every cluster is in a zone's list */
    return 0;
}

static int place_begin(TmGpu *g, void **state, char *err, size_t n)
{
    LdPlace *p = calloc(1, sizeof *p);
    if (p)
        p->cur = calloc(g->nsm_total, sizeof *p->cur);
    if (!p || !p->cur) {
        if (p)
            free(p->cur);
        free(p);
        snprintf(err, n, "out of host memory");
        return -1;
    }
    *state = p;
    p->numa.top = -1;
    EmuDim3 grid = g->x->grid;
    long top = ld_cluster(&g->d->hints, grid, g->nsm_total, p->cls);
    p->on = top >= 0;
    if (!p->on)
        return 0;
    const uint32_t gd[3] = {grid.x, grid.y, grid.z};
    for (int i = 0; i < 3; i++)
        p->ncl[i] = (uint32_t)ld_div_up(gd[i], p->cls[i]);
    ld_walk(g->d->hints.descs[top].map, p->walk);
    p->nclusters = (uint64_t)p->ncl[0] * p->ncl[1] * p->ncl[2];
    for (uint32_t s = 0; s < g->nsm_total; s++)
        p->cur[s].cluster = UINT64_MAX;
    if (g->ngpu > 1 && strcmp(g->cfg->system_memory, "numa") == 0 &&
        strcmp(g->cfg->numa_map, "ldesc") == 0 && place_zones(g, p) < 0) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    g->ctr.ldesc_clusters += p->nclusters;
    g->ctr.ldesc_cluster_ctas += (uint64_t)p->cls[0] * p->cls[1] * p->cls[2];
    return 0;
}

static void place_end(TmGpu *g, void *state)
{
    LdPlace *p = state;
    for (uint32_t z = 0; p->zcl && z < g->ngpu; z++)
        free(p->zcl[z]);
    free(p->zcl), free(p->zlen), free(p->znext);
    ld_numa_free(&p->numa);
    free(p->cur);
    free(p);
}

/* The corner and extent (clipped to the grid) of cluster c, walked as p->walk says. */
static void cluster_box(const LdPlace *p, EmuDim3 grid, uint64_t c, uint32_t lo[3],
                        uint32_t ext[3])
{
    const uint32_t gd[3] = {grid.x, grid.y, grid.z};
    uint32_t pos[3];
    for (int k = 0; k < 3; k++) {
        int d = p->walk[k];
        pos[d] = (uint32_t)(c % p->ncl[d]);
        c /= p->ncl[d];
    }
    for (int d = 0; d < 3; d++) {
        lo[d] = pos[d] * p->cls[d];
        ext[d] = gd[d] - lo[d] < p->cls[d] ? gd[d] - lo[d] : p->cls[d];
    }
}

static uint64_t cluster_left(const LdPlace *p, EmuDim3 grid, const LdCursor *c)
{
    if (c->cluster == UINT64_MAX)
        return 0;
    uint32_t lo[3], ext[3];
    cluster_box(p, grid, c->cluster, lo, ext);
    return (uint64_t)ext[0] * ext[1] * ext[2] - c->next;
}

/* The next CTA for SM s (0 when every CTA has started): its own cluster's, a new
 * cluster's, or the next one of the cluster with the most CTAs left. */
/* In a NUMA partition, the next unstarted cluster of SM s's zone, else of any zone (the
 * lowest with one left): 1 and *c set, or 0. */
static int zone_cluster(const TmGpu *g, LdPlace *p, uint32_t s, uint64_t *c)
{
    uint32_t own = s / p->zsms;
    for (uint32_t k = 0; k <= g->ngpu; k++) {
        uint32_t z = k == 0 ? own : k - 1;
        if (p->znext[z] < p->zlen[z]) {
            *c = p->zcl[z][p->znext[z]++];
            return 1;
        }
    }
    return 0;
}

/* The cursor with the most CTAs left among SMs [lo, hi), or NULL. */
static LdCursor *most_left(LdPlace *p, EmuDim3 grid, uint32_t lo, uint32_t hi)
{
    uint64_t most = 0;
    LdCursor *c = NULL;
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t left = cluster_left(p, grid, &p->cur[i]);
        if (left > most)
            most = left, c = &p->cur[i];
    }
    return c;
}

static int next_cta(TmGpu *g, LdPlace *p, uint32_t s, EmuDim3 *id)
{
    EmuDim3 grid = g->x->grid;
    LdCursor *c = &p->cur[s];
    if (!cluster_left(p, grid, c)) {
        uint64_t k;
        if (p->zcl && p->znext[s / p->zsms] < p->zlen[s / p->zsms]) {
            zone_cluster(g, p, s, &k);
            *c = (LdCursor){k, 0};
        } else if (p->zcl && (c = most_left(p, grid, s / p->zsms * p->zsms,
                                            (s / p->zsms + 1) * p->zsms))) {
            g->ctr.ldesc_spread_ctas++; /* its zone's last clusters */
        } else if (p->zcl && zone_cluster(g, p, s, &k)) {
            c = &p->cur[s]; /* another zone's cluster */
            *c = (LdCursor){k, 0};
        } else if (p->next_cluster < p->nclusters) {
            c = &p->cur[s];
            *c = (LdCursor){p->next_cluster++, 0};
        } else {
            if (!(c = most_left(p, grid, 0, g->nsm)))
                return 0;
            g->ctr.ldesc_spread_ctas++;
        }
    }
    uint32_t lo[3], ext[3];
    cluster_box(p, grid, c->cluster, lo, ext);
    uint64_t k = c->next++;
    *id = (EmuDim3){lo[0] + (uint32_t)(k % ext[0]), lo[1] + (uint32_t)(k / ext[0] % ext[1]),
                    lo[2] + (uint32_t)(k / ext[0] / ext[1])};
    return 1;
}

/* Round robin over the SMs, from the one after the last that got a CTA, each SM taking
 * its next CTA while it has room. */
static EmuStatus place_ldesc(TmGpu *g)
{
    LdPlace *p = g->mech[TM_SLOT_PLACEMENT].state;
    if (!p->on)
        return tm_place_rr.place(g);
    for (uint32_t tried = 0; g->next_cta < g->ncta && tried < g->nsm;) {
        uint32_t s = p->rr;
        p->rr = (p->rr + 1) % g->nsm;
        EmuDim3 id;
        if (!tm_sm_fits(g->sm[s]) || !next_cta(g, p, s, &id)) {
            tried++;
            continue;
        }
        g->next_cta++;
        EmuStatus st = tm_sm_start_cta(g->sm[s], id, g->now);
        if (st)
            return st;
        tried = 0;
    }
    return EMU_OK;
}

const TmPlacementOps tm_place_ldesc = {
    .name = "ldesc",
    .launch = {.begin = place_begin, .end = place_end},
    .place = place_ldesc,
};

/* --- the L1 policies -------------------------------------------------------------------- */

typedef struct LdRule {
    uint8_t policy;     /* LdPolicy */
    uint64_t lo, hi;    /* the data structure: prefetches stay inside */
    uint64_t distance;  /* LD_GUIDED: bytes ahead of a missed address */
} LdRule;

typedef struct LdCache {
    const EmuConfig *cfg;
    LdRule *rule;       /* [nrule], by TmReq.desc - 1 */
    size_t nrule;
    unsigned line;
} LdCache;

static void *ld_cache_new(const EmuConfig *cfg)
{
    LdCache *c = calloc(1, sizeof *c);
    if (c)
        c->cfg = cfg, c->line = cfg->l1_line;
    return c;
}

static void *ins_init(const EmuConfig *cfg, int level)
{
    (void)level; /* emu_config_check keeps it an L1 policy */
    return ld_cache_new(cfg);
}

static void ld_cache_free(void *state)
{
    LdCache *c = state;
    if (c)
        free(c->rule);
    free(c);
}

/* The C-Tiles of descriptor d an SM holds at once (the header's active tiles). */
static uint64_t active_tiles(const TmLaunchView *v, const EmuDescRange *d, const uint32_t cls[3],
                             int clustered)
{
    uint32_t t[3];
    ld_split(d, v->grid, v->nsm, t);
    uint64_t ctas = clustered ? (uint64_t)cls[0] * cls[1] * cls[2] : 1;
    uint64_t active = ld_div_up(v->ctas_per_sm, ctas), tiles = ntiles(v->grid, t);
    return active < tiles ? active : tiles;
}

/* Each descriptor's rule for this launch. */
static int ld_cache_bind(void *state, const TmLaunchView *v)
{
    LdCache *c = state;
    const EmuHintTable *h = v->hints;
    free(c->rule);
    c->rule = NULL, c->nrule = 0;
    if (!h || !h->ndescs)
        return 0;
    if (!(c->rule = calloc(h->ndescs, sizeof *c->rule)))
        return -1;
    c->nrule = h->ndescs;
    uint32_t cls[3] = {1, 1, 1};
    int clustered = strcmp(c->cfg->ldesc_mode, "all") == 0 &&
                    ld_cluster(h, v->grid, v->nsm, cls) >= 0;
    for (size_t i = 0; i < h->ndescs; i++) {
        const EmuDescRange *d = &h->descs[i];
        LdRule *r = &c->rule[i];
        r->policy = (uint8_t)ld_policy(d);
        r->lo = d->base, r->hi = d->base + d->bytes;
        uint64_t width = (uint64_t)d->dtile[0] * d->elem_size;
        if (r->policy == LD_GUIDED && width) {
            uint64_t rows = c->cfg->l1_bytes / (active_tiles(v, d, cls, clustered) * width);
            r->distance = rows * (uint64_t)(d->stride < 0 ? -d->stride : d->stride) * d->elem_size;
        }
    }
    return 0;
}

static const LdRule *rule_of(const LdCache *c, const TmReq *r)
{
    return r->desc && r->desc <= c->nrule ? &c->rule[r->desc - 1] : NULL;
}

static TmInsert ins_place(void *state, const TmReq *r)
{
    const LdRule *u = rule_of(state, r);
    switch (u ? u->policy : LD_NONE) {
    case LD_HARD: return TM_INSERT_HARD_PIN;
    case LD_SOFT: return TM_INSERT_SOFT_PIN;
    case LD_BYPASS: return TM_INSERT_BYPASS;
    default: return TM_INSERT_MRU;
    }
}

static Cycle ins_period(const void *state)
{
    return ((const LdCache *)state)->cfg->ldesc_pin_period;
}

const TmInsertionOps tm_ins_ldesc = {
    .name = "ldesc", .init = ins_init, .free = ld_cache_free, .bind = ld_cache_bind,
    .place = ins_place, .period = ins_period,
};

/* A demand miss of the L1: the guided stride or next-line prefetch of its descriptor. */
static void pf_miss(void *state, const TmReq *r, TmPrefetchEmit emit, void *ctx)
{
    const LdCache *c = state;
    const LdRule *u = rule_of(c, r);
    if (!u)
        return;
    uint64_t ahead = u->policy == LD_GUIDED ? u->distance : u->policy == LD_NEXT_LINE ? c->line : 0;
    if (!ahead)
        return;
    uint64_t t = (r->line + ahead) & ~(uint64_t)(c->line - 1);
    if (t > r->line && t + c->line > u->lo && t < u->hi)
        emit(ctx, t);
}

const TmPrefetchOps tm_pf_ldesc = {
    .name = "ldesc", .init = ld_cache_new, .free = ld_cache_free, .bind = ld_cache_bind,
    .miss = pf_miss,
};

/* The Locality Descriptor's cache policies are the L1's, its NUMA placement selects
 * address bits, and its cache mode needs the memory system (docs/ldesc.md). */
static int ldesc_check(const EmuConfig *c, char *err, size_t n)
{
    if (strcmp(c->l2_insertion, "ldesc") == 0) {
        snprintf(err, n, "l2.insertion: ldesc is an L1 policy (ldesc.mode = cache sets "
                 "l1.insertion)");
        return -1;
    }
    if (strcmp(c->numa_map, "ldesc") == 0 && (c->system_gpus & (c->system_gpus - 1))) {
        snprintf(err, n, "numa.map: ldesc selects address bits, so system.gpus must be a power "
                 "of two, got %u", c->system_gpus);
        return -1;
    }
    if ((strcmp(c->ldesc_mode, "cache") == 0 || strcmp(c->ldesc_mode, "all") == 0) &&
        c->core_mem_latency) {
        snprintf(err, n, "ldesc.mode = %s needs the memory system (core.mem_latency = 0)",
                 c->ldesc_mode);
        return -1;
    }
    return 0;
}

const EmuMech emu_mech_ldesc = {.name = "ldesc", .check = ldesc_check};
