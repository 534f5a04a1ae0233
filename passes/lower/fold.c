/*
 * fold.c - peephole combining on SSA MIR (mir_fold): the instructions instruction
 * selection spends on operands that xgpu's ISA can encode directly.
 *
 * Instruction selection materializes every constant with its own `mov` and builds every
 * address from 64-bit pieces (cvt.u64 of the index, shl.u64 by the element size, add.u64
 * of the base, add.u64 of a constant offset). NVIDIA's compiler encodes most of that in
 * the using instruction: immediate operands (FFMA R0, R1, R2, 1.0), register + immediate
 * addresses ([R2+0x10]), one IMAD.WIDE or LEA for base + index * size, one IMAD for a
 * multiply feeding an add. This pass does the same on xgpu's ISA, in one walk over the
 * kernel, each rule rewriting one instruction from the definitions of its operands:
 *
 *   imm    the last source defined by `mov #c` becomes the immediate c (XF_IMM); a
 *          commutative operation (or a compare, mirrored) swaps a constant first source
 *          there first
 *   zero   any other register source defined by `mov #0` reads rz
 *   pow2   mul by an immediate power of two becomes shl
 *   lea    shl(cvt.u64(i32), #k) becomes lea(rz, i32, k); add(x, lea(rz, i, k)),
 *          add(x, shl(y, #k)) and add(x, cvt.u64(i32)) become lea(x, i, k)
 *   mad    add(mul(a, b), c) becomes mad(a, b, c), c a register or an immediate
 *   offset a memory operand [add(b, #c) + o] becomes [b + c + o]; [mov #c + o] becomes
 *          [rz + c + o]
 *   const  after the rules above, in a walk of its own: a source defined by a 32- or
 *          64-bit `ld.param [c]` becomes the constant-bank operand c[c] (XF_CONST, one
 *          per instruction, on XI_CONST opcodes), as NVIDIA's compiler reads kernel
 *          parameters from constant bank 0 (IMAD R0, R1, c[0x0][0x0], R2); then every
 *          such load becomes `mov d, c[c]`, an integer-unit instruction instead of a trip
 *          through the LD/ST unit, and the sweep removes those nothing reads
 *
 * SSA makes each rewrite local: a value has one definition, so an instruction may read
 * its producer's operands directly (they are defined where the producer is, which
 * dominates the use). A producer is absorbed (lea, mad) only when the rewritten
 * instruction was its one use, so no work is duplicated; it then has no uses left and
 * the final dead-code sweep removes it, with the `mov`s and `cvt`s nothing reads any
 * more. Instructions with effects (memory, control, warp-wide operations) are never
 * removed. The __shared__-variable tag of an address (MVreg.svar, for the phase
 * analysis) moves to the base register when an offset is folded, and a fold that would
 * lose it is not made.
 *
 * Requires mir_cfg on SSA MIR (before mir_outssa). Guarantees the same results, never
 * more instructions, and no new virtual registers.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

typedef struct Fold {
    MFunc *f;
    MInsn **def;     /* per vreg: its only defining instruction (NULL: none, several, phi) */
    uint32_t *uses;  /* per vreg: register source slots and phi inputs reading it */
} Fold;

static MInsn *def_of(const Fold *F, MReg r)
{
    return mir_is_vreg(r) ? F->def[r] : NULL;
}

/* The constant a `mov #c` defining r holds. */
static int const_of(const Fold *F, MReg r, int64_t *c)
{
    const MInsn *d = def_of(F, r);
    if (!d || d->x.op != XOP_mov || !(d->x.flags & XF_IMM))
        return 0;
    *c = d->x.imm;
    return 1;
}

static void use(Fold *F, MReg r, int delta)
{
    if (mir_is_vreg(r))
        F->uses[r] = (uint32_t)((int64_t)F->uses[r] + delta);
}

static void set_src(Fold *F, MInsn *in, unsigned i, MReg r)
{
    use(F, in->src[i], -1);
    use(F, r, +1);
    in->src[i] = r;
}

static int is_wide(XType t)
{
    return xisa_type_size(t) == 8;
}

/* Operations whose last source may be an immediate (the emulator has both forms). */
static int takes_imm(unsigned op)
{
    switch (op) {
    case XOP_add: case XOP_sub: case XOP_mul: case XOP_mulhi: case XOP_div: case XOP_rem:
    case XOP_and: case XOP_or: case XOP_xor: case XOP_shl: case XOP_shr: case XOP_min:
    case XOP_max: case XOP_fadd: case XOP_fsub: case XOP_fmul: case XOP_ffma: case XOP_fdiv:
    case XOP_fmin: case XOP_fmax: case XOP_set: case XOP_mad: return 1;
    default: return 0;
    }
}

static int commutes(unsigned op)
{
    switch (op) {
    case XOP_add: case XOP_mul: case XOP_mulhi: case XOP_and: case XOP_or: case XOP_xor:
    case XOP_min: case XOP_max: case XOP_fadd: case XOP_fmul: case XOP_fmin:
    case XOP_fmax: return 1;
    default: return 0;
    }
}

/* The compare that gives the same result with its operands exchanged. */
static unsigned mirrored(unsigned cmp)
{
    switch (cmp) {
    case XCMP_LT: return XCMP_GT;
    case XCMP_GT: return XCMP_LT;
    case XCMP_LE: return XCMP_GE;
    case XCMP_GE: return XCMP_LE;
    case XCMP_LTU: return XCMP_GTU;
    case XCMP_GTU: return XCMP_LTU;
    case XCMP_LEU: return XCMP_GEU;
    case XCMP_GEU: return XCMP_LEU;
    default: return cmp; /* eq, ne, neu, equ, num, nan */
    }
}

/* Whether the constant defining source slot i fits that slot's width as an immediate. */
static int imm_fits(const Fold *F, const MInsn *in, unsigned i)
{
    const MInsn *d = def_of(F, in->src[i]);
    return xisa_type_regs((XType)d->x.type) == xisa_operand_regs(&in->x, 0, i);
}

/* imm: a constant last source becomes the immediate. */
static int fold_imm(Fold *F, MInsn *in)
{
    unsigned n = xisa_ops[in->x.op].nsrc, k = n - 1;
    int64_t c;
    if (!takes_imm(in->x.op) || (in->x.flags & XF_IMM)) /* all of them have sources */
        return 0;
    if (!const_of(F, in->src[k], &c) && n == 2 && const_of(F, in->src[0], &c) &&
        (commutes(in->x.op) || in->x.op == XOP_set)) {
        MReg t = in->src[0];
        in->src[0] = in->src[1], in->src[1] = t;
        if (in->x.op == XOP_set)
            in->x.mod = (uint8_t)mirrored(in->x.mod);
    }
    if (!const_of(F, in->src[k], &c) || !imm_fits(F, in, k))
        return 0;
    set_src(F, in, k, MREG_NONE);
    in->x.flags |= XF_IMM;
    in->x.imm = c;
    return 1;
}

/* zero: register sources holding the constant 0 read rz. */
static int fold_zero(Fold *F, MInsn *in)
{
    int changed = 0;
    int64_t c;
    for (unsigned i = 0, n = mir_nsrc(in); i < n; i++)
        if (const_of(F, in->src[i], &c) && c == 0 && imm_fits(F, in, i)) {
            set_src(F, in, i, MREG_RZ);
            changed = 1;
        }
    return changed;
}

/* pow2: mul by 2^k becomes shl by k. */
static int fold_pow2(MInsn *in)
{
    uint64_t c = (uint64_t)in->x.imm;
    unsigned bits = 8 * xisa_type_size((XType)in->x.type);
    if (in->x.op != XOP_mul || !(in->x.flags & XF_IMM) || c == 0 || (c & (c - 1)))
        return 0;
    unsigned k = (unsigned)__builtin_ctzll(c);
    if (k >= bits)
        return 0;
    in->x.op = XOP_shl;
    in->x.imm = k;
    return 1;
}

/* The index of a widening cvt to 64 bits from a 32-bit integer, and its type. lea widens
 * its index for nothing, so a cvt with other uses is read through too (it goes when the
 * last of them has). */
static int widened(const Fold *F, MReg r, MReg *idx, XType *t2)
{
    const MInsn *d = def_of(F, r);
    if (!d || d->x.op != XOP_cvt || (d->x.flags & XF_IMM) || !is_wide((XType)d->x.type) ||
        (d->x.type2 != XT_U32 && d->x.type2 != XT_S32))
        return 0;
    *idx = d->src[0], *t2 = (XType)d->x.type2;
    return 1;
}

static void make_lea(Fold *F, MInsn *in, MReg base, MReg idx, XType t2, int64_t k)
{
    use(F, base, +1), use(F, idx, +1);
    use(F, in->src[0], -1), use(F, in->src[1], -1);
    in->x.op = XOP_lea;
    in->x.type = is_wide((XType)in->x.type) ? XT_U64 : XT_U32;
    in->x.type2 = (uint8_t)t2;
    in->x.flags &= (uint8_t)~XF_IMM;
    in->x.imm = k;
    in->src[0] = base, in->src[1] = idx;
}

/* The scaled index r stands for: lea(rz, i, k), shl(y, #k), or cvt.u64(i32) (k = 0),
 * defined for this use only. */
static int scaled_index(const Fold *F, MReg r, unsigned bits, MReg *idx, XType *t2,
                        int64_t *k)
{
    const MInsn *d = def_of(F, r);
    if (bits == 64 && widened(F, r, idx, t2)) {
        *k = 0;
        return 1;
    }
    if (!d || F->uses[r] != 1)
        return 0;
    if (d->x.op == XOP_lea && d->src[0] == MREG_RZ) {
        *idx = d->src[1], *t2 = (XType)d->x.type2, *k = d->x.imm;
        return 1;
    }
    if (d->x.op == XOP_shl && (d->x.flags & XF_IMM) && d->x.imm >= 0 && d->x.imm < bits &&
        8 * xisa_type_size((XType)d->x.type) == bits) {
        *idx = d->src[0], *t2 = bits == 64 ? XT_U64 : XT_U32, *k = d->x.imm;
        return 1;
    }
    return 0;
}

/* lea: scaled-index arithmetic into one instruction. */
static int fold_lea(Fold *F, MInsn *in)
{
    unsigned bits = 8 * xisa_type_size((XType)in->x.type);
    MReg idx;
    XType t2;
    int64_t k;
    if ((in->x.flags & XF_IMM) || in->x.op != XOP_add || (bits != 32 && bits != 64))
        return 0;
    for (unsigned j = 2; j-- > 0;) {
        if (!scaled_index(F, in->src[j], bits, &idx, &t2, &k))
            continue;
        if (t2 == XT_U64) /* shl(cvt.u64(i32), k): lea widens the index itself */
            widened(F, idx, &idx, &t2);
        make_lea(F, in, in->src[1 - j], idx, t2, k);
        return 1;
    }
    return 0;
}

/* lea of rz: shl.u64(cvt.u64(i32), #k) alone, so that the cvt goes (a later add may
 * absorb the lea). */
static int fold_shl_lea(Fold *F, MInsn *in)
{
    MReg idx;
    XType t2;
    if (in->x.op != XOP_shl || !(in->x.flags & XF_IMM) || !is_wide((XType)in->x.type) ||
        in->x.imm < 0 || in->x.imm >= 64 || !widened(F, in->src[0], &idx, &t2))
        return 0;
    int64_t k = in->x.imm;
    in->src[1] = MREG_NONE;
    make_lea(F, in, MREG_RZ, idx, t2, k);
    return 1;
}

/* mad: add(mul(a, b), c) into one multiply-add. */
static int fold_mad(Fold *F, MInsn *in)
{
    if (in->x.op != XOP_add)
        return 0;
    int imm = (in->x.flags & XF_IMM) != 0;
    for (unsigned j = imm ? 1 : 2; j-- > 0;) {
        const MInsn *m = def_of(F, in->src[j]);
        if (!m || m->x.op != XOP_mul || (m->x.flags & XF_IMM) || F->uses[in->src[j]] != 1 ||
            xisa_type_size((XType)m->x.type) != xisa_type_size((XType)in->x.type))
            continue;
        MReg a = m->src[0], b = m->src[1], c = imm ? MREG_NONE : in->src[1 - j];
        use(F, a, +1), use(F, b, +1), use(F, c, +1);
        use(F, in->src[0], -1), use(F, in->src[1], -1);
        in->x.op = XOP_mad;
        in->src[0] = a, in->src[1] = b, in->src[2] = c;
        return 1;
    }
    return 0;
}

/* offset: address arithmetic by a constant into the memory operand's immediate. */
static int fold_offset(Fold *F, MInsn *in)
{
    if (!(xisa_ops[in->x.op].flags & XI_MEM) || !mir_is_vreg(in->src[0]))
        return 0;
    MReg a = in->src[0];
    MInsn *d = def_of(F, a);
    int64_t c, off;
    if (const_of(F, a, &c)) {
        off = c;
        set_src(F, in, 0, MREG_RZ);
        in->x.imm += off;
        return 1;
    }
    if (!d || !(d->x.flags & XF_IMM) || !is_wide((XType)d->x.type) ||
        (d->x.op != XOP_add && d->x.op != XOP_sub))
        return 0;
    off = d->x.op == XOP_add ? d->x.imm : -d->x.imm;
    if (off < INT32_MIN || off > INT32_MAX || in->x.imm + off < INT32_MIN ||
        in->x.imm + off > INT32_MAX)
        return 0;
    MReg base = d->src[0];
    MVreg *va = &F->f->vregs[a], *vb = mir_is_vreg(base) ? &F->f->vregs[base] : NULL;
    if (va->svar && (!vb || (vb->svar && vb->svar != va->svar)))
        return 0;
    if (va->svar && !vb->svar) {
        if (F->uses[base] != 1) /* the tag would spread to the base's other uses */
            return 0;
        vb->svar = va->svar;
    }
    set_src(F, in, 0, base);
    in->x.imm += off;
    return 1;
}

/* const: the parameter word(s) an `ld.param [c]` into a 32- or 64-bit register reads
 * (no extension, aligned): *off = c. */
static int param_word(const MInsn *d, uint32_t *off)
{
    unsigned size = xisa_type_size((XType)d->x.type);
    if (d->x.op != XOP_ld || d->x.mod != XS_PARAM || d->src[0] != MREG_RZ || size < 4 ||
        d->x.imm < 0 || d->x.imm % size || d->x.imm > (int64_t)(XISA_CONST_MAX - size))
        return 0;
    *off = (uint32_t)d->x.imm;
    return 1;
}

/* const: the first register source of in that a parameter load defines, with the width
 * the slot reads, becomes c[off]. */
static void fold_const(Fold *F, MInsn *in)
{
    uint32_t off;
    if (!(xisa_ops[in->x.op].flags & XI_CONST) || (in->x.flags & XF_CONST))
        return;
    for (unsigned i = 0, n = mir_nsrc(in); i < n; i++) {
        const MInsn *d = def_of(F, in->src[i]);
        if (!d || !param_word(d, &off) ||
            xisa_type_regs((XType)d->x.type) != xisa_operand_regs(&in->x, 0, i))
            continue;
        set_src(F, in, i, MREG_RZ);
        in->x.flags |= XF_CONST;
        in->x.csrc = (uint8_t)i;
        in->x.target = off;
        return;
    }
}

/* const: a parameter load becomes `mov d, c[off]`. */
static void param_to_mov(MInsn *in)
{
    uint32_t off;
    if (!param_word(in, &off))
        return;
    XInsn x = {.op = XOP_mov, .flags = XF_CONST, .target = off};
    x.type = (uint8_t)(xisa_type_size((XType)in->x.type) == 8 ? XT_U64 : XT_U32);
    memcpy(x.dst, in->x.dst, sizeof x.dst);
    memset(x.src, XREG_RZ, sizeof x.src); /* as mir_append leaves them */
    in->x = x;
    in->src[0] = MREG_RZ;
}

/* Instructions that only compute their destinations. */
static int pure(const MInsn *in)
{
    unsigned op = in->x.op, unit = xisa_ops[op].unit;
    if (xisa_ops[op].flags & (XI_MEM | XI_BRANCH | XI_BARRIER | XI_EXIT))
        return 0;
    switch (op) {
    case XOP_shfl: case XOP_vote: case XOP_actmask: case XOP_vprintf: case XOP_wsync:
    case XOP_hmma: case XOP_nop: return 0;
    case XOP_s2r: return in->x.mod != XSR_CLOCK && in->x.mod != XSR_CLOCK64;
    default: return unit == XU_INT || unit == XU_FP || unit == XU_SFU;
    }
}

static int dead(const Fold *F, const MInsn *in)
{
    if (!pure(in))
        return 0;
    for (unsigned i = 0, n = mir_ndst(in); i < n; i++)
        if (mir_is_vreg(in->dst[i]) && F->uses[in->dst[i]])
            return 0;
    return 1;
}

/* Removes instructions whose results nothing reads, to a fixed point. */
static void sweep(Fold *F)
{
    MFunc *f = F->f;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = 0; b < f->nblocks; b++) {
            MBlock *bb = &f->blocks[b];
            uint32_t n = 0;
            for (uint32_t i = 0; i < bb->nins; i++) {
                MInsn *in = &bb->ins[i];
                if (dead(F, in)) {
                    for (unsigned s = 0, ns = mir_nsrc(in); s < ns; s++)
                        use(F, in->src[s], -1);
                    for (unsigned d = 0, nd = mir_ndst(in); d < nd; d++)
                        if (mir_is_vreg(in->dst[d]))
                            F->def[in->dst[d]] = NULL;
                    changed = 1;
                    continue;
                }
                bb->ins[n++] = *in;
            }
            bb->nins = n;
        }
        /* moving instructions down invalidated the definition pointers of this block */
        for (uint32_t b = 0; changed && b < f->nblocks; b++)
            for (uint32_t i = 0; i < f->blocks[b].nins; i++) {
                MInsn *in = &f->blocks[b].ins[i];
                for (unsigned d = 0, nd = mir_ndst(in); d < nd; d++)
                    if (mir_is_vreg(in->dst[d]) && F->def[in->dst[d]])
                        F->def[in->dst[d]] = in;
            }
    }
}

/* Definitions (one per vreg, or NULL) and use counts. */
static void census(Fold *F)
{
    MFunc *f = F->f;
    uint8_t *ndefs = mir_zalloc(f->nvregs, 1);
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MBlock *bb = &f->blocks[b];
        for (uint32_t p = 0; p < bb->nphis; p++) {
            ndefs[bb->phis[p].dst] = 2; /* a phi is not a foldable definition */
            for (uint32_t j = 0; j < bb->phis[p].nin; j++)
                use(F, bb->phis[p].in[j].reg, +1);
        }
        for (uint32_t i = 0; i < bb->nins; i++) {
            MInsn *in = &bb->ins[i];
            for (unsigned d = 0, nd = mir_ndst(in); d < nd; d++)
                if (mir_is_vreg(in->dst[d])) {
                    ndefs[in->dst[d]] = ndefs[in->dst[d]] ? 2 : 1;
                    F->def[in->dst[d]] = in;
                }
            for (unsigned s = 0, ns = mir_nsrc(in); s < ns; s++)
                use(F, in->src[s], +1);
        }
    }
    for (MReg v = 1; v < f->nvregs; v++)
        if (ndefs[v] != 1)
            F->def[v] = NULL;
    free(ndefs);
}

int mir_fold(MFunc *f)
{
    Fold F = {f, mir_zalloc(f->nvregs, sizeof *F.def), mir_zalloc(f->nvregs, sizeof *F.uses)};
    census(&F);
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].nins; i++) {
            MInsn *in = &f->blocks[b].ins[i];
            for (int round = 0; round < 8; round++) {
                int changed = fold_pow2(in);
                changed |= fold_imm(&F, in);
                changed |= fold_shl_lea(&F, in);
                changed |= fold_lea(&F, in);
                changed |= fold_mad(&F, in);
                changed |= fold_offset(&F, in);
                if (!changed)
                    break;
            }
            fold_zero(&F, in);
        }
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].nins; i++)
            fold_const(&F, &f->blocks[b].ins[i]);
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].nins; i++)
            param_to_mov(&f->blocks[b].ins[i]); /* the sweep removes those nothing reads */
    sweep(&F);
    free(F.def);
    free(F.uses);
    return 0;
}
