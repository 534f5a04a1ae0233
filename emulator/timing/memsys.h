/*
 * memsys.h - the memory system below the SMs' L1s: interconnect, L2 slices, DRAM
 * channels. One per device, kept from launch to launch (l2.persist; docs/timing.md,
 * "Lifetime"). Requests come from the L1s (misses, write-throughs, atomics),
 * responses go back to the requesting SM. Address mapping (line -> L2 slice -> DRAM
 * channel/bank/row) is part of this unit and documented in docs/timing.md.
 */
#ifndef EMU_MEMSYS_H
#define EMU_MEMSYS_H

#include "config/config.h"
#include "timing/timing.h"

typedef struct MemSys MemSys;

MemSys *memsys_new(const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n);
void memsys_free(MemSys *m);
/* The memory system carries over to a new launch, whose cycles start at 0 again: what it
 * holds stays (the L2's lines, clean and dirty, and their replacement order, the DRAM
 * banks' open rows), every unit's timing restarts (the constraints of the last launch have
 * expired in the time between launches) and it adds to ctr from now on. -1, changing
 * nothing, when it is not idle (the last launch ended with requests in flight). */
int memsys_next_launch(MemSys *m, TmCounters *ctr);
/* A device of GPUs with L2s of their own (system.memory = shared): SM sm's store or
 * atomic of n bytes at device address addr is about to be applied (after = 0) or was
 * (1), so that the other GPUs' L2s keep what they hold of those lines (stale.h). Nothing
 * otherwise. */
void memsys_write(MemSys *m, unsigned sm, uint64_t addr, unsigned n, int after);
/* The view SM sm's global loads read through at cycle *now, into *v: 1; 0 when they read
 * memory as it is (one GPU, or GPUs that cache only their own memory). */
struct EmuView;
int memsys_view(const MemSys *m, unsigned sm, const uint64_t *now, struct EmuView *v);
/* The coherence slot's memory-side state (TmCoherenceOps.mem_init's), or NULL. */
void *memsys_coherence_state(const MemSys *m);
/* The launch that used the memory system ended at cycle last (the coherence slot's
 * memory side: a kernel boundary). */
void memsys_end_launch(MemSys *m, Cycle last);
/* Under a coherence policy that flushes the L2s at kernel boundaries (coherence = flush):
 * every slice writes its dirty lines back (from cycle now) and drops every line; 1 when
 * it did, 0 when the policy does not flush, -1 out of host memory. */
int memsys_flush(MemSys *m, Cycle now);
/* Gives the L2 slices' insertion policies and the DRAM mapping the launch about to run
 * (slots.h, TmLaunchView): 0, or -1 out of host memory. */
struct TmLaunchView;
int memsys_bind(MemSys *m, const struct TmLaunchView *v);
/* Shows the L2 slices' demand read outcomes to the launch's observer (slots.h; NULL:
 * none). */
struct TmObserverOps;
void memsys_observe(MemSys *m, const struct TmObserverOps *obs, void *state);
/* From now on the memory system counts into ctr, or with unit (stats.per_unit, or a
 * device of several GPUs) each L2 slice into unit[slice], each DRAM channel into
 * unit[slices + channel] and, with several GPUs, each GPU's link into
 * unit[slices + channels + gpu] (slices and channels of the whole device); the crossbar
 * still into ctr. */
void memsys_count_into(MemSys *m, TmCounters *ctr, TmCounters *unit);
/* From now on SM i's injection stalls (its refused requests) count into sm[i], which the
 * SM's own thread writes (NULL, the default and after memsys_next_launch: into ctr). */
void memsys_count_sms(MemSys *m, TmCounters *sm);
/* How the memory-side transform (mem.transform) reads a line's bytes: n bytes of line
 * into buf, 0, or -1 when they are not device memory. NULL (the default): never. */
typedef int (*TmLineRead)(void *ctx, uint64_t line, uint8_t *buf, unsigned n);
void memsys_set_reader(MemSys *m, TmLineRead read, void *ctx);
/* Whether r's L2 slice has room for it: its input queue, the requests crossing the
 * crossbar to it included, holds fewer than l2.queue (read only: SMs call it from
 * their threads; the queue changes only in memsys_take and memsys_step). */
int memsys_room(const MemSys *m, const TmReq *r);
/* Offers a request from an SM. Returns 0 when accepted, -1 when the SM's injection port
 * is full this cycle or its slice has no room (retry later). Each refusal counts an
 * injection stall or a full slice (icnt.slice_full). An accepted
 * request takes the SM's injection port at once and waits in the SM's outbox; only
 * memsys_take moves it into the crossbar and the slice's queue. memsys_send touches
 * nothing but SM r->sm's own state, so the SMs may send from different threads during
 * a cycle (docs/performance.md, "Parallel simulation"). */
int memsys_send(MemSys *m, const TmReq *r, Cycle now);
/* Moves what SM sm sent this cycle (memsys_send) into the memory system. Called for
 * every SM that sent, in SM order, after the SMs ticked and before memsys_step of that
 * cycle, which is the order in which one thread would have sent them. -1 when host
 * memory ran out (a request is lost). */
int memsys_take(MemSys *m, unsigned sm);
/* The first cycle SM sm's injection port takes a request: memsys_send refuses every
 * request of that SM before it (the SM's own sends only move it later). */
Cycle memsys_send_at(const MemSys *m, unsigned sm);
/* Counts n refusals of SM sm that a caller knew would happen and did not make. */
void memsys_count_refusals(MemSys *m, unsigned sm, uint64_t n);
/* Advances the memory system to cycle now (call once per cycle, or after skipping idle
 * cycles). Returns work done (non-zero while anything moved). */
int memsys_step(MemSys *m, Cycle now);
/* memsys_take of every SM's outbox, in SM order, then memsys_step; -1 when a request was
 * lost for want of host memory. */
int memsys_tick(MemSys *m, Cycle now);
/* Pops one response for SM sm that has arrived by cycle now. Returns 1 and fills *r, or 0. */
int memsys_recv(MemSys *m, unsigned sm, TmReq *r, Cycle now);
/* Per SM, the arrival cycle of the first response waiting for it (TM_NEVER: none); the
 * array stays valid, and current, for the memory system's lifetime. */
const Cycle *memsys_recv_heads(const MemSys *m);
/* Earliest cycle > now at which something will happen, or TM_NEVER when idle. */
Cycle memsys_next(const MemSys *m, Cycle now);
/* Nothing in flight. */
int memsys_idle(const MemSys *m);
void memsys_dump(const MemSys *m, FILE *f);
/* The L2 slice that serves GPU gpu's requests for address addr (l2.slice_hash; in a
 * NUMA device numa.map, which may record the touch). */
unsigned memsys_slice(MemSys *m, unsigned gpu, uint64_t addr);

#endif
