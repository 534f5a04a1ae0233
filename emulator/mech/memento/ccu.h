/*
 * ccu.h - Memento's caching collector units (rf.collector = ccu; ccu.c), for the
 * allocator in memento.c and for the tests. The collector slot's ops are tm_coll_ccu
 * (mech.h).
 */
#ifndef EMU_MECH_CCU_H
#define EMU_MECH_CCU_H

#include "timing/core.h"
#include "timing/slots.h"

/* One cache-table entry: a register of the owner warp. */
typedef struct CcuEntry {
    uint8_t valid, tag, lock, near;
    uint64_t used;       /* LRU stamp (CcuSm.clock when last touched) */
} CcuEntry;

/* One caching collector's storage beside its TmOcu. */
typedef struct Ccu {
    CcuEntry *ct;        /* rf.ct_entries */
    uint16_t owner;      /* 1 + the warp slot that owns the CT; 0: none */
    Cycle wport;         /* last cycle the CT's write port took a result */
    uint64_t wseq;       /* issue order (TmWb.seq) of the result it took then */
} Ccu;

/* An SM's caching collectors (sm->coll_state). */
typedef struct CcuSm {
    Ccu *ccu;            /* collector k of sub-core s at [s * per + k] */
    uint32_t per;        /* collectors per sub-core */
    uint16_t *owned;     /* per warp slot: 1 + the collector it owns in its sub-core */
    uint32_t entries;    /* rf.ct_entries */
    uint64_t clock;      /* LRU stamps */
    int port_result;     /* rf.ct_write_port = result */
} CcuSm;

static inline CcuSm *ccu_sm(const TmSm *sm)
{
    return (CcuSm *)sm->coll_state;
}

static inline Ccu *ccu_of(const TmSm *sm, const TmSubcore *sc, uint32_t idx)
{
    CcuSm *c = ccu_sm(sm);
    return &c->ccu[sc->id * c->per + idx];
}

/* The SM hooks (tm_coll_ccu.sm_init / sm_free). */
int tm_ccu_sm_init(TmSm *sm);
void tm_ccu_sm_free(TmSm *sm);
/* Empties collector idx's CT and ends its ownership. */
void tm_ccu_flush(TmSm *sm, TmSubcore *sc, uint32_t idx);
/* Whether collector idx's CT holds a valid near entry. */
int tm_ccu_has_near(const TmSm *sm, const TmSubcore *sc, uint32_t idx);
/* 1 + the collector warp slot owns in its sub-core, 0: none. */
unsigned tm_ccu_owned(const TmSm *sm, uint16_t slot);
/* At issue: warp slot takes collector idx for ti: ownership, CT lookups, bank reads for
 * the misses; sets reads_left. */
void tm_ccu_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now);
/* At dispatch: the entries the instruction locked are free to go. */
void tm_ccu_unlock(TmSm *sm, TmSubcore *sc, uint32_t idx);
/* At write-back of register r of warp slot (near: its reuse bit; seq: the result's issue
 * order, TmWb.seq). */
void tm_ccu_write(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned r, int near,
                  uint64_t seq, Cycle now);

#endif
