/*
 * ldesc_numa.c - the Locality Descriptor on a multi-module GPU (numa.map = ldesc; the
 * NUMA half of Vijaykumar et al., ISCA 2018, Sec. 5.3, Algorithm 2; docs/ldesc.md, NUMA).
 *
 * A structure's zone is log2(zones) consecutive bits of its addresses, from a low bit b it
 * chooses among 7..16 - log2(zones) + 1 (128 B to 64 KB granules). Algorithm 2 picks the
 * bits greedily: for each candidate b of the top descriptor (the highest priority with a
 * C-Tile), NUMA_PART gives each of its C-Tiles the zone that holds most of its D-Tile
 * (C-Tiles and D-Tiles pair up in order: C-Tiles in the compute-data map's walk, D-Tiles
 * x first); COMP_UTIL is the fraction of D-Tile bytes that lie in their C-Tile's zone.
 * Every other descriptor then takes the b' that maximizes its own COMP_UTIL under that
 * partition (a C-Tile of its own is in the zone of its first CTA). The plan with the
 * largest summed fraction wins: the memory side places each structure by its bits (the
 * zone slot here), and the CTA placement (ldesc.c) runs each C-Tile's CTAs on its zone's
 * module.
 *
 * A structure's shape (our reading of the descriptor, docs/ldesc.md): rows of W elements,
 * W = the stride when one is given, else the D-Tile's x extent (D-Tiles are then
 * contiguous); a D-Tile is dtile.x elements of dtile.y x dtile.z consecutive rows.
 */
#include <stdlib.h>
#include <string.h>
#include "mech/ldesc/ldesc.h"
#include "mech/mech.h"
#include "mech/common/numa.h"

#define LD_LOW_BIT 7   /* 128 B */
#define LD_HIGH_BIT 16 /* 64 KB */

/* The geometry of descriptor d's D-Tiles. */
typedef struct LdTiles {
    uint64_t base, w, rows, es, dx, dy, nx, ny;
} LdTiles;

static int ld_tiles(const EmuDescRange *d, LdTiles *t)
{
    t->es = d->elem_size ? d->elem_size : 1;
    t->dx = d->dtile[0] ? d->dtile[0] : 1;
    t->dy = (uint64_t)(d->dtile[1] ? d->dtile[1] : 1) * (d->dtile[2] ? d->dtile[2] : 1);
    t->w = d->stride > 0 ? (uint64_t)d->stride : t->dx;
    t->rows = d->bytes / t->es / t->w;
    t->base = d->base;
    if (!t->rows)
        return -1;
    t->nx = ld_div_up(t->w, t->dx), t->ny = ld_div_up(t->rows, t->dy);
    return 0;
}

/* Adds the bytes of [a, a + len) to per[zone] under bit b (zones a power of two). */
static void zone_bytes(uint64_t a, uint64_t len, unsigned b, unsigned zones, uint64_t *per)
{
    uint64_t end = a + len, g = 1ull << b;
    while (a < end) {
        uint64_t next = (a | (g - 1)) + 1, piece = (next < end ? next : end) - a;
        per[(a >> b) & (zones - 1)] += piece;
        a += piece;
    }
}

/* D-Tile k's bytes per zone under bit b. */
static void tile_zones(const LdTiles *t, uint64_t k, unsigned b, unsigned zones, uint64_t *per)
{
    memset(per, 0, zones * sizeof *per);
    uint64_t tx = k % t->nx, ty = k / t->nx;
    uint64_t x0 = tx * t->dx, x1 = x0 + t->dx < t->w ? x0 + t->dx : t->w;
    uint64_t y0 = ty * t->dy, y1 = y0 + t->dy < t->rows ? y0 + t->dy : t->rows;
    for (uint64_t y = y0; y < y1; y++)
        zone_bytes(t->base + (y * t->w + x0) * t->es, (x1 - x0) * t->es, b, zones, per);
}

/* The C-Tiles of tile shape ct over grid, and C-Tile k's first CTA (walk order). */
static EmuDim3 ctile_first(const uint32_t nct[3], const uint32_t ct[3], const uint8_t walk[3],
                           uint64_t k)
{
    uint32_t pos[3];
    for (int i = 0; i < 3; i++) {
        pos[walk[i]] = (uint32_t)(k % nct[walk[i]]);
        k /= nct[walk[i]];
    }
    return (EmuDim3){pos[0] * ct[0], pos[1] * ct[1], pos[2] * ct[2]};
}

int ld_numa_cta_zone(const LdNuma *p, EmuDim3 id)
{
    if (p->top < 0)
        return -1;
    uint32_t pos[3] = {id.x / p->ct[0], id.y / p->ct[1], id.z / p->ct[2]};
    uint64_t k = 0;
    for (int i = 2; i >= 0; i--)
        k = k * p->nct[p->walk[i]] + pos[p->walk[i]];
    return k < p->nparts ? p->part[k] : -1;
}

/* A descriptor's tiling of the grid: its C-Tile clipped, their counts, its walk. */
static uint64_t ld_ctiles(const EmuDescRange *d, EmuDim3 grid, uint32_t ct[3], uint32_t nct[3],
                          uint8_t walk[3])
{
    const uint32_t g[3] = {grid.x, grid.y, grid.z};
    for (int i = 0; i < 3; i++) {
        ct[i] = d->ctile[i] < 1 ? 1 : d->ctile[i] > g[i] ? g[i] : d->ctile[i];
        nct[i] = (uint32_t)ld_div_up(g[i], ct[i]);
    }
    ld_walk(d->map, walk);
    return (uint64_t)nct[0] * nct[1] * nct[2];
}

/* COMP_UTIL: the fraction of d's paired D-Tile bytes that lie (under bit b) in the zone
 * of their C-Tile (the zone of its first CTA under p's partition). */
static double comp_util(const LdNuma *p, const EmuDescRange *d, EmuDim3 grid, unsigned b,
                        uint64_t *per)
{
    LdTiles t;
    uint32_t ct[3], nct[3];
    uint8_t walk[3];
    if (ld_tiles(d, &t) < 0)
        return 0;
    uint64_t n = ld_ctiles(d, grid, ct, nct, walk), local = 0, all = 0;
    if (n > t.nx * t.ny)
        n = t.nx * t.ny;
    for (uint64_t k = 0; k < n; k++) {
        int z = ld_numa_cta_zone(p, ctile_first(nct, ct, walk, k));
        tile_zones(&t, k, b, p->zones, per);
        for (unsigned i = 0; i < p->zones; i++)
            all += per[i];
        local += z >= 0 ? per[z] : 0;
    }
    return all ? (double)local / (double)all : 0;
}

/* NUMA_PART: each C-Tile of the top descriptor takes the zone holding most of its
 * D-Tile under bit b (C-Tiles without a D-Tile: round robin). */
static void numa_part(LdNuma *p, const EmuDescRange *d, unsigned b, uint64_t *per)
{
    LdTiles t;
    int tiled = ld_tiles(d, &t) == 0;
    for (uint64_t k = 0; k < p->nparts; k++) {
        unsigned best = (unsigned)(k % p->zones);
        if (tiled && k < t.nx * t.ny) {
            tile_zones(&t, k, b, p->zones, per);
            best = 0;
            for (unsigned z = 1; z < p->zones; z++)
                best = per[z] > per[best] ? z : best;
        }
        p->part[k] = (uint8_t)best;
    }
}

void ld_numa_free(LdNuma *p)
{
    free(p->bit);
    free(p->part);
    memset(p, 0, sizeof *p);
    p->top = -1;
}

int ld_numa_plan(const EmuHintTable *h, EmuDim3 grid, unsigned zones, LdNuma *p)
{
    memset(p, 0, sizeof *p);
    p->top = -1, p->zones = zones;
    size_t nd = h ? h->ndescs : 0;
    if (!nd || zones < 2 || (zones & (zones - 1)))
        return 0;
    size_t *order = malloc(nd * sizeof *order);
    uint64_t *per = calloc(zones, sizeof *per);
    uint8_t *bits = calloc(nd, 1);
    p->bit = calloc(nd, 1);
    if (!order || !per || !bits || !p->bit) {
        free(order), free(per), free(bits);
        ld_numa_free(p);
        return -1;
    }
    p->n = nd;
    size_t n = ld_by_priority(h, -1, order), first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (h->descs[order[i]].ctile[0] >= 1)
            first = i;
    int rc = 0;
    if (first < n) {
        const EmuDescRange *top = &h->descs[order[first]];
        p->top = (long)order[first];
        p->nparts = ld_ctiles(top, grid, p->ct, p->nct, p->walk);
        uint8_t *part = malloc(p->nparts), *best_part = malloc(p->nparts);
        unsigned last = LD_HIGH_BIT - numa_log2(zones) + 1;
        double best = -1;
        p->part = part;
        for (unsigned b = LD_LOW_BIT; part && best_part && b <= last; b++) {
            memset(bits, 0, nd);
            numa_part(p, top, b, per);
            double util = comp_util(p, top, grid, b, per);
            bits[order[first]] = (uint8_t)b;
            for (size_t i = 0; i < n; i++) {
                if (i == first)
                    continue;
                double most = -1;
                for (unsigned c = LD_LOW_BIT; c <= last; c++) {
                    double u = comp_util(p, &h->descs[order[i]], grid, c, per);
                    if (u > most)
                        most = u, bits[order[i]] = (uint8_t)c;
                }
                util += most;
            }
            if (util > best) {
                best = util;
                memcpy(best_part, part, p->nparts);
                memcpy(p->bit, bits, nd);
            }
        }
        if (part && best_part) {
            memcpy(part, best_part, p->nparts);
            p->util = best;
        } else {
            rc = -1;
        }
        free(best_part);
    }
    free(order), free(per), free(bits);
    if (rc < 0)
        ld_numa_free(p);
    return rc;
}

int ld_numa_line_zone(const LdNuma *p, const EmuHintTable *h, uint64_t line)
{
    for (size_t i = 0; h && i < p->n && i < h->ndescs; i++) {
        const EmuDescRange *d = &h->descs[i];
        if (p->bit[i] && line - d->base < d->bytes)
            return (int)((line >> p->bit[i]) & (p->zones - 1));
    }
    return -1;
}

/* --- the zone slot ------------------------------------------------------------------------ */

typedef struct LdZone {
    const EmuHintTable *h;
    LdNuma plan;
    NumaXor base; /* the baseline's hash, for lines of no placed structure */
} LdZone;

static void *zone_init(const EmuConfig *cfg)
{
    LdZone *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->plan.top = -1;
    z->base = numa_xor(cfg->system_gpus, cfg->numa_interleave);
    return z;
}

static void zone_free(void *state)
{
    LdZone *z = state;
    ld_numa_free(&z->plan);
    free(z);
}

static int zone_bind(void *state, const TmLaunchView *v)
{
    LdZone *z = state;
    ld_numa_free(&z->plan);
    z->h = v->hints;
    return ld_numa_plan(v->hints, v->grid, v->ngpu, &z->plan);
}

static unsigned zone_of(void *state, uint64_t line, unsigned gpu)
{
    (void)gpu;
    const LdZone *z = state;
    int k = ld_numa_line_zone(&z->plan, z->h, line);
    if (k >= 0)
        return (unsigned)k;
    return numa_xor_zone(&z->base, line);
}

const TmZoneOps tm_zone_ldesc = {.name = "ldesc", .init = zone_init, .free = zone_free,
                                 .bind = zone_bind, .zone = zone_of};
