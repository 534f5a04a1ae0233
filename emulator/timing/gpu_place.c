/*
 * gpu_place.c - the baseline CTA placement (core.cta_placement = rr; a policy slot,
 * slots.h), which the launch calls at the start of its first cycle and at the start of
 * the cycle after a CTA finishes: CTAs go out in grid order (x fastest); each goes to
 * the next SM, from the one after the last SM that got a CTA, that has room for it (the
 * resource-manager slot's fits: for static, warp slots, threads, registers = nregs x
 * threads rounded up to whole warps, shared memory, core.max_ctas_per_sm). Its place in
 * the round (TmRr, gpu.h) is kept on the launch, not as slot state, because a placement
 * that falls back to this one (a mechanism's, for CTAs it does not place) continues the same
 * round.
 */
#include <stdlib.h>
#include <string.h>
#include "timing/gpu_int.h"
#include "timing/sm.h"

int tm_rr_init(TmRr *rr, uint32_t ngpu)
{
    rr->gpu_next = calloc(ngpu, sizeof *rr->gpu_next);
    rr->gpu_rr = calloc(ngpu, sizeof *rr->gpu_rr);
    return rr->gpu_next && rr->gpu_rr ? 0 : -1;
}

void tm_rr_free(TmRr *rr)
{
    free(rr->gpu_next);
    free(rr->gpu_rr);
}

static EmuDim3 cta_id(const TmGpu *g, uint64_t i)
{
    const EmuDim3 *gr = &g->x->grid;
    return (EmuDim3){(uint32_t)(i % gr->x), (uint32_t)(i / gr->x % gr->y),
                     (uint32_t)(i / gr->x / gr->y)};
}

/* GPU k's share of the grid (system.cta_split): how many CTAs, and the grid index of
 * its i-th. */
static uint64_t gpu_share(const TmGpu *g, uint32_t k)
{
    if (strcmp(g->cfg->system_cta_split, "interleave") == 0)
        return g->ncta / g->ngpu + (k < g->ncta % g->ngpu);
    return (k + 1) * g->ncta / g->ngpu - k * g->ncta / g->ngpu;
}

static uint64_t gpu_cta(const TmGpu *g, uint32_t k, uint64_t i)
{
    if (strcmp(g->cfg->system_cta_split, "interleave") == 0)
        return k + i * g->ngpu;
    return k * g->ncta / g->ngpu + i;
}

/* With several GPUs, the baseline within each GPU's share of the grid, GPU by GPU. */
static EmuStatus place_rr_gpus(TmGpu *g)
{
    for (uint32_t k = 0; k < g->ngpu; k++) {
        uint64_t share = gpu_share(g, k);
        uint32_t tried = 0;
        while (g->rr.gpu_next[k] < share && tried < g->gpu_sms) {
            TmSm *sm = g->sm[k * g->gpu_sms + g->rr.gpu_rr[k]];
            g->rr.gpu_rr[k] = (g->rr.gpu_rr[k] + 1) % g->gpu_sms;
            if (!tm_sm_fits(sm)) {
                tried++;
                continue;
            }
            EmuStatus s = tm_sm_start_cta(sm, cta_id(g, gpu_cta(g, k, g->rr.gpu_next[k]++)),
                                          g->now);
            if (s)
                return s;
            g->next_cta++;
            tried = 0;
        }
    }
    return EMU_OK;
}

/* The baseline CTA placement: waiting CTAs round robin over the SMs, from the one after the
 * last SM that got a CTA, while an SM has room. In a device of several GPUs
 * (docs/multi-gpu.md) each GPU takes its share of the grid (system.cta_split) so. */
static EmuStatus place_rr(TmGpu *g)
{
    if (g->ngpu > 1)
        return place_rr_gpus(g);
    uint32_t tried = 0;
    while (g->next_cta < g->ncta && tried < g->nsm) {
        TmSm *sm = g->sm[g->rr.next];
        g->rr.next = (g->rr.next + 1) % g->nsm;
        if (!tm_sm_fits(sm)) {
            tried++;
            continue;
        }
        EmuStatus s = tm_sm_start_cta(sm, cta_id(g, g->next_cta++), g->now);
        if (s)
            return s;
        tried = 0;
    }
    return EMU_OK;
}

const TmPlacementOps tm_place_rr = {.name = "rr", .place = place_rr};
