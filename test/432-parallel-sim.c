/*
 * 432-parallel-sim.c - emu.threads: the SMs tick on several host threads and nothing
 * changes. A racy kernel (every thread takes a ticket with a global atomic, reads a word
 * another CTA writes in the same launch, and writes its own) gives the same memory, the
 * same cycles and the same counters with 1, 2, 3 and 4 threads; the tickets are exactly
 * 0 .. N-1 (atomics stay atomic while their updates wait for the end of the cycle); the
 * budget stops a launch at exactly its last warp instruction on several threads; and a
 * global store is seen from the next cycle on, by the SM that made it and by the others.
 */
#include "400-timing-util.h"

/* ticket[g] = atomicAdd(counter, 1); word[g] = word[(g * 13 + 7) % NT] + g */
static const char *racy =
    ".kernel k\n.param 16\n"
    "  s2r r0, %tid.x\n  s2r r1, %ctaid.x\n  s2r r2, %ntid.x\n  mul.u32 r3, r1, r2\n"
    "  add.u32 r3, r3, r0\n"                          /* g */
    "  ld.param.u64 r40, [0]\n  ld.param.u64 r42, [8]\n"
    "  mov.u32 r4, 1\n  atom.add.u32 r5, [r40], r4\n"  /* the ticket */
    "  shl.u32 r6, r3, 2\n  cvt.u64.u32 r8, r6\n  add.u64 r10, r8, r40\n"
    "  st.global.u32 [r10+64], r5\n"
    "  mul.u32 r12, r3, 13\n  add.u32 r12, r12, 7\n  and.u32 r12, r12, 2047\n"
    "  shl.u32 r12, r12, 2\n  cvt.u64.u32 r14, r12\n  add.u64 r14, r14, r42\n"
    "  ld.global.u32 r16, [r14]\n  add.u32 r16, r16, r3\n"
    "  add.u64 r18, r8, r42\n  st.global.u32 [r18], r16\n  exit\n";

#define NT 2048

typedef struct Result {
    uint32_t ticket[NT], word[NT];
    uint64_t cycles, insns;
    uint64_t ctr[8];
} Result;

static const char *names[8] = {"core.issued", "stall.scoreboard", "stall.collector",
                               "rf.bank_conflicts", "rf.bank_reads", "core.active_warp_cycles",
                               "stall.mem_busy", "l2.hits"};

static void run(const char *set, Result *res)
{
    setenv("XGPU_MODE", "timing", 1);
    setenv("XGPU_SET", set, 1);
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, racy);
    uint64_t buf[2];
    static uint32_t zero[16 + NT], init[NT];
    for (uint32_t i = 0; i < NT; i++)
        init[i] = i * 2654435761u >> 12;
    cr_assert_eq(emu_malloc(d, sizeof zero, &buf[0]), EMU_OK);
    cr_assert_eq(emu_malloc(d, sizeof init, &buf[1]), EMU_OK);
    cr_assert_eq(emu_copy_to_device(d, buf[0], zero, sizeof zero), EMU_OK);
    cr_assert_eq(emu_copy_to_device(d, buf[1], init, sizeof init), EMU_OK);
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(NT / 128, 1, 1), DIM(128, 1, 1), 0, buf, 16, &st, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s", set, f.message);
    cr_assert_eq(emu_copy_from_device(d, res->ticket, buf[0] + 64, sizeof res->ticket), EMU_OK);
    cr_assert_eq(emu_copy_from_device(d, res->word, buf[1], sizeof res->word), EMU_OK);
    res->cycles = st.cycles, res->insns = st.warp_instructions;
    for (int i = 0; i < 8; i++)
        cr_assert_eq(emu_launch_counter(d, 0, names[i], &res->ctr[i]), EMU_OK, "%s", names[i]);
    emu_destroy(d);
}

static void expect_same(const Result *a, const Result *b, const char *what)
{
    cr_expect_eq(a->cycles, b->cycles, "%s: cycles %llu vs %llu", what,
                 (unsigned long long)a->cycles, (unsigned long long)b->cycles);
    cr_expect_eq(a->insns, b->insns, "%s: warp instructions", what);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(a->ctr[i], b->ctr[i], "%s: %s %llu vs %llu", what, names[i],
                     (unsigned long long)a->ctr[i], (unsigned long long)b->ctr[i]);
    cr_expect_eq(memcmp(a->ticket, b->ticket, sizeof a->ticket), 0, "%s: tickets", what);
    cr_expect_eq(memcmp(a->word, b->word, sizeof a->word), 0, "%s: words", what);
}

Test(parallel, racy_kernel_is_identical_on_any_number_of_threads, .timeout = 120)
{
    static Result one, many;
    run("gpu.sm_count=8;emu.threads=1", &one);
    cr_expect_gt(one.ctr[7], 0, "the kernel reaches L2");
    static uint8_t seen[NT];
    for (uint32_t i = 0; i < NT; i++) {
        cr_assert_lt(one.ticket[i], NT, "ticket %u of thread %u", one.ticket[i], i);
        cr_expect_eq(seen[one.ticket[i]]++, 0, "ticket %u taken twice", one.ticket[i]);
    }
    const char *sets[] = {"gpu.sm_count=8;emu.threads=2", "gpu.sm_count=8;emu.threads=3",
                          "gpu.sm_count=8;emu.threads=4", "gpu.sm_count=8;emu.threads=0"};
    for (int i = 0; i < 4; i++) {
        run(sets[i], &many);
        expect_same(&one, &many, sets[i]);
    }
}

Test(parallel, the_budget_stops_at_its_exact_instruction_on_several_threads)
{
    setenv("XGPU_MODE", "timing", 1);
    setenv("XGPU_SET", "gpu.sm_count=6;emu.threads=3;emu.max_warp_insns=50000", 1);
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, ".kernel k\nloop:\n  nop\n  bra loop\n  exit\n");
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(12, 1, 1), DIM(64, 1, 1), 0, NULL, 0, &st, &f);
    cr_expect_eq(s, EMU_ERR_LAUNCH_TIMEOUT, "%s", emu_status_name(s));
    cr_expect_eq(st.warp_instructions, 50000);
    cr_expect(strstr(f.message, "exceeded emu.max_warp_insns = 50000") != NULL, "%s", f.message);
    emu_destroy(d);
}

/* Warp 0 of each CTA stores 1 to flag[ctaid]; after a barrier warp 1 reads flag[ctaid]
 * (its own SM's store, cycles later) and flag[ctaid ^ 1] (another CTA's), spinning on the
 * latter until it is set: a store must become visible to other SMs. */
static const char *visible =
    ".kernel k\n.param 8\n"
    "  s2r r0, %tid.x\n  s2r r1, %ctaid.x\n  ld.param.u64 r40, [0]\n"
    "  shl.u32 r2, r1, 2\n  cvt.u64.u32 r4, r2\n  add.u64 r4, r4, r40\n"
    "  xor.u32 r3, r1, 1\n  shl.u32 r3, r3, 2\n  cvt.u64.u32 r6, r3\n  add.u64 r6, r6, r40\n"
    "  set.ge.u32 r3, r0, 32\n  brc r3, skip, skip\n"
    "  mov.u32 r8, 1\n  st.global.u32 [r4], r8\n"
    "skip:\n  bar 0\n  set.lt.u32 r3, r0, 32\n  brc r3, done, done\n"
    "  ld.global.u32 r9, [r4]\n"
    "spin:\n  ld.global.u32 r10, [r6]\n  set.eq.u32 r11, r10, 0\n  brc r11, spin, out\n"
    "out:\n  add.u32 r9, r9, r10\n  st.global.u32 [r4+64], r9\n"
    "done:\n  exit\n";

Test(parallel, a_store_is_seen_by_its_own_sm_and_by_the_others)
{
    for (int threads = 1; threads <= 2; threads++) {
        char set[80];
        snprintf(set, sizeof set, "gpu.sm_count=2;emu.threads=%d", threads);
        setenv("XGPU_MODE", "timing", 1);
        setenv("XGPU_SET", set, 1);
        EmuDevice *d = t_dev();
        EmuModule *m = t_load(d, visible);
        uint64_t buf;
        uint32_t z[32] = {0}, got[2];
        cr_assert_eq(emu_malloc(d, sizeof z, &buf), EMU_OK);
        cr_assert_eq(emu_copy_to_device(d, buf, z, sizeof z), EMU_OK);
        EmuLaunchStats st;
        EmuFault f;
        EmuStatus s = emu_launch(d, m, 0, DIM(2, 1, 1), DIM(64, 1, 1), 0, &buf, 8, &st, &f);
        cr_assert_eq(s, EMU_OK, "%s: %s", set, f.message);
        cr_assert_eq(emu_copy_from_device(d, got, buf + 64, sizeof got), EMU_OK);
        cr_expect_eq(got[0], 2, "%s: CTA 0 saw %u", set, got[0]);
        cr_expect_eq(got[1], 2, "%s: CTA 1 saw %u", set, got[1]);
        emu_destroy(d);
    }
}
