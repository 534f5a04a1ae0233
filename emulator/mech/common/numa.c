/*
 * numa.c - where a NUMA device's lines live: the zone slot's baselines (numa.map;
 * timing/slots.h, TmZoneOps; docs/multi-gpu.md, NUMA).
 *
 *   xor          blocks of numa.interleave_bytes go to zone
 *                    (B xor B >> z xor B >> 2z xor ...) mod zones,
 *                B the block's number and z = ceil(log2(zones)): a static hash that
 *                spreads any stride over the modules, the baseline of multi-module GPUs
 *                (Vijaykumar et al., "The Locality Descriptor", ISCA 2018, Sec. 6.2).
 *   first-touch  pages of numa.page_bytes go to the module whose SM reaches the memory
 *                side with the first request to them ("FirstTouch-Distrib" in the same
 *                paper, with its 64 KB pages); the placement lasts as long as the
 *                device's memory system (the page table keeps it from launch to launch).
 */
#include <stdlib.h>
#include <string.h>
#include "mech/mech.h"
#include "mech/common/numa.h"

unsigned numa_log2(uint64_t v)
{
    unsigned b = 0;
    while ((1ull << b) < v)
        b++;
    return b;
}

NumaXor numa_xor(unsigned zones, uint64_t block_bytes)
{
    return (NumaXor){.zones = zones, .bits = numa_log2(zones), .shift = numa_log2(block_bytes)};
}

unsigned numa_xor_zone(const NumaXor *x, uint64_t line)
{
    uint64_t b = line >> x->shift, h = 0;
    if (!x->bits)
        return 0;
    for (; b; b >>= x->bits)
        h ^= b;
    return (unsigned)(h & ((1ull << x->bits) - 1)) % x->zones;
}

static void *xor_init(const EmuConfig *cfg)
{
    NumaXor *z = malloc(sizeof *z);
    if (!z)
        return NULL;
    *z = numa_xor(cfg->system_gpus, cfg->numa_interleave);
    return z;
}

static unsigned xor_zone(void *state, uint64_t line, unsigned gpu)
{
    (void)gpu;
    return numa_xor_zone(state, line);
}

const TmZoneOps tm_zone_xor = {.name = "xor", .init = xor_init, .free = free,
                               .zone = xor_zone};

/* The page table: open addressing over page numbers + 1 (0: empty). */
typedef struct ZoneTouch {
    uint64_t *page;
    uint8_t *zone;
    size_t n, cap;
    unsigned shift, zones;
} ZoneTouch;

static void *touch_init(const EmuConfig *cfg)
{
    ZoneTouch *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->shift = numa_log2(cfg->numa_page), t->zones = cfg->system_gpus;
    return t;
}

static void touch_free(void *state)
{
    ZoneTouch *t = state;
    free(t->page);
    free(t->zone);
    free(t);
}

static size_t touch_slot(const ZoneTouch *t, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (t->cap - 1);
    while (t->page[i] && t->page[i] != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static int touch_grow(ZoneTouch *t)
{
    ZoneTouch g = *t;
    g.cap = t->cap ? 2 * t->cap : 1024;
    g.page = calloc(g.cap, sizeof *g.page);
    g.zone = calloc(g.cap, sizeof *g.zone);
    if (!g.page || !g.zone) {
        free(g.page);
        free(g.zone);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++)
        if (t->page[i]) {
            size_t k = touch_slot(&g, t->page[i]);
            g.page[k] = t->page[i], g.zone[k] = t->zone[i];
        }
    free(t->page);
    free(t->zone);
    *t = g;
    return 0;
}

static unsigned touch_zone(void *state, uint64_t line, unsigned gpu)
{
    ZoneTouch *t = state;
    uint64_t key = (line >> t->shift) + 1;
    if (t->cap) {
        size_t i = touch_slot(t, key);
        if (t->page[i])
            return t->zone[i];
    }
    if (2 * (t->n + 1) > t->cap && touch_grow(t) < 0)
        return (unsigned)(key % t->zones); /* out of host memory: the same zone each time */
    size_t i = touch_slot(t, key);
    t->page[i] = key, t->zone[i] = (uint8_t)gpu;
    t->n++;
    return gpu;
}

const TmZoneOps tm_zone_first_touch = {.name = "first-touch", .init = touch_init,
                                       .free = touch_free, .zone = touch_zone};
