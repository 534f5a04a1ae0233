/*
 * ldst.h - one SM's load/store path: coalescer, L1 data cache (with MSHRs), texture and
 * constant caches, banked shared memory, and the port to the memory system. The core
 * hands it warp-level accesses (TmAccess) with a tag; it reports when each access has
 * completed (all data returned for loads and atomics; accepted for stores, which write
 * through).
 */
#ifndef EMU_LDST_H
#define EMU_LDST_H

#include "config/config.h"
#include "xgpu/emu.h"
#include "timing/memsys.h"
#include "timing/timing.h"

typedef struct LdSt LdSt;
struct EmuUvm;

LdSt *ldst_new(const EmuConfig *cfg, unsigned sm, TmCounters *ctr, char *err, size_t n);
void ldst_free(LdSt *u);
/* Connects the unit to the memory system and to the device's managed pages (uvm.h;
 * NULL: no migration cost); p gives the device's part of the global window, which its
 * memory hierarchy sees at GPU 0's addresses (hints and managed pages are looked up
 * before, at the program's addresses). */
void ldst_connect(LdSt *u, MemSys *m, struct EmuUvm *uvm, const EmuProps *p);
/* Gives the unit the launch (slots.h, TmLaunchView: the device's hints, each request is
 * tagged with its atom and descriptor; the L1's policies are bound to it) and the
 * launch's request observer (NULL: none). 0, or -1 out of host memory. */
struct TmLaunchView;
struct TmObserverOps;
int ldst_observe(LdSt *u, const struct TmLaunchView *v, const struct TmObserverOps *obs,
                 void *state);
/* Accounts the L1's time-weighted counters up to cycle upto before they are read. */
void ldst_settle(LdSt *u, Cycle upto);
/* Gives the unit's L1 the launch's coherence policy (slots.h) and its state. */
struct TmCoherenceOps;
void ldst_coherence(LdSt *u, const struct TmCoherenceOps *coh, void *state);
/* Gives the unit the assist slot's hooks (slots.h, TmAssistOps.fill and .store): park
 * takes each read response marked for it (TmReq.assist) instead of the L1, which gets it
 * when ldst_fill hands it back; hold sees each write the L1 sends (L1.hold). NULL: none. */
typedef void (*LdPark)(void *ctx, const TmReq *r, Cycle now);
typedef int (*LdHold)(void *ctx, TmReq *r, Cycle now);
void ldst_assist(LdSt *u, LdPark park, LdHold hold, void *ctx);
/* A read response reaches the L1 at cycle now: fills it and completes the accesses the
 * fill completes. */
void ldst_fill(LdSt *u, const TmReq *resp, Cycle now);
/* Constant-bank operands (XF_CONST; docs/timing.md, Constant cache). An instruction that
 * reads the parameter word at offset off issues once ldst_const_ready says the constant
 * cache holds it (1); until then (0) the warp waits, the first look having sent the line's
 * fill. At its issue ldst_const_read counts the read (a hit) and touches the line. The
 * operand takes no port of the cache: it comes with the register reads. */
int ldst_const_ready(LdSt *u, uint32_t off, Cycle now);
void ldst_const_read(LdSt *u, uint32_t off, Cycle now);
/* Whether a waiting constant-bank operand may have become ready since the last call (a
 * constant cache fill arrived, or a fill must be sent again): the issue scans look again. */
int ldst_const_news(LdSt *u);
/* Invalidates the L1's lines (not those with a miss in flight): a coherence action. */
void ldst_invalidate_l1(LdSt *u);
/* Accepts a warp-level access at cycle now, or returns -1 when the unit cannot take it
 * this cycle (the issue stage stalls and retries). */
int ldst_issue(LdSt *u, const TmAccess *a, uint64_t tag, Cycle now);
/* Whether ldst_issue would refuse a at cycle now for a reason that only the unit's own
 * progress removes (the request queue a uses is busy, the shared-memory banks or the
 * constant cache's port are): a cheap check that lets a waiting collector skip the
 * attempt. */
int ldst_refuses(const LdSt *u, const TmAccess *a, Cycle now);
int ldst_tick(LdSt *u, Cycle now);
/* Pops one completed access: returns 1 and sets *tag, or 0. */
int ldst_done(LdSt *u, uint64_t *tag, Cycle now);
Cycle ldst_next(const LdSt *u, Cycle now);
/* ldst_next, or earlier the cycle the shared-memory banks or the constant cache's port
 * free up (a refused shared, const or param access may then go): when an SM that did
 * nothing must look again. */
Cycle ldst_wake(const LdSt *u, Cycle now);
int ldst_idle(const LdSt *u);
/* Accounts n cycles the SM slept through (tm_sm_skip): a head request that the memory
 * system's injection port refuses would have been refused in each of them. */
void ldst_skip(LdSt *u, uint64_t n);
/* Invalidates the L1, texture and constant caches (kernel boundaries: they are not
 * coherent). */
void ldst_flush(LdSt *u);
void ldst_dump(const LdSt *u, FILE *f);

#endif
