/*
 * 610-zorua.c - Zorua's coordinator and WLM in the timing model (core.resource_mgr;
 * docs/zorua.md), on hand-assembled kernels on one SM with a small register file:
 * a warp that waits in the register queue issues in the cycle its registers are mapped,
 * no later; a phase specifier gives back registers that other warps then take; a
 * register set in the swap space is read back through the memory system and its victim
 * spilled; o_thresh steps by zorua.o_step at each epoch boundary; the forced
 * oversubscription guard lets a kernel finish that would otherwise deadlock at a
 * barrier; WLM starts a CTA in the warp slots of a CTA's finished warps; warps waiting at
 * a barrier are not schedulable under any policy; hostile Zorua configurations are
 * refused with the key.
 */
#include "400-timing-util.h"
#include "stats/stats.h"

/* The swap space needs the memory system (core.mem_latency = 0). One register set is 4
 * registers x 32 lanes; gpu.regs_per_sm = 1024 is 8 sets. */
#define ZB "gpu.sm_count=1;core.mem_latency=0;core.sched=lrr;core.resource_mgr=zorua;"
#define NO_OVERSUB "zorua.o_default=0;zorua.o_step=0;zorua.min_occupancy=0;"

/* Each thread of a CTA of 64 writes (start clock, end clock) at out[2 * global id]; its
 * work is a loop of %u iterations. 16 registers: 4 sets. */
static const char *clocked_loop =
    ".kernel k\n.param 8\n.regs 16\n"
    "  s2r r0, %%clock\n  s2r r1, %%tid.x\n  s2r r4, %%ctaid.x\n  shl.u32 r4, r4, 6\n"
    "  add.u32 r1, r1, r4\n  shl.u32 r1, r1, 3\n  cvt.u64.u32 r4, r1\n"
    "  ld.param.u64 r2, [0]\n  add.u64 r2, r2, r4\n  mov.u32 r8, 0\n  mov.u32 r12, 1\n"
    "loop:\n  add.u32 r8, r8, 1\n  mul.u32 r12, r12, 3\n  set.lt.u32 r9, r8, %u\n"
    "  brc r9, loop, done\n"
    "done:\n  s2r r6, %%clock\n  st.global.u32 [r2], r0\n  st.global.u32 [r2+4], r6\n"
    "  exit\n";

static void run_loop(TmRun *r, const char *set, unsigned iters, unsigned ctas)
{
    char src[2048];
    snprintf(src, sizeof src, clocked_loop, iters);
    tm_run(r, set, src, DIM(ctas, 1, 1), DIM(64, 1, 1), 2 * 64 * ctas);
    cr_assert_eq(r->status, EMU_OK, "%s", r->fault.message);
}

/* out[2 * (64 * cta + 32 * warp)]: lane 0's start clock; + 1: its end clock */
static uint32_t start_of(const TmRun *r, unsigned cta, unsigned warp)
{
    return r->out[2 * (64 * cta + 32 * warp)];
}

static uint32_t end_of(const TmRun *r, unsigned cta, unsigned warp)
{
    return r->out[2 * (64 * cta + 32 * warp) + 1];
}

Test(zorua, a_queued_warp_issues_in_the_cycle_its_registers_are_mapped)
{
    /* 8 physical sets, 4 per warp, no swap: CTA 0's two warps are mapped at once; CTA 1's
     * wait in the register queue until CTA 0's warps end. With a register file of 16
     * sets nobody waits. A warp's extra delay must be exactly its time in the queue. */
    TmRun small, big;
    run_loop(&small, ZB NO_OVERSUB "gpu.regs_per_sm=1024", 200, 2);
    run_loop(&big, ZB NO_OVERSUB "gpu.regs_per_sm=2048", 200, 2);
    uint64_t queued = tm_ctr(&small, "zorua.queue_reg_cycles");
    uint64_t late = 0;
    for (unsigned w = 0; w < 2; w++) {
        cr_expect_gt(start_of(&small, 1, w), end_of(&small, 0, 0),
                     "CTA 1's warp %u starts after a CTA 0 warp ended", w);
        cr_expect_eq(start_of(&small, 0, w), start_of(&big, 0, w), "CTA 0 never waits");
        late += start_of(&small, 1, w) - start_of(&big, 1, w);
    }
    cr_expect_gt(queued, 200);
    cr_expect_eq(late, queued, "delay %llu vs %llu cycles in the register queue",
                 (unsigned long long)late, (unsigned long long)queued);
    cr_expect_eq(tm_ctr(&big, "zorua.queue_reg_cycles"), 0);
    cr_expect_eq(tm_ctr(&small, "zorua.queue_thread_cycles") +
                     tm_ctr(&small, "zorua.queue_smem_cycles"), 0);
    cr_expect_eq(tm_ctr(&small, "zorua.grants"), 4 * 3, "three queues for each of 4 warps");
    cr_expect_eq(tm_ctr(&small, "zorua.swap_reads") + tm_ctr(&small, "zorua.swap_writes"), 0);
    for (unsigned i = 0; i < 2 * 128; i += 2)
        cr_expect_lt(small.out[i], small.out[i + 1]);
    tm_done(&small);
    tm_done(&big);
}

/* Phase 1 needs 8 registers, phase 2 16 (a loop of 100), phase 3 8 again. Each thread
 * writes the clocks at its three phases' starts and at its end at out[4 * global id]. */
static const char *phased =
    ".phases 25 10\n"
    ".kernel k\n.param 8\n.regs 16\n"
    "  .phase 8 0 entry\n"
    "  s2r r0, %clock\n  s2r r1, %tid.x\n  s2r r4, %ctaid.x\n  shl.u32 r4, r4, 6\n"
    "  add.u32 r1, r1, r4\n  shl.u32 r1, r1, 4\n  cvt.u64.u32 r4, r1\n"
    "  ld.param.u64 r2, [0]\n  add.u64 r2, r2, r4\n  st.global.u32 [r2], r0\n"
    "  .phase 16 0\n"
    "  s2r r0, %clock\n  st.global.u32 [r2+4], r0\n  mov.u32 r8, 0\n  mov.u32 r12, 1\n"
    "loop:\n  add.u32 r8, r8, 1\n  mul.u32 r12, r12, 3\n  add.u32 r13, r12, r8\n"
    "  set.lt.u32 r9, r8, 100\n  brc r9, loop, done\n"
    "done:\n"
    "  .phase 8 0\n"
    "  s2r r0, %clock\n  st.global.u32 [r2+8], r0\n  s2r r1, %clock\n"
    "  st.global.u32 [r2+12], r1\n  exit\n";

static uint32_t at(const TmRun *r, unsigned cta, unsigned warp, unsigned what)
{
    return r->out[4 * (64 * cta + 32 * warp) + what];
}

Test(zorua, a_phase_gives_back_registers_and_asks_for_more)
{
    /* 12 physical sets. Entry: 2 sets for each of the 4 warps (8). Phase 2 needs 4 each:
     * two warps get them (12), two wait in the register queue until phase 3 gives 2 sets
     * back from each of the first. Without phases a warp needs 4 sets from the start:
     * three warps are mapped, the fourth waits for one to end. */
    const char *set = ZB NO_OVERSUB "gpu.regs_per_sm=1536";
    TmRun p, n;
    tm_run(&p, set, phased, DIM(2, 1, 1), DIM(64, 1, 1), 4 * 128);
    cr_assert_eq(p.status, EMU_OK, "%s", p.fault.message);
    cr_expect_eq(tm_ctr(&p, "zorua.phase_changes"), 4 * 2, "two changes per warp");
    cr_expect_eq(tm_ctr(&p, "zorua.requeues"), 4, "every warp asks for 2 sets at phase 2");
    cr_expect_gt(tm_ctr(&p, "zorua.queue_reg_cycles"), 0);
    uint32_t first3 = UINT32_MAX, starts = 0, late = 0;
    for (unsigned c = 0; c < 2; c++)
        for (unsigned w = 0; w < 2; w++) {
            uint32_t s3 = at(&p, c, w, 2);
            first3 = s3 < first3 ? s3 : first3;
            starts += at(&p, c, w, 0) < 20; /* every warp starts at once */
        }
    for (unsigned c = 0; c < 2; c++)
        for (unsigned w = 0; w < 2; w++)
            late += at(&p, c, w, 1) > first3; /* phase 2 only after a warp's phase 3 */
    cr_expect_eq(starts, 4);
    cr_expect_eq(late, 2, "two warps waited for the registers phase 3 gave back");

    tm_run(&n, "zorua.phases=false;" ZB NO_OVERSUB "gpu.regs_per_sm=1536", phased,
           DIM(2, 1, 1), DIM(64, 1, 1), 4 * 128);
    cr_assert_eq(n.status, EMU_OK, "%s", n.fault.message);
    cr_expect_eq(tm_ctr(&n, "zorua.phase_changes") + tm_ctr(&n, "zorua.requeues"), 0);
    uint32_t waited = 0, first_end = UINT32_MAX;
    for (unsigned c = 0; c < 2; c++)
        for (unsigned w = 0; w < 2; w++)
            first_end = at(&n, c, w, 3) < first_end ? at(&n, c, w, 3) : first_end;
    for (unsigned c = 0; c < 2; c++)
        for (unsigned w = 0; w < 2; w++)
            waited += at(&n, c, w, 0) > first_end;
    cr_expect_eq(waited, 1, "one warp waits for a whole warp's registers");
    cr_expect_eq(p.st.warp_instructions, n.st.warp_instructions);
    tm_done(&p);
    tm_done(&n);
}

Test(zorua, swapped_registers_go_through_the_memory_system)
{
    /* 8 physical sets and o_thresh = 100%: 8 more in the swap space, so four warps of 4
     * sets run at once, half their sets swapped. Every set is written, so each swap-in is
     * a read of a set spilled by a write. */
    TmRun s, b;
    run_loop(&s, ZB "zorua.o_default=100;zorua.o_step=0;gpu.regs_per_sm=1024", 100, 2);
    run_loop(&b, ZB "zorua.o_default=100;zorua.o_step=0;gpu.regs_per_sm=4096", 100, 2);
    uint64_t rd = tm_ctr(&s, "zorua.swap_reads"), wr = tm_ctr(&s, "zorua.swap_writes");
    cr_expect_gt(rd, 0);
    cr_expect_geq(wr, rd, "every set read back was spilled first");
    cr_expect_eq(tm_ctr(&s, "zorua.swap_bytes"), 512 * (rd + wr), "a set is 512 bytes");
    cr_expect_eq(tm_ctr(&s, "zorua.oversubscribed_grants"), 2);
    cr_expect_gt(tm_ctr(&s, "stall.resource"), 0, "warps waited for swap-ins");
    uint64_t acc = tm_ctr(&s, "zorua.rf_accesses"), hits = tm_ctr(&s, "zorua.rf_hits");
    cr_expect_eq(acc - hits, rd, "each swap-in is one miss of the on-chip registers");
    cr_expect_eq(tm_ctr(&b, "zorua.rf_accesses"), tm_ctr(&b, "zorua.rf_hits"));
    cr_expect_eq(tm_ctr(&b, "zorua.swap_reads") + tm_ctr(&b, "zorua.swap_writes"), 0);
    /* the traffic is the memory system's: a set is 4 lines of 128 bytes */
    cr_expect_eq(tm_ctr(&s, "l1.writes") - tm_ctr(&b, "l1.writes"), 4 * wr);
    cr_expect_geq(tm_ctr(&s, "l1.hits") + tm_ctr(&s, "l1.misses") -
                      tm_ctr(&b, "l1.hits") - tm_ctr(&b, "l1.misses"),
                  rd);
    cr_expect_gt(s.st.cycles, b.st.cycles);
    cr_expect_eq(s.st.warp_instructions, b.st.warp_instructions);
    for (unsigned i = 0; i < 2 * 128; i += 2)
        cr_expect_lt(s.out[i], s.out[i + 1]);
    tm_done(&s);
    tm_done(&b);
}

Test(zorua, o_thresh_steps_at_epoch_boundaries)
{
    /* one warp on 4 sub-cores: three issue slots idle every cycle, nothing waits on
     * memory, so each epoch raises o_thresh by 4% of the 512 register sets (20), from 10%
     * (51) up to zorua.o_max (20%: 102) */
    TmRun r;
    run_loop(&r, ZB "zorua.epoch=256;emu.interval_cycles=256;zorua.o_max=20", 600, 1);
    size_t n = 0;
    const EmuInterval *iv = emu_launch_intervals(r.d, 0, &n);
    cr_assert_gt(n, 4, "%zu intervals", n);
    const uint64_t expect[] = {51, 71, 91, 102, 102};
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(iv[i].ctr.zorua_othresh_reg_cycles, 256 * expect[i], "interval %zu: %llu",
                     i, (unsigned long long)iv[i].ctr.zorua_othresh_reg_cycles);
    cr_expect_geq(tm_ctr(&r, "zorua.othresh_raised"), 4);
    cr_expect_eq(tm_ctr(&r, "zorua.othresh_lowered"), 0);
    tm_done(&r);
}

/* Three warps of 3 register sets each meet at a barrier. */
static const char *barrier3 =
    ".kernel k\n.param 8\n.regs 10\n"
    "  s2r r1, %tid.x\n  mov.u32 r8, 0\n"
    "loop:\n  add.u32 r8, r8, 1\n  set.lt.u32 r9, r8, 20\n  brc r9, loop, done\n"
    "done:\n  bar 0\n  shl.u32 r5, r1, 2\n  cvt.u64.u32 r6, r5\n  ld.param.u64 r2, [0]\n"
    "  add.u64 r2, r2, r6\n  add.u32 r8, r8, r1\n  st.global.u32 [r2], r8\n  exit\n";

Test(zorua, forced_oversubscription_prevents_a_barrier_deadlock)
{
    /* 8 physical sets, no swap: two warps are mapped, the third waits for 3 sets while the
     * two wait for it at the barrier. Below zorua.min_occupancy schedulable warps the
     * coordinator maps the third warp's sets past o_thresh. */
    TmRun r;
    tm_run(&r, ZB "zorua.o_default=0;zorua.o_step=0;gpu.regs_per_sm=1024", barrier3,
           DIM(1, 1, 1), DIM(96, 1, 1), 96);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(tm_ctr(&r, "zorua.forced_oversubscriptions"), 1);
    for (unsigned i = 0; i < 96; i++)
        cr_expect_eq(r.out[i], 20 + i, "thread %u", i);
    tm_done(&r);
    /* without the guard the launch cannot finish, and says so */
    tm_run(&r, ZB NO_OVERSUB "gpu.regs_per_sm=1024", barrier3,
           DIM(1, 1, 1), DIM(96, 1, 1), 96);
    cr_expect_neq(r.status, EMU_OK);
    cr_expect(strstr(r.fault.message, "stalled") != NULL, "%s", r.fault.message);
    tm_done(&r);
}

/* Warp 0 of each CTA of 4 warps loops; warps 1-3 end at once. Each lane 0 writes (start,
 * end) at out[2 * (4 * cta + warp)]. */
static const char *one_long_warp =
    ".kernel k\n.param 8\n"
    "  s2r r0, %clock\n  s2r r1, %tid.x\n  s2r r4, %ctaid.x\n  shr.u32 r5, r1, 5\n"
    "  shl.u32 r4, r4, 2\n  add.u32 r5, r5, r4\n  shl.u32 r5, r5, 3\n  cvt.u64.u32 r6, r5\n"
    "  ld.param.u64 r2, [0]\n  add.u64 r2, r2, r6\n  mov.u32 r8, 0\n"
    "  set.lt.u32 r9, r1, 32\n  brc.not r9, done, loop\n"
    "loop:\n  add.u32 r8, r8, 1\n  set.lt.u32 r9, r8, 300\n  brc r9, loop, done\n"
    "done:\n  s2r r7, %clock\n  and.u32 r10, r1, 31\n  set.eq.u32 r10, r10, 0\n"
    "  brc.not r10, out, store\n"
    "store:\n  st.global.u32 [r2], r0\n  st.global.u32 [r2+4], r7\n  brc r10, out, out\n"
    "out:\n  exit\n";

Test(zorua, wlm_starts_a_cta_in_finished_warps_slots)
{
    /* 6 warp slots, CTAs of 4 warps: the second CTA fits once three warps of the first
     * ended (WLM), not before the whole first CTA ended (static) */
    const char *base = "gpu.sm_count=1;core.mem_latency=20;core.sched=lrr;"
                       "gpu.max_threads_per_sm=192;gpu.max_threads_per_block=128;";
    char set[256];
    TmRun s, w;
    snprintf(set, sizeof set, "%score.resource_mgr=static", base);
    tm_run(&s, set, one_long_warp, DIM(2, 1, 1), DIM(128, 1, 1), 16);
    cr_assert_eq(s.status, EMU_OK, "%s", s.fault.message);
    snprintf(set, sizeof set, "%score.resource_mgr=wlm", base);
    tm_run(&w, set, one_long_warp, DIM(2, 1, 1), DIM(128, 1, 1), 16);
    cr_assert_eq(w.status, EMU_OK, "%s", w.fault.message);
    /* out[2 * (4 * cta + warp)] */
    cr_expect_gt(s.out[2 * 4], s.out[1], "static: CTA 1 after CTA 0's long warp");
    cr_expect_lt(w.out[2 * 4], w.out[1], "wlm: CTA 1 while CTA 0's long warp runs");
    cr_expect_gt(w.out[2 * 4], w.out[2 * 1 + 1], "wlm: but after CTA 0's short warps");
    cr_expect_lt(w.st.cycles, s.st.cycles);
    cr_expect_eq(w.st.warp_instructions, s.st.warp_instructions);
    tm_done(&s);
    tm_done(&w);
}

Test(zorua, warps_waiting_at_a_barrier_are_not_schedulable)
{
    /* the same definition under every policy: a resident warp is schedulable unless the
     * resource manager holds it back or it waits at a barrier */
    const char *set = "gpu.sm_count=1;core.mem_latency=0;core.sched=lrr;";
    TmRun a, b;
    /* warp 0 loops 200 times before the barrier, warps 1 and 2 wait for it there */
    const char *wait = ".kernel k\n.param 8\n"
                       "  s2r r1, %tid.x\n  mov.u32 r8, 0\n  set.lt.u32 r9, r1, 32\n"
                       "  brc.not r9, meet, loop\n"
                       "loop:\n  add.u32 r8, r8, 1\n  set.lt.u32 r9, r8, 200\n"
                       "  brc r9, loop, meet\n"
                       "meet:\n  bar 0\n  exit\n";
    tm_run(&a, set, wait, DIM(1, 1, 1), DIM(96, 1, 1), 1);
    cr_assert_eq(a.status, EMU_OK, "%s", a.fault.message);
    uint64_t act = tm_ctr(&a, "core.active_warp_cycles");
    uint64_t sch = tm_ctr(&a, "core.schedulable_warp_cycles");
    cr_expect_lt(sch, act, "static, a barrier: %llu of %llu", (unsigned long long)sch,
                 (unsigned long long)act);
    cr_expect_lt(sch, act / 2, "two of three warps wait most of the time");
    run_loop(&b, set, 50, 1);
    cr_expect_eq(tm_ctr(&b, "core.schedulable_warp_cycles"),
                 tm_ctr(&b, "core.active_warp_cycles"), "static, no barrier: all of them");
    tm_done(&a);
    tm_done(&b);
}

static EmuStatus create_with(const char *set, EmuDevice **d, char *err, size_t n)
{
    setenv("XGPU_SET", set, 1);
    setenv("XGPU_MODE", "timing", 1);
    unsetenv("XGPU_CONFIG");
    *d = NULL;
    err[0] = 0;
    EmuStatus s = emu_create(d, err, n);
    unsetenv("XGPU_SET");
    return s;
}

Test(zorua, hostile_configurations_name_the_key)
{
    const char *cases[][2] = {
        {"zorua.reg_set=0", "zorua.reg_set"},
        {"zorua.reg_set=64", "zorua.reg_set"},
        {"zorua.smem_set=1000", "zorua.smem_set"},
        {"zorua.smem_set=16", "zorua.smem_set"},
        {"zorua.epoch=0", "zorua.epoch"},
        {"zorua.o_default=150", "zorua.o_default"},
        {"zorua.o_max=400", "zorua.o_max"},
        {"zorua.min_occupancy=101", "zorua.min_occupancy"},
        {"zorua.o_step=-1", "zorua.o_step"},
        {"core.resource_mgr=virtual", "core.resource_mgr"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EmuDevice *d;
        char err[512];
        EmuStatus s = create_with(cases[i][0], &d, err, sizeof err);
        cr_expect_neq(s, EMU_OK, "%s accepted", cases[i][0]);
        cr_expect(strstr(err, cases[i][1]) != NULL, "%s: '%s'", cases[i][0], err);
        if (s == EMU_OK)
            emu_destroy(d);
    }
    /* the swap space needs the memory system: refused when the device is created, with
     * both keys named */
    EmuDevice *d;
    char err[512] = "";
    EmuStatus s = create_with("core.mem_latency=20;core.resource_mgr=zorua", &d, err, sizeof err);
    cr_expect_neq(s, EMU_OK, "zorua with a fixed memory latency accepted");
    cr_expect(strstr(err, "core.mem_latency") && strstr(err, "core.resource_mgr"), "'%s'", err);
    if (s == EMU_OK)
        emu_destroy(d);
}
