/*
 * memento.h - Memento's issue-side hardware (memento.c): the dynamic stall threshold
 * (STHLD) state machine and the collector allocator of core.sched = memento and
 * memento-pr. The caching collectors themselves are timing/ccu.c. docs/memento.md.
 */
#ifndef EMU_MECH_MEMENTO_H
#define EMU_MECH_MEMENTO_H

#include <stddef.h>
#include <stdint.h>

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

/* The collector for warp slot's next instruction under the Memento allocators: its
 * index, TM_PICK_BUSY (not this warp now; try the next) or TM_PICK_STOP (the scheduler
 * issues nothing more this cycle). *why gets a TmAllocStall. */
#define TM_PICK_BUSY (-1)
#define TM_PICK_STOP (-2)
int tm_memento_pick(struct TmSm *sm, struct TmSubcore *sc, uint16_t slot, unsigned *why);

/* Launch-wide STHLD (gpu.c): set up from the configuration (0, or an error in err);
 * the cycle of the next interval end (TM_NEVER: none); the interval end at g->now; and
 * memento.sthld_cycles accounted up to cycle `upto` (exclusive). */
int tm_memento_setup(struct TmGpu *g, char *err, size_t n);
uint64_t tm_memento_next(const struct TmGpu *g);
void tm_memento_interval(struct TmGpu *g);
void tm_memento_settle(struct TmGpu *g, uint64_t upto);

#endif
