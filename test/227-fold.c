/*
 * 227-fold.c - mir_fold: operands the ISA encodes directly stop costing instructions.
 *
 * Each test builds the shape instruction selection produces (a constant in a mov, an
 * address as cvt.u64 + shl.u64 + add.u64, a multiply feeding an add, an offset added
 * before a load), runs the kernel on the one-lane MIR interpreter (220-mirsim.h), folds
 * it, checks the instructions that remain, and runs it again: the stored results must
 * be the same, and the values worked out by hand.
 */
#include <criterion/criterion.h>

#include "220-mirsim.h"

static MModule *m;
static MFunc *f;

static void setup(void)
{
    m = mir_module_new("227-fold");
    f = mir_func_new(m, "k");
    mir_block_new(f);
}

static void teardown(void)
{
    mir_module_free(m);
}

TestSuite(fold, .init = setup, .fini = teardown);

/* A run of f (block 0) from init's thread index and parameter and global memory. */
static void run_from(MSim *s, const MSim *init)
{
    sim_init(s, f, 0);
    s->tid = init->tid;
    memcpy(s->param, init->param, sizeof s->param);
    memcpy(s->global, init->global, sizeof s->global);
    cr_assert_eq(sim_run_blocks(s), 0);
}

/* Runs f from init, folds it, runs it again from init: both runs store the same nbytes. */
static void run_both(uint32_t nbytes, MSim *after, const MSim *init)
{
    static MSim before;
    cr_assert_eq(mir_cfg(f), 0);
    run_from(&before, init);
    cr_assert_eq(mir_fold(f), 0);
    run_from(after, init);
    cr_assert_arr_eq(before.global, after->global, nbytes);
}

static MSim *at_tid(uint32_t tid)
{
    static MSim init;
    memset(&init, 0, sizeof init);
    init.tid = tid;
    return &init;
}

static unsigned count_op(XOp op)
{
    unsigned n = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].nins; i++)
            n += f->blocks[b].ins[i].x.op == op;
    return n;
}

static const MInsn *find_op(XOp op)
{
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].nins; i++)
            if (f->blocks[b].ins[i].x.op == op)
                return &f->blocks[b].ins[i];
    cr_assert_fail("no %s left", xisa_ops[op].name);
    return NULL;
}

static MReg t_cvt64(uint32_t b, MReg x, XType from)
{
    MReg d = mir_vreg_new(f, 1);
    MInsn *in = mir_append(f, b, XOP_cvt, XT_U64);
    in->x.type2 = (uint8_t)from;
    in->dst[0] = d;
    in->src[0] = x;
    return d;
}

/* A load from [addr + off] of global memory. */
static MReg t_ldg(uint32_t b, MReg addr, int64_t off)
{
    MReg d = mir_vreg_new(f, 0);
    MInsn *in = mir_append(f, b, XOP_ld, XT_U32);
    in->x.mod = XS_GLOBAL;
    in->x.imm = off;
    in->dst[0] = d;
    in->src[0] = addr;
    return d;
}

Test(fold, constants_become_immediates_and_their_movs_go)
{
    MReg t = t_tid(f, 0);
    MReg a = t_op(f, 0, XOP_add, t, t_imm(f, 0, 5, 0));     /* t + 5 */
    MReg b = t_op(f, 0, XOP_sub, a, t_imm(f, 0, 2, 0));     /* - 2 */
    MReg c = t_op(f, 0, XOP_mul, t_imm(f, 0, 3, 0), b);     /* constant first: swapped */
    MReg d = t_set(f, 0, XCMP_LT, t_imm(f, 0, 100, 0), c);  /* 100 < c: mirrored to c > 100 */
    t_st(f, 0, 0, c);
    t_st(f, 0, 4, d);
    t_exit(f, 0);
    static MSim s;
    run_both(8, &s, at_tid(40));
    cr_assert_eq(sim_u32(&s, 0), (40 + 5 - 2) * 3);
    cr_assert_eq(sim_u32(&s, 4), 1);
    cr_assert_eq(count_op(XOP_mov), 0, "every constant folded");
    const MInsn *set = find_op(XOP_set);
    cr_assert(set->x.flags & XF_IMM);
    cr_assert_eq(set->x.mod, XCMP_GT);
    cr_assert_eq(set->x.imm, 100);
    cr_assert_eq(f->blocks[0].nins, 8, "s2r, add, sub, mul, set, st, st, exit");
}

Test(fold, zero_reads_rz)
{
    MReg t = t_tid(f, 0);
    MReg z = t_imm(f, 0, 0, 0);
    t_st(f, 0, 0, z);        /* a store of 0: the value slot reads rz */
    t_st(f, 0, 4, t);
    t_exit(f, 0);
    static MSim s;
    run_both(8, &s, at_tid(9));
    cr_assert_eq(sim_u32(&s, 0), 0);
    cr_assert_eq(count_op(XOP_mov), 0);
    cr_assert_eq(f->blocks[0].ins[1].src[1], MREG_RZ);
}

/* base + (i32 sign-extended << 2), the shape of &p[i], then *(...) at +8 */
Test(fold, scaled_index_becomes_one_lea_and_the_offset_moves_into_the_load)
{
    MReg base = t_ld(f, 0, XS_PARAM, 0, 1); /* 64 */
    MReg i = t_op(f, 0, XOP_sub, t_tid(f, 0), t_imm(f, 0, 3, 0)); /* tid - 3: negative */
    MReg w = t_cvt64(0, i, XT_S32);
    MReg sc = t_opi(f, 0, XOP_shl, w, 2);
    MReg addr = t_op(f, 0, XOP_add, base, sc);
    MReg a8 = t_opi(f, 0, XOP_add, addr, 8);
    t_st(f, 0, 0, t_ldg(0, a8, 4));
    t_st(f, 0, 4, i);
    t_exit(f, 0);
    /* global[64 + 4*(tid-3) + 12] = 77, at tid 1: 64 - 8 + 12 = 68 */
    static MSim s;
    MSim *init = at_tid(1);
    init->param[0] = 64;
    init->global[68] = 77;
    run_both(8, &s, init);
    cr_assert_eq(sim_u32(&s, 0), 77);
    cr_assert_eq(count_op(XOP_cvt), 0, "lea widens the index itself");
    cr_assert_eq(count_op(XOP_shl), 0);
    const MInsn *lea = find_op(XOP_lea);
    cr_assert_eq(lea->x.type2, XT_S32);
    cr_assert_eq(lea->x.imm, 2);
    cr_assert_eq(lea->src[1], i);
    const MInsn *ld = &f->blocks[0].ins[f->blocks[0].nins - 4]; /* ld, st, st, exit */
    cr_assert_eq(ld->x.op, XOP_ld);
    cr_assert_eq(ld->x.imm, 12, "the +8 joined the load's own +4");
    cr_assert_eq(ld->src[0], lea->dst[0]);
}

/* an index used by two arrays: its cvt is read through by both leas and goes */
Test(fold, a_shared_widening_goes_when_both_uses_fold)
{
    MReg i = t_tid(f, 0);
    MReg w = t_cvt64(0, i, XT_U32);
    MReg pa = t_ld(f, 0, XS_PARAM, 0, 1), pb = t_ld(f, 0, XS_PARAM, 8, 1); /* 0 and 32 */
    MReg a = t_op(f, 0, XOP_add, pa, t_opi(f, 0, XOP_shl, w, 2));
    MReg b = t_op(f, 0, XOP_add, pb, t_opi(f, 0, XOP_shl, w, 2));
    t_st(f, 0, 0, t_op(f, 0, XOP_add, t_ldg(0, a, 0), t_ldg(0, b, 0)));
    t_exit(f, 0);
    static MSim s;
    MSim *init = at_tid(2);
    init->param[8] = 32;
    memcpy(init->global + 8, (uint32_t[]){5}, 4);
    memcpy(init->global + 40, (uint32_t[]){6}, 4);
    run_both(4, &s, init);
    cr_assert_eq(sim_u32(&s, 0), 11);
    cr_assert_eq(count_op(XOP_cvt), 0);
    cr_assert_eq(count_op(XOP_lea), 2);
    cr_assert_eq(count_op(XOP_shl), 0);
}

Test(fold, multiply_add_and_power_of_two)
{
    MReg t = t_tid(f, 0);
    MReg n = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg r = t_op(f, 0, XOP_add, t_op(f, 0, XOP_mul, t, n), t);  /* t * n + t: mad */
    MReg q = t_opi(f, 0, XOP_add, t_op(f, 0, XOP_mul, t, n), 7); /* t * n + 7: mad, imm */
    MReg p = t_op(f, 0, XOP_add, t_opi(f, 0, XOP_mul, t, 8), n); /* t * 8 + n: lea */
    t_st(f, 0, 0, r);
    t_st(f, 0, 4, q);
    t_st(f, 0, 8, p);
    t_exit(f, 0);
    static MSim after;
    MSim *init = at_tid(3);
    memcpy(init->param, (uint32_t[]){10}, 4);
    run_both(12, &after, init);
    cr_assert_eq(sim_u32(&after, 0), 33);
    cr_assert_eq(sim_u32(&after, 4), 37);
    cr_assert_eq(sim_u32(&after, 8), 34);
    cr_assert_eq(count_op(XOP_mul), 0);
    cr_assert_eq(count_op(XOP_mad), 2);
    cr_assert_eq(count_op(XOP_lea), 1);
    cr_assert_eq(count_op(XOP_add), 0);
}

/* a product used twice is not absorbed: that would compute it twice */
Test(fold, a_shared_product_stays)
{
    MReg t = t_tid(f, 0);
    MReg n = t_ld(f, 0, XS_PARAM, 0, 0);
    MReg p = t_op(f, 0, XOP_mul, t, n);
    t_st(f, 0, 0, t_op(f, 0, XOP_add, p, t));
    t_st(f, 0, 4, p);
    t_exit(f, 0);
    cr_assert_eq(mir_cfg(f), 0);
    cr_assert_eq(mir_fold(f), 0);
    cr_assert_eq(count_op(XOP_mul), 1);
    cr_assert_eq(count_op(XOP_mad), 0);
    cr_assert_eq(count_op(XOP_add), 1);
}

/* a constant that reaches a phi keeps its mov: a phi input must be a register */
Test(fold, phi_inputs_keep_their_constants)
{
    for (int i = 0; i < 2; i++)
        mir_block_new(f);
    MReg c = t_imm(f, 0, 4, 0);
    MReg t = t_tid(f, 0);
    t_brc(f, 0, t, 1, 2);
    MReg u = t_op(f, 1, XOP_add, t, c);
    t_bra(f, 1, 2);
    MReg x = mir_vreg_new(f, 0);
    t_phi2(f, 2, x, 0, c, 1, u);
    t_st(f, 2, 0, x);
    t_exit(f, 2);
    static MSim s;
    run_both(4, &s, at_tid(5));
    cr_assert_eq(sim_u32(&s, 0), 9);
    cr_assert_eq(count_op(XOP_mov), 1);
    cr_assert(f->blocks[1].ins[0].x.flags & XF_IMM, "the add still folds it");
}

/* const: a parameter becomes a constant-bank operand of its uses, one per instruction; a
 * parameter still needed in a register (a load's address, the second operand of an
 * instruction that has one) becomes mov from c[]; no parameter load is left. */
Test(fold, parameters_become_constant_bank_operands)
{
    MReg t = t_tid(f, 0);
    MReg n = t_ld(f, 0, XS_PARAM, 8, 0);   /* a u32 parameter */
    MReg p = t_ld(f, 0, XS_PARAM, 16, 1);  /* a pointer */
    MReg a = t_op(f, 0, XOP_sub, t, n);     /* t - n: n read from c[8] */
    MReg b = t_op(f, 0, XOP_mul, n, n);     /* n * n: c[8] once, then a register */
    MReg v = t_ldg(0, p, 4);                /* p[1]: an address needs a register */
    t_st(f, 0, 0, a);
    t_st(f, 0, 4, b);
    t_st(f, 0, 8, v);
    t_exit(f, 0);
    MSim *init = at_tid(3);
    uint32_t nv = 7, want = 1234;
    uint64_t pv = 64;
    memcpy(init->param + 8, &nv, 4);
    memcpy(init->param + 16, &pv, 8);
    memcpy(init->global + 68, &want, 4);
    static MSim s;
    run_both(12, &s, init);
    cr_assert_eq(sim_u32(&s, 0), 3u - 7u);
    cr_assert_eq(sim_u32(&s, 4), 49);
    cr_assert_eq(sim_u32(&s, 8), want);
    cr_assert_eq(count_op(XOP_ld), 1, "only the global load: the parameter loads are gone");
    const MInsn *sub = find_op(XOP_sub);
    cr_assert(sub->x.flags & XF_CONST);
    cr_assert_eq(sub->x.csrc, 1);
    cr_assert_eq(sub->x.target, 8);
    cr_assert_eq(sub->src[1], MREG_RZ);
    const MInsn *mul = find_op(XOP_mul);
    cr_assert(mul->x.flags & XF_CONST);
    cr_assert(mir_is_vreg(mul->src[1 - mul->x.csrc]), "the second read of n is a register");
    cr_assert_eq(count_op(XOP_mov), 2, "n for the mul and p for the load");
    for (uint32_t i = 0; i < f->blocks[0].nins; i++) {
        const MInsn *in = &f->blocks[0].ins[i];
        if (in->x.op == XOP_mov) {
            cr_assert(in->x.flags & XF_CONST);
            cr_assert(in->x.target == 8 || (in->x.target == 16 && in->x.type == XT_U64));
        }
    }
}
