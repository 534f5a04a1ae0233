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
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mech/memento/ccu.h"
#include "mech/mech.h"
#include "mech/memento/memento.h"
#include "timing/gpu.h"
#include "mech/registry.h"
#include "stats/jsonw.h"
#include "stats/printer.h"

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

/* --- launch-wide STHLD (the issue slot's launch hooks) -------------------------------- */

/* The launch's STHLD (TmGpu.mech[TM_SLOT_ISSUE].state). */
typedef struct MementoLaunch {
    TmSthld sthld;
    int dynamic;         /* the state machine runs (memento.sthld = dynamic) */
    Cycle next;          /* next interval end, TM_NEVER: none */
    Cycle since;         /* memento.sthld_cycles accounted up to here */
    uint64_t insns;      /* warp instructions at the last interval end */
} MementoLaunch;

static MementoLaunch *launch_of(const TmGpu *g)
{
    return (MementoLaunch *)g->mech[TM_SLOT_ISSUE].state;
}

static int sthld_begin(TmGpu *g, void **state, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
    long fixed = memento_sthld(c);
    if (fixed < -1) {
        snprintf(err, n, "memento.sthld: expected dynamic or a number 0..%u, got '%s'",
                 c->memento_sthld_max, c->memento_sthld);
        return -1;
    }
    MementoLaunch *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    tm_sthld_init(&l->sthld, c->memento_sthld_max, c->memento_sl_boundary,
                  c->memento_state4_to_6);
    l->sthld.knee = c->memento_sthld_knee;
    if (fixed >= 0)
        l->sthld.sthld = (uint32_t)fixed;
    l->dynamic = fixed < 0;
    l->next = l->dynamic ? c->memento_interval : TM_NEVER;
    *state = l;
    return 0;
}

static void sthld_end(TmGpu *g, void *state)
{
    (void)g;
    free(state);
}

static Cycle sthld_next(const TmGpu *g, const void *state)
{
    (void)g;
    return ((const MementoLaunch *)state)->next;
}

static void sthld_settle(TmGpu *g, void *state, Cycle upto)
{
    MementoLaunch *l = state;
    if (upto <= l->since)
        return;
    g->ctr.memento_sthld_cycles += (uint64_t)l->sthld.sthld * (upto - l->since);
    l->since = upto;
}

/* An interval ended at g->now: the state machine takes its IPC. */
static void sthld_interval(TmGpu *g, void *state)
{
    MementoLaunch *l = state;
    if (g->now < l->next)
        return;
    uint64_t len = g->cfg->memento_interval;
    sthld_settle(g, l, g->now);
    uint64_t insns = tm_warp_insns(g);
    tm_sthld_step(&l->sthld, (double)(insns - l->insns) / (double)len);
    l->insns = insns;
    l->next += len;
}

uint32_t tm_memento_sthld(const TmGpu *g)
{
    return launch_of(g)->sthld.sthld;
}

/* --- allocation ---------------------------------------------------------------------- */

static int memento_sm_init(TmSm *sm)
{
    MementoSm *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    sm->issue_state = m;
    m->per_sc = strcmp(sm->cfg->memento_counter_scope, "subcore") == 0;
    m->sc = calloc(sm->nsc, sizeof *m->sc);
    return m->sc ? 0 : -1;
}

static void memento_sm_free(TmSm *sm)
{
    MementoSm *m = sm->issue_state;
    if (m)
        free(m->sc);
    free(m);
    sm->issue_state = NULL;
}

/* The k-th (from 0) free collector of sc, counting only far-only ones if asked. */
static int nth_free(const TmSm *sm, const TmSubcore *sc, uint32_t k, int far_only)
{
    for (uint32_t i = 0; i < sc->nocu; i++) {
        const TmOcu *o = &sc->ocu[i];
        if (!o->busy && (!far_only || !tm_ccu_has_near(sm, sc, i)) && k-- == 0)
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
    unsigned own = tm_ccu_owned(sm, slot);
    *why = TPS_NONE;
    if (own)
        return sc->ocu[own - 1].busy ? TM_PICK_BUSY : (int)own - 1;
    uint32_t nfree = sc->nocu - sc->ocu_busy, nfar = 0;
    if (!nfree) {
        *why = TPS_NONE_FREE;
        return TM_PICK_STOP;
    }
    for (uint32_t i = 0; i < sc->nocu; i++)
        nfar += !sc->ocu[i].busy && !tm_ccu_has_near(sm, sc, i);
    if (nfar)
        return pick_random(sm, sc, nfar, 1);
    MementoSm *m = sm->issue_state;
    uint32_t *counter = m->per_sc ? &m->sc[sc->id] : &m->sm;
    if (*counter < tm_memento_sthld(sm->gpu)) {
        (*counter)++;
        *why = TPS_WAIT;
        return TM_PICK_STOP;
    }
    *counter = 0;
    return pick_random(sm, sc, nfree, 0);
}

/* --- issue order ----------------------------------------------------------------------- */

/* Greedy warp, then owners of a caching collector by age, then the rest by age. */
static uint32_t memento_order(TmSched *s, const TmSm *sm, const TmSubcore *sc,
                              const uint16_t **order, uint16_t *out)
{
    (void)sc;
    *order = out;
    uint32_t n = 0;
    if (s->greedy >= 0)
        out[n++] = (uint16_t)s->greedy;
    for (int owners = 1; owners >= 0; owners--)
        for (uint32_t k = 0; k < s->nage; k++)
            if ((int)s->byage[k] != s->greedy &&
                (tm_ccu_owned(sm, s->byage[k]) != 0) == owners)
                out[n++] = s->byage[k];
    return n;
}

const TmSchedOps tm_issue_memento = {
    .name = "memento",
    .launch = {.begin = sthld_begin, .end = sthld_end, .next = sthld_next,
               .event = sthld_interval, .settle = sthld_settle},
    .order = memento_order,
    .issued = tm_sched_note_issued,
    .sm_init = memento_sm_init,
    .sm_free = memento_sm_free,
    .pick = tm_memento_pick,
    .needs = "ccu",
};

/* Memento-PR: a collector per warp slot, so no allocation policy and no STHLD. */
const TmSchedOps tm_issue_memento_pr = {
    .name = "memento-pr",
    .order = memento_order,
    .issued = tm_sched_note_issued,
    .pick = tm_pick_private,
    .private_collectors = 1,
    .needs = "ccu",
};

long memento_sthld(const EmuConfig *c)
{
    if (strcmp(c->memento_sthld, "dynamic") == 0)
        return -1;
    char *end;
    if (!isdigit((unsigned char)c->memento_sthld[0]))
        return -2;
    errno = 0;
    unsigned long long v = strtoull(c->memento_sthld, &end, 0);
    return errno || *end || v > c->memento_sthld_max ? -2 : (long)v;
}

/* Memento's keys (docs/memento.md): STHLD is dynamic or a number up to
 * memento.sthld_max (its schedulers' collectors are a CFG_SETS row of keys.def). */
static int memento_check(const EmuConfig *c, char *err, size_t n)
{
    if (memento_sthld(c) < -1) {
        snprintf(err, n, "memento.sthld: expected dynamic or a number 0..%u "
                 "(memento.sthld_max), got '%s'", c->memento_sthld_max, c->memento_sthld);
        return -1;
    }
    if (c->memento_sl_boundary < 0) {
        snprintf(err, n, "memento.sl_boundary: must not be negative, got %g",
                 c->memento_sl_boundary);
        return -1;
    }
    return 0;
}

/* An interval's mean STHLD under Memento's schedulers. */
static void memento_interval(JsonW *w, const EmuStatView *v, const EmuConfig *c, uint32_t nsm)
{
    (void)nsm;
    if (strncmp(c->core_sched, "memento", 7) == 0)
        jw_real(w, "sthld", (double)emu_stat_get(v, "memento.sthld_cycles") / (double)v->cycles);
}

const EmuMech emu_mech_memento = {
    .name = "memento", .check = memento_check, .interval = memento_interval,
};
