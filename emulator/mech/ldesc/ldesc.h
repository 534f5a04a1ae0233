/*
 * ldesc.h - what the Locality Descriptor's CTA placement (ldesc.c) and its NUMA data
 * placement (ldesc_numa.c) share: the descriptors by priority, the walk order of a
 * compute-data map, and Algorithm 2's plan (docs/ldesc.md, NUMA).
 */
#ifndef EMU_MECH_LDESC_H
#define EMU_MECH_LDESC_H

#include <stddef.h>
#include <stdint.h>
#include "hints.h"

static inline uint64_t ld_div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The descriptors of h whose locality is `locality` (or every one: locality < 0) by
 * priority, highest first (the order given among equals): their indices into h->descs
 * in order[], how many returned. */
size_t ld_by_priority(const EmuHintTable *h, int locality, size_t *order);
/* The dimensions a compute-data map walks, fastest first: ranked ones by rank, then the
 * unranked ones in x, y, z order. */
void ld_walk(const uint8_t map[3], uint8_t walk[3]);

/* Algorithm 2's result for a launch on a device of zones modules (a power of two). */
typedef struct LdNuma {
    unsigned zones;
    size_t n;          /* descriptors (h->ndescs) */
    uint8_t *bit;      /* [n] the low bit of each structure's zone bits (0: not placed) */
    long top;          /* the descriptor whose C-Tiles partition the grid, or -1 */
    uint32_t ct[3];    /* its C-Tile, clipped to the grid */
    uint32_t nct[3];   /* C-Tiles along x, y, z */
    uint8_t walk[3];
    uint8_t *part;     /* [C-Tiles] each C-Tile's zone, in walk order */
    uint64_t nparts;
    double util;       /* the chosen plan's summed local fractions */
} LdNuma;

/* Plans the launch's data placement and CTA partition (p is overwritten; free with
 * ld_numa_free): 0, or -1 out of host memory. Without a descriptor with C-Tiles, or
 * with zones not a power of two, the plan places nothing (top = -1). */
int ld_numa_plan(const EmuHintTable *h, EmuDim3 grid, unsigned zones, LdNuma *p);
void ld_numa_free(LdNuma *p);
/* The zone of CTA id (its C-Tile's, under the top descriptor), or -1 without a plan. */
int ld_numa_cta_zone(const LdNuma *p, EmuDim3 id);
/* The zone of line under the plan, or -1 when no placed structure holds it. */
int ld_numa_line_zone(const LdNuma *p, const EmuHintTable *h, uint64_t line);

#endif
