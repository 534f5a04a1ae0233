/*
 * 605-memento-timing.c - caching collectors and Memento's allocator in the timing
 * model, on hand-assembled kernels with hand-set reuse bits: a CT hit reads no bank and
 * lets the instruction dispatch a cycle after issue (exact counts and cycles); a near
 * result is written into the owner's CT and hit by its consumer, a far one is not; a
 * 64-bit near result takes the single write port whole (with rf.ct_write_port =
 * register one register is taken, the other dropped); a far write invalidates the cached copy; with a fixed STHLD of 0 the scheduler never
 * waits, with 31 it does; memento-pr never stalls for allocation; a module without
 * reuse bits counts every operand far; the dynamic STHLD steps exactly at its interval
 * ends (seen in the interval series).
 */
#include "600-rf-util.h"

#define CCU TM_BASE "rf.collector=ccu;core.sched=memento;memento.sthld=0;"

Test(memento_timing, ct_hit_avoids_the_bank_read)
{
    const char *one = "  add.u32 r2, r3, r7\n";
    const char *two = "  add.u32 r2, r3, r7\n  add.u32 r5, r3, r7\n";
    Res a = measure(CCU, one, NULL, 0), b = measure(CCU, two, NULL, 0);
    cr_expect_eq(b.reads, a.reads, "the second add reads r3 and r7 from the CT");
    cr_expect_eq(b.hits, a.hits + 2);
    /* add @1 reads r3, r7 (same bank) @2, @3 and dispatches @3; the warp's only CCU is
     * free again then: alone, the clock read issues @3; after it, the second add issues
     * @3, all hits, dispatches @4, when the clock read issues */
    cr_expect_eq(a.span, 3, "%u", a.span);
    cr_expect_eq(b.span, 4, "%u", b.span);
    Res c = measure(TM_BASE, one, NULL, 0), d = measure(TM_BASE, two, NULL, 0);
    cr_expect_eq(d.reads, c.reads + 2, "plain OCUs read the banks again");
    cr_expect_eq(c.hits + d.hits, 0);
}

Test(memento_timing, near_results_are_written_far_ones_are_not)
{
    /* r2 and r4 share a bank: read from the banks they take two cycles */
    const char *body = "  add.u32 r2, r3, r7\n  add.u32 r5, r2, r4\n";
    const uint8_t near[] = {XREUSE_DST(0)}, far[] = {0};
    Res n = measure(CCU, body, near, 1), f = measure(CCU, body, far, 1);
    cr_expect_eq(n.writes, f.writes + 1, "the near r2 goes into the CT");
    cr_expect_eq(n.hits, f.hits + 1, "and its consumer hits it");
    cr_expect_eq(f.reads, n.reads + 1);
    cr_expect_eq(f.span, n.span + 1, "the hit saves the bank read's cycle (%u vs %u)",
                 f.span, n.span);
}

Test(memento_timing, one_write_port_per_cycle)
{
    /* a 64-bit result: both registers are written back in the same cycle (two ports) */
    const char *body = "  add.u64 r20, r40, r40\n  add.u64 r22, r20, r20\n";
    const uint8_t near[] = {XREUSE_DST(0)};
    Res n = measure(CCU "rf.ct_write_port=register", body, near, 1),
        f = measure(CCU "rf.ct_write_port=register", body, NULL, 0);
    cr_expect_eq(n.writes - f.writes, 1, "one register of the pair taken");
    cr_expect_eq(n.drops - f.drops, 1, "the other dropped for the port");
    cr_expect_eq(n.hits, f.hits + 1, "the consumer hits one half, reads the other");
    Res w = measure(CCU, body, near, 1);
    cr_expect_eq(w.writes - f.writes, 2, "the default port takes the whole result");
    cr_expect_eq(w.drops, f.drops);
    cr_expect_eq(w.hits, f.hits + 2, "the consumer hits both halves");
}

Test(memento_timing, far_write_invalidates_the_copy)
{
    const char *body = "  add.u32 r2, r3, r7\n  add.u32 r3, r9, 1\n  add.u32 r5, r3, r7\n";
    Res x = measure(CCU, body, NULL, 0);
    cr_expect_eq(x.inval, 1, "r3's copy from the first add");
    const char *keep = "  add.u32 r2, r3, r7\n  add.u32 r8, r9, 1\n  add.u32 r5, r3, r7\n";
    Res y = measure(CCU, keep, NULL, 0);
    cr_expect_eq(y.inval, 0);
    cr_expect_eq(y.hits, x.hits + 1, "without the overwrite r3 hits");
}

static const char *busy_body =
    "  add.u32 r2, r3, r7\n  add.u32 r5, r2, r9\n  add.u32 r8, r5, r11\n"
    "  add.u32 r10, r8, r13\n  add.u32 r12, r10, r3\n  add.u32 r14, r12, r7\n";

static void counters(const char *set, uint64_t *wait, uint64_t *nofree, uint64_t *insns,
                     uint64_t *cycles)
{
    TmRun r;
    run_reuse(&r, set, busy_body, NULL, 0, 1, DIM(1024, 1, 1)); /* 8 warps per sub-core */
    *wait = tm_ctr(&r, "rf.ccu_alloc_wait");
    *nofree = tm_ctr(&r, "rf.ccu_alloc_none_free");
    *insns = r.st.warp_instructions;
    *cycles = r.st.cycles;
    tm_done(&r);
}

Test(memento_timing, stall_counter_against_fixed_sthld)
{
    uint64_t w0, n0, i0, c0, w31, n31, i31, c31, wpr, npr, ipr, cpr, w2, n2, i2, c2;
    counters(TM_BASE "rf.collector=ccu;core.sched=memento;memento.sthld=0", &w0, &n0, &i0, &c0);
    counters(TM_BASE "rf.collector=ccu;core.sched=memento;memento.sthld=31", &w31, &n31, &i31,
             &c31);
    counters(TM_BASE "rf.collector=ccu;core.sched=memento-pr", &wpr, &npr, &ipr, &cpr);
    counters(TM_BASE "rf.collector=ccu;core.sched=memento;memento.sthld=31", &w2, &n2, &i2, &c2);
    cr_expect_eq(w0, 0, "STHLD 0: never waits");
    cr_expect_gt(w31, 0, "STHLD 31: waits for old owners");
    cr_expect_eq(wpr + npr, 0, "memento-pr: no allocation stall");
    cr_expect(i0 == i31 && i0 == ipr, "same warp instructions: %llu %llu %llu",
              (unsigned long long)i0, (unsigned long long)i31, (unsigned long long)ipr);
    cr_expect(w2 == w31 && n2 == n31 && c2 == c31, "deterministic");
}

Test(memento_timing, no_reuse_bits_means_far)
{
    const char *body = "  add.u32 r2, r3, r7\n  add.u32 r5, r2, r9\n";
    Res x = measure(CCU, body, NULL, 0);
    cr_expect_eq(x.writes, 0, "no near result without the section");
}

Test(memento_timing, dynamic_sthld_steps_at_interval_ends)
{
    /* STHLD starts at 0; the first interval end (cycle 50) steps it to 1 whatever the
     * IPC, the second (100) to 2 (state 2 steps +1 on S and on L) */
    TmRun r;
    run_reuse(&r, TM_BASE "rf.collector=ccu;core.sched=memento;memento.interval=50;"
                  "emu.interval_cycles=50", busy_body, NULL, 0, 1, DIM(1024, 1, 1));
    size_t n = 0;
    const EmuInterval *iv = emu_launch_intervals(r.d, 0, &n);
    cr_assert_gt(n, 3, "%zu intervals", n);
    cr_expect_eq(iv[0].ctr.memento_sthld_cycles, 0);
    cr_expect_eq(iv[1].ctr.memento_sthld_cycles, 50);
    cr_expect_eq(iv[2].ctr.memento_sthld_cycles, 100);
    cr_expect_geq(tm_ctr(&r, "memento.sthld_cycles"), 150);
    tm_done(&r);
}
