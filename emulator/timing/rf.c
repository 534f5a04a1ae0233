/*
 * rf.c - a sub-core's register-file banks and their arbiter.
 *
 * Register r of a warp lives in bank r mod rf.banks_per_subcore (a 64-bit operand's two
 * registers therefore sit in different banks when there are two or more). A bank is
 * single-ported: one read or one write per cycle, and writes win (write-back runs first
 * in the cycle and marks the bank). Each bank keeps a FIFO of read requests; at issue an
 * instruction queues one request per source register. Every cycle the arbiter grants
 * the oldest request of each bank the write-back left free. A request queued at cycle t
 * is first eligible at t + 1; one granted later than that waited behind another access
 * of its bank and counts as a bank conflict. With core.collect_stages = c the request is
 * first eligible at t + 1 + c (the instruction's stages before its collector). An OCU can
 * take one operand per bank per cycle, which a bank granting one read per cycle already
 * guarantees; with rf.collector_port = one it has a single port and takes one operand a
 * cycle: a bank whose head is for a collector another bank served this cycle grants
 * nothing (the banks take turns at being first, by cycle), and the wait counts as a
 * conflict like a bank's. The baseline
 * collector queues every source (tm_fill_banks); a collector mechanism with a register
 * cache queues only the registers it misses (tm_rf_queue).
 * Every grant is one arbiter grant, one crossbar transfer and one write into collector
 * storage (the register-file energy events, docs/stats.md).
 */
#include <stdlib.h>
#include "timing/slots.h"
#include "timing/core.h"

int tm_rf_init(TmSubcore *sc, const EmuConfig *cfg)
{
    uint32_t nb = cfg->rf_banks_per_subcore, cap = sc->nocu * TM_MAXSRC;
    sc->bank = calloc(nb, sizeof *sc->bank);
    if (!sc->bank)
        return -1;
    for (uint32_t b = 0; b < nb; b++) {
        sc->bank[b].q = calloc(cap, sizeof *sc->bank[b].q);
        sc->bank[b].cap = cap;
        sc->bank[b].written = TM_NEVER;
        if (!sc->bank[b].q)
            return -1;
    }
    return 0;
}

void tm_rf_free(TmSubcore *sc, const EmuConfig *cfg)
{
    for (uint32_t b = 0; sc->bank && b < cfg->rf_banks_per_subcore; b++)
        free(sc->bank[b].q);
    free(sc->bank);
}

static TmBank *bank_of(const TmSm *sm, const TmSubcore *sc, unsigned r)
{
    return &sc->bank[r % sm->cfg->rf_banks_per_subcore];
}

void tm_rf_queue(TmSm *sm, TmSubcore *sc, uint16_t ocu, unsigned r, Cycle now)
{
    TmBank *b = bank_of(sm, sc, r);
    b->q[(b->head + b->len++) % b->cap] = (TmRead){ocu, now + sm->collect_stages};
    sc->reads_queued++;
}

void tm_fill_banks(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                   Cycle now)
{
    (void)slot;
    for (unsigned i = 0; i < ti->nsrc; i++)
        tm_rf_queue(sm, sc, (uint16_t)idx, ti->src[i], now);
    sc->ocu_collected += !ti->nsrc;
}

int tm_rf_arbitrate(TmSm *sm, TmSubcore *sc, Cycle now)
{
    int work = 0;
    if (!sc->reads_queued)
        return 0;
    uint32_t nb = sm->cfg->rf_banks_per_subcore, first = sm->one_port ? now % nb : 0;
    for (uint32_t k = 0; k < nb; k++) {
        TmBank *b = &sc->bank[first + k < nb ? first + k : first + k - nb];
        if (!b->len || b->written == now)
            continue;
        TmRead *r = &b->q[b->head];
        if (r->since >= now) /* queued this cycle: eligible next cycle */
            continue;
        TmOcu *o = &sc->ocu[r->ocu];
        if (sm->one_port && o->read_at == now)
            continue; /* its port took another bank's read this cycle */
        o->read_at = now;
        sc->ocu_collected += --o->reads_left == 0;
        sc->reads_queued--;
        sm->ctr->rf_bank_reads++;
        sm->ctr->rf_arbiter_grants++;
        sm->ctr->rf_xbar++;
        sm->ctr->rf_ct_fills++;
        sm->ctr->rf_bank_conflicts += r->since + 1 < now;
        b->head = (b->head + 1) % b->cap;
        b->len--;
        work = 1;
    }
    return work;
}

int tm_rf_write(TmSm *sm, TmSubcore *sc, unsigned r, Cycle now)
{
    TmBank *b = bank_of(sm, sc, r);
    if (b->written == now)
        return -1;
    b->written = now;
    sm->ctr->rf_bank_writes++;
    return 0;
}
