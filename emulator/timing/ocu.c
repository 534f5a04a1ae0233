/*
 * ocu.c - operand collector units. At issue an instruction takes a free OCU picked at
 * random (the device's seeded generator) among the sub-core's free ones; the register
 * reads of its sources are queued at the banks (rf.c). Once every source has been read
 * and its unit accepts it, the instruction dispatches and the OCU is freed; OCUs that
 * are ready in the same cycle dispatch oldest first. The operand pipeline's stages
 * (core.collect_stages, core.dispatch_stages, core.exec_stages, core.wb_stages) delay
 * the reads, the dispatch, the unit's start and the result (docs/timing.md). A memory
 * instruction dispatches when the LD/ST unit has taken every access (one space per
 * TmAccess; ldst_issue may refuse, and the OCU then retries the next cycle; while the
 * unit would certainly refuse again and nothing else is collected, the attempt is
 * skipped, which changes nothing), or with core.mem_latency set, into
 * an ideal memory that answers after that many cycles. A collector mechanism (slots.h)
 * decides how collectors are given (pick) and filled, and hears of each dispatch.
 */
#include "timing/slots.h"
#include "timing/core.h"

int tm_ocu_alloc(TmSm *sm, TmSubcore *sc)
{
    uint32_t n = sc->nocu, nfree = n - sc->ocu_busy;
    if (!nfree)
        return -1;
    uint32_t pick = nfree > 1 ? tm_rng_below(sm->rng, nfree) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (!sc->ocu[i].busy && pick-- == 0)
            return (int)i;
    return -1;
}

int tm_pick_random(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why)
{
    (void)slot;
    *why = TPS_NONE;
    return tm_ocu_alloc(sm, sc);
}

int tm_pick_private(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why)
{
    uint32_t own = (slot - sc->id) / sm->nsc; /* the slot's index in its sub-core */
    *why = TPS_NONE;
    return sc->ocu[own].busy ? TM_PICK_BUSY : (int)own;
}

/* Hands the remaining accesses of a memory instruction to the LD/ST unit. Returns 1
 * when all are taken. */
static int mem_dispatch(TmSm *sm, TmSubcore *sc, TmOcu *o, Cycle now)
{
    while (o->acc_next < o->step.nacc) {
        if (ldst_issue(sm->ldst, &o->step.acc[o->acc_next], (uint64_t)o->wb, now) < 0) {
            if (!sc->mem_blocked)
                sm->stir = 1, sc->issue_wake = 0;
            sc->mem_ocu = (uint32_t)(o - sc->ocu);
            return sc->mem_blocked = 1, 0;
        }
        o->acc_next++;
        sm->stir = 1;
    }
    if (sc->mem_blocked)
        sc->issue_wake = 0;
    sc->mem_blocked = 0;
    return 1;
}

/* The first cycle OCU o may dispatch by the pipeline's stages (once its reads are done):
 * core.collect_stages after the cycle after issue, and core.dispatch_stages after its
 * last read. */
static Cycle staged_at(const TmSm *sm, const TmOcu *o)
{
    Cycle t = o->issued + sm->collect_stages + 1;
    return o->read_at && o->read_at + sm->dispatch_stages > t ? o->read_at + sm->dispatch_stages
                                                              : t;
}

Cycle tm_stage_wake(const TmSm *sm, const TmSubcore *sc, Cycle now)
{
    Cycle next = TM_NEVER;
    for (uint32_t i = 0; sc->reads_queued && i < sm->cfg->rf_banks_per_subcore; i++) {
        const TmBank *b = &sc->bank[i];
        if (b->len && b->q[b->head].since + 1 > now && b->q[b->head].since + 1 < next)
            next = b->q[b->head].since + 1;
    }
    for (uint32_t i = 0; sc->ocu_collected && i < sc->nocu; i++) {
        const TmOcu *o = &sc->ocu[i];
        Cycle t = o->busy && !o->reads_left ? staged_at(sm, o) : TM_NEVER;
        if (t > now && t < next)
            next = t;
    }
    return next;
}

/* Whether busy OCU o has every operand and may try to dispatch now (staged: the SM has
 * stages before dispatch, TmSm.stages). */
static inline int collected(const TmSm *sm, int staged, const TmOcu *o, Cycle now)
{
    return !o->reads_left && o->issued < now && (!staged || staged_at(sm, o) <= now);
}

/* Dispatches OCU o if it can; returns 1 when it did (the OCU is free again). A unit
 * starts core.exec_stages cycles after the dispatch, and its result is written
 * core.wb_stages cycles after its latency (not for memory instructions). */
static int dispatch_one(TmSm *sm, TmSubcore *sc, TmOcu *o, Cycle now)
{
    if (!collected(sm, sm->stages, o, now))
        return 0;
    if (o->wb < 0) {
        Cycle start = o->cls == TC_LDST ? now : now + sm->exec_stages;
        if (!tm_unit_ready(sc, o->cls, start))
            return 0;
        o->wb = tm_wb_new(sm, sc, o);
        if (o->wb < 0)
            return 0;
        sm->stir = 1;
        sc->issue_wake = 0; /* the unit's initiation interval starts */
        Cycle at = tm_unit_start(sm, sc, o->cls, o->ti->latency, start);
        TmWb *e = &sm->wb[o->wb];
        if (o->cls != TC_LDST || !sm->ldst)
            e->at = o->cls == TC_LDST ? at : at + sm->wb_stages;
        else
            e->waiting = o->step.nacc;
    }
    if (sm->wb[o->wb].at == TM_NEVER && !mem_dispatch(sm, sc, o, now))
        return 0;
    if (sm->wb[o->wb].at == TM_NEVER && !o->step.nacc)
        sm->wb[o->wb].at = now + 1; /* no lane touched memory */
    tm_wb_ready(sm, (uint32_t)o->wb);
    sm->ctr->rf_ct_reads += o->ti->nsrc; /* the operands leave collector storage */
    if (sm->coll->dispatched)
        sm->coll->dispatched(sm, sc, (uint32_t)(o - sc->ocu));
    o->busy = 0;
    sc->ocu_busy--;
    sc->ocu_collected--;
    sc->issue_wake = 0; /* a collector is free */
    return 1;
}

/* Whether the only collected OCU is a memory instruction whose next access the LD/ST
 * unit would refuse again: dispatch_one would change nothing. */
static int only_refused(const TmSm *sm, const TmSubcore *sc, Cycle now)
{
    if (sc->ocu_collected != 1 || !sc->mem_blocked)
        return 0;
    const TmOcu *o = &sc->ocu[sc->mem_ocu];
    return o->busy && collected(sm, sm->stages, o, now) && o->wb >= 0 &&
           o->acc_next < o->step.nacc && ldst_refuses(sm->ldst, &o->step.acc[o->acc_next], now);
}

int tm_ocu_dispatch(TmSm *sm, TmSubcore *sc, Cycle now)
{
    int work = 0, staged = sm->stages;
    uint32_t n = sc->nocu, k = 0;
    if (!sc->ocu_collected || only_refused(sm, sc, now))
        return 0;
    /* The collected ones, oldest first (insertion by seq), each tried once: a dispatch
     * frees its own OCU and leaves the others' readiness as it was. */
    TmOcu *ready[256];
    for (uint32_t i = 0; i < n; i++) {
        TmOcu *o = &sc->ocu[i];
        if (!o->busy || !collected(sm, staged, o, now))
            continue;
        uint32_t j = k++;
        for (; j > 0 && ready[j - 1]->seq > o->seq; j--)
            ready[j] = ready[j - 1];
        ready[j] = o;
    }
    for (uint32_t j = 0; j < k; j++)
        work |= dispatch_one(sm, sc, ready[j], now);
    return work;
}
