/*
 * sched.h - the issue slot (slots.h): issue scheduler policies, one ops table per policy
 * chosen by name (core.sched) among the slot choices (mech/NAME/slots.def). A policy sees
 * the warp slots of one sub-core and writes, every cycle, the order in which the sub-core
 * tries them; the first that can issue does. It hears which warp issued and which warp
 * stalled on a long-latency operation (memory or SFU result, barrier), which the
 * two-level policies use to rotate their active sets. The core's own policies are lrr,
 * gto and two-level (sched.c); the others are mechanisms (emulator/mech/).
 */
#ifndef EMU_TIMING_SCHED_H
#define EMU_TIMING_SCHED_H

#include "timing/slots.h"

typedef struct TmSchedOps {
    const char *name;
    TmLaunchHooks launch;
    /* Points *out at the live warp slots of sc in priority order (the policy's own list,
     * or scratch, which holds a slot per warp of the sub-core); returns how many. */
    uint32_t (*order)(TmSched *s, const TmSm *sm, const TmSubcore *sc, const uint16_t **out,
                      uint16_t *scratch);
    void (*issued)(TmSched *s, uint16_t slot);
    /* Returns whether the policy's state changed (an SM that stalled without a change
     * may sleep, gpu_cycle.c). NULL: the policy ignores long stalls. */
    int (*long_stall)(TmSched *s, uint16_t slot);
    /* Per-SM state in sm->issue_state (optional). */
    int (*sm_init)(TmSm *sm);
    void (*sm_free)(TmSm *sm);
    TmPickFn pick;            /* overrides the collector's allocation (NULL: keep it) */
    int private_collectors;   /* one collector per warp slot */
    const char *needs;        /* the rf.collector it works with (NULL: any) */
    const TmCollectorOps *brings; /* the collector it comes with, in place of
                                   * rf.collector's (NULL: rf.collector's) */
} TmSchedOps;

struct TmSched {
    const TmSchedOps *ops;
    int greedy;        /* slot of the last warp issued, -1 none */
    uint32_t active_max;
    uint16_t *active;  /* two-level: the active set, in rotation order */
    uint32_t nactive;
    uint16_t *pend;    /* two-level: live warps outside it, FIFO */
    uint32_t npend;
    uint16_t *byage;   /* live warps, oldest first (gto) */
    uint32_t nage;
    uint16_t *gto;     /* gto's order: the greedy warp, then byage without it */
    int gto_stale;     /* gto must be rebuilt (greedy warp or live warps changed) */
};

/* The core's policies (sched.c). */
extern const TmSchedOps tm_issue_lrr, tm_issue_gto, tm_issue_two_level;
/* Building blocks for two-level policies kept elsewhere (sched.c): the policy's
 * "issued" hook, a list removal, and the active set round robin after the warp that
 * issued last. */
void tm_sched_note_issued(TmSched *s, uint16_t slot);
void tm_sched_list_remove(uint16_t *a, uint32_t *n, uint16_t slot);
uint32_t tm_sched_active_rr(const TmSched *s, uint16_t *out);

const TmSchedOps *tm_sched_find(const char *name);
TmSched *tm_sched_new(const TmSchedOps *ops, uint32_t nslots, uint32_t active_max);
void tm_sched_free(TmSched *s);
/* A warp slot of the sub-core became live (a CTA started) or free. */
void tm_sched_add(TmSched *s, uint16_t slot);
void tm_sched_remove(TmSched *s, uint16_t slot);
/* Whether warp slot is in the active set (two-level policies). */
int tm_sched_active(const TmSched *s, uint16_t slot);
/* Whether the policy keeps an active set (two-level, and the mechanisms' that do). */
static inline int tm_sched_two_level(const TmSched *s)
{
    return s->ops->long_stall != NULL;
}
/* Warp slot issued this cycle. */
static inline void tm_sched_note(TmSched *s, uint16_t slot)
{
    s->ops->issued(s, slot);
}

#endif
