/*
 * baselines.c - the baselines of the policy slots that have no unit of their own to live
 * in (base/slots.def): the collector (ocu), prefetch (none), observer (none), insertion
 * (mru), L2 prefetch (none), transform (none), coherence (none), assist (none), hint
 * lookup (exact) and DRAM mapping (interleave) slots. Most are empty ops tables: the core
 * does the baseline's work where a hook is NULL.
 */
#include "hints.h"
#include "mech/mech.h"
#include "mech/registry.h"

/* The baseline: operand collectors that read every source from the banks. */
const TmCollectorOps tm_coll_ocu = {.name = "ocu", .fill = tm_fill_banks};

/* No prefetching: the L1 fetches what demand requests miss, nothing more. */
const TmPrefetchOps tm_pf_none = {.name = "none"};

/* Nothing observed. */
const TmObserverOps tm_obs_none = {.name = "none"};

/* Every line a read miss installs goes where the replacement policy puts it. */
const TmInsertionOps tm_ins_mru = {.name = "mru"};

/* No L2 prefetching. */
const TmL2PrefetchOps tm_l2pf_none = {.name = "none"};

/* Lines move as they are: one DRAM burst per sector. */
const TmTransformOps tm_xf_none = {.name = "none"};

/* An L1 trusts what it holds until the kernel ends. */
const TmCoherenceOps tm_coh_none = {.name = "none"};

/* Every issue slot is the program's. */
const TmAssistOps tm_assist_none = {.name = "none"};

/* Hints as the runtime gave them: each request's atom and descriptor looked up exactly,
 * at no cost. */
static Cycle lookup_exact(void *state, TmCounters *ctr, const struct EmuHintTable *h, TmReq *r,
                          unsigned n, Cycle now)
{
    (void)state, (void)ctr;
    for (unsigned i = 0; i < n; i++) {
        r[i].atom = emu_hint_atom(h, r[i].line);
        r[i].desc = emu_hint_desc(h, r[i].line);
    }
    return now;
}
const TmLookupOps tm_lookup_exact = {.name = "exact", .tag = lookup_exact};

/* The interleaving's bank and row (timing/memsys_dram.c): nothing to change. */
const TmMappingOps tm_map_interleave = {.name = "interleave"};

const EmuMech emu_mech_base = {.name = "base"};
