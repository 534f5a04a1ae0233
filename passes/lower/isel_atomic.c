/*
 * isel_atomic.c - instruction selection for atomics and for the two-field aggregates
 * some instructions return.
 *
 *   atomicrmw OP ptr, v            -> atom.<space>.<XAtom>.<T> d, [ptr], v
 *   cmpxchg ptr, cmp, new          -> atomcas.<space>.<T> old, [ptr], cmp, new
 *                                     ok = set.eq old, cmp
 *   llvm.nvvm.atomic.load.inc/dec.32 -> atom.inc / atom.dec (CUDA atomicInc/atomicDec)
 *
 * Every ordering and scope is accepted and treated as a relaxed, device-scoped atomic
 * (xgpu performs the lanes' atomics one after another in lane order, each indivisible).
 * Address spaces: global, shared and generic directly; a local (per-thread) address is
 * made generic with cvta. Atomics on 8/16-bit integers, nand, and other spaces are
 * rejected with a located error. fsub is an add of the negated value.
 *
 * Aggregates. cmpxchg's {old, success} and shfl.sync.*p's {value, in-range} never live
 * in a register as a whole: field 0 is bound to the instruction in Isel.vals and field 1
 * in Isel.field1, and extractvalue reads them. As with ordinary values, a field may be
 * used (and its vreg created) before the defining instruction is selected.
 */
#include "lower.h"

#include <string.h>

void isel_bind_field(Isel *s, LLVMValueRef agg, unsigned idx, MReg r)
{
    uint32_t old;
    if (idx == 0) {
        isel_bind(s, agg, r);
        return;
    }
    if (!isel_map_get(&s->field1, agg, &old)) {
        isel_map_put(&s->field1, agg, r);
        return;
    }
    MInsn *in = isel_emit(s, XOP_mov, s->f->vregs[old].wide ? XT_U64 : XT_U32);
    in->dst[0] = old;
    in->src[0] = r;
}

int isel_extractvalue(Isel *s, LLVMValueRef in)
{
    LLVMValueRef agg = LLVMGetOperand(in, 0);
    if (LLVMGetNumIndices(in) != 1 || !LLVMIsAInstruction(agg) ||
        (!LLVMIsAAtomicCmpXchgInst(agg) && !LLVMIsACallInst(agg)))
        return isel_fail(s, "unsupported extractvalue (aggregate values are not supported)");
    if (LLVMGetNumIndices(in) == 1 && LLVMIsACallInst(agg) &&
        LLVMGetTypeKind(LLVMTypeOf(agg)) == LLVMStructTypeKind &&
        LLVMCountStructElementTypes(LLVMTypeOf(agg)) > 2)
        return isel_wmma_extract(s, in);
    unsigned idx = LLVMGetIndices(in)[0];
    XType t = isel_type(s, LLVMTypeOf(in), 0);
    if (idx > 1 || t == XT_NONE)
        return isel_fail(s, "unsupported extractvalue of field %u", idx);
    IselMap *m = idx == 0 ? &s->vals : &s->field1;
    uint32_t r;
    if (!isel_map_get(m, agg, &r)) {
        r = isel_reg(s, t);
        isel_map_put(m, agg, r);
    }
    isel_bind(s, in, r);
    return 0;
}

/* The data type of an atomic on LLVM type ty; signed selects s32/s64 for integers. */
static XType atom_type(Isel *s, LLVMTypeRef ty, int is_signed)
{
    unsigned w = isel_int_width(ty);
    if (w && w != 32 && w != 64) {
        isel_fail(s, "atomic operations on %u-bit integers are not supported (32 and 64 "
                  "bits only)", w);
        return XT_NONE;
    }
    XType t = isel_type(s, ty, is_signed);
    if (t == XT_NONE) {
        char *ts = LLVMPrintTypeToString(ty);
        isel_fail(s, "atomic operation on unsupported type '%s'", ts);
        LLVMDisposeMessage(ts);
    }
    return t;
}

/* Address of an atomic's memory operand in a space the atom instructions accept. */
static int atom_addr(Isel *s, LLVMValueRef ptr, IselAddr *a)
{
    if (isel_addr(s, ptr, a))
        return -1;
    if (a->space == XS_GENERIC || a->space == XS_GLOBAL || a->space == XS_SHARED)
        return 0;
    if (a->space != XS_LOCAL)
        return isel_fail(s, "atomic operation on %s memory is not supported",
                         xisa_space_names[a->space]);
    MReg off = a->base == MREG_RZ ? isel_movi(s, XT_U64, a->off)
                                  : isel_op2i(s, XOP_add, XT_U64, a->base, a->off);
    MReg g = isel_reg(s, XT_U64);
    MInsn *in = isel_emit(s, XOP_cvta, XT_NONE);
    in->x.mod = XS_LOCAL;
    in->dst[0] = g;
    in->src[0] = off;
    a->space = XS_GENERIC;
    a->base = g;
    a->off = 0;
    return 0;
}

static MReg emit_atom(Isel *s, const IselAddr *a, XAtom sub, XType t, MReg v)
{
    MReg d = isel_reg(s, t);
    MInsn *in = isel_emit(s, XOP_atom, t);
    in->x.mod = (uint8_t)a->space;
    in->x.sub = (uint8_t)sub;
    in->x.imm = a->off;
    in->dst[0] = d;
    in->src[0] = a->base;
    in->src[1] = v;
    return d;
}

typedef struct RmwRule {
    LLVMAtomicRMWBinOp op;
    XAtom sub;
    uint8_t is_signed; /* min/max compare signed */
} RmwRule;

static const RmwRule rmw_rules[] = {
    {LLVMAtomicRMWBinOpXchg, XATOM_EXCH, 0},     {LLVMAtomicRMWBinOpAdd, XATOM_ADD, 0},
    {LLVMAtomicRMWBinOpSub, XATOM_SUB, 0},       {LLVMAtomicRMWBinOpAnd, XATOM_AND, 0},
    {LLVMAtomicRMWBinOpOr, XATOM_OR, 0},         {LLVMAtomicRMWBinOpXor, XATOM_XOR, 0},
    {LLVMAtomicRMWBinOpMax, XATOM_MAX, 1},       {LLVMAtomicRMWBinOpMin, XATOM_MIN, 1},
    {LLVMAtomicRMWBinOpUMax, XATOM_MAX, 0},      {LLVMAtomicRMWBinOpUMin, XATOM_MIN, 0},
    {LLVMAtomicRMWBinOpFAdd, XATOM_ADD, 0},      {LLVMAtomicRMWBinOpFSub, XATOM_ADD, 0},
    {LLVMAtomicRMWBinOpFMax, XATOM_MAX, 0},      {LLVMAtomicRMWBinOpFMin, XATOM_MIN, 0},
    {LLVMAtomicRMWBinOpUIncWrap, XATOM_INC, 0},  {LLVMAtomicRMWBinOpUDecWrap, XATOM_DEC, 0},
};

int isel_atomicrmw(Isel *s, LLVMValueRef in)
{
    LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(in);
    const RmwRule *r = NULL;
    for (size_t i = 0; i < sizeof rmw_rules / sizeof *rmw_rules; i++)
        if (rmw_rules[i].op == op)
            r = &rmw_rules[i];
    if (!r)
        return isel_fail(s, "unsupported atomicrmw operation (nand and the others outside "
                         "docs/lowering.md)");
    LLVMValueRef v = LLVMGetOperand(in, 1);
    XType t = atom_type(s, LLVMTypeOf(v), r->is_signed);
    IselAddr a;
    if (t == XT_NONE || atom_addr(s, LLVMGetOperand(in, 0), &a))
        return -1;
    MReg rv = isel_val(s, v);
    if (op == LLVMAtomicRMWBinOpFSub)
        rv = isel_op1(s, XOP_fneg, t, rv);
    isel_bind(s, in, emit_atom(s, &a, r->sub, t, rv));
    return 0;
}

int isel_cmpxchg(Isel *s, LLVMValueRef in)
{
    LLVMValueRef cmp = LLVMGetOperand(in, 1), nv = LLVMGetOperand(in, 2);
    XType t = atom_type(s, LLVMTypeOf(cmp), 0);
    IselAddr a;
    if (t == XT_NONE || atom_addr(s, LLVMGetOperand(in, 0), &a))
        return -1;
    if (xisa_type_is_float(t)) /* compared bitwise */
        t = xisa_type_size(t) == 8 ? XT_U64 : XT_U32;
    MReg rc = isel_val(s, cmp), rn = isel_val(s, nv);
    MReg old = isel_reg(s, t);
    MInsn *x = isel_emit(s, XOP_atomcas, t);
    x->x.mod = (uint8_t)a.space;
    x->x.imm = a.off;
    x->dst[0] = old;
    x->src[0] = a.base;
    x->src[1] = rc;
    x->src[2] = rn;
    MReg ok = isel_op2(s, XOP_set, t, old, rc);
    s->f->blocks[s->cur].ins[s->f->blocks[s->cur].nins - 1].x.mod = XCMP_EQ;
    isel_bind_field(s, in, 0, old);
    isel_bind_field(s, in, 1, ok);
    return 0;
}

int isel_atomic_intrin(Isel *s, LLVMValueRef call, int sub)
{
    LLVMValueRef v = LLVMGetOperand(call, 1);
    XType t = atom_type(s, LLVMTypeOf(v), 0);
    IselAddr a;
    if (t == XT_NONE || atom_addr(s, LLVMGetOperand(call, 0), &a))
        return -1;
    isel_bind(s, call, emit_atom(s, &a, (XAtom)sub, t, isel_val(s, v)));
    return 0;
}
