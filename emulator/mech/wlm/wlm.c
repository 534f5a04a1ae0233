/*
 * wlm.c - warp-level resource management for the resource-manager slot
 * (core.resource_mgr = wlm; timing/slots.h): Xiang, Yang, Zhou, "Warp-Level Divergence
 * in GPUs: Characterization, Impact, and Mitigation", HPCA 2014, the second baseline of
 * Zorua (Vijaykumar et al., MICRO 2016, Section 6).
 *
 * A CTA starts under the same test as the static baseline (its warp slots, threads,
 * registers and shared memory all free), but a warp gives back its warp slot, its
 * threads and its registers as soon as it has exited and its last instruction completed,
 * instead of when its CTA's last warp has: the warps of a CTA that finish early make room
 * for the next CTA while the slow ones still run. Shared memory and the CTA slot are the
 * CTA's and go with it. docs/zorua.md says what we carried over and what we left out.
 */
#include "mech/mech.h"
#include "timing/gpu.h"
#include "mech/registry.h"

/* Threads of warp fw of a CTA of cta_threads threads. */
static uint32_t warp_threads(const EmuWarp *fw, uint32_t cta_threads)
{
    uint32_t first = fw->id * XGPU_WARP_SIZE;
    uint32_t left = cta_threads > first ? cta_threads - first : 0;
    return left < XGPU_WARP_SIZE ? left : XGPU_WARP_SIZE;
}

static void wlm_warp_done(TmSm *sm, uint16_t slot)
{
    const TmGpu *g = sm->gpu;
    sm->warps_used--;
    sm->threads_used -= warp_threads(sm->warp[slot].fw, g->cta_threads);
    sm->regs_used -= g->cta_regs / g->cta_warps;
    tm_sm_room(sm);
}

/* The CTA's warps gave back their part already. */
static void wlm_cta_done(TmSm *sm, TmCta *t)
{
    (void)t;
    sm->shared_used -= sm->gpu->cta_shared;
}

static int wlm_fits(const TmSm *sm)
{
    return tm_res_static.fits(sm);
}

static void wlm_cta_start(TmSm *sm, TmCta *t)
{
    tm_res_static.cta_start(sm, t);
}

const TmResourceOps tm_res_wlm = {.name = "wlm", .fits = wlm_fits, .cta_start = wlm_cta_start,
                                  .cta_done = wlm_cta_done, .warp_done = wlm_warp_done};

const EmuMech emu_mech_wlm = {.name = "wlm"};
