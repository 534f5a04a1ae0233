/*
 * 500-mem-util.h - helpers for the memory-system tests (5xx): a configuration from the
 * defaults plus "key=value;..." overrides, a memory system with one LD/ST unit per SM,
 * warp accesses, and a clock loop that ticks every unit each cycle (or jumps to the next
 * event) until an access completes. Every helper asserts on failure.
 */
#ifndef XGPU_TEST_500_MEM_UTIL_H
#define XGPU_TEST_500_MEM_UTIL_H

#include <criterion/criterion.h>
#include <string.h>
#include "config/config.h"
#include "timing/ldst.h"
#include "timing/memsys.h"
#include "timing/timing.h"

/* Core and DRAM clocks equal, so DRAM timings read directly as core cycles. */
#define T_SAME_CLOCKS "gpu.clock_khz=1000000;dram.clock_khz=1000000"

/* The one GPU of a one-GPU system (its address range, for ldst_connect). */
static const EmuProps t_gpu0 = {.gpus = 1, .global_base = XGPU_GLOBAL_BASE,
                                .global_limit = XGPU_PARAM_BASE};

static inline EmuConfig t_cfg(const char *sets)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    if (sets)
        cr_assert_eq(emu_config_set_list(&c, sets, "test", err, sizeof err), 0, "%s", err);
    return c;
}

typedef struct TMem {
    EmuConfig cfg;
    TmCounters ctr;
    MemSys *m;
    LdSt *u[16];
    struct EmuUvm *uvm;  /* managed pages (t_mem_open_uvm), or NULL */
    unsigned nsm;
    Cycle now;
} TMem;

/* Opens the units with the device's managed pages uvm (NULL: none). */
static inline void t_mem_open_uvm(TMem *t, const char *sets, struct EmuUvm *uvm)
{
    char err[256] = "";
    memset(t, 0, sizeof *t);
    t->uvm = uvm;
    t->cfg = t_cfg(sets);
    t->m = memsys_new(&t->cfg, &t->ctr, err, sizeof err);
    cr_assert(t->m, "memsys_new: %s", err);
    t->nsm = t->cfg.gpu_sm_count < 16 ? t->cfg.gpu_sm_count : 16;
    for (unsigned i = 0; i < t->nsm; i++) {
        t->u[i] = ldst_new(&t->cfg, i, &t->ctr, err, sizeof err);
        cr_assert(t->u[i], "ldst_new: %s", err);
        ldst_connect(t->u[i], t->m, t->uvm, &t_gpu0);
    }
}

static inline void t_mem_open(TMem *t, const char *sets)
{
    t_mem_open_uvm(t, sets, NULL);
}

static inline void t_mem_close(TMem *t)
{
    for (unsigned i = 0; i < t->nsm; i++)
        ldst_free(t->u[i]);
    memsys_free(t->m);
}

/* A memory system alone (no LD/ST units), for tests that send its requests themselves;
 * the configuration must pass emu_config_check. */
typedef struct TMemSys {
    EmuConfig cfg;
    TmCounters ctr;
    MemSys *m;
    Cycle now;
} TMemSys;

static inline void t_memsys_open(TMemSys *s, const char *sets)
{
    char err[256] = "";
    memset(s, 0, sizeof *s);
    s->cfg = t_cfg(sets);
    cr_assert_eq(emu_config_check(&s->cfg, err, sizeof err), 0, "%s", err);
    s->m = memsys_new(&s->cfg, &s->ctr, err, sizeof err);
    cr_assert(s->m, "%s", err);
}

/* One cycle of every unit, in the device's order: memory system, then the SMs. */
static inline void t_mem_tick(TMem *t)
{
    memsys_tick(t->m, t->now);
    for (unsigned i = 0; i < t->nsm; i++)
        ldst_tick(t->u[i], t->now);
}

/* Ticks cycle by cycle until SM sm reports access tag complete; returns that cycle. */
static inline Cycle t_wait(TMem *t, unsigned sm, uint64_t tag)
{
    for (Cycle limit = t->now + 100000; t->now < limit; t->now++) {
        t_mem_tick(t);
        uint64_t got;
        while (ldst_done(t->u[sm], &got, t->now)) {
            if (got == tag)
                return t->now;
        }
    }
    cr_assert_fail("access %llu never completed", (unsigned long long)tag);
    return 0;
}

/* Ticks until nothing is in flight anywhere. */
static inline void t_drain(TMem *t)
{
    for (Cycle limit = t->now + 100000; t->now < limit; t->now++) {
        t_mem_tick(t);
        uint64_t got;
        int idle = memsys_idle(t->m);
        for (unsigned i = 0; i < t->nsm; i++) {
            while (ldst_done(t->u[i], &got, t->now))
                ;
            idle &= ldst_idle(t->u[i]);
        }
        if (idle)
            return;
    }
    cr_assert_fail("memory system never drained");
}

/* A cold read miss of n sectors on an idle system with equal clocks (T_SAME_CLOCKS):
 *   icnt + l2 + tRCD + tCL + n*burst + dram.latency + icnt + (n - 1)   (empty DRAM bank)
 * and without the tRCD when the DRAM row is already open. */
static inline Cycle t_miss_latency(const EmuConfig *c, unsigned n, int row_open)
{
    return 2 * c->icnt_latency + c->l2_latency + (row_open ? 0 : c->dram_trcd) + c->dram_tcl +
           n * c->dram_burst_cycles + c->dram_latency + (n - 1);
}

/* A warp access: lane l at base + l * stride (all lanes active). */
static inline TmAccess t_acc(TmSpace space, TmKind kind, unsigned size, uint64_t base,
                             uint64_t stride)
{
    TmAccess a;
    memset(&a, 0, sizeof a);
    a.space = (uint8_t)space, a.kind = (uint8_t)kind, a.size = (uint8_t)size;
    a.mask = 0xffffffffu;
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = base + l * stride;
    return a;
}

/* The next number of a test's deterministic random sequence (state *x). */
static inline uint64_t t_next(uint64_t *x)
{
    return *x = *x * 6364136223846793005ull + 1442695040888963407ull;
}

/* The shape of random test t: an access of space of 1 to 16 bytes per lane by all lanes
 * (every fourth test) or random ones, and in *out_span the span its lane offsets are
 * drawn from (span[t % 3]); the caller draws the offsets. */
static inline TmAccess t_random_access(TmSpace space, uint64_t *x, int t, const uint64_t span[3],
                                       uint64_t *out_span)
{
    static const unsigned sizes[] = {1, 2, 4, 8, 16};
    TmAccess a = t_acc(space, TM_READ, 4, 0, 0);
    uint64_t r = t_next(x);
    a.size = (uint8_t)sizes[(r >> 33) % 5];
    a.mask = t % 4 == 0 ? ~0u : (uint32_t)(r >> 7);
    *out_span = span[t % 3];
    return a;
}

/* A whole-line read: 32 lanes reading consecutive words from line (four sectors). */
static inline TmAccess t_line_read(uint64_t line)
{
    return t_acc(TM_GLOBAL, TM_READ, 4, line, 4);
}

/* Issues a at the current cycle (which must accept it). */
static inline void t_issue(TMem *t, unsigned sm, const TmAccess *a, uint64_t tag)
{
    cr_assert_eq(ldst_issue(t->u[sm], a, tag, t->now), 0, "issue refused at %llu",
                 (unsigned long long)t->now);
}

/* Issue, then run until done: returns the latency (done - issue). */
static inline Cycle t_latency(TMem *t, unsigned sm, const TmAccess *a, uint64_t tag)
{
    Cycle start = t->now;
    t_issue(t, sm, a, tag);
    return t_wait(t, sm, tag) - start;
}

#endif
