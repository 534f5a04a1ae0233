/*
 * gpu.h - the timing model's device: SMs, the memory system, the CTA scheduler and the
 * cycle loop of one launch (gpu.c), and the per-launch counters kept on the device.
 */
#ifndef EMU_TIMING_GPU_H
#define EMU_TIMING_GPU_H

#include "device.h"
#include "timing/core.h"
#include "timing/memsys.h"
#include "timing/slots.h"

/* One launch in timing mode. */
struct TmGpu {
    EmuDevice *d;
    const EmuConfig *cfg;
    EmuExec *x;
    const EmuKernelCode *kc;
    const XInsn *code;      /* the kernel's instructions, by pc */
    TmInsn *info;           /* per pc */
    TmSm **sm;
    uint32_t nsm;
    MemSys *mem;            /* NULL with core.mem_latency > 0 */
    int mem_owned;          /* mem is this launch's own (l2.persist = false) */
    const Cycle *recv_head; /* memsys_recv_heads(mem), or NULL */
    TmCounters ctr;         /* the launch's, or with stats.per_unit only the GPU-wide ones */
    TmCounters *unit;       /* stats.per_unit: nsm + nslice + nchan units' (TmReport) */
    uint32_t nslice, nchan;
    TmRng rng;
    Cycle now;
    uint64_t ncta, next_cta, ctas_done;
    int cta_finished;       /* a CTA finished this cycle (placement runs next cycle) */
    uint32_t rr;            /* CTA scheduler: next SM to try */
    uint64_t age;           /* warps launched so far (gto age) */
    /* the policy slots (slots.h): what the SMs run, and each slot's launch state */
    const struct TmSchedOps *issue;
    const TmCollectorOps *coll;
    const TmObserverOps *obs;
    const TmResourceOps *res;
    const TmPlacementOps *place;
    const TmCoherenceOps *coh;
    TmMech mech[TM_NSLOTS];
    /* what one CTA needs */
    uint32_t cta_regs, cta_threads, cta_warps;
    uint64_t cta_shared;
    /* the first fault */
    EmuStatus status;
    EmuWarp *fw;
    EmuCta *fcta;
};

/* Runs the launch x describes (kernel `kernel` of m) in timing mode. Fills *fault on a
 * guest fault, *cycles, *ctr (this launch's counters) and *rep (what the observer
 * reported; empty without one) in any case. */
EmuStatus tm_launch(EmuDevice *d, EmuModule *m, int kernel, EmuExec *x, EmuFault *fault,
                    uint64_t *cycles, TmCounters *ctr, TmReport *rep);

/* The launch's warp instructions so far, and all its counters so far (with stats.per_unit
 * the sum over the units), for what reads them while the launch runs. */
uint64_t tm_warp_insns(const TmGpu *g);
void tm_counters_now(const TmGpu *g, TmCounters *out);

#endif
