/*
 * slots.h - the seam between the timing core and the mechanisms (docs/architecture.md).
 *
 * A policy slot is a point of the pipeline where the hardware of a paper differs from
 * the baseline: an ops table of hooks, chosen for a launch by a configuration key among
 * the choices the mechanisms' folders declare (emulator/mech/NAME/slots.def, gathered in
 * emulator/mech/registry.def's order). The core calls a hook where it is present and
 * does its own (baseline) work where it is NULL; it never tests which mechanism runs. A
 * mechanism keeps its state behind its slot: per launch (TmMech.state, made by
 * TmLaunchHooks.begin), per SM (TmSm.issue_state, TmSm.coll_state, made by the SM hooks)
 * or per cache and memory system (what its init returns); its keys and counters are
 * its folder's keys.def and *_stats.def.
 *
 * The slots:
 *   issue      core.sched: the order in which a sub-core tries its warps (sched.h's
 *              TmSchedOps), with optional launch hooks (timers) and a collector
 *              allocation that overrides the collector's;
 *   collector  rf.collector (or the collector an issue policy brings): how an
 *              instruction gets a collector and its source operands, and what happens
 *              to results at write-back;
 *   l1 prefetch  l1.prefetch: which lines the L1 fetches before a demand asks for them
 *              (on every access, or on its misses);
 *   observer   mem.observer: sees every line request (with its hints) and reports named
 *              figures at the launch's end;
 *   resource manager  core.resource_mgr: whether a CTA can start on an SM, and what a
 *              resident CTA holds;
 *   CTA placement  core.cta_placement: which SM each waiting CTA goes to;
 *   insertion  l1.insertion, l2.insertion: where in its set a line a read miss brings
 *              goes, with what priority (pinning), or whether it bypasses the cache;
 *   l2 prefetch  l2.prefetch: which lines the L2 slices fetch before a demand asks;
 *   transform  mem.transform: how many DRAM bursts a line moves, the metadata that says
 *              so, and how a response crosses to its SM (compression);
 *   coherence  coherence: when an SM's L1 stops trusting what it holds within a launch;
 *   assist     core.assist: work of a mechanism's own in an SM's issue slots, on lines
 *              the memory side marks for it or stores the SM sends (helper warps);
 *   hint lookup  mem.hint_lookup: how a request's atom and descriptor are found, and what
 *              that costs;
 *   DRAM mapping  dram.mapping: which bank and row of its channel a line lives in.
 */
#ifndef EMU_TIMING_SLOTS_H
#define EMU_TIMING_SLOTS_H

#include <stddef.h>
#include <stdint.h>
#include "config/config.h"
#include "timing/timing.h"
#include "xgpu/emu.h"

/* The core's structures a hook receives, by pointer only: a mechanism that reads their
 * fields includes the unit's header itself (timing/core.h, timing/gpu.h). */
typedef struct TmGpu TmGpu;
typedef struct TmSm TmSm;
typedef struct TmSubcore TmSubcore;
typedef struct TmInsn TmInsn;
typedef struct TmWb TmWb;
typedef struct TmCta TmCta;
typedef struct TmSched TmSched;
typedef struct EmuStep EmuStep;
typedef struct TmSchedOps TmSchedOps;
struct EmuHintTable;

/* A mechanism's launch-wide hooks (gpu.c, gpu_setup.c), each optional. next/event are
 * the mechanism's own timer: the loop never skips past next (idle skipping stays exact)
 * and calls event once the cycle reaches it. settle accounts time-weighted counters up to
 * cycle upto (exclusive) before anyone reads them. */
typedef struct TmLaunchHooks {
    int (*begin)(TmGpu *g, void **state, char *err, size_t n);
    void (*end)(TmGpu *g, void *state);
    Cycle (*next)(const TmGpu *g, const void *state); /* TM_NEVER: none */
    void (*event)(TmGpu *g, void *state);
    void (*settle)(TmGpu *g, void *state, Cycle upto);
} TmLaunchHooks;

/* A mechanism's launch state, one per slot (TmGpu.mech). */
typedef struct TmMech {
    const TmLaunchHooks *hooks;
    void *state;
} TmMech;

enum {
    TM_SLOT_ISSUE, TM_SLOT_COLLECTOR, TM_SLOT_OBSERVER, TM_SLOT_RESOURCE, TM_SLOT_PLACEMENT,
    TM_SLOT_COHERENCE, TM_SLOT_ASSIST, TM_NSLOTS
};

/* The collector for warp slot's next instruction: its index in the sub-core, or one of
 * these (*why, a TmPickStall, says why none was given). */
#define TM_PICK_BUSY (-1) /* not this warp now; the scheduler tries the next */
#define TM_PICK_STOP (-2) /* the scheduler issues nothing more this cycle */
typedef int (*TmPickFn)(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why);

/* The collector slot. Every hook but fill may be NULL. */
typedef struct TmCollectorOps {
    const char *name;
    TmLaunchHooks launch;
    /* Per-SM state in sm->coll_state, made after the sub-cores and their collectors. */
    int (*sm_init)(TmSm *sm);
    void (*sm_free)(TmSm *sm);
    int private_collectors; /* one collector per warp slot instead of rf.collectors_per_subcore */
    TmPickFn pick;          /* NULL: a free collector at random (tm_ocu_alloc) */
    /* At issue, into collector idx: the source operands of ti. Queues the bank reads it
     * needs (tm_rf_queue), sets the collector's reads_left and, when nothing is left to
     * read, counts it in sc->ocu_collected; may set the collector's tag, which the
     * instruction's write-back entry carries (TmWb.tag). */
    void (*fill)(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now);
    void (*dispatched)(TmSm *sm, TmSubcore *sc, uint32_t idx);
    /* Write-back wrote register r, destination k of e (the bank took it this cycle). */
    void (*write)(TmSm *sm, TmSubcore *sc, const TmWb *e, unsigned k, unsigned r, Cycle now);
    void (*warp_start)(TmSm *sm, uint16_t slot); /* a new warp took the slot */
    void (*warp_done)(TmSm *sm, uint16_t slot);  /* the slot is being freed */
    void (*warp_issued)(TmSm *sm, uint16_t slot); /* every instruction, control ones too */
    /* The issue policy moved warp slot out of its active set. */
    void (*warp_demoted)(TmSm *sm, uint16_t slot);
    /* The issue scan reached warp slot: returns 1 when the mechanism moved the warp (it
     * is skipped this cycle and the scan does not sleep). */
    int (*scan)(TmSm *sm, TmSubcore *sc, uint16_t slot);
} TmCollectorOps;

/* What an SM's cache policies (the L1 prefetch and insertion slots) know of the launch
 * they serve, given to their bind hook before the launch's first cycle. */
typedef struct TmLaunchView {
    const struct EmuHintTable *hints; /* the launch's atoms and descriptors (NULL: none) */
    EmuDim3 grid;                     /* the launch's grid */
    uint32_t nsm;                     /* SMs of the device (of all its GPUs) */
    uint32_t ngpu;                    /* GPUs or modules: SM s is GPU s / (nsm / ngpu)'s */
    uint32_t ctas_per_sm;             /* CTAs of the launch one SM holds at once (>= 1) */
} TmLaunchView;

/* The L1 prefetch slot (l1.prefetch): one state per L1 (per SM). It sees every demand
 * read access of global memory the LD/ST unit takes, as the coalescer split it
 * (observe), and each of its line requests that missed in the L1 (miss: sent sectors to
 * L2; r carries its hints), and names lines to prefetch through emit; the LD/ST unit
 * looks them up with the lookup slots demand requests leave free (docs/timing.md, "L1
 * prefetching"). bind gives it the launch (TmLaunchView). Every hook but init may be
 * NULL. */
typedef void (*TmPrefetchEmit)(void *ctx, uint64_t line);
typedef struct TmPrefetchOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*free)(void *state);
    int (*bind)(void *state, const TmLaunchView *v); /* -1: out of host memory */
    void (*observe)(void *state, const TmAccess *a, const TmReq *r, unsigned n,
                    TmPrefetchEmit emit, void *ctx);
    void (*miss)(void *state, const TmReq *r, TmPrefetchEmit emit, void *ctx);
} TmPrefetchOps;

/* The request observer slot (mem.observer): one state per launch (its launch.begin,
 * TmGpu.mech[TM_SLOT_OBSERVER]); request sees every line request an LD/ST unit makes,
 * after the hint lookup (TmReq.atom, .desc); outcome what became of each demand read an
 * L1 (level 1) or an L2 slice (level 2) looked up (TmOutcome); report names what it
 * counted when the launch ends (emit: a figure of the launch's statistics, "observed" in
 * the JSON). With an observer that sees requests the SMs tick on one host thread. */
typedef enum TmOutcome { TM_OUT_HIT, TM_OUT_MISS, TM_OUT_MERGE } TmOutcome;
typedef void (*TmReportEmit)(void *ctx, const char *name, uint64_t value);
typedef struct TmObserverOps {
    const char *name;
    TmLaunchHooks launch;
    void (*request)(void *state, const TmReq *r);
    void (*outcome)(void *state, const TmReq *r, unsigned level, TmOutcome out);
    void (*report)(const TmGpu *g, void *state, TmReportEmit emit, void *ctx);
} TmObserverOps;

const TmObserverOps *tm_observer_find(const char *name);
const TmObserverOps *tm_observer_entry(size_t i);

/* The resource manager slot (core.resource_mgr): per SM state in sm->res_state (its
 * sm_init). fits says whether one more CTA of the launch (TmGpu.cta_*) may start on the
 * SM now; cta_start and cta_done are told when a CTA takes its resources and gives them
 * back (before its warps are in their slots, after the last one left). The phase
 * specifiers are on the instructions (TmInsn.phase) for managers that re-size what a warp
 * holds as it runs. The baseline, static, gives a CTA its warp slots, threads, registers
 * (nregs x threads rounded up to whole warps) and shared memory for its whole life.
 *
 * A manager that virtualizes (docs/architecture.md, "Resource managers") may also:
 *  - hold more warp contexts than the SM has warp slots (contexts; the SM's TmWarp
 *    array and its sub-cores' slots are sized by it);
 *  - keep resident warps away from the warp schedulers (gated: a warp is seen by its
 *    scheduler only from tm_sm_schedule(sm, slot, 1) on; the schedulable bit);
 *  - follow every warp (warp_start once its CTA's warps are in their slots, warp_wake
 *    when a barrier releases it, warp_done before its slot is freed);
 *  - hold a warp at issue (issue: every other check passed; returning 1 makes the
 *    cycle's stall stall.resource; the manager calls tm_sm_poke when it may try again)
 *    and see what it executed (issued; the warp may now wait at a barrier or be done);
 *  - do work of its own each cycle (tick; next names the first cycle it has any, so
 *    idle skipping stays exact) and make memory requests of its own through the SM's
 *    LD/ST unit (tm_sm_mem; mem_done hears of each completion, with its tag);
 *  - free room without a CTA finishing (tm_sm_room: placement runs next cycle).
 * Every hook but fits, cta_start and cta_done may be NULL. */
typedef struct TmResourceOps {
    const char *name;
    TmLaunchHooks launch;
    uint32_t (*contexts)(const EmuConfig *cfg); /* NULL: the physical warp slots */
    int (*sm_init)(TmSm *sm);
    void (*sm_free)(TmSm *sm);
    int (*fits)(const TmSm *sm);
    void (*cta_start)(TmSm *sm, TmCta *t);
    void (*cta_done)(TmSm *sm, TmCta *t);
    int gated;
    void (*warp_start)(TmSm *sm, uint16_t slot);
    void (*warp_wake)(TmSm *sm, uint16_t slot, Cycle now);
    void (*warp_done)(TmSm *sm, uint16_t slot);
    int (*issue)(TmSm *sm, uint16_t slot, const TmInsn *ti, Cycle now);
    void (*issued)(TmSm *sm, uint16_t slot, const TmInsn *ti, const EmuStep *st,
                   Cycle now);
    int (*tick)(TmSm *sm, Cycle now);
    Cycle (*next)(const TmSm *sm, Cycle now); /* TM_NEVER: nothing pending */
    void (*mem_done)(TmSm *sm, uint64_t tag, Cycle now);
} TmResourceOps;

/* What a resource manager may ask of its SM (sm.c). tm_sm_schedule shows warp slot to
 * its scheduler (on) or hides it; tm_sm_poke makes its sub-core scan again; tm_sm_mem
 * hands the LD/ST unit an access of the manager's own (tag: 48 bits, returned to
 * mem_done), 0, or -1 when the unit cannot take it this cycle (try again next cycle). */
void tm_sm_schedule(TmSm *sm, uint16_t slot, int on);
void tm_sm_poke(TmSm *sm, uint16_t slot);
int tm_sm_mem(TmSm *sm, const TmAccess *a, uint64_t tag, Cycle now);
void tm_sm_room(TmSm *sm);

/* The CTA placement slot (core.cta_placement): place starts waiting CTAs on SMs that
 * have room (tm_sm_fits, tm_sm_start_cta), at the start of the launch's first cycle and
 * of each cycle after a CTA finished. The baseline, rr, goes round robin. */
typedef struct TmPlacementOps {
    const char *name;
    TmLaunchHooks launch;
    EmuStatus (*place)(TmGpu *g);
} TmPlacementOps;

const TmResourceOps *tm_resource_find(const char *name);
const TmResourceOps *tm_resource_entry(size_t i);
const TmPlacementOps *tm_placement_find(const char *name);
const TmPlacementOps *tm_placement_entry(size_t i);

/* The insertion slot (l1.insertion, l2.insertion): one state per cache (per L1, per L2
 * slice; init's level is 1 or 2). place says, for a read miss r that installs a line,
 * where the line goes: TM_INSERT_MRU, where the replacement policy puts any line (the
 * baseline; also when place is NULL); TM_INSERT_LRU, first in line to be evicted unless
 * a hit promotes it; TM_INSERT_BYPASS, no way at all: the miss holds only its MSHR and
 * its data goes to the requests waiting for it; TM_INSERT_SOFT_PIN, TM_INSERT_HARD_PIN,
 * as MRU with that priority (TmPin: a victim is chosen among the lowest priority of its
 * set; when every way is hard-pinned, way 0 goes). period (NULL or 0: never) is the
 * pinning timer: every line's priority is cleared each time that many cycles of the
 * launch have passed. bind gives an L1's policy its launch (TmLaunchView). Prefetches,
 * and L2 writes (write-allocate), are always inserted as the baseline does. */
typedef struct TmInsertionOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg, int level); /* NULL state: out of host memory */
    void (*free)(void *state);
    int (*bind)(void *state, const TmLaunchView *v); /* -1: out of host memory */
    TmInsert (*place)(void *state, const TmReq *r);
    Cycle (*period)(const void *state);
} TmInsertionOps;

const TmInsertionOps *tm_insertion_find(const char *name);
const TmInsertionOps *tm_insertion_entry(size_t i);
/* The insertion policy cfg names for a level-1 or level-2 cache, and its state; -1 with
 * the key named in err when unknown or out of host memory. */
int tm_insertion_open(const TmInsertionOps **ops, void **state, const EmuConfig *cfg,
                      int level, char *err, size_t n);

/* The L2 prefetch slot (l2.prefetch): one state per memory system. observe sees every
 * demand read or atomic an L2 slice looked up (r, and whether it missed) and names lines
 * to prefetch through emit; each goes to its own slice's request queue, where it is
 * looked up in turn like a request from the crossbar (docs/timing.md, L2 prefetching). */
typedef struct TmL2PrefetchOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*free)(void *state);
    void (*observe)(void *state, const TmReq *r, int miss, TmPrefetchEmit emit, void *ctx);
} TmL2PrefetchOps;

const TmL2PrefetchOps *tm_l2_prefetch_find(const char *name);
const TmL2PrefetchOps *tm_l2_prefetch_entry(size_t i);

/* What a memory-side transform does with one DRAM access (TmTransformOps.access). A
 * metadata line is an index into the channel's metadata region (TM_XF_NO_META: none);
 * the memory system reads and writes it as a one-burst DRAM access of its own. */
#define TM_XF_NO_META UINT64_MAX
typedef struct TmXfAccess {
    unsigned bursts;     /* DRAM bursts the access moves, in [1, sectors of a line] */
    uint8_t whole;       /* a read brings the whole line: the L2 fills every sector */
    uint16_t delay;      /* core cycles between a read's data and its fill (decoding) */
    uint64_t meta_read;  /* metadata to read (a one-burst DRAM read, queued first) */
    uint64_t meta_wait;  /* metadata this read waits for (that read, or one on its way) */
    uint64_t meta_write; /* metadata evicted dirty: written back */
} TmXfAccess;

/* What a memory-side transform does with one read response of an L2 slice
 * (TmTransformOps.respond): the line crosses as `bytes` of data (0: its sectors, as
 * they are) and reaches its SM `delay` cycles after the crossbar delivers it (decoding
 * at the SM). */
typedef struct TmXfResponse {
    unsigned bytes;
    unsigned delay;
    uint8_t assist; /* 0, or 1 + the codec of a line that crosses compressed for the SM's
                     * assist slot to decode (TmReq.assist) */
    uint8_t enc;    /* then its encoding */
} TmXfResponse;

/* The memory-side transform slot (mem.transform): one state per memory system. At each
 * DRAM request (a read the L2 sends for its missing sectors, or a write-back) bursts
 * says how many DRAM bursts it moves: `plain` is the baseline's (those covering its
 * sectors: one per sector with dram.burst_bytes = l1.sector); line
 * is the line's current bytes in device memory (l1.line of them; NULL when they cannot
 * be read: not device memory, or no device behind the memory system). The result must
 * lie in [1, plain]. The crossbar and the L2 hold lines as they are.
 * A transform that keeps per-line metadata (a compressed memory) gives access instead
 * of bursts: a is preset to the baseline (plain bursts, nothing else), chan is the DRAM
 * channel and local the line's index within it (what metadata is kept by); meta_done
 * says a metadata read it asked for is back (the reads waiting on it go to DRAM then).
 * The memory system clamps bursts to the line's sectors. A transform that keeps lines
 * transformed in the L2 too gives respond, called for every read response a slice sends
 * (hits and fills; line as above); the memory system clamps bytes to the line's size.
 * written sees every write and atomic an L2 slice takes from the crossbar (with its
 * TmReq.assist: what the SM's assist slot did with the line) as the slice takes it. */
typedef struct TmTransformOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*free)(void *state);
    unsigned (*bursts)(void *state, const TmReq *r, const uint8_t *line, unsigned plain);
    void (*access)(void *state, TmCounters *ctr, unsigned chan, uint64_t local,
                   const TmReq *r, const uint8_t *line, TmXfAccess *a);
    void (*meta_done)(void *state, unsigned chan, uint64_t meta);
    void (*respond)(void *state, TmCounters *ctr, const TmReq *r, const uint8_t *line,
                    TmXfResponse *out);
    void (*written)(void *state, TmCounters *ctr, const TmReq *r);
} TmTransformOps;

const TmTransformOps *tm_transform_find(const char *name);
const TmTransformOps *tm_transform_entry(size_t i);

/* The coherence slot (coherence), in two parts. The L1s': one state per launch (its
 * launch.begin, TmGpu.mech[TM_SLOT_COHERENCE]). l1_read: an L1 demand read finds every
 * sector it wants valid in a line whose last fill arrived at cycle filled and carried
 * meta (TmReq.meta): 1 lets it hit, 0 invalidates the line first, so the read misses
 * and fetches it again (a line with a miss in flight is never asked). l1_fill: a
 * response reached SM sm's L1 (a read's data, or with write_through a write's answer):
 * the meta its line keeps (a write's: only when the line is present). fence: SM sm
 * issued a memory fence (membar) of scope (XScope): 1 invalidates the SM's L1 (lines
 * with a miss in flight stay). The memory side's: one state per memory system, kept as
 * long as it lives (mem_init, mem_free; mem_launch at the end of each launch, given its
 * last cycle: the memory system's cycles start at 0 again with the next). l2_read: as
 * l1_read, for a demand read of L2 slice slice; l2_peek answers the same without
 * changing anything (an SM's load asks it at issue, from any host thread). l2_fill: the
 * slice fills a line from memory, or its write is answered (r->meta from memory): the
 * meta the line keeps and the response to the requester carries. l2_evict: the slice
 * drops a valid line (replacement). memory: a request of L2 slice slice reaches the
 * memory side (a read when DRAM has its data): the meta its answer carries, and in
 * *delay (preset to 0) the cycles before a write's answer leaves. write_through: the L2
 * writes every write through to memory (no dirty lines) and the memory side answers it,
 * back through the L2 to the L1 that sent it. flush: at the end of every launch each L2
 * writes its dirty lines back and drops every line. stamp_bytes: the bytes the meta
 * adds to every response and write answer on the links. Every hook may be
 * NULL. The baseline, none: an L1 is invalidated only at kernel boundaries (its LD/ST
 * unit is the launch's), an L2 never. */
typedef struct TmCoherenceOps {
    const char *name;
    TmLaunchHooks launch;
    int (*l1_read)(void *state, unsigned sm, uint64_t line, uint64_t meta, Cycle filled,
                   Cycle now);
    uint64_t (*l1_fill)(void *state, unsigned sm, const TmReq *r, Cycle now);
    int (*fence)(void *state, unsigned sm, unsigned scope);
    void *(*mem_init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*mem_free)(void *ms);
    void (*mem_launch)(void *ms, Cycle last);
    int (*l2_read)(void *ms, TmCounters *ctr, unsigned slice, uint64_t meta, Cycle now);
    int (*l2_peek)(const void *ms, unsigned slice, uint64_t meta, Cycle now);
    uint64_t (*l2_fill)(void *ms, TmCounters *ctr, unsigned slice, const TmReq *r, Cycle now);
    void (*l2_evict)(void *ms, TmCounters *ctr, unsigned slice, uint64_t line, uint64_t meta,
                     Cycle now);
    uint64_t (*memory)(void *ms, TmCounters *ctr, unsigned slice, const TmReq *r, Cycle now,
                       Cycle *delay);
    uint8_t write_through, flush;
    uint8_t stamp_bytes;
} TmCoherenceOps;

const TmCoherenceOps *tm_coherence_find(const char *name);
const TmCoherenceOps *tm_coherence_entry(size_t i);

/* The assist slot (core.assist): work of a mechanism's own in an SM's issue slots
 * (docs/architecture.md, "Assist work"). Per SM state in sm->assist_state (sm_init).
 * Each cycle, for each sub-core: first runs before the issue scan and returns 1 when the
 * mechanism takes the sub-core's issue slot (the scan does not run; the slot counts as
 * stall.assist); idle runs after a scan that issued nothing (or was skipped because it
 * would issue nothing) and may use the slot, which the program left idle (returns 1 when
 * it did). tm_sm_hold takes a warp's instruction buffer for the mechanism's own
 * instructions: the warp issues nothing until it is given back (its stall is
 * stall.ibuffer). Units the mechanism starts are the sub-core's (tm_unit_start), so the
 * program's instructions see them busy. From the LD/ST unit: fill takes a read response
 * the memory side marked (TmReq.assist != 0) before the L1 sees it, and the mechanism
 * hands it back with tm_sm_fill once done with it (the L1 is filled and the waiting
 * accesses complete then); store sees each write the L1 sends to the memory system and
 * returns 1 to keep it (the store completes for the warp at once; the mechanism sends
 * it, changed as it likes, with tm_sm_send), or 0 to let it go now (with the marks it
 * set: TmReq.assist, xbytes). next names the first cycle > now it has work (TM_NEVER:
 * none), so idle skipping stays exact; regs is added to each thread's registers of the
 * launch's kernel (the mechanism's own registers in the parent's register file). Every
 * hook may be NULL. */
typedef struct TmAssistOps {
    const char *name;
    TmLaunchHooks launch;
    int (*sm_init)(TmSm *sm);
    void (*sm_free)(TmSm *sm);
    uint32_t (*regs)(const TmGpu *g);
    int (*first)(TmSm *sm, TmSubcore *sc, Cycle now);
    int (*idle)(TmSm *sm, TmSubcore *sc, Cycle now);
    void (*fill)(TmSm *sm, const TmReq *r, Cycle now);
    int (*store)(TmSm *sm, TmReq *r, Cycle now);
    Cycle (*next)(const TmSm *sm, Cycle now);
    int (*busy)(const TmSm *sm); /* work left: the SM is not idle (the launch goes on) */
} TmAssistOps;

const TmAssistOps *tm_assist_find(const char *name);
const TmAssistOps *tm_assist_entry(size_t i);

/* What an assist mechanism asks of its SM (sm.c): tm_sm_fill hands a response taken by
 * fill back to the L1 at cycle now; tm_sm_send offers a request to the memory system
 * (0, or -1 when the injection port refuses it this cycle: try again later); tm_sm_hold
 * takes warp slot's instruction buffer (on; 0 when the slot has no warp) or gives it
 * back at cycle now (the warp may issue from the next cycle, or later if it was to). */
void tm_sm_fill(TmSm *sm, const TmReq *r, Cycle now);
int tm_sm_send(TmSm *sm, const TmReq *r, Cycle now);
int tm_sm_hold(TmSm *sm, uint16_t slot, int on, Cycle now);

/* The hint lookup slot (mem.hint_lookup): one state per LD/ST unit (per SM). tag gives
 * the line requests r[0..n) of one access (global, constant or texture memory) their
 * hints from the launch's table h (TmReq.atom, TmReq.desc) at cycle now, and returns
 * the first cycle the access may complete (now: the lookup costs nothing; later: the
 * access waits for it, in parallel with its cache lookups). The baseline, exact, looks
 * every address up in the runtime's ranges at no cost; a mechanism may model the
 * hardware that holds the map (a lookaside buffer of its own). bind gives it the launch. */
typedef struct TmLookupOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*free)(void *state);
    int (*bind)(void *state, const TmLaunchView *v); /* -1: out of host memory */
    Cycle (*tag)(void *state, TmCounters *ctr, const struct EmuHintTable *h, TmReq *r,
                 unsigned n, Cycle now);
} TmLookupOps;

const TmLookupOps *tm_lookup_find(const char *name);
const TmLookupOps *tm_lookup_entry(size_t i);

/* The DRAM mapping slot (dram.mapping): one state per memory system. map gives the bank
 * and row of a DRAM access to line (the device address) that the interleaving put in
 * channel chan at index local of that channel's lines; *bank and *row come preset to
 * the interleaving's (docs/timing.md, DRAM), and the result must keep distinct lines of
 * a channel apart (a bank below dram.banks; a row of its own for each row's worth of
 * lines). bind gives it each launch (TmLaunchView; its hints are the device's). The
 * baseline, interleave, changes nothing. */
typedef struct TmMappingOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*free)(void *state);
    int (*bind)(void *state, const TmLaunchView *v); /* -1: out of host memory */
    void (*map)(void *state, uint64_t line, unsigned chan, uint64_t local, unsigned *bank,
                uint64_t *row);
} TmMappingOps;

const TmMappingOps *tm_mapping_find(const char *name);
const TmMappingOps *tm_mapping_entry(size_t i);

/* The NUMA zone slot (numa.map): one state per memory system of a system.memory = numa
 * device. zone says which module's memory line (a device address) lives in, below
 * modules; gpu is the module whose SM asks (a policy that places a page where it is
 * first touched records it). It must answer the same for a line every time within a
 * launch. bind gives it each launch (TmLaunchView). docs/multi-gpu.md, NUMA. */
typedef struct TmZoneOps {
    const char *name;
    void *(*init)(const EmuConfig *cfg); /* NULL state: out of host memory */
    void (*free)(void *state);
    int (*bind)(void *state, const TmLaunchView *v); /* -1: out of host memory */
    unsigned (*zone)(void *state, uint64_t line, unsigned gpu);
} TmZoneOps;

const TmZoneOps *tm_zone_find(const char *name);
const TmZoneOps *tm_zone_entry(size_t i);

/* The L1 prefetcher named by cfg->l1_prefetch, or NULL (the slot choices, mech/NAME/slots.def). */
const TmPrefetchOps *tm_prefetch_find(const char *name);
const TmPrefetchOps *tm_prefetch_entry(size_t i);

/* The two slots of a launch's SMs, from the configuration (the slot choices): 0, or -1 with
 * the reason in err. */
int tm_slots_resolve(const EmuConfig *cfg, const TmSchedOps **issue,
                     const TmCollectorOps **coll, char *err, size_t n);
/* The registries, for tests and documentation: entry i of a slot, or NULL past the end. */
const TmSchedOps *tm_issue_entry(size_t i);
const TmCollectorOps *tm_collector_entry(size_t i);

/* Collector allocations every mechanism may use (ocu.c). */
int tm_pick_random(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why);
int tm_pick_private(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why);
/* The baseline fill: every source register read from the banks (rf.c). */
void tm_fill_banks(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                   Cycle now);

#endif
