/*
 * regcache.h - the register caches Memento is compared against (regcache.c): BOW's
 * bypassing collectors (rf.collector = bow, ops tm_coll_bow) and the register-file
 * caches of the two-level schedulers core.sched = rfc and swrfc (ops tm_issue_rfc and
 * tm_issue_swrfc, which bring their own collectors). For the tests.
 */
#ifndef EMU_MECH_REGCACHE_H
#define EMU_MECH_REGCACHE_H

#include "timing/core.h"
#include "timing/slots.h"

/* swrfc strand boundaries, per pc of the launch's kernel. */
enum {
    TM_STRAND_FLUSH = 1, /* a strand starts: the operand register file's values are dead */
    TM_STRAND_YIELD = 2, /* it starts at a consumer of a long-latency result: the warp
                          * leaves the active set */
};

/* A warp slot's register cache. */
typedef struct TmRegCache {
    uint32_t *stamp;   /* bow: [256] window index of the warp's last instruction that read
                        * or wrote each register (0: none) */
    uint32_t n;        /* bow: the warp's instructions that took its collector so far */
    uint8_t *tag;      /* rfc, swrfc: [rf.rfc_entries] the cached registers */
    uint64_t valid;    /* bit i: tag[i] holds the register's value */
    uint8_t next;      /* FIFO replacement: the entry written next */
    uint8_t strand_ok; /* swrfc: the warp already yielded at the boundary it is at */
} TmRegCache;

/* Which cache an SM runs (RcSm.kind). */
enum { TM_RC_BOW, TM_RC_RFC, TM_RC_SWRFC };

/* An SM's register caches (sm->coll_state). */
typedef struct RcSm {
    int kind;
    TmRegCache *rc;      /* per warp slot */
    uint32_t *stamps;    /* storage behind rc */
    uint8_t *tags;
} RcSm;

static inline TmRegCache *tm_rc(const TmSm *sm, uint16_t slot)
{
    return &((RcSm *)sm->coll_state)->rc[slot];
}

/* The SM hook of each kind (sm_init), and the common sm_free. */
int tm_rc_init(TmSm *sm, int kind);
void tm_rc_free(TmSm *sm);
/* A new warp took warp slot: nothing of the last one's is cached. */
void tm_rc_reset(TmSm *sm, uint16_t slot);
/* At issue, into collector idx: hits need no bank read. */
void tm_bow_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now);
void tm_rfc_fill(TmSm *sm, TmSubcore *sc, uint32_t idx, uint16_t slot, const TmInsn *ti,
                 Cycle now);
/* At write-back of register r of warp slot: bidx is the producer's window index (bow),
 * near its reuse bit (swrfc). */
void tm_bow_write(TmSm *sm, uint16_t slot, unsigned r, uint32_t bidx);
void tm_rfc_write(TmSm *sm, TmSubcore *sc, uint16_t slot, unsigned r, int near);
/* The warp left the active set, or its strand ended: its cached values are dropped. */
void tm_rfc_flush(TmSm *sm, uint16_t slot);
/* The strand boundaries (TM_STRAND_* per pc, into strand) of a kernel's n instructions. */
void tm_strands(uint8_t *strand, const TmInsn *info, const XInsn *code, uint32_t n);

#endif
