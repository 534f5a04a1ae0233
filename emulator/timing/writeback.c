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
 * Each register written is also offered to the collector mechanism (slots.h: a register
 * cache may keep it). Entries whose ready cycle is known wait in a heap ordered that way
 * (heap.h); freed entries go on a free list.
 */
#include <stdlib.h>
#include "timing/gpu.h"
#include "timing/slots.h"

int tm_wb_new(TmSm *sm, const TmSubcore *sc, const TmOcu *o)
{
    uint32_t i;
    if (sm->nwb_free) {
        i = sm->wb_free[--sm->nwb_free];
    } else {
        if (sm->nwb == sm->capwb) {
            uint32_t cap = sm->capwb ? 2 * sm->capwb : 64;
            TmWb *p = realloc(sm->wb, cap * sizeof *p);
            if (p)
                sm->wb = p;
            uint32_t *f = p ? realloc(sm->wb_free, cap * sizeof *f) : NULL;
            if (f)
                sm->wb_free = f;
            uint32_t *k = f ? realloc(sm->wb_keep, cap * sizeof *k) : NULL;
            if (!k)
                return -1;
            sm->wb_keep = k, sm->capwb = cap;
        }
        i = sm->nwb++;
    }
    TmWb *e = &sm->wb[i];
    *e = (TmWb){.live = 1, .sc = (uint16_t)sc->id, .slot = o->slot, .ndst = o->ti->ndst,
                .is_long = o->cls == TC_LDST || o->cls == TC_SFU, .at = TM_NEVER,
                .seq = o->seq, .dst_near = o->ti->dst_near, .tag = o->tag};
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
        tm_wb_ready(sm, (uint32_t)tag);
    }
}

void tm_wb_ready(TmSm *sm, uint32_t i)
{
    TmWb *e = &sm->wb[i];
    if (e->queued || e->at == TM_NEVER)
        return;
    e->queued = 1;
    if (tm_heap_push(&sm->wb_ready, e->at, e->seq, i) < 0)
        tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
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
    sm->wb_free[sm->nwb_free++] = (uint32_t)(e - sm->wb);
    if (!w->inflight && w->state == EW_DONE)
        tm_sm_warp_done(sm, e->slot);
}

/* Writes as many of e's remaining registers as ports and banks allow; 1 when done. */
static int write_regs(TmSm *sm, TmWb *e, Cycle now)
{
    TmSubcore *sc = &sm->sc[e->sc];
    while (e->ndst) {
        unsigned r = e->dst[e->ndst - 1];
        if (sc->wb_cycle != now) /* the first write-back of this sub-core this cycle */
            sc->wb_cycle = now, sc->wb_used = 0;
        if (sc->wb_used == sm->cfg->core_wb_ports || tm_rf_write(sm, sc, r, now))
            return 0;
        sc->wb_used++;
        sc->issue_wake = 0;
        if (sm->coll->write)
            sm->coll->write(sm, sc, e, e->ndst - 1u, r, now);
        sm->warp[e->slot].sb[r >> 6] &= ~(1ull << (r & 63));
        e->ndst--;
    }
    return 1;
}

int tm_wb_tick(TmSm *sm, Cycle now)
{
    uint32_t nkeep = 0, *keep = sm->wb_keep;
    int work = 0;
    if (tm_heap_min(&sm->wb_ready) > now)
        return 0;
    /* Ready entries oldest first; those that ports or banks hold back wait for the next
     * cycle, in the same order. */
    while (tm_heap_min(&sm->wb_ready) <= now) {
        uint32_t i = tm_heap_pop(&sm->wb_ready).idx;
        TmWb *e = &sm->wb[i];
        work = 1;
        if (write_regs(sm, e, now))
            retire(sm, e);
        else
            keep[nkeep++] = i;
    }
    for (uint32_t k = 0; k < nkeep; k++)
        if (tm_heap_push(&sm->wb_ready, sm->wb[keep[k]].at, sm->wb[keep[k]].seq, keep[k]) < 0)
            tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
    return work;
}

Cycle tm_wb_next(const TmSm *sm, Cycle now)
{
    Cycle t = tm_heap_min(&sm->wb_ready);
    return t == TM_NEVER || t > now ? t : now + 1;
}
