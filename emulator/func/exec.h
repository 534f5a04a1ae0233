/*
 * exec.h - the functional core's pre-decoded instructions, warp state, launch context,
 * and the macro DSL in which instruction semantics are written.
 *
 * Decoding (decode.c) turns each kernel's XInsn array into a flat EmuInsn array once, at
 * load: register numbers become register-file rows (RZ reads a zero row pair and writes
 * a sink row pair, so handlers never test for it), gaddr becomes a 64-bit mov of the
 * symbol's absolute address, and each plain instruction gets the handler specialised for
 * its opcode, type and immediate form. Control instructions (bra, brc, exit, bar, barred,
 * trap) are executed by the warp loop in launch.c.
 *
 * Registers are stored lane-contiguous: row r of a warp is uint32_t[32], lane l's copy of
 * register r is r[row][l]. A 64-bit value lives in rows (row, row+1), low word first.
 *
 * The DSL (exec_alu.c, exec_mem.c): a handler is `int fn(EXEC_ARGS)`; LANES { ... } runs
 * its body once per active lane with `l` the lane number; R32(row) is lane l's 32-bit
 * register, r64/w64 read and write pairs. A handler returns 0, or EXEC_FAULT after
 * emu_exec_fault() described the problem.
 */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

#include <stdint.h>
#include <string.h>
#include "xgpu/emu.h"
#include "func/memory.h"
#include "timing/timing.h"

typedef struct EmuExec EmuExec;
typedef struct EmuWarp EmuWarp;
typedef struct EmuInsn EmuInsn;

#define EXEC_ARGS EmuExec *x, EmuWarp *w, const EmuInsn *in, uint32_t mask
typedef int (*EmuExecFn)(EXEC_ARGS);

enum { EXEC_NEXT = 0, EXEC_FAULT = 1 };

/* What the warp loop does with an instruction. */
typedef enum EmuKind {
    EK_PLAIN, /* call fn, go to pc + 1 */
    EK_BRA,   /* unconditional branch */
    EK_BRC,   /* conditional branch, may diverge */
    EK_EXIT,  /* active lanes finish */
    EK_BAR,   /* block-wide barrier */
    EK_BARRED,/* block-wide barrier with a predicate reduction (barred) */
    EK_TRAP,  /* launch failure */
    EK_WSYNC, /* warp barrier (__syncwarp) */
} EmuKind;

struct EmuInsn {
    EmuExecFn fn;       /* EK_PLAIN handler */
    uint16_t d, s0, s1, s2; /* register rows (RZ mapped, see file comment) */
    uint16_t d1, s3;    /* second destination, fourth source (shfl) */
    uint16_t s4, s5;    /* fifth and sixth sources (hmma) */
    uint8_t kind;       /* EmuKind */
    uint8_t op, type, type2, mod, flags, sub;
    int64_t imm;
    uint32_t target, reconv;
};

/* One kernel, decoded. */
typedef struct EmuKernelCode {
    EmuInsn *code;
    uint32_t count;
    uint32_t nrows; /* register-file rows per warp, zero, sink and constant rows included */
    uint32_t grid_sync; /* the kernel has a grid-wide barrier (gsync) */
    /* Constant rows: the last nkonst rows hold, in every lane, the parameter buffer's
     * 32-bit word at byte offset konst[i] (emu_cta_start fills them); the sources of
     * XF_CONST operands read them (a 64-bit operand two consecutive rows). */
    uint32_t *konst;
    uint32_t nkonst;
} EmuKernelCode;

/* One SIMT stack entry: lanes `mask` run from pc until pc == rpc. */
typedef struct EmuSimt {
    uint32_t pc, rpc, mask;
    uint32_t spins; /* emu.simt = its: backward branches in a row (exec_ctrl.c) */
    uint32_t synced; /* its: the path waits at a __syncwarp (wsync) for its siblings */
} EmuSimt;

typedef enum EmuWarpState { EW_RUN, EW_BARRIER, EW_DONE } EmuWarpState;

struct EmuWarp {
    uint32_t (*r)[32];  /* nrows rows */
    EmuSimt *stack;
    uint32_t depth, cap;
    uint32_t id;        /* warp within the CTA */
    uint32_t state;     /* EmuWarpState */
    uint32_t bar_id;    /* barrier waited at (EW_BARRIER) */
    uint32_t bar_pc;    /* pc of the barrier instruction waited at */
    uint32_t bar_red;   /* 0: bar; 1 + XRed: barred */
    uint32_t bar_mask;  /* lanes that arrived (barred) */
    uint32_t bar_count; /* of them, lanes whose predicate is true (barred) */
    uint32_t bar_dst;   /* result row (barred) */
    uint64_t clock;     /* instructions this warp executed (functional clock) */
    struct EmuReuseTrack *prof; /* reuse profiling of this warp (reuse_prof.c), or NULL */
};

/* The device's printf FIFO (emu.printf_fifo_bytes): formatted text waiting for
 * emu_printf_flush. Records that do not fit whole are dropped and counted. */
typedef struct EmuPrintf {
    char *buf;
    uint64_t len, cap, limit; /* bytes held, allocated, allowed */
} EmuPrintf;

/* emu.memcheck, as EmuExec.memcheck. */
enum { EMU_MEMCHECK_ON, EMU_MEMCHECK_WARN, EMU_MEMCHECK_OFF };

#define EMU_LOCAL_MAX (512u * 1024) /* local bytes per thread (CUDA's limit) */
#define EMU_GHITS 4 /* global allocations the handlers remember (EmuExec.gbase, .gprev) */

/* Timing mode: the global stores and atomics one SM issued in the cycle being simulated,
 * in issue order (exec_mem.c appends, emu_wlog_commit applies and empties). Records are
 * EmuWlRec headers, a store's bytes after its header. */
typedef struct EmuWlog {
    uint8_t *buf;
    size_t len, cap;
    int lost;            /* host memory ran out: a record was dropped */
    /* told of every record's n bytes at device address addr before (after = 0) and after
     * (1) it is applied, or NULL (a device of several GPUs with caches of their own,
     * timing/stale.h) */
    void (*watch)(void *ctx, uint64_t addr, unsigned n, int after);
    void *watch_ctx;
} EmuWlog;

/* What a global load sees when it is not memory (a GPU's stale copies, timing/stale.h):
 * read puts n bytes at device address addr into out and returns 1 when the view has
 * them; it is asked only while *live is not 0. */
typedef struct EmuView {
    int (*read)(const struct EmuView *v, uint64_t addr, unsigned n, void *out);
    const size_t *live;
    const void *ctx;
    unsigned who;
    const uint64_t *now;  /* the cycle */
} EmuView;

/* Everything a handler may touch during a launch. */
struct EmuExec {
    struct EmuDevice *dev;
    const struct EmuModule *mod;
    const XKernel *kern;
    EmuMem *mem;
    const EmuInsn *code;
    uint32_t code_count;
    const uint8_t *param;
    uint64_t param_size;
    const uint32_t *konst; /* the kernel's constant rows (EmuKernelCode), the first at */
    uint32_t nkonst, krow; /* row krow */
    uint8_t *shared;
    uint64_t shared_size;
    uint8_t *local;       /* nthreads * local_size bytes */
    uint64_t local_size;  /* per thread */
    EmuDim3 grid, block, ctaid;
    uint32_t nwarps, sm_count;
    uint64_t winsns, tinsns, budget;
    uint64_t stop;        /* winsns at which the warp loops call emu_exec_checkpoint:
                           * the budget, or earlier for the progress line */
    uint64_t ctas, ctas_done; /* CTAs of the grid, and finished (functional progress) */
    int progress;         /* functional mode: a progress line is wanted */
    uint64_t next_progress; /* winsns of the next progress call */
    uint64_t quantum;     /* functional mode: emu.quantum (0: a warp runs until it blocks) */
    uint64_t slice_end;   /* winsns at which the running warp's quantum ends */
    int yield;            /* the running warp's quantum is over */
    /* the last global allocation hit, and before it the EMU_GHITS - 1 others most
     * recently hit, most recent first (valid for the whole launch: nothing is freed
     * during one) */
    uint64_t gbase, gsize;
    uint8_t *ghost;
    struct { uint64_t base, size; uint8_t *host; } gprev[EMU_GHITS - 1];
    /* device printf: the FIFO, and this launch's appended / dropped bytes */
    EmuPrintf *pf;
    uint64_t pf_bytes, pf_dropped;
    /* the CTA whose shared/local buffers and ctaid are bound above (emu_exec_bind) */
    struct EmuCta *cta;
    /* timing mode: the SM cycle counter read by %clock and the CTA's SM (%smid); NULL
     * in functional mode, where %clock counts the warp's instructions */
    const uint64_t *now;
    uint32_t smid;
    /* reuse profiling of this launch (reuse_prof.c), or NULL */
    struct EmuReuseRun *reuse;
    /* memcheck: EMU_MEMCHECK_*, invalid accesses let through (warn, off), and the bytes
     * such an access reads (zeroed each time) and writes (dropped) */
    uint32_t memcheck;
    uint64_t bad_accesses;
    uint64_t *bad_seen;   /* unused (the timing model still points it at a counter of its
                           * own): each context keeps its own first access, below */
    /* emu.memcheck = warn: the first invalid access this context let through, as the
     * report emu_memcheck_end prints, and the cycle it happened in (timing mode: each
     * SM's context has its own, and the launch's first is the earliest, lowest SM first:
     * emu_memcheck_take) */
    EmuFault bad_first;
    uint64_t bad_cycle;
    /* emu.simt = its: a divergent path that branched backward emu.its_spin times in a row
     * yields (exec_ctrl.c); 0 with ipdom */
    uint32_t its_spin;
    /* the grid barrier: the kernel has one (all its CTAs are resident), and the CTAs
     * waiting at it (EmuCta.grid_wait) */
    uint32_t grid_sync;
    uint64_t grid_waiting;
    uint8_t scratch[16];
    /* timing mode: where global stores and atomics go until the end of the cycle
     * (emu_wlog_commit); NULL in functional mode, where they happen at once */
    EmuWlog *wlog;
    /* timing mode: the view global loads read through, or NULL (memory as it is) */
    const EmuView *view;
    /* fault being reported (space, access: EmuSpace, EmuAccess of a memory fault) */
    EmuStatus fstatus;
    uint32_t flane;
    uint64_t faddr;
    uint8_t fspace, faccess;
    uint32_t fsize;
    char fmsg[256];
};

int emu_exec_fault(EmuExec *x, EmuStatus s, unsigned lane, uint64_t addr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* reuse_prof.c: Memento reuse profiling. begin returns NULL when the launch is not
 * profiled; track gives warp `warp` of CTA ctaid its tracker, or NULL; note records the
 * instruction at pc before it executes; warp_done flushes an exited warp. */
typedef struct EmuReuseRun EmuReuseRun;
typedef struct EmuReuseTrack EmuReuseTrack;
EmuReuseRun *emu_reuse_begin(EmuDevice *d, const EmuModule *m, int kernel, EmuDim3 grid,
                             uint32_t nwarps);
EmuReuseTrack *emu_reuse_track(EmuExec *x, EmuDim3 ctaid, uint32_t warp);
void emu_reuse_note(EmuExec *x, EmuWarp *w, uint32_t pc);
void emu_reuse_warp_done(EmuExec *x, EmuWarp *w);
void emu_reuse_end(EmuReuseRun *r);

/* Host pointer for generic address a and the bytes readable from there to the end of its
 * allocation or window (*avail); NULL, without a fault, when a is not readable. */
const uint8_t *emu_exec_span(EmuExec *x, const EmuWarp *w, uint64_t a, unsigned lane,
                             uint64_t *avail);

/* memcheck.c. emu_mem_bad is the slow path of an access of `size` bytes at address a of
 * space `space` (as the instruction `in` formed them; store: 0 load, 1 store, 2 atomic)
 * that failed a check of exec_mem.c: it describes the access (the fault fields of x).
 * With emu.memcheck = on, or for a misaligned access, that is a fault: NULL. With warn
 * or off the access is counted (warn reports the first of the launch on stderr) and the
 * handler gets x->scratch, zeroed: reads return 0, writes are dropped. */
uint8_t *emu_mem_bad(EmuExec *x, const EmuWarp *w, const EmuInsn *in, unsigned space,
                     uint64_t a, unsigned size, int store, unsigned lane);
/* Records, as a fault whatever emu.memcheck says, why the read of `size` bytes at
 * generic address a cannot be made, the message starting with `what` (printf's reads).
 * Returns EXEC_FAULT. */
int emu_mem_fault(EmuExec *x, const EmuWarp *w, uint64_t a, unsigned size, unsigned lane,
                  const char *what);
/* At the end of a launch with emu.memcheck = warn: the report of the first invalid
 * access (once per launch), then "N more invalid accesses" when there were more. */
void emu_memcheck_end(const EmuExec *x);
/* Timing mode, at the end of a launch: the first invalid access an SM's context y let
 * through becomes the launch's (x's) when it happened before x's, in cycles; SMs are
 * taken in SM order, so of one cycle's the lowest SM's stays, as when the SMs tick on
 * one thread. Counts nothing (the caller sums bad_accesses). */
void emu_memcheck_take(EmuExec *x, const EmuExec *y);

/* launch.c: x->winsns reached x->stop. Returns 1 when that is the budget (the caller
 * reports the timeout with emu_exec_timeout), else prints progress when due, sets
 * x->yield when the running warp's quantum is over, and moves x->stop on. */
int emu_exec_checkpoint(EmuExec *x);
/* Sets x->stop, the first checkpoint of a launch (before its first instruction). */
void emu_exec_init_stop(EmuExec *x);
/* Fills the timeout fault: "kernel K exceeded emu.max_warp_insns = N ...". */
void emu_exec_timeout(EmuExec *x, unsigned lane);

/* Applies log's stores and atomics in order (each atomic's old value goes to its
 * destination register) and empties it; -1 when a record had been lost (host memory). */
int emu_wlog_commit(EmuWlog *log);
void emu_wlog_free(EmuWlog *log);

/* Appends n bytes of output to the printf FIFO (exec_printf.c): whole or not at all. */
void emu_printf_append(EmuExec *x, const char *s, size_t n);

/* SIMT stack (exec_ctrl.c). The top entry is the running one; its pc is the warp's pc. */
int emu_simt_push(EmuWarp *w, uint32_t pc, uint32_t rpc, uint32_t mask);
/* Executes brc at the top entry's pc. Returns 0, or -1 when the stack cannot grow. */
int emu_simt_brc(EmuWarp *w, const EmuInsn *in);
/* Removes `lanes` from every entry (exit). */
void emu_simt_exit(EmuWarp *w, uint32_t lanes);
/* Pops entries that are empty or have reached their reconvergence pc. */
void emu_simt_settle(EmuWarp *w);
/* Executes control instruction `in` (bra, brc, exit, bar, barred, trap) at pc for the
 * lanes in mask: SIMT stack, barrier arrival (the warp becomes EW_BARRIER, or EW_DONE if
 * no lanes are left), faults. Shared by the functional loop and the timing step. */
EmuStatus emu_exec_ctrl(EmuExec *x, EmuWarp *w, const EmuInsn *in, uint32_t pc, uint32_t mask);

#define EMU_BARRIERS 16 /* barrier ids 0..15 */
#define EMU_GRID_BAR EMU_BARRIERS /* gsync's: the grid-wide barrier */

/* --- CTAs and single steps (cta.c, step.c) --------------------------------------------
 * A CTA's execution state: its warps, registers, shared and local memory. Functional
 * mode runs one at a time; the timing model keeps one per resident CTA and binds the
 * CTA of the warp it steps into the EmuExec (the handlers read x->shared, x->local and
 * x->ctaid). */
typedef struct EmuCta {
    EmuWarp *warps;         /* x->nwarps */
    uint32_t (*regs)[32];   /* nwarps * nrows rows */
    size_t reg_bytes;
    uint8_t *shared;        /* x->shared_size bytes */
    uint8_t *local;         /* nthreads * x->local_size bytes */
    uint32_t nthreads, nrows;
    uint64_t local_hwm;     /* bytes of each thread's frame that may be non-zero */
    EmuDim3 ctaid;
    uint32_t smid;          /* timing mode: the SM it runs on */
    uint32_t grid_wait;     /* every unfinished warp waits at the grid barrier */
} EmuCta;

/* The grid barrier: CTAs whose warps all wait at it are counted in x->grid_waiting
 * (emu_cta_sync); once every CTA of the grid that has not finished waits, the launch
 * releases each (emu_grid_release). */
void emu_grid_release(EmuExec *x, EmuCta *c);
/* CTAs of kernel k the device holds at once (the timing model's CTA scheduler's rule:
 * threads, registers, shared memory, core.max_ctas_per_sm, per SM, times the SMs). A
 * kernel with a grid barrier may not have more (the co-residency a cooperative launch
 * needs). */
uint64_t emu_grid_capacity(const struct EmuDevice *d, const XKernel *k, uint32_t nwarps,
                           uint64_t shared);
/* Why a launch could not run for want of host memory: "out of host memory for N CTAs of
 * T threads (L bytes of local memory per thread)", N the CTAs held at once. */
void emu_oom_message(const EmuExec *x, uint64_t nctas, char *buf, size_t n);
/* Functional mode: runs the grid x describes (kernel k of m, nrows register rows per
 * warp) to the end or the first fault, which it describes in *fault. */
EmuStatus emu_func_run(EmuExec *x, const EmuModule *m, const XKernel *k, uint32_t nrows,
                       EmuFault *fault);

EmuStatus emu_cta_alloc(EmuCta *c, const EmuExec *x, uint32_t nrows);
void emu_cta_free(EmuCta *c, const EmuExec *x);
/* Zeroes registers, shared and local memory and starts every warp at pc 0. */
void emu_cta_start(EmuExec *x, EmuCta *c, EmuDim3 ctaid);

static inline void emu_exec_bind(EmuExec *x, EmuCta *c)
{
    x->cta = c;
    x->shared = c->shared;
    x->local = c->local;
    x->ctaid = c->ctaid;
    x->smid = c->smid;
}

/* Records warp w's arrival at the barrier instruction `in` at pc with lanes mask. */
void emu_bar_arrive(EmuWarp *w, const EmuInsn *in, uint32_t pc, uint32_t mask);
/* Once no warp of the CTA can run: releases the barrier (returns EMU_OK, *released = 1)
 * when every unfinished warp waits at the same one, reports EMU_ERR_DEADLOCK (*fw = a
 * waiting warp) when they disagree; EMU_OK and *released = 0 while a warp still runs or
 * when every warp finished. */
EmuStatus emu_cta_sync(EmuExec *x, EmuCta *c, EmuWarp **fw, int *released);
/* Appends to out the unfinished warps of c grouped by pc and activity. */
void emu_cta_describe(const EmuExec *x, const EmuCta *c, const EmuWarp *running, char *out,
                      size_t n);

/* What one step executed, for the timing model. */
#define EMU_STEP_MAXACC 4
typedef struct EmuStep {
    uint32_t pc;            /* pc of the instruction executed */
    const EmuInsn *in;      /* that instruction */
    uint32_t mask;          /* lanes that executed it */
    uint32_t nacc;          /* memory instructions (with capture on): one per space */
    TmAccess acc[EMU_STEP_MAXACC];
} EmuStep;

/* Executes the instruction at warp w's pc exactly as the functional loop does (same
 * handlers, SIMT stack, barrier arrival, counters, budget and faults). w must be EW_RUN.
 * With capture set, a memory instruction (ld, st, atom, atomcas) also reports its
 * per-lane accesses in st->acc. Returns EMU_OK or the fault's status. */
EmuStatus emu_warp_step(EmuExec *x, EmuCta *c, EmuWarp *w, int capture, EmuStep *st);

/* --- the DSL -------------------------------------------------------------------------- */

#define LANES                                                                          \
    for (uint32_t m_ = mask; m_; m_ &= m_ - 1)                                         \
        for (unsigned l = (unsigned)__builtin_ctz(m_), once_ = 1; once_; once_ = 0)
#define R32(row) (w->r[(row)][l])

#define EMU_FULL_MASK 0xffffffffu

/* The fast form of a handler (exec_alu.c, exec_mem.c). OPERANDS copies the register
 * array and the instruction's row numbers and immediate into locals: the build uses
 * -fno-strict-aliasing, so with them in memory every store to a row would make the
 * compiler reload them. MAP(DT, OLD, STORE, body) runs body, which sets D (of type DT)
 * for lane l, and then STORE, for every active lane. With a full mask it computes every
 * lane into a local array first (a loop the compiler vectorizes, since nothing it stores
 * can alias a row) and then stores them all; that is the same as lane by lane because a
 * lane reads and writes only its own column. With a 32-bit result and more than
 * EMU_SPARSE_LANES active lanes it does the same and then stores, in the inactive lanes,
 * the destination's current value OLD (a blend; bodies are pure functions of the
 * registers, so computing an inactive lane has no effect). Otherwise it goes lane by
 * lane (for a 64-bit result, split over two rows, the blend costs more than it saves). */
#define EMU_SPARSE_LANES 4
typedef uint32_t (*EmuRows)[32];

/* Lane l's 64-bit register pair (row, row + 1, low word first) in rows r: the hoisted
 * rows of OPERANDS, or a warp's (r64, w64 below). */
static inline uint64_t rr64(EmuRows r, unsigned row, unsigned l)
{
    return r[row][l] | (uint64_t)r[row + 1][l] << 32;
}

static inline void rw64(EmuRows r, unsigned row, unsigned l, uint64_t v)
{
    r[row][l] = (uint32_t)v;
    r[row + 1][l] = (uint32_t)(v >> 32);
}

/* EMU_HOT marks a handler compiled twice, for baseline x86-64 and for x86-64-v3 (AVX2,
 * FMA, BMI2, LZCNT, POPCNT), the dynamic loader choosing by the CPU (target_clones, an
 * ifunc): the build stays portable and a recent host gets vector lane loops and inline
 * FMA. The two give the same bits: every operation is integer or IEEE, fmaf is fused in
 * both, and the build never contracts a*b+c (-ffp-contract=off). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define EMU_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EMU_HOT
#endif
#define OPERANDS                                                                       \
    EmuRows const R = w->r;                                                            \
    const unsigned d = in->d, s0 = in->s0, s1 = in->s1, s2 = in->s2;                   \
    const int64_t imm = in->imm;                                                       \
    (void)R; (void)d; (void)s0; (void)s1; (void)s2; (void)imm
#define MAP(DT, OLD, STORE, ...)                                                       \
    do {                                                                               \
        if (mask == EMU_FULL_MASK ||                                                   \
            (sizeof(DT) == 4 && __builtin_popcount(mask) > EMU_SPARSE_LANES)) {        \
            DT out_[XGPU_WARP_SIZE];                                                   \
            for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {                            \
                DT D;                                                                  \
                __VA_ARGS__;                                                           \
                out_[l] = D;                                                           \
            }                                                                          \
            if (mask == EMU_FULL_MASK) {                                               \
                for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {                        \
                    DT D = out_[l];                                                    \
                    STORE;                                                             \
                }                                                                      \
            } else {                                                                   \
                for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {                        \
                    DT D = (mask >> l & 1) ? out_[l] : (DT)(OLD);                      \
                    STORE;                                                             \
                }                                                                      \
            }                                                                          \
        } else {                                                                       \
            LANES {                                                                    \
                DT D;                                                                  \
                __VA_ARGS__;                                                           \
                STORE;                                                                 \
            }                                                                          \
        }                                                                              \
    } while (0)

static inline uint64_t r64(const EmuWarp *w, unsigned row, unsigned l)
{
    return rr64(w->r, row, l);
}

static inline void w64(EmuWarp *w, unsigned row, unsigned l, uint64_t v)
{
    rw64(w->r, row, l, v);
}

/* PAIR_MAP(body): MAP for a 64-bit result computed as two 32-bit words: body sets lo and
 * hi for lane l, which go to rows d and d + 1. Kept in 32-bit words, the lanes vectorize
 * twice as wide as 64-bit values do and a partial mask is a blend of each row. */
#define PAIR_MAP(...)                                                                  \
    do {                                                                               \
        if (mask == EMU_FULL_MASK || __builtin_popcount(mask) > EMU_SPARSE_LANES) {    \
            uint32_t lo_[XGPU_WARP_SIZE], hi_[XGPU_WARP_SIZE];                         \
            for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {                            \
                uint32_t lo, hi;                                                       \
                __VA_ARGS__;                                                           \
                lo_[l] = lo, hi_[l] = hi;                                              \
            }                                                                          \
            if (mask == EMU_FULL_MASK) {                                               \
                memcpy(R[d], lo_, sizeof lo_);                                         \
                memcpy(R[d + 1], hi_, sizeof hi_);                                     \
            } else {                                                                   \
                for (unsigned l = 0; l < XGPU_WARP_SIZE; l++)                          \
                    R[d][l] = (mask >> l & 1) ? lo_[l] : R[d][l];                      \
                for (unsigned l = 0; l < XGPU_WARP_SIZE; l++)                          \
                    R[d + 1][l] = (mask >> l & 1) ? hi_[l] : R[d + 1][l];              \
            }                                                                          \
        } else {                                                                       \
            LANES {                                                                    \
                uint32_t lo, hi;                                                       \
                __VA_ARGS__;                                                           \
                R[d][l] = lo, R[d + 1][l] = hi;                                        \
            }                                                                          \
        }                                                                              \
    } while (0)

/* Handler selection, one function per opcode, generated from isa.def: fills o->fn (and
 * o->kind) for the instruction's type and form; -1 when the combination is not valid. */
#define XOP(name, unit, ndst, nsrc, flags, desc) int emu_pick_##name(const XInsn *xi, EmuInsn *o);
#include "xgpu/isa.def"

#endif
