/*
 * 220-mirsim.h - a tiny one-lane interpreter of MIR for the backend tests (22x-29x).
 *
 * It runs a kernel three ways, so a test can compare them (sim_init, set tid/param,
 * then run):
 *   sim_init(s, f, 0) + sim_run_blocks: on vregs, block by block; entering a block
 *                 evaluates its phis as one parallel assignment (SSA's semantics);
 *   sim_init(s, f, 1) + sim_run_blocks: on machine registers (x.dst/x.src) after
 *                 mir_regalloc, block by block;
 *   sim_init(s, f, 1) + sim_run_code: on f->code after mir_emit, pc by pc.
 * The t_* helpers build MIR tersely.
 * Supported: mov add sub mul mad and or xor shl lea cvt(integer) sel set(eq,ne,lt,le,gt,ge,
 * unsigned) s2r(tid.x)
 * ld/st to local, global and param memory at [reg + imm], constant-bank operands (c[off],
 * the param bytes), bra, brc, exit. 64-bit types
 * use register pairs in machine mode. Results are observed through `st.global`.
 */
#ifndef XGPU_TEST_MIRSIM_H
#define XGPU_TEST_MIRSIM_H

#include <stdint.h>
#include <string.h>
#include "mir.h"

typedef struct MSim {
    const MFunc *f;
    int phys;              /* 1: machine registers; 0: vregs */
    uint64_t vals[4096];   /* vreg values */
    uint32_t r[256];       /* machine registers (r255 reads 0) */
    uint8_t local[4096], global[1024], param[256];
    uint32_t tid;
    uint64_t steps, max_steps;
} MSim;

enum { SIM_NEXT, SIM_TAKEN, SIM_FALL, SIM_EXIT, SIM_BAD };

static inline int sim_wide(XType t)
{
    return t == XT_U64 || t == XT_S64 || t == XT_F64;
}

static inline uint64_t sim_get(MSim *s, const MInsn *in, unsigned i, int wide)
{
    const XOpInfo *oi = &xisa_ops[in->x.op];
    if ((in->x.flags & XF_IMM) && i == oi->nsrc - 1u)
        return (uint64_t)in->x.imm;
    if ((in->x.flags & XF_CONST) && i == in->x.csrc) { /* c[target]: the parameter words */
        uint64_t v = 0;
        if (in->x.target + (wide ? 8u : 4u) <= sizeof s->param)
            memcpy(&v, s->param + in->x.target, wide ? 8 : 4);
        return v;
    }
    if (!s->phys) {
        MReg v = in->src[i];
        return mir_is_vreg(v) ? s->vals[v] : 0;
    }
    uint8_t p = in->x.src[i];
    if (p == XREG_RZ)
        return 0;
    return wide ? s->r[p] | (uint64_t)s->r[p + 1] << 32 : s->r[p];
}

static inline void sim_put(MSim *s, const MInsn *in, uint64_t val, int wide)
{
    if (!wide)
        val = (uint32_t)val;
    if (!s->phys) {
        if (mir_is_vreg(in->dst[0]))
            s->vals[in->dst[0]] = val;
        return;
    }
    uint8_t p = in->x.dst[0];
    if (p == XREG_RZ)
        return;
    s->r[p] = (uint32_t)val;
    if (wide)
        s->r[p + 1] = (uint32_t)(val >> 32);
}

static inline uint8_t *sim_mem(MSim *s, int space, uint64_t addr, unsigned size)
{
    uint8_t *base = space == XS_LOCAL ? s->local : space == XS_GLOBAL ? s->global
                  : space == XS_PARAM ? s->param : NULL;
    size_t lim = space == XS_LOCAL ? sizeof s->local : space == XS_GLOBAL ? sizeof s->global
               : sizeof s->param;
    if (!base || addr + size > lim)
        return NULL;
    return base + addr;
}

static inline int sim_set(int cmp, uint64_t a, uint64_t b)
{
    switch (cmp) {
    case XCMP_EQ: return a == b;
    case XCMP_NE: return a != b;
    case XCMP_LT: return a < b;
    case XCMP_LE: return a <= b;
    case XCMP_GT: return a > b;
    case XCMP_GE: return a >= b;
    default: return 0;
    }
}

/* Executes one instruction; returns SIM_*. */
static inline int sim_exec(MSim *s, const MInsn *in)
{
    int w = sim_wide((XType)in->x.type);
    uint64_t a, b;
    switch (in->x.op) {
    case XOP_mov: sim_put(s, in, sim_get(s, in, 0, w), w); return SIM_NEXT;
    case XOP_add: sim_put(s, in, sim_get(s, in, 0, w) + sim_get(s, in, 1, w), w); return SIM_NEXT;
    case XOP_sub: sim_put(s, in, sim_get(s, in, 0, w) - sim_get(s, in, 1, w), w); return SIM_NEXT;
    case XOP_mul: sim_put(s, in, sim_get(s, in, 0, w) * sim_get(s, in, 1, w), w); return SIM_NEXT;
    case XOP_mad:
        sim_put(s, in, sim_get(s, in, 0, w) * sim_get(s, in, 1, w) + sim_get(s, in, 2, w), w);
        return SIM_NEXT;
    case XOP_cvt: /* integer widening (zero or sign) and narrowing */
        a = sim_get(s, in, 0, sim_wide((XType)in->x.type2));
        sim_put(s, in, in->x.type2 == XT_S32 ? (uint64_t)(int64_t)(int32_t)a : a, w);
        return SIM_NEXT;
    case XOP_lea: /* base + (index widened from type2) << imm */
        b = sim_get(s, in, 1, sim_wide((XType)in->x.type2));
        if (in->x.type2 == XT_S32)
            b = (uint64_t)(int64_t)(int32_t)b;
        sim_put(s, in, sim_get(s, in, 0, w) + (b << (in->x.imm & 63)), w);
        return SIM_NEXT;
    case XOP_and: sim_put(s, in, sim_get(s, in, 0, w) & sim_get(s, in, 1, w), w); return SIM_NEXT;
    case XOP_or: sim_put(s, in, sim_get(s, in, 0, w) | sim_get(s, in, 1, w), w); return SIM_NEXT;
    case XOP_xor: sim_put(s, in, sim_get(s, in, 0, w) ^ sim_get(s, in, 1, w), w); return SIM_NEXT;
    case XOP_shl: sim_put(s, in, sim_get(s, in, 0, w) << (sim_get(s, in, 1, 0) & 63), w); return SIM_NEXT;
    case XOP_set:
        a = sim_get(s, in, 0, w);
        b = sim_get(s, in, 1, w);
        sim_put(s, in, (uint64_t)sim_set(in->x.mod, a, b), 0);
        return SIM_NEXT;
    case XOP_sel:
        a = sim_get(s, in, 0, w);
        b = sim_get(s, in, 1, w);
        sim_put(s, in, (uint32_t)sim_get(s, in, 2, 0) ? a : b, w);
        return SIM_NEXT;
    case XOP_s2r: sim_put(s, in, in->x.mod == XSR_TID_X ? s->tid : 0, 0); return SIM_NEXT;
    case XOP_ld: {
        unsigned size = w ? 8 : 4;
        uint8_t *p = sim_mem(s, in->x.mod, sim_get(s, in, 0, 1) + (uint64_t)in->x.imm, size);
        if (!p)
            return SIM_BAD;
        uint64_t v = 0;
        memcpy(&v, p, size);
        sim_put(s, in, v, w);
        return SIM_NEXT;
    }
    case XOP_st: {
        unsigned size = w ? 8 : 4;
        uint8_t *p = sim_mem(s, in->x.mod, sim_get(s, in, 0, 1) + (uint64_t)in->x.imm, size);
        if (!p)
            return SIM_BAD;
        uint64_t v = sim_get(s, in, 1, w);
        memcpy(p, &v, size);
        return SIM_NEXT;
    }
    case XOP_bra: return SIM_TAKEN;
    case XOP_brc: {
        int c = (uint32_t)sim_get(s, in, 0, 0) != 0;
        if (in->x.flags & XF_NEG)
            c = !c;
        return c ? SIM_TAKEN : SIM_FALL;
    }
    case XOP_exit: return SIM_EXIT;
    default: return SIM_BAD;
    }
}

static inline void sim_init(MSim *s, const MFunc *f, int phys)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->phys = phys;
    s->max_steps = 1000000;
}

/* Enters block to from block from: phis as one parallel assignment. */
static inline void sim_enter(MSim *s, uint32_t from, uint32_t to)
{
    const MBlock *bb = &s->f->blocks[to];
    uint64_t tmp[64];
    for (uint32_t i = 0; i < bb->nphis && i < 64; i++)
        for (uint32_t j = 0; j < bb->phis[i].nin; j++)
            if (bb->phis[i].in[j].block == from)
                tmp[i] = s->vals[bb->phis[i].in[j].reg];
    for (uint32_t i = 0; i < bb->nphis && i < 64; i++)
        s->vals[bb->phis[i].dst] = tmp[i];
}

/* Runs block by block from block 0. Returns 0 at exit, -1 on a bad instruction or when
 * max_steps run out. */
static inline int sim_run_blocks(MSim *s)
{
    uint32_t b = 0, i = 0;
    while (s->steps++ < s->max_steps) {
        const MBlock *bb = &s->f->blocks[b];
        if (i >= bb->nins)
            return -1;
        const MInsn *in = &bb->ins[i++];
        int r = sim_exec(s, in);
        uint32_t to = r == SIM_TAKEN ? in->x.target : r == SIM_FALL ? bb->succ[1] : 0;
        if (r == SIM_EXIT)
            return 0;
        if (r == SIM_BAD)
            return -1;
        if (r == SIM_TAKEN || r == SIM_FALL) {
            if (!s->phys)
                sim_enter(s, b, to);
            b = to;
            i = 0;
        }
    }
    return -1;
}

/* Runs the emitted code of f from pc 0. */
static inline int sim_run_code(MSim *s)
{
    const MFunc *f = s->f;
    uint32_t pc = 0;
    while (s->steps++ < s->max_steps && pc < f->ncode) {
        MInsn in = {.x = f->code[pc]};
        int r = sim_exec(s, &in);
        if (r == SIM_EXIT)
            return 0;
        if (r == SIM_BAD)
            return -1;
        pc = r == SIM_TAKEN ? in.x.target : pc + 1;
    }
    return -1;
}

static inline uint32_t sim_u32(const MSim *s, uint32_t addr)
{
    uint32_t v;
    memcpy(&v, s->global + addr, 4);
    return v;
}

static inline uint64_t sim_u64(const MSim *s, uint32_t addr)
{
    uint64_t v;
    memcpy(&v, s->global + addr, 8);
    return v;
}

/* ---- building MIR ---- */

static inline MReg t_imm(MFunc *f, uint32_t b, int64_t v, int wide)
{
    MReg d = mir_vreg_new(f, wide);
    MInsn *in = mir_append(f, b, XOP_mov, wide ? XT_U64 : XT_U32);
    in->x.flags = XF_IMM;
    in->x.imm = v;
    in->dst[0] = d;
    return d;
}

static inline MReg t_op(MFunc *f, uint32_t b, XOp op, MReg x, MReg y)
{
    int wide = f->vregs[x].wide;
    MReg d = mir_vreg_new(f, wide);
    MInsn *in = mir_append(f, b, op, wide ? XT_U64 : XT_U32);
    in->dst[0] = d;
    in->src[0] = x;
    in->src[1] = y;
    return d;
}

static inline MReg t_opi(MFunc *f, uint32_t b, XOp op, MReg x, int64_t imm)
{
    int wide = f->vregs[x].wide;
    MReg d = mir_vreg_new(f, wide);
    MInsn *in = mir_append(f, b, op, wide ? XT_U64 : XT_U32);
    in->x.flags = XF_IMM;
    in->x.imm = imm;
    in->dst[0] = d;
    in->src[0] = x;
    return d;
}

static inline MReg t_set(MFunc *f, uint32_t b, XCmp cmp, MReg x, MReg y)
{
    MReg d = mir_vreg_new(f, 0);
    MInsn *in = mir_append(f, b, XOP_set, f->vregs[x].wide ? XT_U64 : XT_U32);
    in->x.mod = (uint8_t)cmp;
    in->dst[0] = d;
    in->src[0] = x;
    in->src[1] = y;
    return d;
}

static inline MReg t_seti(MFunc *f, uint32_t b, XCmp cmp, MReg x, int64_t imm)
{
    MReg d = mir_vreg_new(f, 0);
    MInsn *in = mir_append(f, b, XOP_set, f->vregs[x].wide ? XT_U64 : XT_U32);
    in->x.mod = (uint8_t)cmp;
    in->x.flags = XF_IMM;
    in->x.imm = imm;
    in->dst[0] = d;
    in->src[0] = x;
    return d;
}

static inline MReg t_ld(MFunc *f, uint32_t b, XSpace space, int64_t off, int wide)
{
    MReg d = mir_vreg_new(f, wide);
    MInsn *in = mir_append(f, b, XOP_ld, wide ? XT_U64 : XT_U32);
    in->x.mod = (uint8_t)space;
    in->x.imm = off;
    in->dst[0] = d;
    in->src[0] = MREG_RZ;
    return d;
}

static inline MReg t_tid(MFunc *f, uint32_t b)
{
    MReg d = mir_vreg_new(f, 0);
    MInsn *in = mir_append(f, b, XOP_s2r, XT_U32);
    in->x.mod = XSR_TID_X;
    in->dst[0] = d;
    return d;
}

static inline void t_st(MFunc *f, uint32_t b, int64_t off, MReg v)
{
    MInsn *in = mir_append(f, b, XOP_st, f->vregs[v].wide ? XT_U64 : XT_U32);
    in->x.mod = XS_GLOBAL;
    in->x.imm = off;
    in->src[0] = MREG_RZ;
    in->src[1] = v;
}

static inline void t_bra(MFunc *f, uint32_t b, uint32_t target)
{
    mir_append(f, b, XOP_bra, XT_NONE)->x.target = target;
}

static inline void t_brc(MFunc *f, uint32_t b, MReg cond, uint32_t target, uint32_t els)
{
    MInsn *in = mir_append(f, b, XOP_brc, XT_NONE);
    in->x.target = target;
    in->src[0] = cond;
    f->blocks[b].succ[1] = els;
    f->blocks[b].nsucc = 2;
}

static inline void t_exit(MFunc *f, uint32_t b)
{
    mir_append(f, b, XOP_exit, XT_NONE);
}

static inline void t_phi2(MFunc *f, uint32_t b, MReg d, uint32_t b0, MReg v0, uint32_t b1,
                          MReg v1)
{
    MPhi *p = mir_phi_new(f, b, d, 2);
    p->in[0] = (MPhiIn){b0, v0};
    p->in[1] = (MPhiIn){b1, v1};
}

/* Runs the backend pipeline up to (not including) regalloc. */
static inline int t_front(MFunc *f)
{
    if (mir_cfg(f) || mir_outssa(f) || mir_cfg(f) || mir_postdom(f) || mir_divergence(f))
        return -1;
    return 0;
}

#endif
