/*
 * sm.h - one streaming multiprocessor of the timing model (sm.c): its warp slots,
 * resident CTAs and sub-cores, ticked once per cycle by the device loop (gpu.c).
 */
#ifndef EMU_TIMING_SM_H
#define EMU_TIMING_SM_H

#include "timing/gpu.h"

TmSm *tm_sm_new(TmGpu *g, uint32_t id, char *err, size_t n);
void tm_sm_free(TmSm *sm);
/* Whether a CTA of the launch fits next to the CTAs already resident. */
int tm_sm_fits(const TmSm *sm);
/* Makes CTA ctaid resident; its warps may issue from cycle now. */
EmuStatus tm_sm_start_cta(TmSm *sm, EmuDim3 ctaid, Cycle now);
/* One cycle; returns non-zero when anything happened. */
int tm_sm_tick(TmSm *sm, Cycle now);
/* Accounts n skipped idle cycles (stall causes and occupancy stay as in the last one). */
void tm_sm_skip(TmSm *sm, Cycle n);
/* Accounts the cycles the SM slept (sm->slept) as skipped ones. */
void tm_sm_settle(TmSm *sm);
int tm_sm_idle(const TmSm *sm);
/* The grid barrier: releases every CTA of the SM that waits at it, at the end of cycle
 * now (the device loop's decision, gpu_cycle.c); their warps issue from the next cycle. */
void tm_sm_grid_release(TmSm *sm, Cycle now);
void tm_sm_dump(const TmSm *sm, FILE *f);

#endif
