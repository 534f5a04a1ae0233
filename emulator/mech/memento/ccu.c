/*
 * ccu.c - Memento's caching collector units (rf.collector = ccu; docs/memento.md): the
 * collector slot's tm_coll_ccu (timing/slots.h).
 *
 * A CCU is an operand collector with a small fully associative cache of registers, the
 * cache table (CT, rf.ct_entries entries, each a register of one warp: tag, lock, near
 * bit, LRU stamp). A warp owns the CCU it was last given; giving it to another warp (or
 * freeing the owner's warp slot) empties the CT, which costs nothing because every
 * write-back also goes to the banks.
 *
 * At issue (tm_ccu_fill) each source register is looked up: a hit needs no bank read; a
 * miss takes a victim entry and queues the bank read. Either way the entry is locked
 * until dispatch and takes the instruction's reuse bit for that register. Victims are
 * unlocked entries: an invalid one (lowest index) first, else a random far one (the
 * device's seeded generator), else the least recently used. An instruction that reads
 * more registers than the CT can lock reads the rest straight from the banks, uncached.
 *
 * At write-back (tm_ccu_write) a result goes into the owner warp's CT only when its
 * reuse bit says near and the CT's single write port is still free this cycle (the port
 * takes every register of the one result it accepts, both halves of a 64-bit pair; with
 * rf.ct_write_port = register only one register); a far result, or a near one that found
 * the port taken, invalidates any copy of that register in the CT so no stale value can
 * be read later.
 */
#include <stdlib.h>
#include <string.h>
#include "mech/memento/ccu.h"
#include "mech/mech.h"

int tm_ccu_sm_init(TmSm *sm)
{
    CcuSm *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    sm->coll_state = c;
    c->entries = sm->cfg->rf_ct_entries;
    c->port_result = strcmp(sm->cfg->rf_ct_write_port, "result") == 0;
    for (uint32_t i = 0; i < sm->nsc; i++)
        c->per = sm->sc[i].nocu > c->per ? sm->sc[i].nocu : c->per;
    c->ccu = calloc((size_t)sm->nsc * (c->per ? c->per : 1), sizeof *c->ccu);
    c->owned = calloc(sm->max_warps, sizeof *c->owned);
    if (!c->ccu || !c->owned)
        return -1;
    for (uint32_t i = 0; i < sm->nsc * c->per; i++) {
        c->ccu[i].wport = TM_NEVER;
        if (!(c->ccu[i].ct = calloc(c->entries, sizeof *c->ccu[i].ct)))
            return -1;
    }
    return 0;
}

void tm_ccu_sm_free(TmSm *sm)
{
    CcuSm *c = ccu_sm(sm);
    if (!c)
        return;
    for (uint32_t i = 0; c->ccu && i < sm->nsc * c->per; i++)
        free(c->ccu[i].ct);
    free(c->ccu);
    free(c->owned);
    free(c);
    sm->coll_state = NULL;
}

static int ct_find(const CcuSm *c, const Ccu *o, unsigned r)
{
    for (uint32_t i = 0; i < c->entries; i++)
        if (o->ct[i].valid && o->ct[i].tag == r)
            return (int)i;
    return -1;
}

/* An unlocked entry to replace, or -1 when every entry is locked. */
static int ct_victim(TmSm *sm, Ccu *o)
{
    uint32_t n = ccu_sm(sm)->entries, nfar = 0;
    int lru = -1;
    for (uint32_t i = 0; i < n; i++) {
        const CcuEntry *e = &o->ct[i];
        if (e->lock)
            continue;
        if (!e->valid)
            return (int)i;
        nfar += !e->near;
        if (lru < 0 || e->used < o->ct[lru].used)
            lru = (int)i;
    }
    if (!nfar)
        return lru;
    uint32_t pick = nfar > 1 ? tm_rng_below(sm->rng, nfar) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (!o->ct[i].lock && !o->ct[i].near && pick-- == 0)
            return (int)i;
    return lru;
}

void tm_ccu_flush(TmSm *sm, TmSubcore *sc, uint32_t idx)
{
    CcuSm *c = ccu_sm(sm);
    Ccu *o = ccu_of(sm, sc, idx);
    int had = 0;
    for (uint32_t i = 0; i < c->entries; i++) {
        had |= o->ct[i].valid;
        o->ct[i].valid = 0, o->ct[i].near = 0;
    }
    sm->ctr->rf_ct_flushes += had;
    if (o->owner)
        c->owned[o->owner - 1] = 0;
    o->owner = 0;
}

int tm_ccu_has_near(const TmSm *sm, const TmSubcore *sc, uint32_t idx)
{
    const Ccu *o = ccu_of(sm, sc, idx);
    for (uint32_t i = 0; i < ccu_sm(sm)->entries; i++)
        if (o->ct[i].valid && o->ct[i].near)
            return 1;
    return 0;
}

unsigned tm_ccu_owned(const TmSm *sm, uint16_t slot)
{
    return ccu_sm(sm)->owned[slot];
}

void tm_ccu_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now)
{
    CcuSm *c = ccu_sm(sm);
    Ccu *o = ccu_of(sm, sc, idx);
    if (o->owner != slot + 1) {
        tm_ccu_flush(sm, sc, idx);
        o->owner = (uint16_t)(slot + 1);
        c->owned[slot] = (uint16_t)(idx + 1);
    }
    uint32_t misses = 0;
    for (unsigned i = 0; i < ti->nsrc; i++) {
        unsigned r = ti->src[i];
        int e = ct_find(c, o, r);
        if (e >= 0) {
            sm->ctr->rf_ct_hits++;
        } else {
            sm->ctr->rf_ct_misses++;
            misses++;
            tm_rf_queue(sm, sc, (uint16_t)idx, r, now);
            if ((e = ct_victim(sm, o)) < 0)
                continue; /* more registers than entries: read uncached */
            o->ct[e].tag = (uint8_t)r, o->ct[e].valid = 1;
        }
        o->ct[e].lock = 1;
        o->ct[e].near = (ti->src_near >> i) & 1;
        o->ct[e].used = ++c->clock;
    }
    sc->ocu[idx].reads_left = (uint8_t)misses;
    sc->ocu_collected += !misses;
}

void tm_ccu_unlock(TmSm *sm, TmSubcore *sc, uint32_t idx)
{
    Ccu *o = ccu_of(sm, sc, idx);
    for (uint32_t i = 0; i < ccu_sm(sm)->entries; i++)
        o->ct[i].lock = 0;
}

void tm_ccu_write(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned r, int near,
                  uint64_t seq, Cycle now)
{
    CcuSm *c = ccu_sm(sm);
    uint16_t own = c->owned[slot];
    if (!own)
        return; /* no CT holds this warp's registers */
    Ccu *o = ccu_of(sm, sc, own - 1u);
    int e = ct_find(c, o, r);
    int port_free = o->wport != now || (c->port_result && o->wseq == seq);
    if (near && port_free) {
        if (e < 0 && (e = ct_victim(sm, o)) < 0)
            return;
        o->wport = now, o->wseq = seq;
        o->ct[e].tag = (uint8_t)r, o->ct[e].valid = 1, o->ct[e].near = 1;
        o->ct[e].used = ++c->clock;
        sm->ctr->rf_ct_writes++;
        return;
    }
    sm->ctr->rf_ct_write_drops += near;
    if (e >= 0 && !o->ct[e].lock) {
        o->ct[e].valid = 0, o->ct[e].near = 0;
        sm->ctr->rf_ct_invalidations++;
    }
}

/* --- the collector slot's hooks ------------------------------------------------------ */

/* A random free collector; with none free the reason is counted (ccu's allocation stall
 * statistics), unlike the baseline's. */
static int ccu_pick(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned *why)
{
    int ocu = tm_pick_random(sm, sc, slot, why);
    *why = ocu < 0 ? TPS_NONE_FREE : TPS_NONE;
    return ocu;
}

static void ccu_write(TmSm *sm, TmSubcore *sc, const TmWb *e, unsigned k, unsigned r,
                      Cycle now)
{
    /* the owner's CT takes near results */
    tm_ccu_write(sm, sc, e->slot, r, (e->dst_near >> k) & 1, e->seq, now);
}

static void ccu_warp_done(TmSm *sm, uint16_t slot)
{
    unsigned own = tm_ccu_owned(sm, slot);
    if (own) /* a later warp in this slot must not see this one's registers */
        tm_ccu_flush(sm, &sm->sc[slot % sm->nsc], own - 1u);
}

const TmCollectorOps tm_coll_ccu = {
    .name = "ccu",
    .sm_init = tm_ccu_sm_init,
    .sm_free = tm_ccu_sm_free,
    .pick = ccu_pick,
    .fill = tm_ccu_fill,
    .dispatched = tm_ccu_unlock,
    .write = ccu_write,
    .warp_done = ccu_warp_done,
};
