/*
 * gpu_int.h - what the parts of one timing launch (gpu.h) call of each other, and
 * nothing outside them includes: making and freeing the launch (gpu_setup.c), the
 * baseline placement's state (gpu_place.c), one cycle of every unit and the threads that
 * tick the SMs (gpu_cycle.c), and the report at the launch's end (gpu_report.c). The
 * launch and its loop, which call them, are gpu.c's.
 */
#ifndef EMU_TIMING_GPU_INT_H
#define EMU_TIMING_GPU_INT_H

#include "timing/gpu.h"

/* gpu_setup.c: the launch's units, policy slots, memory system and SMs for kernel
 * `kernel` of m (g->d, cfg, x and kc set); EMU_OK, or the error with err filled. */
EmuStatus tm_gpu_setup(TmGpu *g, const EmuModule *m, int kernel, char *err, size_t n);
/* What tm_gpu_setup made, however far it got (the slots' launch.end included). */
void tm_gpu_free(TmGpu *g);

/* gpu_place.c: the round's arrays for ngpu GPUs (0, or -1 out of host memory), and
 * their release. */
int tm_rr_init(TmRr *rr, uint32_t ngpu);
void tm_rr_free(TmRr *rr);

/* gpu_cycle.c: the host threads that will tick the SMs, if the launch may use several
 * (emu.threads), and their release after the loop. */
void tm_gpu_pool_begin(TmGpu *g);
void tm_gpu_pool_end(TmGpu *g);
/* One cycle (g->now) of every unit; whether anything happened. */
int tm_gpu_cycle(TmGpu *g);

/* gpu_report.c: after the loop, what the SMs counted reaches the launch's execution
 * context (and their refusals while asleep the counters). */
void tm_gpu_sum_exec(TmGpu *g);
/* The launch's report (rep; NULL: none): each GPU's counters with several GPUs, the
 * units' with stats.per_unit (the report takes them over), the observer's figures. */
void tm_gpu_report(TmGpu *g, TmReport *rep);

#endif
