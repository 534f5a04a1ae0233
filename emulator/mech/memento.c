/*
 * memento.c - Memento's issue-side hardware (docs/memento.md).
 *
 * Allocation (core.sched = memento): a warp that owns a caching collector (ccu.c) only
 * ever uses that one, and waits while it is busy, so a warp never holds two and no
 * coherence between CTs is needed. A warp without one takes a free collector whose CT
 * holds no near value, if there is one (random among them). Otherwise every free
 * collector still holds near values some old owner may come back for: the scheduler
 * waits, counting the cycles it waited in a stall counter (per SM, or per sub-core with
 * memento.counter_scope = subcore), until the counter reaches STHLD; then it resets the
 * counter and takes a free collector at random, flushing its CT. With no free collector
 * at all, or while waiting, the scheduler issues nothing more that cycle. The issue
 * order that goes with it is sched.c's "memento" policy.
 *
 * Memento-PR (core.sched = memento-pr): each warp slot has its own collector, so the
 * only collector a warp ever waits for is its own (while its previous instruction
 * collects); there is no allocation stall and no sharing.
 *
 * STHLD: a fixed number (memento.sthld = N), or dynamic: every memento.interval cycles
 * of the launch the IPC of the interval just ended is compared with the previous one;
 * a relative change below memento.sl_boundary is S, otherwise L, and the state machine
 * below (docs/memento.md's reconstruction of the paper's Fig. 8) moves STHLD by its edge's
 * step, clamped to [0, memento.sthld_max]. STHLD starts at 0 in state 1 at every launch.
 * With memento.sthld_knee an interval whose IPC is the boundary or more below the best
 * interval of the current phase (since the launch, or since state 6 last saw a large
 * change) also counts as L (xgpu's addition, docs/memento.md): steps that each cost
 * less than the boundary no longer climb forever.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mech/memento.h"
#include "timing/gpu.h"

/* --- the STHLD state machine ------------------------------------------------------------ */

typedef struct SthldEdge {
    uint8_t next;
    int8_t delta;
} SthldEdge;

/* [state][0: S, 1: L] */
static const SthldEdge sthld_fsm[7][2] = {
    [1] = {{2, +1}, {2, +1}}, /* start: no previous IPC, step up either way */
    [2] = {{2, +1}, {3, +1}}, /* walk up the flat region; a large change: speculate */
    [3] = {{2, +1}, {4, -2}}, /* speculation right: keep climbing; wrong: undo plus one */
    [4] = {{2, +1}, {5, -1}}, /* just backed off (S -> 6 with memento.state4_to_6) */
    [5] = {{6, +1}, {5, -1}}, /* descend the steep region until it flattens */
    [6] = {{6, 0}, {3, +1}},  /* converged at the knee; a new phase: speculate again */
};

void tm_sthld_init(TmSthld *f, uint32_t max, double boundary, int state4_to_6)
{
    *f = (TmSthld){.state = 1, .sthld = 0, .max = max, .boundary = boundary,
                   .state4_to_6 = state4_to_6};
}

int tm_sthld_step(TmSthld *f, double ipc)
{
    double base = f->prev_ipc > 1e-12 ? f->prev_ipc : 1e-12;
    int large = f->state != 1 && fabs(ipc - f->prev_ipc) / base >= f->boundary;
    if (f->knee && f->state != 1 && f->best_ipc > 1e-12 &&
        (f->best_ipc - ipc) / f->best_ipc >= f->boundary)
        large = 1; /* a slow decline, step by small step, from the best seen */
    /* the best IPC of the current phase: a large change in state 6 starts a new one */
    f->best_ipc = (f->state == 6 && large) || ipc > f->best_ipc ? ipc : f->best_ipc;
    SthldEdge e = sthld_fsm[f->state][large];
    if (f->state == 4 && !large && f->state4_to_6)
        e.next = 6;
    long v = (long)f->sthld + e.delta;
    f->sthld = v < 0 ? 0 : v > (long)f->max ? f->max : (uint32_t)v;
    f->state = e.next;
    f->prev_ipc = ipc;
    return large ? 'L' : 'S';
}

/* --- allocation -------------------------------------------------------------------------- */

/* The k-th (from 0) free collector of sc, counting only far-only ones if asked. */
static int nth_free(const TmSm *sm, const TmSubcore *sc, uint32_t k, int far_only)
{
    for (uint32_t i = 0; i < sc->nocu; i++) {
        const TmOcu *o = &sc->ocu[i];
        if (!o->busy && (!far_only || !tm_ccu_has_near(sm, o)) && k-- == 0)
            return (int)i;
    }
    return TM_PICK_STOP;
}

static int pick_random(TmSm *sm, const TmSubcore *sc, uint32_t n, int far_only)
{
    return nth_free(sm, sc, n > 1 ? tm_rng_below(sm->rng, n) : 0, far_only);
}

int tm_memento_pick(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why)
{
    const TmWarp *w = &sm->warp[slot];
    *why = TAS_NONE;
    if (sm->alloc == TA_PRIVATE) {
        uint32_t own = (slot - sc->id) / sm->nsc;
        return sc->ocu[own].busy ? TM_PICK_BUSY : (int)own;
    }
    if (w->ccu)
        return sc->ocu[w->ccu - 1].busy ? TM_PICK_BUSY : w->ccu - 1;
    uint32_t nfree = sc->nocu - sc->ocu_busy, nfar = 0;
    if (!nfree) {
        *why = TAS_NONE_FREE;
        return TM_PICK_STOP;
    }
    for (uint32_t i = 0; i < sc->nocu; i++)
        nfar += !sc->ocu[i].busy && !tm_ccu_has_near(sm, &sc->ocu[i]);
    if (nfar)
        return pick_random(sm, sc, nfar, 1);
    int per_sc = strcmp(sm->cfg->memento_counter_scope, "subcore") == 0;
    uint32_t *counter = per_sc ? &sc->mcounter : &sm->mcounter;
    if (*counter < sm->gpu->sthld.sthld) {
        (*counter)++;
        *why = TAS_WAIT;
        return TM_PICK_STOP;
    }
    *counter = 0;
    return pick_random(sm, sc, nfree, 0);
}

/* --- launch-wide STHLD --------------------------------------------------------------------- */

int tm_memento_setup(TmGpu *g, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
    long fixed = emu_config_sthld(c);
    if (fixed < -1) {
        snprintf(err, n, "memento.sthld: expected dynamic or a number 0..%u, got '%s'",
                 c->memento_sthld_max, c->memento_sthld);
        return -1;
    }
    tm_sthld_init(&g->sthld, c->memento_sthld_max, c->memento_sl_boundary,
                  c->memento_state4_to_6);
    g->sthld.knee = c->memento_sthld_knee;
    if (fixed >= 0)
        g->sthld.sthld = (uint32_t)fixed;
    g->sthld_dynamic = fixed < 0 && strcmp(c->core_sched, "memento") == 0;
    g->sthld_next = g->sthld_dynamic ? c->memento_interval : TM_NEVER;
    g->sthld_since = 0;
    g->sthld_insns = 0;
    return 0;
}

uint64_t tm_memento_next(const TmGpu *g)
{
    return g->sthld_next;
}

void tm_memento_settle(TmGpu *g, uint64_t upto)
{
    if (upto <= g->sthld_since)
        return;
    g->ctr.memento_sthld_cycles += (uint64_t)g->sthld.sthld * (upto - g->sthld_since);
    g->sthld_since = upto;
}

void tm_memento_interval(TmGpu *g)
{
    if (g->now < g->sthld_next)
        return;
    uint64_t len = g->cfg->memento_interval;
    tm_memento_settle(g, g->now);
    tm_sthld_step(&g->sthld, (double)(g->ctr.warp_insns - g->sthld_insns) / (double)len);
    g->sthld_insns = g->ctr.warp_insns;
    g->sthld_next += len;
}
