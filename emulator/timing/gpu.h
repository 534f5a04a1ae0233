/*
 * gpu.h - the timing model's device: SMs, the memory system, the CTA scheduler and the
 * cycle loop of one launch, and the per-launch counters kept on the device. The launch
 * and its loop are gpu.c's; it is made and freed in gpu_setup.c, places CTAs with
 * gpu_place.c's baseline, runs each cycle in gpu_cycle.c and reports in gpu_report.c
 * (their shared declarations: gpu_int.h). The per-pc timing facts are insn_info.c's.
 */
#ifndef EMU_TIMING_GPU_H
#define EMU_TIMING_GPU_H

#include <stdatomic.h>
#include "device.h"
#include "timing/core.h"
#include "timing/memsys.h"
#include "timing/slots.h"

/* The SMs one worker of the pool is home to that tick this cycle, and the next of them
 * to be taken (by it, or by a worker done with its own). */
typedef struct TmAwake {
    _Alignas(64) atomic_uint next;
    uint32_t *sm, n;
} TmAwake;

/* Who ticks the SMs, and which did this cycle (gpu_cycle.c). */
typedef struct TmTicking {
    uint32_t *ticked;       /* [nsm] the SMs that ticked this cycle, in SM order */
    uint32_t nticked;
    struct TmPool *pool;    /* emu.threads > 1: the threads that tick the SMs (pool.h) */
    TmAwake *awake;         /* [nawake] per worker, the awake SMs it is home to */
    unsigned nawake;
} TmTicking;

/* The baseline CTA placement's place in its round (gpu_place.c). */
typedef struct TmRr {
    uint32_t next;          /* next SM to try */
    uint64_t *gpu_next;     /* [ngpu] with several GPUs: CTAs each GPU has been given */
    uint32_t *gpu_rr;       /* [ngpu] and the next of its SMs to try */
} TmRr;

/* One launch in timing mode. */
struct TmGpu {
    EmuDevice *d;
    const EmuConfig *cfg;
    EmuExec *x;
    const EmuKernelCode *kc;
    const XInsn *code;      /* the kernel's instructions, by pc */
    TmInsn *info;           /* per pc */
    TmSm **sm;
    uint32_t nsm;           /* the SMs built so far; nsm_total once the launch runs */
    uint32_t nsm_total;     /* ngpu x gpu.sm_count (docs/multi-gpu.md) */
    uint32_t ngpu;          /* the GPUs (or modules) of the device: SM s is GPU s / gpu_sms's */
    uint32_t gpu_sms;       /* gpu.sm_count */
    MemSys *mem;            /* NULL with core.mem_latency > 0 */
    int mem_owned;          /* mem is this launch's own (l2.persist = false) */
    const Cycle *recv_head; /* memsys_recv_heads(mem), or NULL */
    TmCounters ctr;         /* the launch's, or with stats.per_unit only the GPU-wide ones */
    TmCounters *unit;       /* every SM's, then with stats.per_unit or several GPUs every
                             * slice's, channel's and GPU link's (TmReport) */
    uint32_t nslice, nchan, nlink;
    Cycle *gpu_done;        /* [ngpu] the cycle each GPU's last CTA finished */
    Cycle now;
    uint64_t ncta, next_cta, ctas_done;
    int cta_finished;       /* a CTA finished this cycle (placement runs next cycle) */
    int flushed;            /* the L2s were flushed at the launch's end (memsys_flush) */
    TmRr rr;                /* the baseline CTA placement's */
    /* the policy slots (slots.h): what the SMs run, and each slot's launch state */
    const struct TmSchedOps *issue;
    const TmCollectorOps *coll;
    const TmObserverOps *obs;
    const TmResourceOps *res;
    const TmPlacementOps *place;
    const TmCoherenceOps *coh;
    const TmAssistOps *assist;
    TmMech mech[TM_NSLOTS];
    /* what one CTA needs (registers: the kernel's and the assist slot's per thread) */
    uint32_t cta_regs, cta_threads, cta_warps;
    uint32_t assist_regs;   /* of them, per thread, the assist slot's (TmAssistOps.regs) */
    uint64_t cta_shared;
    uint64_t cta_dyn_shared; /* of it, the launch's dynamic shared memory */
    /* the first fault, and the execution context that describes it */
    EmuStatus status;
    EmuWarp *fw;
    EmuCta *fcta;
    EmuExec *fx;
    uint64_t insns;         /* warp instructions issued so far (the budget's count) */
    uint64_t waiting;       /* CTAs waiting at the grid barrier */
    uint8_t timed[TM_NSLOTS]; /* the slots whose mechanism has a timer (hooks->next) */
    unsigned ntimed;
    TmTicking tick;         /* who ticks the SMs (gpu_cycle.c) */
    uint64_t bad_seen;      /* invalid accesses so far (emu.memcheck = warn reports the first) */
};

/* The most CTAs of the launch one SM holds at once by its static needs (warp slots,
 * threads, registers, shared memory, core.max_ctas_per_sm), at least 1. */
uint32_t tm_gpu_ctas_per_sm(const TmGpu *g);
/* What the launch's cache policies and DRAM mapping are told of it (slots.h). */
TmLaunchView tm_gpu_view(const TmGpu *g);

/* Runs the launch x describes (kernel `kernel` of m) in timing mode. Fills *fault on a
 * guest fault, *cycles, *ctr (this launch's counters) and *rep (what the observer
 * reported; empty without one) in any case. */
EmuStatus tm_launch(EmuDevice *d, EmuModule *m, int kernel, EmuExec *x, EmuFault *fault,
                    uint64_t *cycles, TmCounters *ctr, TmReport *rep);

/* The line at line, as the memory hierarchy sees it (at GPU 0's addresses,
 * ldst_connect), read at the device's own into buf (n bytes): 0, or -1 when it is not
 * device memory. It changes nothing, so SMs on different host threads may read at once. */
int tm_read_line(const EmuDevice *d, uint64_t line, uint8_t *buf, unsigned n);

/* The timing facts of instruction in (reuse: its byte of the compiler's reuse hints,
 * XREUSE_*; 0: none), as the SM uses them: the launch's kernel's, or a mechanism's own
 * code's. */
void tm_insn_info(const EmuConfig *c, const XInsn *in, uint8_t reuse, TmInsn *t);

/* The launch's warp instructions so far, and all its counters so far (with stats.per_unit
 * the sum over the units), for what reads them while the launch runs. */
uint64_t tm_warp_insns(const TmGpu *g);
void tm_counters_now(const TmGpu *g, TmCounters *out);

#endif
