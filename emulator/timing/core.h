/*
 * core.h - the SM core's internal structs, shared by the files of one SM's pipeline:
 * sm.c (the per-cycle order and issue), sched.c (issue policies), scoreboard.c, rf.c
 * (banks and arbiter), ocu.c (operand collectors), units.c (execution units) and
 * writeback.c. Not used outside timing/.
 *
 * An SM has `max_warps` warp slots; slot s belongs to sub-core s mod core.subcores. A
 * sub-core owns its scheduler, scoreboard bits (kept per warp), register-file banks,
 * operand collector units (OCUs), one execution unit per class and its write-back
 * ports. The cycle order is fixed (sm.c): write-back, arbiter, dispatch, issue. What
 * differs between mechanisms goes through the policy slots (slots.h); their state is
 * theirs, behind the opaque pointers below.
 */
#ifndef EMU_TIMING_CORE_H
#define EMU_TIMING_CORE_H

#include "device.h"
#include "timing/heap.h"
#include "timing/ldst.h"
#include "timing/rng.h"
#include "timing/timing.h"

/* Execution classes: where an instruction goes after its operands are read. */
typedef enum TmClass {
    TC_INT,    /* integer ALU (isa.def INT) */
    TC_FP,     /* fp32 pipe */
    TC_DP,     /* fp64 pipe (FP-unit instructions of type f64) */
    TC_SFU,    /* special functions */
    TC_TENSOR, /* tensor cores */
    TC_LDST,   /* memory instructions: the SM's LD/ST unit */
    TC_CTRL,   /* resolved at issue: no collector, no unit (bra, brc, exit, bar, membar, ...) */
    TC_COUNT
} TmClass;

#define TM_MAXSRC 12 /* registers read: up to 6 source operands, pairs expanded */
#define TM_MAXDST 4

/* Static timing facts of one instruction, by pc (built from the XInsn at launch). */
typedef struct TmInsn {
    uint8_t cls;            /* TmClass */
    uint8_t nsrc, ndst;
    uint32_t latency;       /* issue-to-result cycles of its opcode in its unit */
    uint8_t src[TM_MAXSRC]; /* architectural registers read (RZ dropped) */
    uint8_t dst[TM_MAXDST]; /* registers written */
    uint64_t regs[4];       /* bit r: register r is read or written (scoreboard check) */
    uint16_t src_near;      /* bit i: src[i]'s next reuse is near (the compiler's reuse
                             * hints, .xgpu.reuse; docs/hints.md) */
    uint8_t dst_near;       /* bit i: dst[i]'s next reuse is near */
    const XPhase *phase;    /* the phase specifier that starts here (.xgpu.phases), or NULL:
                             * where a resource manager re-sizes what a warp holds */
    uint8_t fence;          /* membar: 1 + its scope (XScope), else 0 (the coherence slot) */
    uint32_t konst;         /* an XF_CONST operand: 1 + its parameter-buffer offset (it
                             * issues once the constant cache holds the word), else 0 */
} TmInsn;

/* Issue-stall causes, best (closest to issuing) last. */
typedef enum TmStall {
    TS_NO_WARP, TS_BARRIER, TS_IBUFFER, TS_SCOREBOARD, TS_UNIT, TS_MEM, TS_RESOURCE,
    TS_ASSIST, TS_COLLECTOR, TS_ISSUED, TS_COUNT
} TmStall;

typedef struct TmCta TmCta;

/* One warp slot. What the issue scan reads of every warp it looks at comes first and
 * fills one 64-byte line (the slots are 64-byte aligned: sm.c). */
typedef struct TmWarp {
    _Alignas(64) EmuWarp *fw; /* the functional warp; NULL: the slot is free */
    const TmInsn *ti;   /* the instruction it issues next (a control stand-in past the end),
                         * set at the CTA's start and kept by the issue that moves the pc */
    Cycle ready_at;     /* earliest issue cycle (instruction buffer refill, barrier release) */
    uint64_t sb[4];     /* scoreboard: a bit per register with a write in flight */
    uint8_t state;      /* fw->state (EmuWarpState), kept by the issue and the barrier
                         * release that change it */
    uint32_t inflight;  /* instructions issued and not yet written back / completed */
    TmCta *cta;
    uint32_t long_ops;  /* of those in flight, memory and SFU ones (two-level demotion) */
    uint8_t sched;      /* its scheduler sees it (tm_sm_schedule: the schedulable bit) */
    Cycle held_ready;   /* its ready_at when the assist slot took its instruction buffer
                         * (tm_sm_hold) */
} TmWarp;

/* A resident CTA. */
struct TmCta {
    EmuCta c;
    int live;
    uint32_t warps_left; /* warp slots still held */
    uint16_t *slot;      /* slot of each warp */
};

/* A read request waiting for its bank. */
typedef struct TmRead {
    uint16_t ocu;
    Cycle since; /* cycle it was queued */
} TmRead;

typedef struct TmBank {
    TmRead *q;           /* ring buffer */
    uint32_t head, len, cap;
    Cycle written;       /* last cycle a write-back took the bank */
} TmBank;

typedef struct TmOcu {
    int busy;
    uint16_t slot;       /* warp */
    uint8_t cls;
    uint8_t reads_left;  /* source registers not yet read */
    Cycle issued;
    Cycle read_at;       /* the cycle its last register read was granted (0: none yet) */
    uint64_t seq;        /* issue order (dispatch oldest first) */
    const TmInsn *ti;
    uint32_t acc_next;   /* memory: accesses handed to the LD/ST unit so far */
    int wb;              /* memory: its write-back entry, once dispatch started; else -1 */
    EmuStep step;        /* what the functional core executed (accesses) */
    uint32_t tag;        /* the collector mechanism's value for the instruction (fill) */
} TmOcu;

/* An instruction between dispatch and write-back. */
typedef struct TmWb {
    int live;
    uint16_t sc, slot;
    uint8_t ndst, is_long, queued; /* queued: in the ready heap */
    uint8_t dst_near;   /* bit i: dst[i] is a near result (TmInsn.dst_near) */
    uint8_t dst[TM_MAXDST];
    uint32_t waiting;   /* memory accesses still outstanding */
    Cycle at;           /* result ready (TM_NEVER while waiting) */
    uint64_t seq;
    uint32_t tag;       /* the collector's value for the instruction (TmOcu.tag) */
} TmWb;

typedef struct TmSched TmSched;

typedef struct TmSubcore {
    uint32_t id;
    uint16_t *slots;     /* the warp slots of this sub-core, in slot order */
    uint32_t nslots;
    TmSched *sched;
    TmBank *bank;        /* rf.banks_per_subcore */
    TmOcu *ocu;          /* nocu collectors */
    uint32_t nocu;       /* rf.collectors_per_subcore, or one per warp slot (private) */
    uint8_t last_pick;   /* TmPickStall of the last scan (repeated like last_stall) */
    Cycle unit_next[TC_COUNT]; /* first cycle each unit accepts a dispatch (II) */
    uint64_t unit_lc[TC_COUNT]; /* units with lanes: the lane-cycle (cycle x lanes) at
                                 * which the unit's last instruction has all its lanes
                                 * (tm_unit_start) */
    Cycle issue_at[TC_COUNT];  /* first cycle issue takes an instruction for each unit:
                                * unit_next - TmSm.unit_lead, at least 0 */
    uint8_t last_stall;  /* TmStall of the last cycle evaluated (idle skipping) */
    uint8_t stall_plain; /* repeating last_stall counts only *stall_ctr (sm.c) */
    uint64_t *stall_ctr; /* the counter of last_stall */
    uint8_t last_tl;     /* two-level policies: TmTlState of the last cycle evaluated */
    uint32_t wb_used;    /* write-back ports used in cycle wb_cycle */
    Cycle wb_cycle;
    uint8_t mem_blocked; /* the LD/ST unit refused this sub-core's last access */
    uint32_t mem_ocu;    /* the collector whose access it refused (with mem_blocked) */
    uint32_t ocu_busy;   /* collectors held */
    uint32_t ocu_collected; /* of them, with every source read (may dispatch) */
    uint32_t reads_queued;  /* register reads waiting at the banks */
    Cycle issue_wake;    /* the issue scan found nothing and would find the same before
                          * this cycle unless an input changes; 0: scan (sm.c) */
} TmSubcore;

typedef struct TmSm TmSm;
typedef struct TmGpu TmGpu;

/* Two-level schedulers' state of an issue slot (the twolevel.* counters). */
typedef enum TmTlState { TL_ISSUED, TL_PENDING_READY, TL_NONE_READY } TmTlState;

struct TmSm {
    uint32_t id;
    TmGpu *gpu;
    const EmuConfig *cfg;
    TmCounters *ctr;
    TmRng *rng;
    TmWarp *warp;          /* max_warps slots */
    uint32_t max_warps;    /* warp contexts: the physical warp slots, or what a virtualizing
                            * resource manager holds (TmResourceOps.contexts) */
    uint32_t sched_warps;  /* of the resident warps, those the schedulers see */
    uint32_t sched_barrier; /* of those, the ones waiting at a barrier */
    TmSubcore *sc;
    uint32_t nsc;
    TmCta *cta;            /* core.max_ctas_per_sm */
    uint32_t ncta_live;
    uint32_t regs_used, threads_used, warps_used; /* the static resource manager's */
    uint64_t shared_used;
    TmWb *wb;              /* write-back entries (pool; tag = index) */
    uint32_t nwb, capwb, wb_live;
    uint32_t *wb_free, nwb_free; /* [capwb] free entries */
    uint32_t *wb_keep;     /* [capwb] write-back's scratch list */
    TmHeap wb_ready;       /* entries with a known ready cycle, oldest first */
    LdSt *ldst;            /* NULL with core.mem_latency > 0 */
    uint64_t seq;
    uint64_t active_warps; /* warps resident now (occupancy) */
    Cycle wake;            /* next cycle the SM must tick (asleep till then: gpu_cycle.c) */
    Cycle slept;           /* cycles slept and not yet accounted (tm_sm_settle) */
    int stir;              /* this tick changed state without reporting work */
    int stages;            /* core.collect_stages or core.dispatch_stages is set */
    int one_port;          /* rf.collector_port = one: a collector takes one read a cycle */
    Cycle collect_stages, dispatch_stages, exec_stages, wb_stages; /* core.*_stages */
    /* issue refuses an instruction of class c while its unit's next free cycle is after
     * now + unit_lead[c]: 1 for memory; 1 + collect + exec stages for the others with
     * core.issue_waits_unit, else never (TM_LEAD_NEVER) */
#define TM_LEAD_NEVER ((Cycle)1 << 62)
    Cycle unit_lead[TC_COUNT];
    /* each unit's throughput: lanes per sub-core (unit.X.lanes; 0: the initiation
     * interval unit.X.ii, at least 1, is used instead) */
    uint32_t unit_lanes[TC_COUNT];
    Cycle unit_ii[TC_COUNT];
    uint32_t issue_width;  /* core.issue_width: instructions a sub-core issues per cycle */
    /* what the SM runs with on its own, so that SMs can tick on different host threads
     * (gpu_cycle.c): its execution context (the launch's, copied), the global stores and
     * atomics of this cycle (applied by the device loop), its random stream */
    EmuExec x;
    EmuWlog wlog;
    EmuView view;            /* what its global loads read (memsys_view), when x.view */
    TmRng own_rng;
    /* what this cycle's tick left for the device loop to gather, in SM order
     * (gpu_cycle.c) */
    int work;              /* the tick did something */
    uint64_t seen_insns;   /* x.winsns and x.grid_waiting when last gathered */
    uint64_t seen_waiting;
    uint32_t ctas_finished;
    int room;              /* the resource manager freed room without a CTA finishing */
    EmuStatus status;      /* a fault (the first of this SM's tick), with its warp */
    EmuWarp *fw;
    EmuCta *fcta;
    /* the policy slots (slots.h) */
    const struct TmSchedOps *issue;
    const struct TmCollectorOps *coll;
    const struct TmResourceOps *res;
    const struct TmAssistOps *assist;
    void *assist_state;    /* the assist mechanism's per-SM state (its sm_init) */
    void *issue_state;     /* the issue policy's per-SM state (its sm_init) */
    void *coll_state;      /* the collector's */
    void *res_state;       /* the resource manager's */
    int (*pick)(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why); /* allocation */
};

/* Why a collector could not be given (counted per issue slot): the pick chose to wait
 * (a policy decision that changes state: the scan runs again next cycle), or none was
 * free. */
typedef enum TmPickStall { TPS_NONE, TPS_WAIT, TPS_NONE_FREE } TmPickStall;

/* sm.c: records the SM's first fault of the tick (fw, c: the warp and its CTA, or NULL);
 * the SM's loops stop at it and the device loop reports the lowest SM's. */
void tm_sm_fault(TmSm *sm, EmuStatus s, EmuWarp *fw, EmuCta *c);

/* scoreboard.c */
void tm_sb_set(TmWarp *w, const TmInsn *ti);
void tm_sb_clear(TmWarp *w, const uint8_t *dst, unsigned n);
/* Whether a source or destination of ti has a write in flight. */
static inline int tm_sb_blocked(const TmWarp *w, const TmInsn *ti)
{
    return ((w->sb[0] & ti->regs[0]) | (w->sb[1] & ti->regs[1]) | (w->sb[2] & ti->regs[2]) |
            (w->sb[3] & ti->regs[3])) != 0;
}

/* rf.c: banks and the arbiter */
int tm_rf_init(TmSubcore *sc, const EmuConfig *cfg);
void tm_rf_free(TmSubcore *sc, const EmuConfig *cfg);
int tm_rf_arbitrate(TmSm *sm, TmSubcore *sc, Cycle now);
/* Takes the bank of register r for a write at cycle now: 0, or -1 if already written. */
int tm_rf_write(TmSm *sm, TmSubcore *sc, unsigned r, Cycle now);

/* Queues one bank read of register r for collector ocu. */
void tm_rf_queue(TmSm *sm, TmSubcore *sc, uint16_t ocu, unsigned r, Cycle now);

/* ocu.c: operand collectors */
int tm_ocu_alloc(TmSm *sm, TmSubcore *sc); /* a free OCU picked at random, or -1 */
int tm_ocu_dispatch(TmSm *sm, TmSubcore *sc, Cycle now);

/* units.c */
Cycle tm_unit_latency(const EmuConfig *cfg, unsigned cls);
/* The latency of in's opcode in its unit (class cls): the unit's own, or the opcode's
 * (min/max, multiply, multiply-add, divide, shuffle). */
Cycle tm_insn_latency(const EmuConfig *cfg, const XInsn *in, unsigned cls);
int tm_unit_ready(const TmSubcore *sc, unsigned cls, Cycle now);
/* Whether class cls's unit, with k >= 1 instructions issued this cycle about to start in it,
 * could start one more in the same cycle as the last of them (dual issue, sm.c). */
int tm_unit_takes(const TmSm *sm, const TmSubcore *sc, unsigned cls, unsigned k, Cycle now);
/* The next cycle after now at which a queued read becomes eligible or a collected
 * instruction passes its stages, in sub-core sc (TM_NEVER: none). */
Cycle tm_stage_wake(const TmSm *sm, const TmSubcore *sc, Cycle now);

/* The initiation interval of class cls's unit (at least 1). Inline, with tm_unit_start:
 * the dispatch path and the mechanisms that issue into the units both call them. */
static inline Cycle tm_unit_ii(const EmuConfig *cfg, unsigned cls)
{
    Cycle ii;
    switch (cls) {
    case TC_INT: ii = cfg->unit_int_ii; break;
    case TC_FP: ii = cfg->unit_fp_ii; break;
    case TC_DP: ii = cfg->unit_dp_ii; break;
    case TC_SFU: ii = cfg->unit_sfu_ii; break;
    case TC_TENSOR: ii = cfg->unit_tensor_ii; break;
    case TC_LDST: ii = cfg->unit_ldst_ii; break;
    default: ii = 1; break;
    }
    return ii ? ii : 1;
}

/* Units with lanes (TmSm.unit_lanes, L): a warp instruction needs 32 lane-cycles, so it
 * holds the unit 32 / L cycles, kept exactly as a count of lane-cycles (sc->unit_lc: the
 * lane-cycle at which the last one started has all its lanes). An instruction starts in
 * the first cycle t with unit_lc < (t + 1) L, that is t = unit_lc / L; lanes left idle
 * in a cycle are lost (unit_lc never falls behind t L). L = 48: three instructions every
 * two cycles; L = 16: one every two cycles, as an initiation interval of 2. */
static inline Cycle tm_unit_next_lanes(TmSubcore *sc, unsigned cls, uint32_t lanes, Cycle now)
{
    uint64_t at = (uint64_t)now * lanes;
    uint64_t lc = (sc->unit_lc[cls] > at ? sc->unit_lc[cls] : at) + XGPU_WARP_SIZE;
    sc->unit_lc[cls] = lc;
    return lc / lanes;
}

/* Starts an instruction of class cls and latency lat in its unit at cycle now; returns
 * the cycle its result is ready. */
static inline Cycle tm_unit_start(TmSm *sm, TmSubcore *sc, unsigned cls, Cycle lat,
                                  Cycle now)
{
    uint64_t *count[TC_COUNT] = {&sm->ctr->unit_int, &sm->ctr->unit_fp, &sm->ctr->unit_dp,
                                 &sm->ctr->unit_sfu, &sm->ctr->unit_tensor,
                                 &sm->ctr->unit_ldst, NULL};
    if (count[cls])
        (*count[cls])++;
    uint32_t lanes = sm->unit_lanes[cls];
    sc->unit_next[cls] = lanes ? tm_unit_next_lanes(sc, cls, lanes, now)
                               : now + sm->unit_ii[cls];
    sc->issue_at[cls] = sc->unit_next[cls] > sm->unit_lead[cls]
                            ? sc->unit_next[cls] - sm->unit_lead[cls] : 0;
    return now + (lat > 2 ? lat - 1 : 1);
}

/* writeback.c */
int tm_wb_new(TmSm *sm, const TmSubcore *sc, const TmOcu *o); /* index, or -1 (no memory) */
int tm_wb_tick(TmSm *sm, Cycle now);
void tm_wb_mem_done(TmSm *sm, uint64_t tag, Cycle now);
/* Entry i's ready cycle is known: queue it for write-back (once). */
void tm_wb_ready(TmSm *sm, uint32_t i);
Cycle tm_wb_next(const TmSm *sm, Cycle now);

/* sm.c: a warp's instruction completed (scoreboard cleared): retire the slot/CTA. */
void tm_sm_warp_done(TmSm *sm, uint16_t slot);

#endif
