/*
 * 430-timing-determinism.c - the timing model is deterministic: two runs of a
 * multi-CTA kernel (with the memory system, collectors allocated at random) give the
 * same cycles and the same value of every counter; a different seed may change the
 * cycles but not the results, which equal functional mode's.
 */
#include "400-timing-util.h"

/* out[i] = sum over j < 16 of in[(i * 7 + j) % N] via shared memory and a barrier */
static const char *src =
    ".kernel k\n.param 8\n.shared 1024\n"
    "  s2r r0, %tid.x\n  s2r r1, %ctaid.x\n  s2r r2, %ntid.x\n  mul.u32 r3, r1, r2\n"
    "  add.u32 r3, r3, r0\n"                      /* global thread id */
    "  ld.param.u64 r40, [0]\n"
    "  mul.u32 r4, r3, 7\n  and.u32 r4, r4, 1023\n  shl.u32 r4, r4, 2\n"
    "  cvt.u64.u32 r6, r4\n  add.u64 r6, r6, r40\n  ld.global.u32 r8, [r6+8192]\n"
    "  shl.u32 r9, r0, 2\n  cvt.u64.u32 r10, r9\n  st.shared.u32 [r10], r8\n  bar 0\n"
    "  xor.u32 r11, r0, 1\n  shl.u32 r11, r11, 2\n  cvt.u64.u32 r12, r11\n"
    "  ld.shared.u32 r13, [r12]\n  add.u32 r13, r13, r8\n  fsqrt.f32 r14, r13\n"
    "  add.u32 r13, r13, r14\n"
    "  shl.u32 r15, r3, 2\n  cvt.u64.u32 r16, r15\n  add.u64 r16, r16, r40\n"
    "  st.global.u32 [r16], r13\n  exit\n";

#define NT 2048

typedef struct Result {
    uint32_t out[NT];
    uint64_t cycles;
    uint64_t ctr[8];
} Result;

static const char *names[8] = {"core.issued", "stall.scoreboard", "stall.collector",
                               "rf.bank_conflicts", "rf.bank_reads", "core.active_warp_cycles",
                               "stall.mem_busy", "stall.barrier"};

static void run_mode(const char *mode, const char *set, Result *res)
{
    setenv("XGPU_MODE", mode, 1);
    setenv("XGPU_SET", set, 1);
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    static uint32_t in[NT + 1024];
    for (uint32_t i = 0; i < NT + 1024; i++)
        in[i] = i * 2654435761u >> 20;
    cr_assert_eq(emu_malloc(d, sizeof in, &buf), EMU_OK);
    cr_assert_eq(emu_copy_to_device(d, buf, in, sizeof in), EMU_OK);
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(NT / 256, 1, 1), DIM(256, 1, 1), 0, &buf, 8, &st, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    cr_assert_eq(emu_copy_from_device(d, res->out, buf, sizeof res->out), EMU_OK);
    res->cycles = st.cycles;
    for (int i = 0; i < 8 && strcmp(mode, "timing") == 0; i++)
        cr_assert_eq(emu_launch_counter(d, 0, names[i], &res->ctr[i]), EMU_OK);
    emu_destroy(d);
}

Test(determinism, two_runs_are_identical)
{
    static Result a, b;
    run_mode("timing", "gpu.sm_count=2", &a);
    run_mode("timing", "gpu.sm_count=2", &b);
    cr_expect_gt(a.cycles, 0);
    cr_expect_eq(a.cycles, b.cycles);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(a.ctr[i], b.ctr[i], "%s: %llu vs %llu", names[i],
                     (unsigned long long)a.ctr[i], (unsigned long long)b.ctr[i]);
    cr_expect_eq(memcmp(a.out, b.out, sizeof a.out), 0);
}

Test(determinism, results_equal_functional_mode)
{
    static Result f, t, s;
    run_mode("functional", "gpu.sm_count=2", &f);
    run_mode("timing", "gpu.sm_count=2", &t);
    run_mode("timing", "gpu.sm_count=2;emu.seed=12345;rf.collectors_per_subcore=3", &s);
    cr_expect_eq(f.cycles, 0);
    cr_expect_eq(memcmp(f.out, t.out, sizeof f.out), 0);
    cr_expect_eq(memcmp(f.out, s.out, sizeof f.out), 0);
}

Test(determinism, ideal_memory_too)
{
    static Result a, b;
    run_mode("timing", "gpu.sm_count=3;core.mem_latency=30", &a);
    run_mode("timing", "gpu.sm_count=3;core.mem_latency=30", &b);
    cr_expect_eq(a.cycles, b.cycles);
    cr_expect_eq(memcmp(a.ctr, b.ctr, sizeof a.ctr), 0);
}
