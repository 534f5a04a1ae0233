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
 * The mechanisms' policies live with their hardware in emulator/mech/NAME/, each folder
 * naming its choices in slots.def.
 */
#include <stdlib.h>
#include <string.h>
#include "timing/sched.h"
#include "timing/core.h"

/* Round robin over the sub-core's slots, starting after the warp that issued last. */
static uint32_t lrr_order(TmSched *s, const TmSm *sm, const TmSubcore *sc,
                          const uint16_t **order, uint16_t *out)
{
    *order = out;
    uint32_t n = 0, start = s->greedy < 0 ? 0 : ((uint32_t)s->greedy - sc->id) / sm->nsc + 1;
    for (uint32_t k = 0; k < sc->nslots; k++) {
        uint16_t slot = sc->slots[(start + k) % sc->nslots];
        if (sm->warp[slot].sched) /* resident, and the resource manager lets it issue */
            out[n++] = slot;
    }
    return n;
}

/* Every policy remembers the warp that issued last. */
void tm_sched_note_issued(TmSched *s, uint16_t slot)
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

/* --- two-level ------------------------------------------------------------------------- */

void tm_sched_list_remove(uint16_t *a, uint32_t *n, uint16_t slot)
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
        tm_sched_list_remove(s->pend, &s->npend, s->pend[0]);
    }
}

/* The active set round robin, starting after the warp that issued last. */
uint32_t tm_sched_active_rr(const TmSched *s, uint16_t *out)
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
    return tm_sched_active_rr(s, out);
}

static int two_long_stall(TmSched *s, uint16_t slot)
{
    if (!s->npend)
        return 0; /* nobody to swap in */
    tm_sched_list_remove(s->active, &s->nactive, slot);
    s->pend[s->npend++] = slot;
    two_fill(s);
    return 1;
}

const TmSchedOps tm_issue_lrr = {.name = "lrr", .order = lrr_order,
                                  .issued = tm_sched_note_issued};
const TmSchedOps tm_issue_gto = {.name = "gto", .order = gto_order,
                                  .issued = tm_sched_note_issued};
const TmSchedOps tm_issue_two_level = {.name = "two-level", .order = two_order,
                                       .issued = tm_sched_note_issued,
                                       .long_stall = two_long_stall};

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
    tm_sched_list_remove(s->active, &s->nactive, slot);
    tm_sched_list_remove(s->pend, &s->npend, slot);
    tm_sched_list_remove(s->byage, &s->nage, slot);
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
