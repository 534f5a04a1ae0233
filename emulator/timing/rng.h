/*
 * rng.h - the timing model's random generator: splitmix64, seeded from emu.seed at the
 * start of every launch, so identical launches make identical choices. One generator
 * per SM (sm.c seeds SM i's from emu.seed and i), so SMs ticking on different host
 * threads draw the same numbers; nothing else (host time, host addresses) may influence
 * timing.
 */
#ifndef EMU_TIMING_RNG_H
#define EMU_TIMING_RNG_H

#include <stdint.h>

typedef struct TmRng {
    uint64_t s;
} TmRng;

static inline void tm_rng_seed(TmRng *r, uint64_t seed)
{
    r->s = seed;
}

static inline uint64_t tm_rng_next(TmRng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1. */
static inline uint32_t tm_rng_below(TmRng *r, uint32_t n)
{
    return (uint32_t)(((tm_rng_next(r) >> 32) * n) >> 32);
}

#endif
