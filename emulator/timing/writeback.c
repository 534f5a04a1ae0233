/*
 * writeback.c - instructions between dispatch and write-back, and the write-back ports.
 *
 * Each dispatched instruction gets an entry (its index is the tag the LD/ST unit hands
 * back). An entry is ready at `at`: dispatch + latency - 1 for the execution units, the
 * cycle the last access completed for memory instructions. Write-back runs first in the
 * cycle: ready entries, oldest first (by ready cycle, then issue order), write their
 * destination registers, one register per port (core.wb_ports per sub-core) and per bank
 * (a bank takes one write per cycle; the write wins over reads, rf.c). An entry whose
 * registers are all written clears its scoreboard bits, so a dependent instruction can
 * issue in the same cycle. Entries without destinations (stores) just retire.
 * wb_min keeps a lower bound of the ready cycles, so cycles with nothing ready cost no
 * scan of the entries.
 */
#include <stdlib.h>
#include "timing/core.h"

int tm_wb_new(TmSm *sm, const TmSubcore *sc, const TmOcu *o)
{
    uint32_t i = 0;
    while (i < sm->nwb && sm->wb[i].live)
        i++;
    if (i == sm->nwb) {
        if (sm->nwb == sm->capwb) {
            uint32_t cap = sm->capwb ? 2 * sm->capwb : 64;
            TmWb *p = realloc(sm->wb, cap * sizeof *p);
            if (!p)
                return -1;
            sm->wb = p, sm->capwb = cap;
        }
        sm->nwb++;
    }
    TmWb *e = &sm->wb[i];
    *e = (TmWb){.live = 1, .sc = (uint16_t)sc->id, .slot = o->slot, .ndst = o->ti->ndst,
                .is_long = o->cls == TC_LDST || o->cls == TC_SFU, .at = TM_NEVER,
                .seq = o->seq};
    for (unsigned k = 0; k < o->ti->ndst; k++)
        e->dst[k] = o->ti->dst[k];
    sm->wb_live++;
    return (int)i;
}

void tm_wb_mem_done(TmSm *sm, uint64_t tag, Cycle now)
{
    TmWb *e = &sm->wb[tag];
    if (e->waiting && --e->waiting == 0) {
        e->at = now;
        tm_wb_ready(sm, now);
    }
}

void tm_wb_ready(TmSm *sm, Cycle at)
{
    if (at < sm->wb_min)
        sm->wb_min = at;
}

static void retire(TmSm *sm, TmWb *e)
{
    TmWarp *w = &sm->warp[e->slot];
    tm_sb_clear(w, e->dst, e->ndst);
    sm->sc[e->sc].issue_wake = 0;
    w->inflight--;
    w->long_ops -= e->is_long;
    e->live = 0;
    sm->wb_live--;
    while (sm->nwb && !sm->wb[sm->nwb - 1].live)
        sm->nwb--;
    if (!w->inflight && w->fw->state == EW_DONE)
        tm_sm_warp_done(sm, e->slot);
}

/* Writes as many of e's remaining registers as ports and banks allow; 1 when done. */
static int write_regs(TmSm *sm, TmWb *e, Cycle now)
{
    TmSubcore *sc = &sm->sc[e->sc];
    while (e->ndst) {
        unsigned r = e->dst[e->ndst - 1];
        if (sc->wb_used == sm->cfg->core_wb_ports || tm_rf_write(sm, sc, r, now))
            return 0;
        sc->wb_used++;
        sc->issue_wake = 0;
        sm->warp[e->slot].sb[r >> 6] &= ~(1ull << (r & 63));
        e->ndst--;
    }
    return 1;
}

static int older(const TmWb *a, const TmWb *b)
{
    return a->at != b->at ? a->at < b->at : a->seq < b->seq;
}

int tm_wb_tick(TmSm *sm, Cycle now)
{
    enum { BATCH = 64 };
    uint32_t ready[BATCH], n = 0;
    for (uint32_t i = 0; i < sm->nsc; i++)
        sm->sc[i].wb_used = 0;
    if (sm->wb_min > now)
        return 0;
    Cycle later = TM_NEVER; /* the next ready cycle of the others */
    for (uint32_t i = 0; i < sm->nwb; i++) {
        const TmWb *e = &sm->wb[i];
        if (e->live && e->at <= now && n < BATCH)
            ready[n++] = i;
        else if (e->live && e->at < later)
            later = e->at;
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort, oldest first */
        for (uint32_t j = i; j > 0 && older(&sm->wb[ready[j]], &sm->wb[ready[j - 1]]); j--) {
            uint32_t t = ready[j];
            ready[j] = ready[j - 1], ready[j - 1] = t;
        }
    for (uint32_t i = 0; i < n; i++) {
        TmWb *e = &sm->wb[ready[i]];
        if (write_regs(sm, e, now))
            retire(sm, e);
        else
            later = now; /* ports or banks ran out: again next cycle */
    }
    sm->wb_min = later;
    return n != 0;
}

Cycle tm_wb_next(const TmSm *sm, Cycle now)
{
    Cycle next = TM_NEVER;
    for (uint32_t i = 0; i < sm->nwb; i++)
        if (sm->wb[i].live && sm->wb[i].at > now && sm->wb[i].at < next)
            next = sm->wb[i].at;
    return next;
}
