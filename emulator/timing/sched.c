/*
 * sched.c - the issue scheduler policies.
 *
 * lrr: loose round robin; the sub-core's warp slots in slot order, starting after the
 *   warp that issued last.
 * gto: greedy then oldest; the warp that issued last keeps priority while it can issue,
 *   then the other warps by age (the order their CTAs were launched, then warp id).
 * two-level: an active set of core.sched_active warps scheduled round robin; a warp of
 *   the set that stalls on a long-latency operation (a pending memory or SFU result, or
 *   a barrier) moves to the back of the pending FIFO and the FIFO's head joins the set.
 * rfc, swrfc: two-level schedulers whose active warps have a register-file cache
 *   (mech/regcache.c). A warp of the set that stalls on a long-latency operation or a
 *   barrier moves to the back of the pending FIFO (swrfc also moves it at strand
 *   boundaries, sm.c), and its cached registers are dropped. A free place in the set goes
 *   to the first pending warp, in FIFO order, that is not waiting for a long-latency
 *   result or at a barrier; the set is filled when the scheduler next orders its warps.
 * memento, memento-pr: Memento's priority (docs/memento.md): the warp that issued last,
 *   then the warps that own a caching collector oldest first, then the others oldest
 *   first; their collectors are allocated by mech/memento.c.
 */
#include <stdlib.h>
#include <string.h>
#include "timing/sched.h"

/* Round robin over the sub-core's slots, starting after the warp that issued last. */
static uint32_t lrr_order(TmSched *s, const TmSm *sm, const TmSubcore *sc,
                          const uint16_t **order, uint16_t *out)
{
    *order = out;
    uint32_t n = 0, start = s->greedy < 0 ? 0 : ((uint32_t)s->greedy - sc->id) / sm->nsc + 1;
    for (uint32_t k = 0; k < sc->nslots; k++) {
        uint16_t slot = sc->slots[(start + k) % sc->nslots];
        if (sm->warp[slot].fw)
            out[n++] = slot;
    }
    return n;
}

/* Every policy remembers the warp that issued last. */
static void note_issued(TmSched *s, uint16_t slot)
{
    s->gto_stale |= s->greedy != (int)slot;
    s->greedy = slot;
}

/* s->byage holds the live slots oldest first: warps are added in launch order. The
 * order is rebuilt only when the greedy warp or the live warps change. */
static uint32_t gto_order(TmSched *s, const TmSm *sm, const TmSubcore *sc,
                          const uint16_t **order, uint16_t *scratch)
{
    (void)sm, (void)sc, (void)scratch;
    if (s->gto_stale) {
        uint32_t n = 0;
        if (s->greedy >= 0)
            s->gto[n++] = (uint16_t)s->greedy;
        for (uint32_t k = 0; k < s->nage; k++)
            if ((int)s->byage[k] != s->greedy)
                s->gto[n++] = s->byage[k];
        s->gto_stale = 0;
    }
    *order = s->gto;
    return s->nage;
}

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
            if ((int)s->byage[k] != s->greedy && (sm->warp[s->byage[k]].ccu != 0) == owners)
                out[n++] = s->byage[k];
    return n;
}

/* --- two-level ------------------------------------------------------------------------- */

static void list_remove(uint16_t *a, uint32_t *n, uint16_t slot)
{
    for (uint32_t i = 0; i < *n; i++)
        if (a[i] == slot) {
            memmove(a + i, a + i + 1, (*n - i - 1) * sizeof *a);
            (*n)--;
            return;
        }
}

static void two_fill(TmSched *s)
{
    while (s->nactive < s->active_max && s->npend) {
        s->active[s->nactive++] = s->pend[0];
        list_remove(s->pend, &s->npend, s->pend[0]);
    }
}

/* The active set round robin, starting after the warp that issued last. */
static uint32_t active_rr(const TmSched *s, uint16_t *out)
{
    uint32_t n = 0, start = 0;
    for (uint32_t i = 0; i < s->nactive; i++)
        if ((int)s->active[i] == s->greedy)
            start = i + 1;
    for (uint32_t k = 0; k < s->nactive; k++)
        out[n++] = s->active[(start + k) % s->nactive];
    return n;
}

static uint32_t two_order(TmSched *s, const TmSm *sm, const TmSubcore *sc,
                          const uint16_t **order, uint16_t *out)
{
    (void)sm, (void)sc;
    *order = out;
    two_fill(s);
    return active_rr(s, out);
}

/* rfc, swrfc: may pending warp slot join the active set? */
static int rfc_eligible(const TmSm *sm, uint16_t slot)
{
    const TmWarp *w = &sm->warp[slot];
    if (w->fw->state != EW_RUN)
        return 0;
    return !w->long_ops || !tm_sb_blocked(w, tm_warp_insn(sm, w));
}

static uint32_t rfc_order(TmSched *s, const TmSm *sm, const TmSubcore *sc,
                          const uint16_t **order, uint16_t *out)
{
    (void)sc;
    *order = out;
    for (uint32_t i = 0; i < s->npend && s->nactive < s->active_max;) {
        uint16_t slot = s->pend[i];
        if (!rfc_eligible(sm, slot)) {
            i++;
            continue;
        }
        s->active[s->nactive++] = slot;
        list_remove(s->pend, &s->npend, slot);
    }
    return active_rr(s, out);
}

static int two_long_stall(TmSched *s, uint16_t slot)
{
    if (!s->npend)
        return 0; /* nobody to swap in */
    list_remove(s->active, &s->nactive, slot);
    s->pend[s->npend++] = slot;
    two_fill(s);
    return 1;
}

/* Leaves the set to be filled by rfc_order. */
static int rfc_long_stall(TmSched *s, uint16_t slot)
{
    if (!s->npend)
        return 0; /* nobody to swap in */
    list_remove(s->active, &s->nactive, slot);
    s->pend[s->npend++] = slot;
    return 1;
}

static const TmSchedOps sched_ops[] = {
    /* name         order            issued           long_stall */
    {"lrr",         lrr_order,       note_issued,     NULL},
    {"gto",         gto_order,       note_issued,     NULL},
    {"two-level",   two_order,       note_issued,     two_long_stall},
    {"rfc",         rfc_order,       note_issued,     rfc_long_stall},
    {"swrfc",       rfc_order,       note_issued,     rfc_long_stall},
    {"memento",     memento_order,   note_issued,     NULL},
    {"memento-pr",  memento_order,   note_issued,     NULL},
};

const TmSchedOps *tm_sched_find(const char *name)
{
    for (size_t i = 0; i < sizeof sched_ops / sizeof sched_ops[0]; i++)
        if (strcmp(sched_ops[i].name, name) == 0)
            return &sched_ops[i];
    return NULL;
}

TmSched *tm_sched_new(const TmSchedOps *ops, uint32_t nslots, uint32_t active_max)
{
    TmSched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ops = ops;
    s->greedy = -1;
    s->active_max = active_max ? active_max : 1;
    s->active = calloc(nslots + 1, sizeof *s->active);
    s->pend = calloc(nslots + 1, sizeof *s->pend);
    s->byage = calloc(nslots + 1, sizeof *s->byage);
    s->gto = calloc(nslots + 1, sizeof *s->gto);
    if (!s->active || !s->pend || !s->byage || !s->gto) {
        tm_sched_free(s);
        return NULL;
    }
    return s;
}

void tm_sched_free(TmSched *s)
{
    if (!s)
        return;
    free(s->active);
    free(s->pend);
    free(s->byage);
    free(s->gto);
    free(s);
}

void tm_sched_add(TmSched *s, uint16_t slot)
{
    s->byage[s->nage++] = slot;
    s->gto_stale = 1;
    s->pend[s->npend++] = slot;
    if (s->ops->order == two_order)
        two_fill(s);
}

void tm_sched_remove(TmSched *s, uint16_t slot)
{
    list_remove(s->active, &s->nactive, slot);
    list_remove(s->pend, &s->npend, slot);
    list_remove(s->byage, &s->nage, slot);
    s->gto_stale = 1;
    if ((int)slot == s->greedy)
        s->greedy = -1;
    if (s->ops->order == two_order)
        two_fill(s);
}

int tm_sched_active(const TmSched *s, uint16_t slot)
{
    for (uint32_t i = 0; i < s->nactive; i++)
        if (s->active[i] == slot)
            return 1;
    return 0;
}
