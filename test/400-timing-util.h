/*
 * 400-timing-util.h - helpers for the timing-core tests (4xx): a timing-mode device
 * configured by a XGPU_SET list, running an assembled kernel whose threads write 32-bit
 * words into one output buffer (parameter 0), and reading the launch's cycles and
 * counters. Cycle-exact tests read the SM clock (%clock is the issue cycle in timing
 * mode) around the instructions they time, as GPU microbenchmarks do.
 */
#ifndef XGPU_TEST_400_TIMING_UTIL_H
#define XGPU_TEST_400_TIMING_UTIL_H

#include <stdlib.h>
#include "300-emu-util.h"

/* Ideal memory (core.mem_latency) and one SM unless the test's list says otherwise. */
#define TM_BASE "gpu.sm_count=1;core.mem_latency=20;"

typedef struct TmRun {
    EmuStatus status;
    EmuFault fault;
    EmuLaunchStats st;
    uint32_t *out; /* nout words written by the kernel */
    EmuDevice *d;
} TmRun;

static inline EmuDevice *tm_dev(const char *set)
{
    setenv("XGPU_MODE", "timing", 1);
    setenv("XGPU_SET", set, 1);
    unsetenv("XGPU_CONFIG");
    return t_dev();
}

/* Runs kernel "k" of src on a fresh device; r->out holds nout words (zeroed first). */
static inline void tm_run(TmRun *r, const char *set, const char *src, EmuDim3 grid,
                          EmuDim3 block, size_t nout)
{
    memset(r, 0, sizeof *r);
    r->d = tm_dev(set);
    EmuModule *m = t_load(r->d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(r->d, nout * 4 + 4, &buf), EMU_OK);
    cr_assert_eq(emu_memset(r->d, buf, 0, nout * 4 + 4), EMU_OK);
    int k = emu_kernel(m, "k");
    cr_assert_geq(k, 0);
    r->status = emu_launch(r->d, m, k, grid, block, 0, &buf, 8, &r->st, &r->fault);
    r->out = calloc(nout + 1, 4);
    cr_assert_eq(emu_copy_from_device(r->d, r->out, buf, nout * 4), EMU_OK);
}

static inline uint64_t tm_ctr(const TmRun *r, const char *name)
{
    uint64_t v = 0;
    size_t i = emu_launch_count(r->d) - 1;
    cr_assert_eq(emu_launch_counter(r->d, i, name, &v), EMU_OK, "counter %s", name);
    return v;
}

static inline void tm_done(TmRun *r)
{
    free(r->out);
    emu_destroy(r->d);
}

/* A kernel that reaches the whole memory system: thread i of the grid writes
 * out[i] = in[(i * 7) % 4096] * 3 + i, where out is the buffer at parameter 0 and in
 * starts 8192 bytes into it (2048 threads). */
#define TM_GATHER_SRC                                                                      \
    ".kernel k\n.param 8\n"                                                                \
    "  s2r r0, %tid.x\n  s2r r1, %ctaid.x\n  s2r r2, %ntid.x\n  mul.u32 r3, r1, r2\n"        \
    "  add.u32 r3, r3, r0\n  ld.param.u64 r40, [0]\n"                                       \
    "  mul.u32 r4, r3, 7\n  and.u32 r4, r4, 4095\n  shl.u32 r4, r4, 2\n"                     \
    "  cvt.u64.u32 r6, r4\n  add.u64 r6, r6, r40\n  ld.global.u32 r8, [r6+8192]\n"          \
    "  mul.u32 r8, r8, 3\n  add.u32 r8, r8, r3\n"                                           \
    "  shl.u32 r15, r3, 2\n  cvt.u64.u32 r16, r15\n  add.u64 r16, r16, r40\n"               \
    "  st.global.u32 [r16], r8\n  exit\n"

/* A kernel whose CTAs record where they ran: out[ctaid.y * nctaid.x + ctaid.x] = %smid,
 * then a short loop so CTAs overlap. */
#define TM_SMID_SRC                                                                        \
    ".kernel k\n.param 8\n"                                                                \
    "  s2r r7, %smid\n  s2r r1, %ctaid.x\n  s2r r2, %ctaid.y\n  s2r r3, %nctaid.x\n"          \
    "  mul.u32 r2, r2, r3\n  add.u32 r1, r1, r2\n  shl.u32 r1, r1, 2\n"                     \
    "  ld.param.u64 r40, [0]\n  cvt.u64.u32 r8, r1\n  add.u64 r40, r40, r8\n"               \
    "  st.global.u32 [r40], r7\n  mov.u32 r3, 0\n"                                          \
    "loop:\n  add.u32 r3, r3, 1\n  set.lt.u32 r4, r3, 50\n  brc r4, loop, after\n"         \
    "after:\n  exit\n"

/* Kernel text: `body` between two clock reads; out[0], out[1] = the clocks. The
 * preamble's results are all written back before the first clock read (the add to rz
 * waits for the last of them and writes nothing), so the body runs in a quiet pipeline. */
static inline const char *tm_clocked(char *buf, size_t n, const char *body)
{
    snprintf(buf, n,
             ".kernel k\n.param 8\n"
             "  ld.param.u64 r40, [0]\n  mov.u32 r3, 3\n  mov.u32 r4, 4\n  mov.u32 r6, 6\n"
             "  mov.u32 r7, 7\n  mov.u32 r9, 9\n  mov.u32 r11, 11\n  mov.u32 r13, 13\n"
             "  mov.u32 r30, 0\n  mov.u32 r31, 0\n  add.u32 rz, r40, r31\n"
             "  s2r r0, %%clock\n%s  s2r r1, %%clock\n"
             "  st.global.u32 [r40], r0\n  st.global.u32 [r40+4], r1\n  exit\n",
             body);
    return buf;
}

/* Cycles between the two clock reads of a one-thread tm_clocked kernel. */
static inline uint32_t tm_clock_span(const char *set, const char *body)
{
    char src[4096];
    TmRun r;
    tm_run(&r, set, tm_clocked(src, sizeof src, body), DIM(1, 1, 1), DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    uint32_t span = r.out[1] - r.out[0];
    tm_done(&r);
    return span;
}

#endif
