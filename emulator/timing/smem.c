/*
 * smem.c - shared-memory bank conflicts (smem.h).
 *
 * The address space is striped over the banks in bank_bytes-wide words: word w lives in
 * bank w mod banks. A lane touching [off, off + size) uses every word that range covers
 * (an 8-byte access uses two consecutive words, hence two banks). All lanes reading the
 * same word are served by one bank read (broadcast). A bank serves one word per cycle, so
 * the access takes as many cycles as the largest number of distinct words any bank must
 * serve. Conflicts are the cycles beyond ceil(distinct words / banks), the minimum the
 * bank bandwidth allows: a unit-stride 8-byte warp access takes 2 cycles and counts no
 * conflict; a stride-32-word 4-byte access takes 32 cycles and counts 31.
 */
#include "timing/smem.h"

#define SMEM_MAX_WORDS (32 * 4) /* 32 lanes x 16 bytes / 4-byte words */
#define SMEM_HASH 256            /* > SMEM_MAX_WORDS: open addressing never fills up */

/* Counts the distinct words of the access (found through a small hash set) and the
 * distinct words each bank serves. Returns how many distinct words there are. */
static unsigned smem_words(const TmAccess *a, unsigned banks, unsigned bank_bytes,
                           unsigned *per_bank, unsigned *worst)
{
    uint64_t key[SMEM_HASH];
    uint8_t used[SMEM_HASH] = {0};
    unsigned n = 0, size = a->size ? a->size : 1, shift = (unsigned)__builtin_ctz(bank_bytes);
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!(a->mask >> lane & 1))
            continue;
        uint64_t first = a->addr[lane] >> shift, last = (a->addr[lane] + size - 1) >> shift;
        for (uint64_t w = first; w <= last && n < SMEM_MAX_WORDS; w++) {
            unsigned h = (unsigned)((w * 0x9e3779b97f4a7c15ull) >> 56) % SMEM_HASH;
            while (used[h] && key[h] != w)
                h = (h + 1) % SMEM_HASH;
            if (used[h])
                continue; /* broadcast: this word is read once */
            used[h] = 1, key[h] = w, n++;
            unsigned b = (unsigned)(w % banks);
            if (++per_bank[b] > *worst)
                *worst = per_bank[b];
        }
    }
    return n;
}

/* The usual access, answered without the hash set: every lane touches one word and no
 * bank serves two distinct words, so the banks serve it in one cycle without conflict.
 * Returns 0 when the access is not like that (the general count decides). */
static int smem_one_cycle(const TmAccess *a, unsigned banks, unsigned shift)
{
    uint64_t first[64], have = 0; /* per bank, the word it serves */
    unsigned size = a->size ? a->size : 1, low = banks & (banks - 1) ? 0 : banks - 1;
    for (uint32_t m = a->mask; m; m &= m - 1) {
        uint64_t addr = a->addr[__builtin_ctz(m)], w = addr >> shift;
        if (w != (addr + size - 1) >> shift)
            return 0;
        unsigned b = low ? (unsigned)(w & low) : (unsigned)(w % banks);
        if (have >> b & 1) {
            if (first[b] != w)
                return 0;
            continue; /* broadcast */
        }
        have |= 1ull << b, first[b] = w;
    }
    return 1;
}

SmemCost smem_cost(const TmAccess *a, unsigned banks, unsigned bank_bytes)
{
    if (smem_one_cycle(a, banks, (unsigned)__builtin_ctz(bank_bytes)))
        return (SmemCost){1, 0};
    unsigned per_bank[64] = {0}, worst = 1;
    unsigned n = smem_words(a, banks, bank_bytes, per_bank, &worst);
    unsigned need = n ? (n + banks - 1) / banks : 1;
    return (SmemCost){worst, worst - need};
}
