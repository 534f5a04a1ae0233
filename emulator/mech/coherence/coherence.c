/*
 * coherence.c - simple policies of the coherence slot (coherence; timing/slots.h).
 * GPU L1s are written through and not kept coherent by hardware; what varies is when an
 * SM stops trusting the lines it holds, and whether the L2s are emptied between kernels.
 * HALCONE's timestamps are mech/halcone/halcone.c.
 *
 *   fence  a memory fence of device or system scope (membar.gl / membar.sys:
 *          __threadfence(), __threadfence_system()) invalidates the SM's L1, as GPUs
 *          that invalidate their L1 at acquire points do; block-scope fences do not.
 *   lease  a line may be hit for coherence.lease cycles after its fill and is then
 *          fetched again: fixed-lease self-invalidation, the read side of temporal
 *          coherence (Singh, Shriraman, Fung, O'Connor, Aamodt, "Cache Coherence for GPU
 *          Architectures", HPCA 2013), with one synchronized clock, no lease prediction
 *          and no write stalls.
 *   flush  every L2 writes its dirty lines back and drops every line at the end of each
 *          launch, so a device of several GPUs with L2s of their own (system.memory =
 *          shared) sees every kernel's writes in the next kernel, as MGPUSim's multi-GPU
 *          model does at kernel boundaries (docs/multi-gpu.md).
 *
 * None changes a result (the functional model executes at issue, so loads always see
 * memory as it is); they change which reads hit.
 */
#include <stdio.h>
#include <stdlib.h>
#include "mech/mech.h"
#include "timing/gpu.h"
#include "xgpu/isa.h"
#include "mech/registry.h"

static int fence_invalidates(void *state, unsigned sm, unsigned scope)
{
    (void)state, (void)sm;
    return scope >= XSCOPE_GL;
}

/* The lease state: coherence.lease. */
static int lease_begin(TmGpu *g, void **state, char *err, size_t n)
{
    uint64_t *lease = malloc(sizeof *lease);
    if (!lease) {
        snprintf(err, n, "coherence: out of host memory");
        return -1;
    }
    *lease = g->cfg->coherence_lease;
    *state = lease;
    return 0;
}

static void lease_end(TmGpu *g, void *state)
{
    (void)g;
    free(state);
}

static int lease_valid(void *state, unsigned sm, uint64_t line, uint64_t meta, Cycle filled,
                       Cycle now)
{
    (void)sm, (void)line, (void)meta;
    return now - filled < *(const uint64_t *)state;
}

const TmCoherenceOps tm_coh_fence = {.name = "fence", .fence = fence_invalidates};
const TmCoherenceOps tm_coh_flush = {.name = "flush", .flush = 1};
const TmCoherenceOps tm_coh_lease = {.name = "lease",
                                     .launch = {.begin = lease_begin, .end = lease_end},
                                     .l1_read = lease_valid};

const EmuMech emu_mech_coherence = {.name = "coherence"};
