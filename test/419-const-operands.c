/*
 * 419-const-operands.c - constant-bank operands (XF_CONST, c[offset]): an instruction
 * reads a kernel parameter as one of its sources, in any register slot and at either
 * width, with the results of the same instruction fed by a parameter load; an operand
 * past the kernel's parameters is refused at load. In timing mode the operand comes
 * from the SM's constant cache: a hit costs nothing (the clock span is the register
 * operand's), the first read of a line waits for its fill, once per SM, and idle
 * skipping keeps every cycle.
 */
#include "400-timing-util.h"

/* out at 0, a = 100 (u32) at 8, b = 1.5f at 12, q (u64) at 16; a word at 200, in the
 * second 128-byte line of the buffer. */
typedef struct Params {
    uint64_t out;
    uint32_t a;
    float b;
    uint64_t q;
    uint8_t pad[176];
    uint32_t far;
    uint32_t pad2[13];
} Params;

_Static_assert(sizeof(Params) == 256, "the .param 256 layout");

/* Each thread writes tid + a, 2 * b + 1 and (q + 4 tid) - q to out[3 tid ...]; LOADS
 * computes the same with parameter loads. */
#define CONST_SRC(body)                                                                    \
    ".kernel k\n.param 256\n"                                                              \
    "  ld.param.u64 r40, [0]\n  s2r r0, %tid.x\n  mul.u32 r1, r0, 12\n"                      \
    "  lea.u64.u32 r40, r40, r1, 0\n" body "  cvt.u32.u64 r10, r8\n"                        \
    "  st.global.u32 [r40], r2\n  st.global.f32 [r40+4], r3\n"                              \
    "  st.global.u32 [r40+8], r10\n  exit\n"
#define CONSTS                                                                             \
    "  add.u32 r2, r0, c[8]\n  mov.f32 r5, 0f40000000\n"                                    \
    "  ffma.f32 r3, r5, c[12], 0f3F800000\n  lea.u64.u32 r6, c[16], r0, 2\n"                \
    "  sub.u64 r8, r6, c[16]\n"
#define LOADS                                                                              \
    "  ld.param.u32 r20, [8]\n  ld.param.f32 r21, [12]\n  ld.param.u64 r22, [16]\n"          \
    "  add.u32 r2, r0, r20\n  mov.f32 r5, 0f40000000\n"                                     \
    "  ffma.f32 r3, r5, r21, 0f3F800000\n  lea.u64.u32 r6, r22, r0, 2\n"                    \
    "  sub.u64 r8, r6, r22\n"

enum { THREADS = 64 };

/* Runs src's kernel k on THREADS threads of one CTA with the parameters above; out gets
 * the 3 * THREADS words. Returns the launch's cycles. */
static uint64_t run(EmuDevice *d, const char *src, uint32_t *out, EmuLaunchStats *st)
{
    EmuModule *m = t_load(d, src);
    Params p = {.a = 100, .b = 1.5f, .q = 0x123456789ull, .far = 7};
    cr_assert_eq(emu_malloc(d, sizeof(uint32_t) * 3 * THREADS, &p.out), EMU_OK);
    EmuFault f;
    EmuStatus s = emu_launch(d, m, emu_kernel(m, "k"), DIM(1, 1, 1), DIM(THREADS, 1, 1), 0,
                             &p, sizeof p, st, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    cr_assert_eq(emu_copy_from_device(d, out, p.out, sizeof(uint32_t) * 3 * THREADS), EMU_OK);
    return st->cycles;
}

static void expect_results(const uint32_t *out)
{
    for (uint32_t t = 0; t < THREADS; t++) {
        float f;
        memcpy(&f, &out[3 * t + 1], 4);
        cr_expect_eq(out[3 * t], t + 100, "thread %u: tid + a", t);
        cr_expect_eq(f, 4.0f, "thread %u: 2 b + 1", t);
        cr_expect_eq(out[3 * t + 2], 4 * t, "thread %u: (q + 4 tid) - q", t);
    }
}

Test(const_operands, read_the_parameters_in_any_slot_at_either_width)
{
    const char *modes[2] = {"functional", "timing"};
    for (int i = 0; i < 2; i++) {
        setenv("XGPU_MODE", modes[i], 1);
        unsetenv("XGPU_SET");
        unsetenv("XGPU_CONFIG");
        uint32_t a[3 * THREADS], b[3 * THREADS];
        EmuLaunchStats st;
        EmuDevice *d = t_dev();
        run(d, CONST_SRC(CONSTS), a, &st);
        run(d, CONST_SRC(LOADS), b, &st);
        expect_results(a);
        cr_expect_arr_eq(a, b, sizeof a, "%s: not the parameter loads' results", modes[i]);
        emu_destroy(d);
    }
}

Test(const_operands, past_the_parameters_is_refused_at_load)
{
    EmuDevice *d = t_dev();
    XGpubin *g = NULL;
    EmuModule *m = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(".kernel k\n.param 8\n  add.u32 r2, r3, c[4]\n"
                               "  lea.u64.u32 r4, c[8], r2, 2\n  exit\n",
                               &g, err, sizeof err),
                 0, "%s", err);
    cr_expect_neq(emu_load_module(d, g, &m, err, sizeof err), EMU_OK);
    cr_expect(strstr(err, "kernel k: pc 1: c[8] reads past the kernel's 8 parameter bytes"),
              "%s", err);
    xgpubin_free(g);
    emu_destroy(d);
}

/* What one clocked run gave. */
typedef struct Span {
    uint32_t clocks;           /* between the two clock reads */
    uint64_t cycles, operands, misses; /* the launch's cycles, const.operands, ..._misses */
} Span;

static uint64_t counter(const EmuDevice *d, const char *name)
{
    uint64_t v = 0;
    cr_assert_eq(emu_launch_counter(d, emu_launch_count(d) - 1, name, &v), EMU_OK,
                 "counter %s", name);
    return v;
}

/* One thread: the clock span of body with the memory system (its constant cache). */
static Span span(const char *set, const char *body)
{
    char src[2048];
    snprintf(src, sizeof src,
             ".kernel k\n.param 256\n"
             "  ld.param.u64 r40, [0]\n  mov.u32 r3, 3\n  add.u32 rz, r40, r3\n"
             "  s2r r0, %%clock\n%s  s2r r1, %%clock\n"
             "  st.global.u32 [r40], r0\n  st.global.u32 [r40+4], r1\n  exit\n",
             body);
    EmuDevice *d = tm_dev(set);
    EmuModule *m = t_load(d, src);
    Params p = {.far = 7};
    cr_assert_eq(emu_malloc(d, 8, &p.out), EMU_OK);
    EmuFault f;
    EmuLaunchStats st;
    cr_assert_eq(emu_launch(d, m, emu_kernel(m, "k"), DIM(1, 1, 1), DIM(1, 1, 1), 0, &p,
                            sizeof p, &st, &f),
                 EMU_OK, "%s", f.message);
    uint32_t clk[2];
    cr_assert_eq(emu_copy_from_device(d, clk, p.out, 8), EMU_OK);
    Span r = {clk[1] - clk[0], st.cycles, counter(d, "const.operands"),
              counter(d, "const.operand_misses")};
    emu_destroy(d);
    return r;
}

#define MEMSYS "gpu.sm_count=1;core.mem_latency=0;"

Test(const_operands, a_hit_costs_nothing_a_miss_waits_for_the_line_once)
{
    /* c[8] lies in the line the parameter load of the preamble brought */
    Span reg = span(MEMSYS, "  add.u32 r2, r3, r3\n  add.u32 r4, r2, r3\n");
    Span hit = span(MEMSYS, "  add.u32 r2, r3, c[8]\n  add.u32 r4, r2, c[8]\n");
    cr_expect_eq(hit.clocks, reg.clocks, "a hit: %u cycles, the register operands' %u",
                 hit.clocks, reg.clocks);
    cr_expect_eq(hit.operands, 2);
    cr_expect_eq(hit.misses, 0);
    cr_expect_eq(reg.operands, 0);
    /* c[200] is in the buffer's second line: the first read fetches it, the second hits */
    Span miss = span(MEMSYS, "  add.u32 r2, r3, c[200]\n  add.u32 r4, r2, c[200]\n");
    cr_expect_gt(miss.clocks, reg.clocks + 50, "a miss: %u cycles, against %u", miss.clocks,
                 reg.clocks);
    cr_expect_eq(miss.operands, 2);
    cr_expect_eq(miss.misses, 1);
    /* the miss's wait is the line's trip, as a parameter load's is (then one add's
     * latency against the load's write-back: a few cycles apart) */
    Span load = span(MEMSYS, "  ld.param.u32 r2, [200]\n  add.u32 r4, r2, r3\n");
    cr_expect_leq(miss.clocks, load.clocks + 8, "the operand's miss %u, a load's %u",
                  miss.clocks, load.clocks);
    cr_expect_geq(miss.clocks + 8, load.clocks, "the operand's miss %u, a load's %u",
                  miss.clocks, load.clocks);
}

Test(const_operands, idle_skipping_keeps_every_cycle)
{
    const char *body = "  add.u32 r2, r3, c[200]\n  ffma.f32 r4, r2, c[204], r2\n"
                       "  add.u32 r5, r4, c[8]\n";
    Span skip = span(MEMSYS "emu.skip_idle=true", body);
    Span tick = span(MEMSYS "emu.skip_idle=false", body);
    cr_expect_eq(skip.clocks, tick.clocks);
    cr_expect_eq(skip.cycles, tick.cycles);
    cr_expect_eq(skip.misses, 1);
    cr_expect_eq(tick.misses, 1);
}
