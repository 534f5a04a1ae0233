/*
 * 607-regcache-units.c - the baseline register caches (mech/regcache/regcache.c) driven directly:
 * BOW's window arithmetic (a register is bypassed exactly when the last instruction
 * that touched it is fewer than rf.bow_window instructions back; results count as
 * touches), the rfc cache (results allocated first in first out, reads never, only for
 * active warps, a flush empties it), swrfc's near-only allocation with invalidation of
 * a far overwrite, and the strand marks of tm_strands on hand-built code.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "600-rf-util.h"
#include "config/config.h"
#include "mech/mech.h"
#include "mech/regcache/regcache.h"
#include "timing/sched.h"


static void rig_init(Rig *r, const char *collector, const char *sched, uint32_t entries)
{
    memset(r, 0, sizeof *r);
    emu_config_defaults(&r->cfg);
    r->cfg.rf_rfc_entries = entries;
    r->cfg.rf_bow_window = entries;
    tm_rng_seed(&r->rng, 1);
    r->sm = (TmSm){.cfg = &r->cfg, .ctr = &r->ctr, .rng = &r->rng, .gpu = &r->g,
                   .warp = r->warp, .max_warps = 8, .sc = &r->sc, .nsc = 1};
    r->g.cfg = &r->cfg;
    r->sc.nocu = 8, r->sc.ocu = r->ocu, r->sc.nslots = 8;
    r->sc.sched = tm_sched_new(tm_sched_find(sched), 8, 2);
    cr_assert(r->sc.sched);
    cr_assert_eq(tm_rf_init(&r->sc, &r->cfg), 0);
    int kind = strcmp(collector, "bow") == 0 ? TM_RC_BOW
               : strcmp(sched, "rfc") == 0   ? TM_RC_RFC
                                             : TM_RC_SWRFC;
    cr_assert_eq(tm_rc_init(&r->sm, kind), 0);
    for (uint16_t s = 0; s < 8; s++)
        tm_rc_reset(&r->sm, s);
}

static void rig_free(Rig *r)
{
    tm_rf_free(&r->sc, &r->cfg);
    tm_rc_free(&r->sm);
    tm_sched_free(r->sc.sched);
}

/* An instruction reading a and b (RZ-free, distinct). */
static TmInsn reads(uint8_t a, uint8_t b)
{
    TmInsn t = {.cls = TC_INT, .nsrc = 2, .src = {a, b}};
    return t;
}

/* Issues t for warp slot into its collector; returns the hits it found. */
static uint64_t issue(Rig *r, uint16_t slot, const TmInsn *t)
{
    uint64_t before = r->ctr.rf_ct_hits;
    if (((RcSm *)r->sm.coll_state)->kind == TM_RC_BOW)
        tm_bow_fill(&r->sm, &r->sc, slot, slot, t, 1);
    else
        tm_rfc_fill(&r->sm, &r->sc, slot, slot, t, 1);
    return r->ctr.rf_ct_hits - before;
}

Test(bow_units, window_reaches_back_window_minus_one_instructions)
{
    Rig r;
    rig_init(&r, "bow", "gto", 3);
    TmInsn a = reads(3, 7), other = reads(9, 11);
    cr_expect_eq(issue(&r, 0, &a), 0, "first touch");
    cr_expect_eq(issue(&r, 0, &a), 2, "one back");
    cr_expect_eq(issue(&r, 0, &other), 0);
    cr_expect_eq(issue(&r, 0, &a), 2, "two back: still in a window of 3");
    cr_expect_eq(issue(&r, 0, &other), 2);
    cr_expect_eq(issue(&r, 0, &other), 2);
    cr_expect_eq(issue(&r, 0, &a), 0, "three back: gone");
    cr_expect_eq(issue(&r, 1, &a), 0, "another warp has its own window");
    rig_free(&r);
}

Test(bow_units, results_count_as_touches)
{
    Rig r;
    rig_init(&r, "bow", "gto", 3);
    TmInsn prod = reads(3, 7), use = reads(20, 9), other = reads(30, 31);
    issue(&r, 0, &prod);                    /* index 1, writes r20 */
    tm_bow_write(&r.sm, 0, 20, tm_rc(&r.sm, 0)->n);
    cr_expect_eq(r.ctr.rf_ct_writes, 1, "the next instruction can use it");
    cr_expect_eq(issue(&r, 0, &use), 1, "r20 forwarded, r9 not there");
    issue(&r, 0, &other);
    issue(&r, 0, &other);
    tm_bow_write(&r.sm, 0, 21, 1);          /* a late result of instruction 1 */
    cr_expect_eq(r.ctr.rf_ct_writes, 1, "window has moved past its producer");
    tm_rc_reset(&r.sm, 0);
    cr_expect_eq(issue(&r, 0, &other), 0, "a new warp in the slot sees nothing");
    rig_free(&r);
}

static void make_active(Rig *r, uint16_t slot)
{
    tm_sched_add(r->sc.sched, slot);
    TmSched *s = r->sc.sched;
    s->active[s->nactive++] = slot;
    s->npend = 0;
}

Test(rfc_units, results_first_in_first_out_reads_never)
{
    Rig r;
    rig_init(&r, "ocu", "rfc", 2);
    make_active(&r, 0);
    TmInsn a = reads(3, 7);
    cr_expect_eq(issue(&r, 0, &a), 0);
    cr_expect_eq(issue(&r, 0, &a), 0, "a read is not allocated");
    tm_rfc_write(&r.sm, &r.sc, 0, 3, 0);
    tm_rfc_write(&r.sm, &r.sc, 0, 7, 0);
    cr_expect_eq(issue(&r, 0, &a), 2, "both results");
    tm_rfc_write(&r.sm, &r.sc, 0, 9, 0); /* replaces r3, the oldest */
    TmInsn b = reads(3, 9);
    cr_expect_eq(issue(&r, 0, &b), 1, "r9 in, r3 out");
    tm_rfc_write(&r.sm, &r.sc, 0, 9, 0); /* rewritten in place: r7 stays */
    cr_expect_eq(issue(&r, 0, &a), 1, "r7 still there");
    tm_rfc_flush(&r.sm, 0);
    cr_expect_eq(r.ctr.rf_ct_flushes, 1);
    cr_expect_eq(issue(&r, 0, &b), 0, "flushed");
    tm_rfc_write(&r.sm, &r.sc, 1, 9, 0); /* slot 1 is not active: banks only */
    cr_expect_eq(issue(&r, 1, &b), 0);
    rig_free(&r);
}

Test(rfc_units, swrfc_near_only_and_far_overwrite_invalidates)
{
    Rig r;
    rig_init(&r, "ocu", "swrfc", 6);
    make_active(&r, 0);
    TmInsn a = reads(3, 7);
    tm_rfc_write(&r.sm, &r.sc, 0, 3, 1);
    tm_rfc_write(&r.sm, &r.sc, 0, 7, 0);
    cr_expect_eq(issue(&r, 0, &a), 1, "only the near r3");
    tm_rfc_write(&r.sm, &r.sc, 0, 3, 0);
    cr_expect_eq(r.ctr.rf_ct_invalidations, 1);
    cr_expect_eq(issue(&r, 0, &a), 0, "the stale r3 is gone");
    rig_free(&r);
}

/* Instruction i of a hand-built kernel. */
static void put(XInsn *code, TmInsn *info, uint32_t i, unsigned op, unsigned space,
                uint8_t cls, uint8_t src, uint8_t dst, uint32_t target)
{
    code[i] = (XInsn){.op = (uint16_t)op, .mod = (uint8_t)space, .target = target};
    info[i] = (TmInsn){.cls = cls};
    if (src) {
        info[i].src[0] = src;
        info[i].nsrc = 1;
    }
    if (dst) {
        info[i].dst[0] = dst;
        info[i].ndst = 1;
    }
}

Test(rfc_units, strand_marks)
{
    XInsn code[9];
    TmInsn info[9];
    put(code, info, 0, XOP_ld, XS_GLOBAL, TC_LDST, 40, 2, 0);  /* long */
    put(code, info, 1, XOP_ld, XS_SHARED, TC_LDST, 41, 3, 0);  /* short */
    put(code, info, 2, XOP_add, 0, TC_INT, 3, 4, 0);           /* shared value: no mark */
    put(code, info, 3, XOP_add, 0, TC_INT, 2, 5, 0);           /* global value: yield */
    put(code, info, 4, XOP_ld, XS_PARAM, TC_LDST, 40, 6, 0);   /* parameter: short */
    put(code, info, 5, XOP_add, 0, TC_INT, 6, 7, 0);
    put(code, info, 6, XOP_ld, XS_GLOBAL, TC_LDST, 40, 8, 0);
    put(code, info, 7, XOP_add, 0, TC_INT, 9, 9, 0);           /* loop header (from 8) */
    put(code, info, 8, XOP_bra, 0, TC_CTRL, 0, 0, 7);
    uint8_t strand[9];
    tm_strands(strand, info, code, 9);
    const uint8_t want[9] = {0, 0, 0, TM_STRAND_FLUSH | TM_STRAND_YIELD, 0, 0, 0,
                             TM_STRAND_FLUSH, 0};
    for (unsigned i = 0; i < 9; i++)
        cr_expect_eq(strand[i], want[i], "pc %u: %u", i, strand[i]);
}
