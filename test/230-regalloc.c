/*
 * 230-regalloc.c - mir_regalloc: interference, register pairs, spilling, and the error
 * when --max-regs cannot hold one instruction's operands.
 *
 * Interference is checked against the test's own liveness: before allocation the live
 * vregs are recorded at every program point (after each instruction, together with its
 * results, and on entry to each block); afterwards the vregs of each point must occupy
 * disjoint machine registers. Correctness of the allocated code (spills included) is
 * checked by running it in the one-lane MIR interpreter (220-mirsim.h) against the SSA
 * original.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdlib.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("230-regalloc");
    f = mir_func_new(m, "k");
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(regalloc, .init = setup, .fini = teardown);

/* ---- the test's own liveness ---- */

#define MAXV 1024
#define MAXB 16

typedef struct Points {
    uint8_t (*sets)[MAXV]; /* each point: which vregs are live */
    uint32_t n;
} Points;

static void use_def(const MInsn *in, uint8_t *live)
{
    for (unsigned d = 0; d < mir_ndst(in); d++)
        if (mir_is_vreg(in->dst[d]))
            live[in->dst[d]] = 0;
    for (unsigned s = 0; s < mir_nsrc(in); s++)
        if (mir_is_vreg(in->src[s]))
            live[in->src[s]] = 1;
}

static void block_in(uint32_t b, uint8_t (*out)[MAXV], uint8_t *in)
{
    memcpy(in, out[b], MAXV);
    for (uint32_t j = f->blocks[b].nins; j-- > 0;)
        use_def(&f->blocks[b].ins[j], in);
}

static void live_out_sets(uint8_t (*out)[MAXV])
{
    static uint8_t in[MAXB][MAXV];
    memset(in, 0, sizeof in);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = 0; b < f->nblocks; b++) {
            memset(out[b], 0, MAXV);
            for (uint32_t k = 0; k < f->blocks[b].nsucc; k++)
                for (uint32_t v = 0; v < MAXV; v++)
                    out[b][v] |= in[f->blocks[b].succ[k]][v];
            uint8_t tmp[MAXV];
            block_in(b, out, tmp);
            if (memcmp(tmp, in[b], MAXV)) {
                memcpy(in[b], tmp, MAXV);
                changed = 1;
            }
        }
    }
}

static void record(Points *p, const uint8_t *live)
{
    p->sets = realloc(p->sets, (p->n + 1) * sizeof *p->sets);
    memcpy(p->sets[p->n++], live, MAXV);
}

static void record_points(Points *p)
{
    static uint8_t out[MAXB][MAXV];
    cr_assert_lt(f->nblocks, MAXB);
    cr_assert_lt(f->nvregs, MAXV);
    live_out_sets(out);
    for (uint32_t b = 0; b < f->nblocks; b++) {
        uint8_t live[MAXV];
        memcpy(live, out[b], MAXV);
        for (uint32_t j = f->blocks[b].nins; j-- > 0;) {
            const MInsn *in = &f->blocks[b].ins[j];
            uint8_t at[MAXV];
            memcpy(at, live, MAXV);
            for (unsigned d = 0; d < mir_ndst(in); d++)
                if (mir_is_vreg(in->dst[d]))
                    at[in->dst[d]] = 1;
            record(p, at);
            use_def(in, live);
        }
        record(p, live);
    }
}

/* Every point: the live vregs' register ranges are disjoint. Returns points checked. */
static uint32_t check_points(const Points *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        int owner[256];
        for (int r = 0; r < 256; r++)
            owner[r] = -1;
        for (uint32_t v = 1; v < f->nvregs && v < MAXV; v++) {
            if (!p->sets[i][v])
                continue;
            unsigned w = f->vregs[v].wide ? 2 : 1, r0 = f->vregs[v].phys;
            cr_assert_lt(r0 + w - 1, 255u, "vreg %u in RZ", v);
            for (unsigned r = r0; r < r0 + w; r++) {
                cr_assert_eq(owner[r], -1, "point %u: r%u holds %%%d and %%%u", i, r, owner[r], v);
                owner[r] = (int)v;
            }
        }
    }
    return p->n;
}

/* ---- a random kernel with a loop, a diamond, phis and both widths ---- */

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

static const XOp ops[] = {XOP_add, XOP_xor, XOP_mul, XOP_sub, XOP_or};

/* Appends n random operations over pool values of both widths. */
static void churn(uint32_t b, MReg *pool, int *np, int n, uint32_t *seed)
{
    for (int k = 0; k < n; k++) {
        MReg x = pool[rnd(seed) % (uint32_t)*np], y = pool[rnd(seed) % (uint32_t)*np];
        if (f->vregs[x].wide != f->vregs[y].wide)
            y = x;
        pool[(*np)++] = t_op(f, b, ops[rnd(seed) % 5], x, y);
    }
}

/* Folds every pool value into one narrow and one wide result and stores them. */
static void fold_store(uint32_t b, const MReg *pool, int np, uint32_t at)
{
    MReg n = t_imm(f, b, 0, 0), w = t_imm(f, b, 0, 1);
    for (int i = 0; i < np; i++)
        if (f->vregs[pool[i]].wide)
            w = t_op(f, b, XOP_add, w, pool[i]);
        else
            n = t_op(f, b, XOP_xor, n, pool[i]);
    t_st(f, b, at, n);
    t_st(f, b, at + 8, w);
}

/* The latest pool value of the given width. */
static MReg last_of(const MReg *pool, int np, int wide)
{
    while (np-- > 0)
        if (f->vregs[pool[np]].wide == wide)
            return pool[np];
    cr_assert_fail("no value of that width");
    return MREG_NONE;
}

static void build_random(uint32_t seed)
{
    for (int i = 0; i < 6; i++)
        mir_block_new(f);
    MReg pool[512];
    int np = 0;
    for (int i = 0; i < 8; i++)
        pool[np++] = t_ld(f, 0, XS_PARAM, 8 * i, i & 1);
    churn(0, pool, &np, 10, &seed);
    MReg i0 = t_imm(f, 0, 0, 0), acc0 = t_imm(f, 0, 3, 0), wacc0 = t_imm(f, 0, 5, 1);
    t_bra(f, 0, 1);
    /* 1: header */
    MReg i = mir_vreg_new(f, 0), acc = mir_vreg_new(f, 0), wacc = mir_vreg_new(f, 1);
    int np1 = np;
    pool[np1++] = acc;
    pool[np1++] = wacc;
    churn(1, pool, &np1, 6, &seed);
    MReg odd = t_opi(f, 1, XOP_and, i, 1);
    t_brc(f, 1, odd, 2, 3);
    /* 2, 3: the two sides */
    int np2 = np1, np3 = np1;
    churn(2, pool, &np2, 8, &seed);
    MReg x2 = t_op(f, 2, XOP_add, last_of(pool, np2, 0), acc);
    MReg w2 = t_op(f, 2, XOP_add, wacc, last_of(pool, np2, 1));
    t_bra(f, 2, 4);
    MReg tmp[512];
    memcpy(tmp, pool, sizeof tmp);
    churn(3, tmp, &np3, 12, &seed);
    MReg x3 = t_op(f, 3, XOP_xor, last_of(tmp, np3, 0), acc);
    MReg w3 = t_op(f, 3, XOP_xor, wacc, last_of(tmp, np3, 1));
    t_bra(f, 3, 4);
    /* 4: latch */
    MReg x = mir_vreg_new(f, 0), w = mir_vreg_new(f, 1);
    t_phi2(f, 4, x, 2, x2, 3, x3);
    t_phi2(f, 4, w, 2, w2, 3, w3);
    MReg acc2 = t_op(f, 4, XOP_add, acc, x);
    MReg i1 = t_opi(f, 4, XOP_add, i, 1);
    MReg c = t_seti(f, 4, XCMP_LT, i1, 5);
    t_brc(f, 4, c, 1, 5);
    t_phi2(f, 1, i, 0, i0, 4, i1);
    t_phi2(f, 1, acc, 0, acc0, 4, acc2);
    t_phi2(f, 1, wacc, 0, wacc0, 4, w);
    /* 5: exit */
    pool[np++] = acc;
    pool[np++] = wacc;
    fold_store(5, pool, np, 0);
    t_exit(f, 5);
}

static void params(MSim *s)
{
    for (uint32_t i = 0; i < sizeof s->param; i++)
        s->param[i] = (uint8_t)(i * 37 + 11);
}

/* Runs the SSA form, then lowers, allocates with max_regs, and runs again. */
static void lower_and_compare(uint32_t max_regs, Points *pts)
{
    static MSim a, b;
    cr_assert_eq(mir_cfg(f), 0);
    sim_init(&a, f, 0);
    params(&a);
    cr_assert_eq(sim_run_blocks(&a), 0);
    cr_assert_eq(t_front(f), 0);
    if (pts)
        record_points(pts);
    MRegallocOptions o = {.max_regs = max_regs};
    cr_assert_eq(mir_regalloc(f, &o), 0);
    cr_assert_leq(f->nregs, max_regs);
    sim_init(&b, f, 1);
    params(&b);
    cr_assert_eq(sim_run_blocks(&b), 0);
    cr_assert_arr_eq(a.global, b.global, 16);
}

static int count_ops(XOp op, XSpace space)
{
    int n = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t j = 0; j < f->blocks[b].nins; j++) {
            const MInsn *in = &f->blocks[b].ins[j];
            if (in->x.op == op && in->x.mod == space)
                n++;
        }
    return n;
}

Test(regalloc, random_kernel_no_interference)
{
    for (uint32_t seed = 1; seed <= 4; seed++) {
        teardown();
        setup();
        build_random(seed);
        Points p = {0};
        lower_and_compare(255, &p);
        uint32_t npoints = check_points(&p);
        free(p.sets);
        cr_assert_gt(npoints, 50);
        cr_assert_eq(count_ops(XOP_ld, XS_LOCAL), 0, "no spills with 255 registers");
        cr_assert_eq(f->local_bytes, 0);
        cr_assert_gt(f->nregs, 4);
        for (uint32_t b = 0; b < f->nblocks; b++)
            for (uint32_t j = 0; j < f->blocks[b].nins; j++) {
                const MInsn *in = &f->blocks[b].ins[j];
                for (unsigned d = 0; d < mir_ndst(in); d++)
                    if (mir_is_vreg(in->dst[d]))
                        cr_assert_eq(in->x.dst[d], f->vregs[in->dst[d]].phys);
            }
    }
}

Test(regalloc, wide_values_take_even_pairs)
{
    build_random(7);
    lower_and_compare(255, NULL);
    int nwide = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t j = 0; j < f->blocks[b].nins; j++) {
            const MInsn *in = &f->blocks[b].ins[j];
            if (mir_ndst(in) && mir_is_vreg(in->dst[0]) && f->vregs[in->dst[0]].wide) {
                cr_assert_eq(in->x.dst[0] % 2, 0, "wide result in odd r%u", in->x.dst[0]);
                nwide++;
            }
            for (unsigned s = 0; s < mir_nsrc(in); s++)
                if (mir_is_vreg(in->src[s]) && f->vregs[in->src[s]].wide)
                    cr_assert_eq(in->x.src[s] % 2, 0);
        }
    cr_assert_gt(nwide, 5);
}

Test(regalloc, random_kernel_with_few_registers_spills)
{
    for (uint32_t seed = 1; seed <= 4; seed++) {
        teardown();
        setup();
        build_random(seed);
        lower_and_compare(10, NULL);
        cr_assert_gt(count_ops(XOP_st, XS_LOCAL), 0);
        cr_assert_gt(f->local_bytes, 0);
    }
}

/* 20 values live at once, summed with max_regs = 8. */
static void build_twenty(int wide_every)
{
    mir_block_new(f);
    MReg v[20];
    for (int i = 0; i < 20; i++)
        v[i] = t_ld(f, 0, XS_PARAM, 8 * i, wide_every && i % wide_every == 0);
    MReg n = t_imm(f, 0, 0, 0), w = t_imm(f, 0, 0, 1);
    for (int i = 19; i >= 0; i--) {
        if (f->vregs[v[i]].wide)
            w = t_op(f, 0, XOP_add, w, v[i]);
        else
            n = t_op(f, 0, XOP_add, t_opi(f, 0, XOP_mul, n, 3), v[i]);
    }
    t_st(f, 0, 0, n);
    t_st(f, 0, 8, w);
    t_exit(f, 0);
}

Test(regalloc, twenty_live_values_in_eight_registers)
{
    build_twenty(0);
    lower_and_compare(8, NULL);
    cr_assert_gt(count_ops(XOP_st, XS_LOCAL), 0);
    cr_assert_gt(count_ops(XOP_ld, XS_LOCAL), 0);
    cr_assert_geq(f->local_bytes, 4 * 12);
}

Test(regalloc, wide_spills_keep_pairs_together)
{
    build_twenty(3);
    lower_and_compare(8, NULL);
    int nwide = 0;
    for (uint32_t j = 0; j < f->blocks[0].nins; j++) {
        const MInsn *in = &f->blocks[0].ins[j];
        if (in->x.mod != XS_LOCAL || (in->x.op != XOP_ld && in->x.op != XOP_st))
            continue;
        if (in->x.type == XT_U64) {
            cr_assert_eq(in->x.imm % 8, 0, "8-aligned wide slot");
            nwide++;
        }
        cr_assert_eq(in->x.op == XOP_ld ? in->x.dst[0] % (in->x.type == XT_U64 ? 2 : 1)
                                        : in->x.src[1] % (in->x.type == XT_U64 ? 2 : 1), 0);
    }
    cr_assert_gt(nwide, 0, "some wide value was spilled whole");
}

static MReg build_sel(void)
{
    mir_block_new(f);
    MReg a = t_ld(f, 0, XS_PARAM, 0, 0), b = t_ld(f, 0, XS_PARAM, 4, 0);
    MReg c = t_ld(f, 0, XS_PARAM, 8, 0);
    MReg d = mir_vreg_new(f, 0);
    MInsn *in = mir_append(f, 0, XOP_sel, XT_U32);
    in->dst[0] = d;
    in->src[0] = a;
    in->src[1] = b;
    in->src[2] = c;
    in->loc = mir_loc(f, mir_file(m, "k.cu"), 42, 0);
    t_st(f, 0, 0, d);
    t_exit(f, 0);
    return d;
}

Test(regalloc, three_operands_fit_in_three_registers)
{
    build_sel();
    lower_and_compare(3, NULL);
    cr_assert_eq(f->nregs, 3);
}

Test(regalloc, max_regs_too_small_is_reported, .init = cr_redirect_stderr)
{
    if (!m) /* a test's .init may replace the suite's */
        setup();
    build_sel();
    cr_assert_eq(t_front(f), 0);
    MRegallocOptions o = {.max_regs = 2};
    cr_assert_eq(mir_regalloc(f, &o), -1);
    cr_assert_eq(m->errors, 1);
    fflush(stderr);
    char buf[512] = {0};
    FILE *e = cr_get_redirected_stderr();
    size_t n = fread(buf, 1, sizeof buf - 1, e);
    buf[n] = 0;
    cr_assert(strstr(buf, "k.cu:42: error:"), "got: %s", buf);
    cr_assert(strstr(buf, "--max-regs=2 is too small"), "got: %s", buf);
}

Test(regalloc, wide_operand_with_one_register_is_reported)
{
    mir_block_new(f);
    MReg a = t_ld(f, 0, XS_PARAM, 0, 1);
    t_st(f, 0, 0, t_op(f, 0, XOP_add, a, a));
    t_exit(f, 0);
    cr_assert_eq(t_front(f), 0);
    MRegallocOptions o = {.max_regs = 1};
    cr_assert_eq(mir_regalloc(f, &o), -1);
    cr_assert_eq(m->errors, 1);
}

Test(regalloc, move_into_dying_source_disappears)
{
    mir_block_new(f);
    MReg a = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg b = mir_vreg_new(f, 0);
    MInsn *in = mir_append(f, 0, XOP_mov, XT_U32);
    in->dst[0] = b;
    in->src[0] = a;
    t_st(f, 0, 0, t_opi(f, 0, XOP_add, b, 1));
    t_exit(f, 0);
    lower_and_compare(255, NULL);
    cr_assert_eq(count_ops(XOP_mov, 0), 0);
    cr_assert_eq(f->vregs[a].phys, f->vregs[b].phys);
    cr_assert_eq(f->nregs, 1);
}
