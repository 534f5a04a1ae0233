/*
 * 420-units.c - execution units: an independent instruction for a busy unit waits for
 * its initiation interval (the sfu and fp64 pipes), and the wait is counted as
 * stall.unit_busy; different units do not block each other.
 */
#include "400-timing-util.h"

static uint32_t span_of(const char *set, const char *body, uint64_t *busy)
{
    char src[4096];
    TmRun r;
    tm_run(&r, set, tm_clocked(src, sizeof src, body), DIM(1, 1, 1), DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    uint32_t span = r.out[1] - r.out[0];
    *busy = tm_ctr(&r, "stall.unit_busy");
    tm_done(&r);
    return span;
}

Test(units, sfu_initiation_interval)
{
    const char *two = "  fsqrt.f32 r2, r3\n  fsqrt.f32 r5, r6\n";
    for (unsigned ii = 1; ii <= 9; ii += 4) {
        char set[256];
        uint64_t busy;
        snprintf(set, sizeof set, TM_BASE "unit.sfu.ii=%u", ii);
        /* first at 1, dispatched at 2; the second issues when the unit takes it the next
         * cycle: at 1 + ii; the clock read after it */
        uint32_t span = span_of(set, two, &busy);
        cr_expect_eq(span, 2 + ii, "ii %u: %u", ii, span);
        cr_expect_eq(busy, ii - 1, "ii %u: busy %llu", ii, (unsigned long long)busy);
    }
}

Test(units, fp64_initiation_interval_and_latency)
{
    /* one pair source each: read in one cycle (banks 0 and 1) */
    uint64_t busy;
    uint32_t span = span_of(TM_BASE "unit.dp.ii=4", "  fneg.f64 r20, r22\n  fneg.f64 r26, r24\n",
                            &busy);
    cr_expect_eq(span, 2 + 4, "%u", span);
    span = span_of(TM_BASE "unit.dp.latency=8", "  fneg.f64 r20, r22\n  fneg.f64 r26, r20\n",
                   &busy);
    cr_expect_eq(span, 2 + 8, "dependent fp64: %u", span);
}

Test(units, collectors_absorb_a_busy_unit_behind_slow_operand_reads)
{
    /* two pair sources (4 registers, 2 banks) take two read cycles: the second fadd
     * issues before the first has dispatched, waits in its collector, and the clock
     * read behind it issues at once */
    uint64_t busy;
    uint32_t span = span_of(TM_BASE "unit.dp.ii=9",
                            "  fadd.f64 r20, r22, r24\n  fadd.f64 r26, r22, r24\n", &busy);
    cr_expect_eq(span, 3, "%u", span);
}

Test(units, different_units_do_not_block)
{
    uint64_t busy;
    uint32_t span = span_of(TM_BASE "unit.sfu.ii=8",
                            "  fsqrt.f32 r2, r3\n  add.u32 r5, r6, 1\n  fadd.f32 r8, r9, r4\n",
                            &busy);
    cr_expect_eq(span, 4, "%u", span);
    cr_expect_eq(busy, 0);
}

/* Per-opcode latencies (Memento's Table I ADD/MAX/MUL/MAD/DIV/SHFL split): raising an
 * opcode's key by 10 delays its dependent instruction by exactly 10 cycles, while the
 * unit's own latency key (the ADD class) leaves it alone. */
Test(units, opcode_latencies)
{
    static const struct {
        const char *body, *key, *unit_key;
        unsigned base;
    } cases[] = {
        {"  min.s32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.int.max_latency", "unit.int.latency", 13},
        {"  mul.u32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.int.mul_latency", "unit.int.latency", 4},
        {"  div.u32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.int.div_latency", "unit.int.latency", 145},
        {"  rem.s32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.int.div_latency", "unit.int.latency", 145},
        {"  fmax.f32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.fp.max_latency", "unit.fp.latency", 13},
        {"  fmul.f32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.fp.mul_latency", "unit.fp.latency", 4},
        {"  ffma.f32 r2, r3, r4, r3\n  add.u32 r30, r2, 1\n", "unit.fp.mad_latency", "unit.fp.latency", 5},
        {"  fdiv.f32 r2, r3, r4\n  add.u32 r30, r2, 1\n", "unit.fp.div_latency", "unit.fp.latency", 39},
        {"  fdiv.f64 r20, r22, r24\n  add.u32 r30, r20, 1\n", "unit.dp.div_latency", "unit.dp.latency", 330},
        {"  fmul.f64 r20, r22, r24\n  add.u32 r30, r20, 1\n", "unit.dp.mul_latency", "unit.dp.latency", 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char set[256];
        uint64_t busy;
        snprintf(set, sizeof set, TM_BASE "%s=%u", cases[i].key, cases[i].base);
        uint32_t base = span_of(set, cases[i].body, &busy);
        snprintf(set, sizeof set, TM_BASE "%s=%u", cases[i].key, cases[i].base + 10);
        uint32_t slower = span_of(set, cases[i].body, &busy);
        snprintf(set, sizeof set, TM_BASE "%s=%u;%s=40", cases[i].key, cases[i].base,
                 cases[i].unit_key);
        uint32_t unit = span_of(set, cases[i].body, &busy);
        cr_expect_eq(slower, base + 10, "%s: %u then %u", cases[i].key, base, slower);
        cr_expect_eq(unit, base, "%s does not follow %s", cases[i].key, cases[i].unit_key);
        cr_expect_geq(base, cases[i].base, "%s: span %u", cases[i].key, base);
    }
}
