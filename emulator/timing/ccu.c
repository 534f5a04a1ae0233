/*
 * ccu.c - Memento's caching collector units (rf.collector = ccu; docs/memento.md,
 * docs/memento.md).
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
#include "timing/core.h"

int tm_ccu_init(TmOcu *o, uint32_t entries)
{
    o->ct = calloc(entries, sizeof *o->ct);
    o->wport = TM_NEVER;
    return o->ct ? 0 : -1;
}

static int ct_find(const TmSm *sm, const TmOcu *o, unsigned r)
{
    for (uint32_t i = 0; i < sm->cfg->rf_ct_entries; i++)
        if (o->ct[i].valid && o->ct[i].tag == r)
            return (int)i;
    return -1;
}

/* An unlocked entry to replace, or -1 when every entry is locked. */
static int ct_victim(TmSm *sm, TmOcu *o)
{
    uint32_t n = sm->cfg->rf_ct_entries, nfar = 0;
    int lru = -1;
    for (uint32_t i = 0; i < n; i++) {
        const TmCtEntry *e = &o->ct[i];
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
    TmOcu *o = &sc->ocu[idx];
    int had = 0;
    for (uint32_t i = 0; i < sm->cfg->rf_ct_entries; i++) {
        had |= o->ct[i].valid;
        o->ct[i].valid = 0, o->ct[i].near = 0;
    }
    sm->ctr->rf_ct_flushes += had;
    if (o->owner)
        sm->warp[o->owner - 1].ccu = 0;
    o->owner = 0;
}

int tm_ccu_has_near(const TmSm *sm, const TmOcu *o)
{
    for (uint32_t i = 0; i < sm->cfg->rf_ct_entries; i++)
        if (o->ct[i].valid && o->ct[i].near)
            return 1;
    return 0;
}

void tm_ccu_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now)
{
    TmOcu *o = &sc->ocu[idx];
    if (o->owner != slot + 1) {
        tm_ccu_flush(sm, sc, idx);
        o->owner = (uint16_t)(slot + 1);
        sm->warp[slot].ccu = (uint16_t)(idx + 1);
    }
    uint32_t misses = 0;
    for (unsigned i = 0; i < ti->nsrc; i++) {
        unsigned r = ti->src[i];
        int e = ct_find(sm, o, r);
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
        o->ct[e].used = ++sm->ct_clock;
    }
    o->reads_left = (uint8_t)misses;
    sc->ocu_collected += !misses;
}

void tm_ccu_unlock(TmSm *sm, TmOcu *o)
{
    for (uint32_t i = 0; i < sm->cfg->rf_ct_entries; i++)
        o->ct[i].lock = 0;
}

void tm_ccu_write(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned r, int near,
                  uint64_t seq, Cycle now)
{
    uint16_t own = sm->warp[slot].ccu;
    if (!own)
        return; /* no CT holds this warp's registers */
    TmOcu *o = &sc->ocu[own - 1];
    int e = ct_find(sm, o, r);
    int port_free = o->wport != now || (sm->ct_port_result && o->wseq == seq);
    if (near && port_free) {
        if (e < 0 && (e = ct_victim(sm, o)) < 0)
            return;
        o->wport = now, o->wseq = seq;
        o->ct[e].tag = (uint8_t)r, o->ct[e].valid = 1, o->ct[e].near = 1;
        o->ct[e].used = ++sm->ct_clock;
        sm->ctr->rf_ct_writes++;
        return;
    }
    sm->ctr->rf_ct_write_drops += near;
    if (e >= 0 && !o->ct[e].lock) {
        o->ct[e].valid = 0, o->ct[e].near = 0;
        sm->ctr->rf_ct_invalidations++;
    }
}
