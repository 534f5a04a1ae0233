/*
 * memento.h - Memento's issue-side hardware (memento.c): the dynamic stall threshold
 * (STHLD) state machine and the collector allocator of core.sched = memento and
 * memento-pr, whose issue-slot ops are tm_issue_memento and tm_issue_memento_pr
 * (mech.h). The caching collectors themselves are ccu.c. docs/memento.md.
 */
#ifndef EMU_MECH_MEMENTO_H
#define EMU_MECH_MEMENTO_H

#include <stddef.h>
#include <stdint.h>
#include "config/config.h"

/* memento.sthld: -1 for "dynamic", else the fixed value; -2 when it is neither (or above
 * memento.sthld_max). */
long memento_sthld(const EmuConfig *c);

/* The dynamic STHLD finite-state machine (docs/memento.md), one per launch. */
typedef struct TmSthld {
    uint8_t state;       /* 1..6; 1: no previous interval yet */
    uint32_t sthld, max; /* current value, clamped to [0, max] */
    double prev_ipc;
    double boundary;     /* relative IPC change below which an interval is S */
    int state4_to_6;     /* state 4 on S goes to 6 instead of 2 */
    int knee;            /* memento.sthld_knee: compare with the best IPC since the last L */
    double best_ipc;     /* knee: the best interval IPC since the last L (0: none) */
} TmSthld;

void tm_sthld_init(TmSthld *f, uint32_t max, double boundary, int state4_to_6);
/* One interval ended with IPC ipc: takes the transition and updates f->sthld. Returns
 * the class of the change: 'S' or 'L' (the start state takes either edge). */
int tm_sthld_step(TmSthld *f, double ipc);

struct TmSm;
struct TmSubcore;
struct TmGpu;

/* Memento's allocation stall counters of one SM (its issue_state): one for the SM, one
 * per sub-core (memento.counter_scope). */
typedef struct MementoSm {
    uint32_t sm;
    uint32_t *sc;
    int per_sc; /* memento.counter_scope = subcore, resolved once */
} MementoSm;

/* The collector for warp slot's next instruction under Memento's allocator (slots.h's
 * TmPickFn; the issue slot's pick of core.sched = memento). */
int tm_memento_pick(struct TmSm *sm, struct TmSubcore *sc, uint16_t slot, unsigned *why);
/* The launch's current STHLD. */
uint32_t tm_memento_sthld(const struct TmGpu *g);

#endif
