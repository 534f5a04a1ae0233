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

/* Collects the distinct words of the access; returns how many. */
static unsigned smem_words(const TmAccess *a, unsigned bank_bytes, uint64_t *word)
{
    unsigned n = 0, size = a->size ? a->size : 1;
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!(a->mask >> lane & 1))
            continue;
        uint64_t first = a->addr[lane] / bank_bytes;
        uint64_t last = (a->addr[lane] + size - 1) / bank_bytes;
        for (uint64_t w = first; w <= last; w++) {
            unsigned i = 0;
            while (i < n && word[i] != w)
                i++;
            if (i == n && n < SMEM_MAX_WORDS)
                word[n++] = w;
        }
    }
    return n;
}

SmemCost smem_cost(const TmAccess *a, unsigned banks, unsigned bank_bytes)
{
    uint64_t word[SMEM_MAX_WORDS];
    unsigned per_bank[64] = {0};
    unsigned n = smem_words(a, bank_bytes, word), worst = 1;
    for (unsigned i = 0; i < n; i++) {
        unsigned b = (unsigned)(word[i] % banks);
        if (++per_bank[b] > worst)
            worst = per_bank[b];
    }
    unsigned need = n ? (n + banks - 1) / banks : 1;
    return (SmemCost){worst, worst - need};
}
