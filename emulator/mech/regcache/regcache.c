/*
 * regcache.c - the register caches Memento is compared against (docs/memento.md
 * "Baselines"): BOW's bypassing operand collectors and the register-file
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mech/mech.h"
#include "mech/regcache/regcache.h"
#include "timing/gpu.h"
#include "mech/registry.h"

#define BOW_REGS 256

int tm_rc_init(TmSm *sm, int kind)
{
    const EmuConfig *c = sm->cfg;
    RcSm *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    sm->coll_state = st;
    st->kind = kind;
    st->rc = calloc(sm->max_warps, sizeof *st->rc);
    if (!st->rc)
        return -1;
    if (kind == TM_RC_BOW &&
        !(st->stamps = calloc((size_t)sm->max_warps * BOW_REGS, sizeof *st->stamps)))
        return -1;
    if (kind != TM_RC_BOW &&
        !(st->tags = calloc((size_t)sm->max_warps * c->rf_rfc_entries, 1)))
        return -1;
    for (uint32_t s = 0; s < sm->max_warps; s++) {
        st->rc[s].stamp = st->stamps ? st->stamps + (size_t)s * BOW_REGS : NULL;
        st->rc[s].tag = st->tags ? st->tags + (size_t)s * c->rf_rfc_entries : NULL;
    }
    return 0;
}

void tm_rc_free(TmSm *sm)
{
    RcSm *st = sm->coll_state;
    if (!st)
        return;
    free(st->rc);
    free(st->stamps);
    free(st->tags);
    free(st);
    sm->coll_state = NULL;
}

void tm_rc_reset(TmSm *sm, uint16_t slot)
{
    TmRegCache *rc = tm_rc(sm, slot);
    if (rc->stamp)
        memset(rc->stamp, 0, BOW_REGS * sizeof *rc->stamp);
    rc->n = 0, rc->valid = 0, rc->next = 0, rc->strand_ok = 0;
}

/* --- BOW -------------------------------------------------------------------------------- */

void tm_bow_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now)
{
    TmRegCache *rc = tm_rc(sm, slot);
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
    o->tag = k;
    o->reads_left = (uint8_t)misses;
    sc->ocu_collected += !misses;
}

void tm_bow_write(TmSm *sm, uint16_t slot, unsigned r, uint32_t bidx)
{
    TmRegCache *rc = tm_rc(sm, slot);
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
    const TmRegCache *rc = tm_rc(sm, slot);
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
    TmRegCache *rc = tm_rc(sm, slot);
    int e = rfc_find(sm, rc, r);
    int hw = ((RcSm *)sm->coll_state)->kind == TM_RC_RFC;
    int keep = tm_sched_active(sc->sched, slot) && (hw || near);
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
    TmRegCache *rc = tm_rc(sm, slot);
    sm->ctr->rf_ct_flushes += rc->valid != 0;
    rc->valid = 0;
}

/* --- swrfc strands ----------------------------------------------------------------------- */

void tm_strands(uint8_t *strand, const TmInsn *info, const XInsn *code, uint32_t n)
{
    uint64_t pend[4] = {0}; /* destinations of long-latency instructions in this strand */
    memset(strand, 0, n);
    for (uint32_t pc = 0; pc < n; pc++) {
        const XInsn *in = &code[pc];
        if ((xisa_ops[in->op].flags & XI_BRANCH) && in->target <= pc && in->target < n)
            strand[in->target] |= TM_STRAND_FLUSH;
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        const TmInsn *t = &info[pc];
        int uses = 0;
        for (unsigned i = 0; i < t->nsrc; i++)
            uses |= (int)(pend[t->src[i] >> 6] >> (t->src[i] & 63) & 1);
        if (uses)
            strand[pc] |= TM_STRAND_FLUSH | TM_STRAND_YIELD;
        if (strand[pc])
            memset(pend, 0, sizeof pend);
        unsigned sp = code[pc].mod;
        int mem = (xisa_ops[code[pc].op].flags & XI_MEM) &&
                  (sp == XS_GLOBAL || sp == XS_LOCAL || sp == XS_GENERIC || sp == XS_TEX);
        if (t->cls == TC_SFU || (t->cls == TC_LDST && mem && t->ndst))
            for (unsigned i = 0; i < t->ndst; i++)
                pend[t->dst[i] >> 6] |= 1ull << (t->dst[i] & 63);
    }
}

/* --- the slots' hooks ------------------------------------------------------------------ */

static int bow_sm_init(TmSm *sm)
{
    return tm_rc_init(sm, TM_RC_BOW);
}

static int rfc_sm_init(TmSm *sm)
{
    return tm_rc_init(sm, TM_RC_RFC);
}

static int swrfc_sm_init(TmSm *sm)
{
    return tm_rc_init(sm, TM_RC_SWRFC);
}

static void bow_write(TmSm *sm, TmSubcore *sc, const TmWb *e, unsigned k, unsigned r,
                      Cycle now)
{
    (void)sc, (void)k, (void)now;
    tm_bow_write(sm, e->slot, r, e->tag); /* forwarded into the warp's collector */
}

static void bow_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                     Cycle now)
{
    tm_bow_fill(sm, sc, idx, slot, ti, now);
}

static void rfc_write(TmSm *sm, TmSubcore *sc, const TmWb *e, unsigned k, unsigned r,
                      Cycle now)
{
    (void)now;
    tm_rfc_write(sm, sc, e->slot, r, (e->dst_near >> k) & 1);
}

/* swrfc's strands of the launch's kernel (TmGpu.mech[TM_SLOT_COLLECTOR].state). */
static int strands_begin(TmGpu *g, void **state, char *err, size_t n)
{
    uint8_t *strand = malloc(g->kc->count ? g->kc->count : 1);
    if (!strand) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    tm_strands(strand, g->info, g->code, g->kc->count);
    *state = strand;
    return 0;
}

static void strands_end(TmGpu *g, void *state)
{
    (void)g;
    free(state);
}

static void swrfc_issued(TmSm *sm, uint16_t slot)
{
    tm_rc(sm, slot)->strand_ok = 0;
}

/* swrfc: warp slot is at a strand boundary it has not passed yet. The operand register
 * file's values are dead there, and at a long-latency consumer the warp leaves the
 * active set if a warp waits to come in. Returns 1 when it left. */
static int swrfc_scan(TmSm *sm, TmSubcore *sc, uint16_t slot)
{
    const TmWarp *w = &sm->warp[slot];
    TmRegCache *rc = tm_rc(sm, slot);
    if (w->state != EW_RUN || rc->strand_ok)
        return 0;
    const EmuWarp *fw = w->fw;
    uint32_t pc = fw->depth ? fw->stack[fw->depth - 1].pc : 0;
    const uint8_t *strand = sm->gpu->mech[TM_SLOT_COLLECTOR].state;
    unsigned b = pc < sm->gpu->kc->count ? strand[pc] : 0;
    if (!b)
        return 0;
    rc->strand_ok = 1;
    tm_rfc_flush(sm, slot);
    if (!(b & TM_STRAND_YIELD) || !sc->sched->ops->long_stall(sc->sched, slot))
        return 0;
    sm->ctr->tl_yields++;
    return 1;
}

const TmCollectorOps tm_coll_bow = {
    .name = "bow",
    .sm_init = bow_sm_init,
    .sm_free = tm_rc_free,
    .private_collectors = 1,
    .pick = tm_pick_private,
    .fill = bow_fill,
    .write = bow_write,
    .warp_start = tm_rc_reset,
};

static const TmCollectorOps coll_rfc = {
    .name = "rfc",
    .sm_init = rfc_sm_init,
    .sm_free = tm_rc_free,
    .fill = tm_rfc_fill,
    .write = rfc_write,
    .warp_start = tm_rc_reset,
    .warp_demoted = tm_rfc_flush, /* its cache holds active warps only */
};

static const TmCollectorOps coll_swrfc = {
    .name = "swrfc",
    .launch = {.begin = strands_begin, .end = strands_end},
    .sm_init = swrfc_sm_init,
    .sm_free = tm_rc_free,
    .fill = tm_rfc_fill,
    .write = rfc_write,
    .warp_start = tm_rc_reset,
    .warp_issued = swrfc_issued,
    .warp_demoted = tm_rfc_flush,
    .scan = swrfc_scan,
};

/* --- the two-level schedulers with a register-file cache ------------------------------- */

/* May pending warp slot join the active set? Not while it waits for a long-latency
 * result or at a barrier. */
static int rfc_eligible(const TmSm *sm, uint16_t slot)
{
    const TmWarp *w = &sm->warp[slot];
    if (w->state != EW_RUN)
        return 0;
    return !w->long_ops || !tm_sb_blocked(w, w->ti);
}

/* A free place in the active set goes to the first eligible pending warp, in FIFO order;
 * the set is filled when the scheduler orders its warps. */
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
        tm_sched_list_remove(s->pend, &s->npend, slot);
    }
    return tm_sched_active_rr(s, out);
}

/* A warp that stalls on a long-latency operation or a barrier leaves the set (to be
 * filled by rfc_order). */
static int rfc_long_stall(TmSched *s, uint16_t slot)
{
    if (!s->npend)
        return 0; /* nobody to swap in */
    tm_sched_list_remove(s->active, &s->nactive, slot);
    s->pend[s->npend++] = slot;
    return 1;
}

const TmSchedOps tm_issue_rfc = {
    .name = "rfc",
    .order = rfc_order,
    .issued = tm_sched_note_issued,
    .long_stall = rfc_long_stall,
    .needs = "ocu",
    .brings = &coll_rfc,
};

const TmSchedOps tm_issue_swrfc = {
    .name = "swrfc",
    .order = rfc_order,
    .issued = tm_sched_note_issued,
    .long_stall = rfc_long_stall,
    .needs = "ocu",
    .brings = &coll_swrfc,
};

const EmuMech emu_mech_regcache = {.name = "regcache"};
