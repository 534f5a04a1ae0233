/*
 * 601-memento-units.c - Memento's pieces driven directly: a caching collector's cache
 * table (victim choice: invalid, then far at random, then LRU, locked entries never
 * evicted; ownership flush; the write filter with one port per cycle and invalidation,
 * and the result-wide port),
 * Memento's allocator (own CCU, far-only free CCU, the stall counter against STHLD, no
 * free CCU, memento-pr's private CCUs), the dynamic STHLD state machine on a synthetic
 * IPC sequence (both state-4 variants, the clamp), the energy figures, and the config
 * errors.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "600-rf-util.h"
#include "config/config.h"
#include "mech/memento/ccu.h"
#include "mech/mech.h"
#include "mech/memento/memento.h"
#include "stats/printer.h"

/* One SM of nocu caching collectors under core.sched = memento, its launch state made by
 * the policy's own hooks (a fixed STHLD of sthld). */
static void rig_init_sthld(Rig *r, uint32_t nocu, const char *sthld)
{
    char err[256] = "";
    memset(r, 0, sizeof *r);
    emu_config_defaults(&r->cfg);
    strcpy(r->cfg.memento_sthld, sthld);
    tm_rng_seed(&r->rng, 1);
    r->sm = (TmSm){.cfg = &r->cfg, .ctr = &r->ctr, .rng = &r->rng, .gpu = &r->g,
                   .warp = r->warp, .max_warps = 8, .sc = &r->sc, .nsc = 1,
                   .issue = &tm_issue_memento, .coll = &tm_coll_ccu};
    r->g.cfg = &r->cfg;
    r->sc.nocu = nocu, r->sc.ocu = r->ocu, r->sc.nslots = 8;
    cr_assert_eq(tm_rf_init(&r->sc, &r->cfg), 0);
    cr_assert_eq(tm_coll_ccu.sm_init(&r->sm), 0);
    cr_assert_eq(tm_issue_memento.sm_init(&r->sm), 0);
    cr_assert_eq(tm_issue_memento.launch.begin(&r->g, &r->g.mech[TM_SLOT_ISSUE].state, err,
                                               sizeof err), 0, "%s", err);
    ccu_sm(&r->sm)->port_result = 0; /* one register per cycle unless a test says */
}

static void rig_init(Rig *r, uint32_t nocu)
{
    rig_init_sthld(r, nocu, "0");
}

static void rig_free(Rig *r)
{
    tm_rf_free(&r->sc, &r->cfg);
    tm_coll_ccu.sm_free(&r->sm);
    tm_issue_memento.sm_free(&r->sm);
    tm_issue_memento.launch.end(&r->g, r->g.mech[TM_SLOT_ISSUE].state);
}

static MementoSm *counters(Rig *r)
{
    return r->sm.issue_state;
}

/* An instruction reading regs[0..n) (near: bit i for regs[i]). */
static TmInsn insn(const uint8_t *regs, unsigned n, uint16_t near)
{
    TmInsn t = {.cls = TC_INT, .nsrc = (uint8_t)n, .src_near = near};
    memcpy(t.src, regs, n);
    return t;
}

static int holds(const Rig *r, unsigned c, unsigned reg)
{
    for (uint32_t i = 0; i < r->cfg.rf_ct_entries; i++)
        if (ccu_of(&r->sm, &r->sc, c)->ct[i].valid && ccu_of(&r->sm, &r->sc, c)->ct[i].tag == reg)
            return 1;
    return 0;
}

/* Issue (fill) then dispatch (unlock) of one instruction of warp slot on CCU c. */
static void run_insn(Rig *r, unsigned c, uint16_t slot, const TmInsn *t)
{
    tm_ccu_fill(&r->sm, &r->sc, c, slot, t, 1);
    tm_ccu_unlock(&r->sm, &r->sc, c);
}

Test(memento_ccu, hits_misses_and_bank_reads)
{
    Rig r;
    rig_init(&r, 2);
    const uint8_t a[] = {3, 7};
    TmInsn t = insn(a, 2, 0);
    run_insn(&r, 0, 0, &t);
    cr_expect_eq(r.ctr.rf_ct_misses, 2);
    cr_expect_eq(r.sc.reads_queued, 2, "a miss queues a bank read");
    cr_expect_eq(r.ocu[0].reads_left, 2);
    run_insn(&r, 0, 0, &t);
    cr_expect_eq(r.ctr.rf_ct_hits, 2);
    cr_expect_eq(r.sc.reads_queued, 2, "hits read no bank");
    cr_expect_eq(r.ocu[0].reads_left, 0);
    cr_expect_eq(r.sc.ocu_collected, 1, "all hits: collected at once");
    rig_free(&r);
}

Test(memento_ccu, victim_invalid_then_far_then_lru)
{
    Rig r;
    rig_init(&r, 2);
    const uint8_t a[] = {0, 1, 2, 3, 4, 5}, b[] = {6, 7}, c8[] = {8}, c9[] = {9}, c10[] = {10};
    TmInsn ta = insn(a, 6, 0x0f), tb = insn(b, 2, 0x3); /* r4, r5 far */
    run_insn(&r, 0, 0, &ta);
    run_insn(&r, 0, 0, &tb);
    for (unsigned reg = 0; reg < 8; reg++)
        cr_assert(holds(&r, 0, reg), "r%u filled an invalid entry", reg);
    TmInsn t8 = insn(c8, 1, 1), t9 = insn(c9, 1, 1), t10 = insn(c10, 1, 1);
    run_insn(&r, 0, 0, &t8);
    cr_expect(holds(&r, 0, 8));
    cr_expect(!holds(&r, 0, 4) || !holds(&r, 0, 5), "a far entry is the victim");
    for (unsigned reg = 0; reg < 4; reg++)
        cr_expect(holds(&r, 0, reg), "near r%u kept while a far entry exists", reg);
    run_insn(&r, 0, 0, &t9);
    cr_expect(!holds(&r, 0, 4) && !holds(&r, 0, 5), "both far entries went first");
    run_insn(&r, 0, 0, &t10);
    cr_expect(!holds(&r, 0, 0), "no far entry left: the least recently used (r0) goes");
    cr_expect(holds(&r, 0, 1) && holds(&r, 0, 6) && holds(&r, 0, 8) && holds(&r, 0, 10));
    rig_free(&r);
}

Test(memento_ccu, locked_entries_are_never_evicted)
{
    Rig r;
    rig_init(&r, 2);
    const uint8_t a[] = {0, 1, 2, 3, 4, 5}, b[] = {6, 7}, c[] = {20, 21, 22, 23, 24, 25};
    TmInsn ta = insn(a, 6, 0), tb = insn(b, 2, 0), tc = insn(c, 6, 0); /* all far */
    run_insn(&r, 0, 0, &ta);
    run_insn(&r, 0, 0, &tb);
    tm_ccu_fill(&r.sm, &r.sc, 0, 0, &tc, 2); /* six misses, locked until dispatch */
    for (unsigned reg = 20; reg < 26; reg++)
        cr_assert(holds(&r, 0, reg), "r%u evicted by its own instruction", reg);
    for (unsigned k = 0; k < 10; k++) /* near results while locked: only 2 entries free */
        tm_ccu_write(&r.sm, &r.sc, 0, 30 + k, 1, 10 + k, 10 + k);
    for (unsigned reg = 20; reg < 26; reg++)
        cr_expect(holds(&r, 0, reg), "locked r%u evicted by a write-back", reg);
    cr_expect_eq(r.ctr.rf_ct_writes, 10);
    rig_free(&r);
}

Test(memento_ccu, another_owner_flushes_the_table)
{
    Rig r;
    rig_init(&r, 2);
    const uint8_t a[] = {3, 7};
    TmInsn t = insn(a, 2, 3);
    run_insn(&r, 1, 0, &t);
    cr_expect_eq(tm_ccu_owned(&r.sm, 0), 2, "warp 0 owns CCU 1");
    run_insn(&r, 1, 5, &t);
    cr_expect_eq(r.ctr.rf_ct_flushes, 1);
    cr_expect_eq(r.ctr.rf_ct_misses, 4, "warp 5 cannot hit warp 0's registers");
    cr_expect_eq(tm_ccu_owned(&r.sm, 0), 0);
    cr_expect_eq(tm_ccu_owned(&r.sm, 5), 2);
    cr_expect_eq(ccu_of(&r.sm, &r.sc, 1)->owner, 6);
    rig_free(&r);
}

Test(memento_ccu, write_filter_port_and_invalidation)
{
    Rig r;
    rig_init(&r, 2);
    const uint8_t a[] = {3, 7};
    TmInsn t = insn(a, 2, 0);
    run_insn(&r, 0, 0, &t);
    tm_ccu_write(&r.sm, &r.sc, 1, 9, 1, 4, 4); /* warp 1 owns no CCU: nothing happens */
    cr_expect_eq(r.ctr.rf_ct_writes + r.ctr.rf_ct_write_drops, 0);
    tm_ccu_write(&r.sm, &r.sc, 0, 9, 1, 4, 4); /* near: taken */
    cr_expect(holds(&r, 0, 9));
    tm_ccu_write(&r.sm, &r.sc, 0, 3, 1, 40, 4); /* another near write in cycle 4: dropped */
    cr_expect_eq(r.ctr.rf_ct_writes, 1);
    cr_expect_eq(r.ctr.rf_ct_write_drops, 1);
    cr_expect(!holds(&r, 0, 3), "the dropped write invalidates the stale r3");
    cr_expect_eq(r.ctr.rf_ct_invalidations, 1);
    tm_ccu_write(&r.sm, &r.sc, 0, 7, 0, 5, 5); /* far: not kept, old copy invalidated */
    cr_expect(!holds(&r, 0, 7));
    cr_expect_eq(r.ctr.rf_ct_invalidations, 2);
    tm_ccu_write(&r.sm, &r.sc, 0, 11, 0, 5, 5); /* far, not cached: nothing */
    cr_expect_eq(r.ctr.rf_ct_invalidations, 2);
    cr_expect(!holds(&r, 0, 11));
    tm_ccu_write(&r.sm, &r.sc, 0, 12, 1, 5, 5); /* the port is free again in cycle 5 */
    cr_expect(holds(&r, 0, 12));
    rig_free(&r);
}

Test(memento_ccu, result_wide_write_port)
{
    Rig r;
    rig_init(&r, 2);
    ccu_sm(&r.sm)->port_result = 1;
    const uint8_t a[] = {3, 7};
    TmInsn t = insn(a, 2, 0);
    run_insn(&r, 0, 0, &t);
    tm_ccu_write(&r.sm, &r.sc, 0, 20, 1, 8, 4); /* a pair's two registers, one result */
    tm_ccu_write(&r.sm, &r.sc, 0, 21, 1, 8, 4);
    cr_expect(holds(&r, 0, 20) && holds(&r, 0, 21), "both halves taken");
    tm_ccu_write(&r.sm, &r.sc, 0, 22, 1, 9, 4); /* another result in the same cycle */
    cr_expect(!holds(&r, 0, 22));
    cr_expect_eq(r.ctr.rf_ct_writes, 2);
    cr_expect_eq(r.ctr.rf_ct_write_drops, 1);
    rig_free(&r);
}

Test(memento_alloc, own_ccu_far_free_then_stall_counter)
{
    Rig r;
    rig_init_sthld(&r, 2, "2");
    const uint8_t a[] = {3};
    TmInsn near = insn(a, 1, 1);
    unsigned why;
    run_insn(&r, 0, 2, &near); /* CCU 0: warp 2, a near value */
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 2, &why), 0, "a warp uses its own CCU");
    r.ocu[0].busy = 1, r.sc.ocu_busy = 1;
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 2, &why), TM_PICK_BUSY, "never a second CCU");
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 4, &why), 1, "CCU 1 holds no near value");
    run_insn(&r, 1, 3, &near); /* CCU 1: warp 3, near */
    r.ocu[0].busy = 0, r.sc.ocu_busy = 0;
    cr_assert_eq(tm_memento_sthld(&r.g), 2);
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 4, &why), TM_PICK_STOP);
    cr_expect_eq(why, TPS_WAIT);
    cr_expect_eq(counters(&r)->sm, 1);
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 5, &why), TM_PICK_STOP);
    cr_expect_eq(counters(&r)->sm, 2);
    int c = tm_memento_pick(&r.sm, &r.sc, 4, &why);
    cr_expect(c == 0 || c == 1, "counter reached STHLD: a free CCU at random");
    cr_expect_eq(why, TPS_NONE);
    cr_expect_eq(counters(&r)->sm, 0, "the counter resets");
    r.ocu[0].busy = r.ocu[1].busy = 1, r.sc.ocu_busy = 2;
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 4, &why), TM_PICK_STOP);
    cr_expect_eq(why, TPS_NONE_FREE);
    rig_free(&r);
}

Test(memento_alloc, counter_scope_subcore)
{
    Rig r;
    rig_init_sthld(&r, 1, "5");
    strcpy(r.cfg.memento_counter_scope, "subcore");
    tm_issue_memento.sm_free(&r.sm); /* the scope is read when the SM's state is made */
    cr_assert_eq(tm_issue_memento.sm_init(&r.sm), 0);
    const uint8_t a[] = {3};
    TmInsn near = insn(a, 1, 1);
    unsigned why;
    run_insn(&r, 0, 2, &near);
    cr_expect_eq(tm_memento_pick(&r.sm, &r.sc, 4, &why), TM_PICK_STOP);
    cr_expect_eq(counters(&r)->sc[0], 1);
    cr_expect_eq(counters(&r)->sm, 0);
    rig_free(&r);
}

Test(memento_alloc, private_ccus_never_stall_for_allocation)
{
    Rig r;
    rig_init_sthld(&r, 8, "31");
    const uint8_t a[] = {3};
    TmInsn near = insn(a, 1, 1);
    unsigned why;
    for (uint16_t s = 0; s < 8; s++)
        run_insn(&r, s, s, &near); /* every CT holds a near value */
    for (uint16_t s = 0; s < 8; s++) { /* memento-pr's allocation */
        cr_expect_eq(tm_issue_memento_pr.pick(&r.sm, &r.sc, s, &why), s);
        cr_expect_eq(why, TPS_NONE);
    }
    r.ocu[3].busy = 1;
    cr_expect_eq(tm_issue_memento_pr.pick(&r.sm, &r.sc, 3, &why), TM_PICK_BUSY);
    cr_expect_eq(why, TPS_NONE);
    rig_free(&r);
}

/* --- the STHLD state machine --------------------------------------------------------------- */

typedef struct Step {
    double ipc;
    int cls;
    uint8_t state;
    uint32_t sthld;
} Step;

static void walk(int variant, const Step *s, size_t n)
{
    TmSthld f;
    tm_sthld_init(&f, 31, 0.02, variant);
    for (size_t i = 0; i < n; i++) {
        int cls = tm_sthld_step(&f, s[i].ipc);
        cr_expect_eq(cls, s[i].cls, "step %zu: class %c", i, cls);
        cr_expect_eq(f.state, s[i].state, "step %zu: state %u, want %u", i, f.state, s[i].state);
        cr_expect_eq(f.sthld, s[i].sthld, "step %zu: sthld %u, want %u", i, f.sthld, s[i].sthld);
    }
}

Test(memento_sthld, transitions)
{
    static const Step s[] = {
        {1.00, 'S', 2, 1}, /* start: +1 into 2 */
        {1.01, 'S', 2, 2}, /* 1% change: S, walk up */
        {2.00, 'L', 3, 3}, /* large: speculate */
        {1.00, 'L', 4, 1}, /* wrong: -2 */
        {1.00, 'S', 2, 2}, /* state 4, S: back to 2 (+1) */
        {1.50, 'L', 3, 3},
        {1.00, 'L', 4, 1},
        {2.00, 'L', 5, 0}, /* -1 */
        {1.00, 'L', 5, 0}, /* clamped at 0 */
        {1.00, 'S', 6, 1}, /* flat again: +1 into 6 */
        {1.01, 'S', 6, 1}, /* converged: holds */
        {3.00, 'L', 3, 2}, /* new phase: speculate */
        {3.00, 'S', 2, 3},
    };
    walk(0, s, sizeof s / sizeof s[0]);
}

Test(memento_sthld, state4_variant_goes_to_6)
{
    static const Step s[] = {
        {1.0, 'S', 2, 1}, {2.0, 'L', 3, 2}, {1.0, 'L', 4, 0}, {1.0, 'S', 6, 1}, {1.0, 'S', 6, 1},
    };
    walk(1, s, sizeof s / sizeof s[0]);
}

Test(memento_sthld, clamped_to_max_and_zero_ipc)
{
    TmSthld f;
    tm_sthld_init(&f, 31, 0.02, 0);
    for (int i = 0; i < 40; i++)
        tm_sthld_step(&f, 0.0); /* no change at all: S every time */
    cr_expect_eq(f.sthld, 31);
    cr_expect_eq(f.state, 2);
    cr_expect_eq(tm_sthld_step(&f, 0.5), 'L', "from zero IPC any rise is large");
}

Test(memento_sthld, knee_stops_a_slow_decline)
{
    /* each step up costs 1.5% of IPC, under the 0.02 boundary */
    TmSthld plain, knee;
    tm_sthld_init(&plain, 31, 0.02, 0);
    tm_sthld_init(&knee, 31, 0.02, 0);
    knee.knee = 1;
    double ipc = 1.0;
    for (int i = 0; i < 4; i++) {
        tm_sthld_step(&plain, ipc);
        tm_sthld_step(&knee, ipc);
        ipc *= 0.985;
    }
    cr_expect_eq(plain.sthld, 4, "every interval is S: it keeps climbing");
    cr_expect_eq(plain.state, 2);
    /* knee: 1.0 (start, +1), .985 (S, +1), .970 (3% under the best: L, +1 to state 3),
     * .956 (L again: state 4, -2) */
    cr_expect_eq(knee.sthld, 1, "%u", knee.sthld);
    cr_expect_eq(knee.state, 4);
    cr_expect_float_eq(knee.best_ipc, 1.0, 1e-12);
}

/* --- energy and configuration -------------------------------------------------------------- */

static void set_ctr(uint64_t *v, const char *name, uint64_t x)
{
    int i = emu_stat_field_index(name);
    cr_assert_geq(i, 0, "%s", name);
    v[i] = x;
}

static double derived(const EmuStatView *v, const char *name)
{
    for (size_t i = 0; i < emu_stat_nderived(); i++)
        if (strcmp(emu_stat_derived_name(i), name) == 0) {
            double x = -1;
            cr_assert_eq(emu_stat_derived(i, v, &x), 0, "%s", name);
            return x;
        }
    cr_assert_fail("no derived figure %s", name);
    return 0;
}

Test(memento_energy, events_times_energies)
{
    uint64_t c[256] = {0};
    cr_assert_lt(emu_stat_nfields(), 256);
    set_ctr(c, "rf.bank_reads", 100);
    set_ctr(c, "rf.bank_writes", 40);
    set_ctr(c, "rf.xbar_transfers", 100);
    set_ctr(c, "rf.ct_reads", 150);
    set_ctr(c, "rf.ct_fills", 100);
    set_ctr(c, "rf.ct_writes", 30);
    set_ctr(c, "rf.arbiter_grants", 100);
    set_ctr(c, "rf.ct_hits", 50);
    set_ctr(c, "rf.ct_misses", 100);
    EmuStatView v = {c, 1000, 500, 1, 32, {1.5, 2.0, 0.25, 0.125, 0.5, 0.0625}, 1};
    cr_expect_float_eq(derived(&v, "energy.bank_read"), 150.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.bank_write"), 80.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.xbar"), 25.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.ct_read"), 18.75, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.ct_write"), 65.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.arbiter"), 6.25, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.rf_dynamic"), 345.0, 1e-9);
    cr_expect_float_eq(derived(&v, "rf.ct_hit_rate"), 50.0 / 150.0, 1e-12);
}

/* The memory system's classes (docs/caba.md, Energy) sum apart from the register file's. */
Test(memento_energy, memory_events_times_energies)
{
    uint64_t c[256] = {0};
    set_ctr(c, "dram.row_misses", 10);
    set_ctr(c, "dram.bursts", 300);
    set_ctr(c, "icnt.request_flits", 40);
    set_ctr(c, "icnt.response_flits", 160);
    set_ctr(c, "rf.bank_reads", 7);
    EmuStatView v = {c, 1000, 500, 1, 32, {1, 0, 0, 0, 0, 0, 2000, 1000, 100}, 1};
    cr_expect_float_eq(derived(&v, "energy.dram_activate"), 20000.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.dram_burst"), 300000.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.icnt_flit"), 20000.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.memory_dynamic"), 340000.0, 1e-9);
    cr_expect_float_eq(derived(&v, "energy.rf_dynamic"), 7.0, 1e-9, "the RF total stays apart");
}

Test(memento_energy, placeholder_ratios_of_the_spec)
{
    EmuConfig c;
    emu_config_defaults(&c);
    cr_expect_float_eq(c.energy_ct_read, 0.1 * c.energy_bank_read, 1e-12);
    cr_expect_float_eq(c.energy_ct_write, 0.1 * c.energy_bank_read, 1e-12);
    cr_expect_float_eq(c.energy_xbar, 0.3 * c.energy_bank_read, 1e-12);
    cr_expect(c.energy_placeholder);
}

static void expect_error(const char *key, const char *value, const char *needle)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    int rc = emu_config_set(&c, key, value, err, sizeof err);
    if (rc == 0)
        rc = emu_config_check(&c, err, sizeof err);
    cr_expect_neq(rc, 0, "%s=%s accepted", key, value);
    cr_expect(strstr(err, needle) != NULL, "%s=%s: '%s' lacks '%s'", key, value, err, needle);
}

Test(memento_config, errors_name_the_key)
{
    expect_error("rf.collector", "lots", "rf.collector");
    /* the schedulers select the caching collectors; set against them, they are refused */
    EmuConfig s;
    char msg[256] = "";
    cr_assert_eq(emu_config_from(&s, NULL, "core.sched=memento-pr", msg, sizeof msg), 0, "%s",
                 msg);
    cr_expect_str_eq(s.rf_collector, "ccu");
    cr_expect_eq(emu_config_from(&s, NULL, "rf.collector=ccu;core.sched=gto", msg, sizeof msg),
                 0, "ccu under another scheduler: %s", msg);
    cr_expect_neq(emu_config_from(&s, NULL, "core.sched=memento;rf.collector=ocu", msg,
                                  sizeof msg), 0);
    cr_expect(strstr(msg, "rf.collector: core.sched = memento sets rf.collector = ccu"), "%s",
              msg);
    expect_error("memento.sthld", "lots", "memento.sthld:");
    expect_error("memento.sthld", "32", "memento.sthld:");
    expect_error("rf.ct_entries", "0", "rf.ct_entries:");
    expect_error("memento.interval", "0", "memento.interval:");
    expect_error("energy.xbar", "-1", "energy.xbar:");
    EmuConfig c;
    char err[256];
    emu_config_defaults(&c);
    cr_expect_eq(memento_sthld(&c), -1, "dynamic by default");
    cr_assert_eq(emu_config_set(&c, "memento.sthld", "7", err, sizeof err), 0);
    cr_expect_eq(memento_sthld(&c), 7);
    cr_expect_eq(emu_config_check(&c, err, sizeof err), 0, "%s", err);
}
