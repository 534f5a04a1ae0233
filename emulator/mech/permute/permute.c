/*
 * permute.c - permutation-based bank interleaving for the DRAM mapping slot
 * (dram.mapping = permute; timing/slots.h, TmMappingOps): Zhang, Zhu, Zhang, "A
 * Permutation-based Page Interleaving Scheme to Reduce Row-buffer Conflicts and Exploit
 * Data Locality", MICRO 2000, Section 4.
 *
 * The interleaving (docs/timing.md, DRAM) gives a channel's consecutive rows' worth of
 * lines consecutive banks, so lines a multiple of banks x row bytes apart in a channel -
 * the same element of two arrays whose bases are so aligned, the rows of a wide matrix's
 * column - fall in one bank, in different rows, and each access closes the row the other
 * needs. The permutation takes the bank as the interleaving's bank XOR bits of the row
 * number, from bit permute.shift up (the paper XORs the bank index with the low bits of
 * the L2 tag, which are the row bits above the cache's set index: shift selects them):
 * those lines spread over every bank, while the lines of one row of one bank stay
 * together, so the row-buffer hits of a stream are kept. For each row the map is a
 * permutation of the banks (b -> b xor k), so distinct lines of a channel stay apart,
 * which the slot asks; dram.banks must be a power of two for the XOR to stay among the
 * banks (checked). It keeps no state beyond the two numbers, takes no time, and counts
 * nothing of its own: its effect is the DRAM's row-hit and row-miss counters.
 */
#include <stdlib.h>
#include <string.h>
#include "mech/mech.h"
#include "mech/registry.h"

typedef struct Permute {
    unsigned shift;     /* the lowest row bit XORed into the bank */
    unsigned bank_mask; /* dram.banks - 1 */
} Permute;

static void *permute_init(const EmuConfig *cfg)
{
    Permute *p = malloc(sizeof *p);
    if (p)
        *p = (Permute){.shift = cfg->permute_shift, .bank_mask = cfg->dram_banks - 1};
    return p;
}

static void permute_map(void *state, uint64_t line, unsigned chan, uint64_t local,
                        unsigned *bank, uint64_t *row)
{
    (void)line, (void)chan, (void)local;
    const Permute *p = state;
    *bank ^= (unsigned)(*row >> p->shift) & p->bank_mask;
}

const TmMappingOps tm_map_permute = {
    .name = "permute", .init = permute_init, .free = free, .map = permute_map,
};

/* The XOR must stay among the banks. */
static int permute_check(const EmuConfig *c, char *err, size_t n)
{
    if (strcmp(c->dram_mapping, "permute") == 0 && (c->dram_banks & (c->dram_banks - 1))) {
        snprintf(err, n, "dram.mapping: permute XORs row bits into the bank, so dram.banks "
                 "must be a power of two, got %u", c->dram_banks);
        return -1;
    }
    return 0;
}

const EmuMech emu_mech_permute = {.name = "permute", .check = permute_check};
