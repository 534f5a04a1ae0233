/*
 * regcache.c - the register caches Memento is compared against (docs/memento.md,
 * docs/memento.md "Baselines"): BOW's bypassing operand collectors and the register-file
 * caches of the two-level schedulers rfc and swrfc. Each keeps, per warp slot, which
 * registers a warp can read without a bank access; every result is still written to the
 * banks (write-through), so dropping cached values costs nothing.
 *
 * BOW (rf.collector = bow): every warp slot has its own collector, which keeps the
 * operands of the warp's last rf.bow_window instructions (the one collecting included).
 * Instructions are numbered per warp as they take the collector; a register read or
 * written by instruction j is still in the collector for instruction k when
 * k - j < rf.bow_window. A source found there is bypassed (no bank read); a result is
 * forwarded into the collector at write-back. Scoreboarding keeps a register's readers
 * behind its write-back, so a window index never names a stale value.
 *
 * rfc (core.sched = rfc): a cache of rf.rfc_entries registers per warp slot, used while
 * the warp is in its sub-core's active set. Every result of an active warp is allocated
 * (write-allocate, first in first out); reads that miss go to the banks and are not
 * allocated. A warp that leaves the active set loses its entries, and results that come
 * back while it is pending go to the banks only.
 *
 * swrfc (core.sched = swrfc): the compiler-managed operand register file. Only results
 * whose reuse bit says near are allocated (the compiler places values it sees read again
 * soon), and nothing lives across a strand boundary: a strand starts at each loop header
 * (the target of a backward branch) and at each instruction that reads the result of a
 * long-latency instruction (a load or atomic on global, local or generic addresses, or an
 * SFU operation) issued earlier in the
 * same strand. At the second kind the warp also leaves the active set (sm.c), whether or
 * not the value has arrived: the compiler cannot know.
 */
#include <stdlib.h>
#include <string.h>
#include "timing/sched.h"

#define BOW_REGS 256

int tm_rc_init(TmSm *sm)
{
    const EmuConfig *c = sm->cfg;
    sm->rc = calloc(sm->max_warps, sizeof *sm->rc);
    if (!sm->rc)
        return -1;
    if (sm->bow && !(sm->rc_stamps = calloc((size_t)sm->max_warps * BOW_REGS,
                                            sizeof *sm->rc_stamps)))
        return -1;
    if (sm->rfc && !(sm->rc_tags = calloc((size_t)sm->max_warps * c->rf_rfc_entries, 1)))
        return -1;
    for (uint32_t s = 0; s < sm->max_warps; s++) {
        sm->rc[s].stamp = sm->rc_stamps ? sm->rc_stamps + (size_t)s * BOW_REGS : NULL;
        sm->rc[s].tag = sm->rc_tags ? sm->rc_tags + (size_t)s * c->rf_rfc_entries : NULL;
    }
    return 0;
}

void tm_rc_free(TmSm *sm)
{
    free(sm->rc);
    free(sm->rc_stamps);
    free(sm->rc_tags);
}

void tm_rc_reset(TmSm *sm, uint16_t slot)
{
    TmRegCache *rc = &sm->rc[slot];
    if (rc->stamp)
        memset(rc->stamp, 0, BOW_REGS * sizeof *rc->stamp);
    rc->n = 0, rc->valid = 0, rc->next = 0, rc->strand_ok = 0;
}

/* --- BOW -------------------------------------------------------------------------------- */

void tm_bow_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now)
{
    TmRegCache *rc = &sm->rc[slot];
    TmOcu *o = &sc->ocu[idx];
    uint32_t k = ++rc->n, win = sm->cfg->rf_bow_window, misses = 0;
    for (unsigned i = 0; i < ti->nsrc; i++) {
        unsigned r = ti->src[i];
        if (rc->stamp[r] && k - rc->stamp[r] < win) {
            sm->ctr->rf_ct_hits++;
        } else {
            sm->ctr->rf_ct_misses++;
            misses++;
            tm_rf_queue(sm, sc, (uint16_t)idx, r, now);
        }
        rc->stamp[r] = k;
    }
    o->bidx = k;
    o->reads_left = (uint8_t)misses;
    sc->ocu_collected += !misses;
}

void tm_bow_write(TmSm *sm, uint16_t slot, unsigned r, uint32_t bidx)
{
    TmRegCache *rc = &sm->rc[slot];
    rc->stamp[r] = bidx;
    /* Kept only while the warp's next instruction can still see it. */
    sm->ctr->rf_ct_writes += rc->n + 1 - bidx < sm->cfg->rf_bow_window;
}

/* --- rfc, swrfc ------------------------------------------------------------------------- */

static int rfc_find(const TmSm *sm, const TmRegCache *rc, unsigned r)
{
    for (uint32_t i = 0; i < sm->cfg->rf_rfc_entries; i++)
        if ((rc->valid >> i & 1) && rc->tag[i] == r)
            return (int)i;
    return -1;
}

void tm_rfc_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now)
{
    const TmRegCache *rc = &sm->rc[slot];
    uint32_t misses = 0;
    for (unsigned i = 0; i < ti->nsrc; i++) {
        if (rfc_find(sm, rc, ti->src[i]) >= 0) {
            sm->ctr->rf_ct_hits++;
            continue;
        }
        sm->ctr->rf_ct_misses++;
        misses++;
        tm_rf_queue(sm, sc, (uint16_t)idx, ti->src[i], now);
    }
    sc->ocu[idx].reads_left = (uint8_t)misses;
    sc->ocu_collected += !misses;
}

void tm_rfc_write(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned r, int near)
{
    TmRegCache *rc = &sm->rc[slot];
    int e = rfc_find(sm, rc, r);
    int keep = tm_sched_active(sc->sched, slot) && (sm->rfc == TM_RFC_HW || near);
    if (!keep) {
        if (e >= 0) { /* the cached copy is stale now */
            rc->valid &= ~(1ull << e);
            sm->ctr->rf_ct_invalidations++;
        }
        return;
    }
    if (e < 0) {
        e = rc->next;
        rc->next = (uint8_t)((rc->next + 1) % sm->cfg->rf_rfc_entries);
        rc->tag[e] = (uint8_t)r;
        rc->valid |= 1ull << e;
    }
    sm->ctr->rf_ct_writes++;
}

void tm_rfc_flush(TmSm *sm, uint16_t slot)
{
    TmRegCache *rc = &sm->rc[slot];
    sm->ctr->rf_ct_flushes += rc->valid != 0;
    rc->valid = 0;
}

/* --- swrfc strands ----------------------------------------------------------------------- */

void tm_strands(TmInsn *info, const XInsn *code, uint32_t n)
{
    uint64_t pend[4] = {0}; /* destinations of long-latency instructions in this strand */
    for (uint32_t pc = 0; pc < n; pc++) {
        const XInsn *in = &code[pc];
        if ((xisa_ops[in->op].flags & XI_BRANCH) && in->target <= pc && in->target < n)
            info[in->target].strand |= TM_STRAND_FLUSH;
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        TmInsn *t = &info[pc];
        int uses = 0;
        for (unsigned i = 0; i < t->nsrc; i++)
            uses |= (int)(pend[t->src[i] >> 6] >> (t->src[i] & 63) & 1);
        if (uses)
            t->strand |= TM_STRAND_FLUSH | TM_STRAND_YIELD;
        if (t->strand)
            memset(pend, 0, sizeof pend);
        unsigned sp = code[pc].mod;
        int mem = (xisa_ops[code[pc].op].flags & XI_MEM) &&
                  (sp == XS_GLOBAL || sp == XS_LOCAL || sp == XS_GENERIC || sp == XS_TEX);
        if (t->cls == TC_SFU || (t->cls == TC_LDST && mem && t->ndst))
            for (unsigned i = 0; i < t->ndst; i++)
                pend[t->dst[i] >> 6] |= 1ull << (t->dst[i] & 63);
    }
}
