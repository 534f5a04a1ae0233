/*
 * insertion.c - cache insertion policies for the insertion slot (l1.insertion,
 * l2.insertion; timing/slots.h): where a line a read miss brings goes.
 *
 *   lip     LRU insertion: every new line goes first in line for eviction, so a line
 *           must be hit once to stay; a working set larger than the cache keeps part of
 *           itself instead of thrashing all of it (Qureshi, Jaleel, Patt, Steely, Emer,
 *           "Adaptive Insertion Policies for High Performance Caching", ISCA 2007, §3).
 *   bip     bimodal insertion: as lip, but every 32nd new line of the cache goes where
 *           the replacement policy puts it (epsilon = 1/32, ibid. §4), so the cache
 *           still adapts when the working set changes. Counted per cache, so the choice
 *           is deterministic.
 *   bypass  no new line: a miss holds only its MSHR, evicts nothing, and its data goes
 *           to the requests waiting for it (for a load of the L1 this is what compiling
 *           with -dlcm=cg asks of a GPU: global loads cached in L2 only). An L2 atomic
 *           still allocates its line (it writes it).
 *
 * The baseline, mru, is registry.c's (no hook). Prefetches and L2 writes are never
 * asked (slots.h).
 */
#include <stdlib.h>
#include "mech/mech.h"
#include "mech/registry.h"

enum { BIP_EPSILON = 32 }; /* one new line in 32 is inserted as the policy does */

static TmInsert place_lru(void *state, const TmReq *r)
{
    (void)state, (void)r;
    return TM_INSERT_LRU;
}

static void *bip_init(const EmuConfig *cfg, int level)
{
    (void)cfg, (void)level;
    return calloc(1, sizeof(uint32_t));
}

static TmInsert place_bimodal(void *state, const TmReq *r)
{
    (void)r;
    uint32_t *n = state;
    return ++*n % BIP_EPSILON == 0 ? TM_INSERT_MRU : TM_INSERT_LRU;
}

static TmInsert place_bypass(void *state, const TmReq *r)
{
    (void)state, (void)r;
    return TM_INSERT_BYPASS;
}

const TmInsertionOps tm_ins_lip = {.name = "lip", .place = place_lru};
const TmInsertionOps tm_ins_bip = {.name = "bip", .init = bip_init, .free = free,
                                   .place = place_bimodal};
const TmInsertionOps tm_ins_bypass = {.name = "bypass", .place = place_bypass};

const EmuMech emu_mech_insertion = {.name = "insertion"};
