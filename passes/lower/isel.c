/*
 * isel.c - instruction selection: values, arithmetic, compares, casts and control flow.
 *
 * Requires: a prepared kernel (prepare.c). Produces: the kernel's MIR in SSA form (phis
 * at block starts, one terminator per block), as mir.h describes.
 *
 * Value model. Every LLVM value of a first-class type lives in one virtual register:
 * i1/i8/i16/i32, float and <2 x half> (the packed f16 pairs of warp matrix fragments,
 * isel_wmma.c) in a 32-bit vreg, i64, double and pointers in a wide (pair) vreg.
 * Narrow integers (i1, i8, i16) are kept ZERO-EXTENDED in their 32-bit register:
 * operations that may set higher bits (add, sub, mul, shl, not, trunc) mask their result;
 * signed operations (compares, sdiv, srem, ashr, sext, sitofp) sign-extend a copy first.
 * Comparisons produce 0 or 1, so i1 values are always 0/1 and can be tested directly.
 *
 * Constants are materialized where they are used (integer right-hand sides become
 * immediates); phi inputs that are constants are materialized in the predecessor block
 * just before its terminator. Instructions may be used before the block that defines
 * them has been selected (layout order is not dominance order): the first use creates
 * the vreg and the definition later writes it (isel_bind).
 *
 * An LLVM block may become several MIR blocks (memcpy loops): bfirst is where it starts
 * (branch target), blast holds its terminator (the predecessor named by phis).
 */
#define _GNU_SOURCE /* memmem */
#include "lower.h"

#include <llvm-c/DebugInfo.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- pointer map -------------------------------------------------------------------- */

static uint32_t hash_ptr(const void *p, uint32_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

int isel_map_get(const IselMap *m, const void *key, uint32_t *val)
{
    if (!m->cap)
        return 0;
    for (uint32_t i = hash_ptr(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i])
            return 0;
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return 1;
        }
    }
}

static void map_grow(IselMap *m)
{
    IselMap n = {.cap = m->cap ? m->cap * 2 : 64};
    n.keys = calloc(n.cap, sizeof *n.keys);
    n.vals = calloc(n.cap, sizeof *n.vals);
    if (!n.keys || !n.vals) {
        fprintf(stderr, "xgpu-cc: out of memory\n");
        abort();
    }
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            isel_map_put(&n, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = n;
}

void isel_map_put(IselMap *m, const void *key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap)
        map_grow(m);
    uint32_t i = hash_ptr(key, m->cap);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
}

void isel_map_free(IselMap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- emission helpers ----------------------------------------------------------------- */

int isel_fail(Isel *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->failed = 1;
    return mir_error(s->f, s->loc, "%s", buf);
}

MInsn *isel_emit(Isel *s, XOp op, XType t)
{
    MInsn *in = mir_append(s->f, s->cur, op, t);
    in->loc = s->loc;
    return in;
}

MReg isel_reg(Isel *s, XType t)
{
    return mir_vreg_new(s->f, xisa_type_size(t) == 8);
}

MReg isel_op1(Isel *s, XOp op, XType t, MReg a)
{
    MReg d = isel_reg(s, op == XOP_popc || op == XOP_clz ? XT_U32 : t);
    MInsn *in = isel_emit(s, op, t);
    in->dst[0] = d;
    in->src[0] = a;
    return d;
}

MReg isel_op2(Isel *s, XOp op, XType t, MReg a, MReg b)
{
    MReg d = isel_reg(s, op == XOP_set ? XT_U32 : t);
    MInsn *in = isel_emit(s, op, t);
    in->dst[0] = d;
    in->src[0] = a;
    in->src[1] = b;
    return d;
}

MReg isel_op2i(Isel *s, XOp op, XType t, MReg a, int64_t imm)
{
    MReg d = isel_reg(s, op == XOP_set ? XT_U32 : t);
    MInsn *in = isel_emit(s, op, t);
    in->dst[0] = d;
    in->src[0] = a;
    in->x.flags = XF_IMM;
    in->x.imm = imm;
    return d;
}

MReg isel_movi(Isel *s, XType t, int64_t imm)
{
    MReg d = isel_reg(s, t);
    MInsn *in = isel_emit(s, XOP_mov, t);
    in->dst[0] = d;
    in->x.flags = XF_IMM;
    in->x.imm = imm;
    return d;
}

MReg isel_cvt(Isel *s, XType to, XType from, MReg a)
{
    MReg d = isel_reg(s, to);
    MInsn *in = isel_emit(s, XOP_cvt, to);
    in->x.type2 = (uint8_t)from;
    in->dst[0] = d;
    in->src[0] = a;
    return d;
}

static MReg set_cmp(Isel *s, XCmp c, XType t, MReg a, MReg b)
{
    MReg d = isel_op2(s, XOP_set, t, a, b);
    s->f->blocks[s->cur].ins[s->f->blocks[s->cur].nins - 1].x.mod = (uint8_t)c;
    return d;
}

uint32_t isel_new_block(Isel *s)
{
    return mir_block_new(s->f);
}

void isel_branch(Isel *s, uint32_t target)
{
    MInsn *in = isel_emit(s, XOP_bra, XT_NONE);
    in->x.target = target;
    MBlock *b = &s->f->blocks[s->cur];
    b->succ[0] = target;
    b->nsucc = 1;
}

void isel_cbranch(Isel *s, MReg cond, uint32_t then, uint32_t els)
{
    if (then == els) {
        isel_branch(s, then);
        return;
    }
    MInsn *in = isel_emit(s, XOP_brc, XT_NONE);
    in->src[0] = cond;
    in->x.target = then;
    MBlock *b = &s->f->blocks[s->cur];
    b->succ[0] = then;
    b->succ[1] = els;
    b->nsucc = 2;
}

/* ---- types and values ------------------------------------------------------------------- */

unsigned isel_int_width(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

XType isel_type(Isel *s, LLVMTypeRef t, int is_signed)
{
    (void)s;
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: {
        unsigned w = LLVMGetIntTypeWidth(t);
        if (w == 1 || w == 8 || w == 16 || w == 32)
            return is_signed ? XT_S32 : XT_U32;
        if (w == 64)
            return is_signed ? XT_S64 : XT_U64;
        return XT_NONE;
    }
    case LLVMPointerTypeKind: return XT_U64;
    case LLVMFloatTypeKind: return XT_F32;
    case LLVMDoubleTypeKind: return XT_F64;
    case LLVMVectorTypeKind: return isel_is_half2(t) ? XT_U32 : XT_NONE;
    default: return XT_NONE;
    }
}

static XType value_type(Isel *s, LLVMValueRef v)
{
    XType t = isel_type(s, LLVMTypeOf(v), 0);
    if (t == XT_NONE) {
        char *ts = LLVMPrintTypeToString(LLVMTypeOf(v));
        isel_fail(s, "unsupported type '%s'", ts);
        LLVMDisposeMessage(ts);
    }
    return t;
}

MReg isel_sext(Isel *s, MReg r, unsigned w)
{
    if (w == 1)
        return isel_op1(s, XOP_neg, XT_S32, r);
    if (w == 8 || w == 16)
        return isel_cvt(s, XT_S32, w == 8 ? XT_S8 : XT_S16, r);
    return r;
}

MReg isel_trunc(Isel *s, MReg r, unsigned w)
{
    return w < 32 ? isel_op2i(s, XOP_and, XT_U32, r, (int64_t)((1u << w) - 1)) : r;
}

static MReg const_int(Isel *s, LLVMValueRef v)
{
    unsigned w = isel_int_width(LLVMTypeOf(v));
    if (w > 64) {
        isel_fail(s, "integer constants wider than 64 bits are not supported");
        return isel_movi(s, XT_U32, 0);
    }
    int64_t x = w < 32 ? (int64_t)LLVMConstIntGetZExtValue(v) : LLVMConstIntGetSExtValue(v);
    return isel_movi(s, w == 64 ? XT_U64 : XT_U32, x);
}

static MReg const_fp(Isel *s, LLVMValueRef v)
{
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(v, &loses);
    if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMFloatTypeKind) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        return isel_movi(s, XT_F32, u);
    }
    if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMDoubleTypeKind) {
        isel_fail(s, "unsupported floating-point type (only float and double)");
        return isel_movi(s, XT_F32, 0);
    }
    int64_t u;
    memcpy(&u, &d, 8);
    return isel_movi(s, XT_F64, u);
}

static MReg const_expr(Isel *s, LLVMValueRef v)
{
    LLVMOpcode op = LLVMGetConstOpcode(v);
    switch (op) {
    case LLVMGetElementPtr:
    case LLVMAddrSpaceCast: return isel_ptr_value(s, v);
    case LLVMBitCast:
    case LLVMIntToPtr: return isel_val(s, LLVMGetOperand(v, 0));
    case LLVMPtrToInt: {
        MReg r = isel_val(s, LLVMGetOperand(v, 0));
        unsigned w = isel_int_width(LLVMTypeOf(v));
        return w == 64 ? r : isel_trunc(s, isel_cvt(s, XT_U32, XT_U64, r), w);
    }
    default:
        isel_fail(s, "unsupported constant expression (opcode %d)", (int)op);
        return isel_movi(s, XT_U32, 0);
    }
}

static MReg constant(Isel *s, LLVMValueRef v)
{
    if (LLVMIsAConstantInt(v))
        return const_int(s, v);
    if (LLVMIsAConstantFP(v))
        return const_fp(s, v);
    if (LLVMIsAGlobalVariable(v))
        return isel_ptr_value(s, v);
    if (LLVMIsAFunction(v)) {
        isel_fail(s, "function pointers are not supported");
        return isel_movi(s, XT_U64, 0);
    }
    if (LLVMIsAConstantExpr(v))
        return const_expr(s, v);
    if ((LLVMIsAConstantDataVector(v) || LLVMIsAConstantVector(v)) &&
        isel_is_half2(LLVMTypeOf(v)))
        return isel_half2_const(s, v);
    XType t = value_type(s, v);
    if (LLVMIsUndef(v) || LLVMIsPoison(v) || LLVMIsAConstantPointerNull(v) || LLVMIsNull(v))
        return isel_movi(s, t == XT_NONE ? XT_U32 : t, 0);
    if (t != XT_NONE)
        isel_fail(s, "unsupported constant");
    return isel_movi(s, XT_U32, 0);
}

/* Address-like instructions selected at their uses (see isel_ptr_value). */
static int is_lazy(LLVMValueRef v)
{
    if (LLVMIsAAllocaInst(v) || LLVMIsAAddrSpaceCastInst(v))
        return 1;
    if (!LLVMIsAGetElementPtrInst(v))
        return 0;
    for (int i = 1; i < LLVMGetNumOperands(v); i++)
        if (!LLVMIsAConstantInt(LLVMGetOperand(v, (unsigned)i)))
            return 0;
    return 1;
}

MReg isel_val(Isel *s, LLVMValueRef v)
{
    uint32_t r;
    if (LLVMIsAConstant(v))
        return constant(s, v);
    if (isel_map_get(&s->byval, v, &r) || isel_map_get(&s->frames, v, &r) ||
        (LLVMIsAInstruction(v) && is_lazy(v)))
        return isel_ptr_value(s, v);
    if (isel_map_get(&s->vals, v, &r))
        return r;
    XType t = value_type(s, v);
    MReg n = isel_reg(s, t == XT_NONE ? XT_U32 : t);
    isel_map_put(&s->vals, v, n);
    return n;
}

void isel_bind(Isel *s, LLVMValueRef v, MReg r)
{
    uint32_t old;
    if (!isel_map_get(&s->vals, v, &old)) {
        isel_map_put(&s->vals, v, r);
        return;
    }
    MInsn *in = isel_emit(s, XOP_mov, s->f->vregs[old].wide ? XT_U64 : XT_U32);
    in->dst[0] = old;
    in->src[0] = r;
}

/* An integer operand; with sign (and a narrow type) sign-extended to 32 bits. */
static MReg int_operand(Isel *s, LLVMValueRef v, int sign)
{
    unsigned w = isel_int_width(LLVMTypeOf(v));
    MReg r = isel_val(s, v);
    return sign ? isel_sext(s, r, w) : r;
}

/* ---- integer and float arithmetic ----------------------------------------------------- */

typedef struct BinRule {
    LLVMOpcode llvm;
    XOp op;
    uint8_t sign;   /* operands are signed (sign-extend narrow ones) */
    uint8_t masks;  /* a narrow result needs masking */
    uint8_t commut; /* constant left operand may be swapped */
} BinRule;

static const BinRule bin_rules[] = {
    /* llvm       op        sign masks commut */
    {LLVMAdd, XOP_add, 0, 1, 1},   {LLVMSub, XOP_sub, 0, 1, 0},
    {LLVMMul, XOP_mul, 0, 1, 1},   {LLVMUDiv, XOP_div, 0, 0, 0},
    {LLVMSDiv, XOP_div, 1, 1, 0},  {LLVMURem, XOP_rem, 0, 0, 0},
    {LLVMSRem, XOP_rem, 1, 1, 0},  {LLVMShl, XOP_shl, 0, 1, 0},
    {LLVMLShr, XOP_shr, 0, 0, 0},  {LLVMAShr, XOP_shr, 1, 1, 0},
    {LLVMAnd, XOP_and, 0, 0, 1},   {LLVMOr, XOP_or, 0, 0, 1},
    {LLVMXor, XOP_xor, 0, 0, 1},   {LLVMFAdd, XOP_fadd, 0, 0, 0},
    {LLVMFSub, XOP_fsub, 0, 0, 0}, {LLVMFMul, XOP_fmul, 0, 0, 0},
    {LLVMFDiv, XOP_fdiv, 0, 0, 0}, {LLVMFRem, XOP_frem, 0, 0, 0},
};

static int64_t imm_of(LLVMValueRef c, unsigned w, int sign)
{
    if (w < 32 && !sign)
        return (int64_t)LLVMConstIntGetZExtValue(c);
    return LLVMConstIntGetSExtValue(c);
}

static int fits_imm(LLVMValueRef c)
{
    return LLVMIsAConstantInt(c) && isel_int_width(LLVMTypeOf(c)) <= 64;
}

static int sel_binop(Isel *s, LLVMValueRef in, const BinRule *r)
{
    LLVMValueRef a = LLVMGetOperand(in, 0), b = LLVMGetOperand(in, 1);
    XType t = isel_type(s, LLVMTypeOf(in), r->sign);
    unsigned w = isel_int_width(LLVMTypeOf(in));
    if (t == XT_NONE || (w && w != 64 && w != 32 && w != 16 && w != 8 && w != 1))
        return isel_fail(s, "unsupported type in %s", xisa_ops[r->op].name);
    if (r->commut && fits_imm(a) && !fits_imm(b)) {
        LLVMValueRef x = a;
        a = b;
        b = x;
    }
    MReg ra = w ? int_operand(s, a, r->sign) : isel_val(s, a), d;
    if (w && fits_imm(b)) {
        d = isel_op2i(s, r->op, t, ra, imm_of(b, w, r->sign));
    } else {
        MReg rb = w ? int_operand(s, b, r->sign) : isel_val(s, b);
        if (w == 64 && (r->op == XOP_shl || r->op == XOP_shr)) /* counts are 32-bit */
            rb = isel_cvt(s, XT_U32, XT_U64, rb);
        d = isel_op2(s, r->op, t, ra, rb);
    }
    if (w && w < 32 && r->masks)
        d = isel_trunc(s, d, w);
    isel_bind(s, in, d);
    return 0;
}

static int sel_fneg(Isel *s, LLVMValueRef in)
{
    XType t = value_type(s, in);
    isel_bind(s, in, isel_op1(s, XOP_fneg, t, isel_val(s, LLVMGetOperand(in, 0))));
    return 0;
}

/* ---- compares and select ------------------------------------------------------------------- */

static int sel_icmp(Isel *s, LLVMValueRef in)
{
    LLVMIntPredicate p = LLVMGetICmpPredicate(in);
    int sign = p == LLVMIntSLT || p == LLVMIntSLE || p == LLVMIntSGT || p == LLVMIntSGE;
    static const XCmp cmp[] = {
        [LLVMIntEQ] = XCMP_EQ,  [LLVMIntNE] = XCMP_NE,  [LLVMIntUGT] = XCMP_GT,
        [LLVMIntUGE] = XCMP_GE, [LLVMIntULT] = XCMP_LT, [LLVMIntULE] = XCMP_LE,
        [LLVMIntSGT] = XCMP_GT, [LLVMIntSGE] = XCMP_GE, [LLVMIntSLT] = XCMP_LT,
        [LLVMIntSLE] = XCMP_LE,
    };
    LLVMValueRef a = LLVMGetOperand(in, 0), b = LLVMGetOperand(in, 1);
    LLVMTypeRef ty = LLVMTypeOf(a);
    XType t = isel_type(s, ty, sign);
    unsigned w = isel_int_width(ty);
    if (t == XT_NONE || p < LLVMIntEQ || p > LLVMIntSLE)
        return isel_fail(s, "unsupported icmp operands");
    MReg ra = int_operand(s, a, sign), d;
    if (fits_imm(b))
        d = isel_op2i(s, XOP_set, t, ra, imm_of(b, w, sign));
    else
        d = isel_op2(s, XOP_set, t, ra, int_operand(s, b, sign));
    s->f->blocks[s->cur].ins[s->f->blocks[s->cur].nins - 1].x.mod = (uint8_t)cmp[p];
    isel_bind(s, in, d);
    return 0;
}

static int sel_fcmp(Isel *s, LLVMValueRef in)
{
    static const int8_t cmp[] = {
        [LLVMRealOEQ] = XCMP_EQ,  [LLVMRealOGT] = XCMP_GT,  [LLVMRealOGE] = XCMP_GE,
        [LLVMRealOLT] = XCMP_LT,  [LLVMRealOLE] = XCMP_LE,  [LLVMRealONE] = XCMP_NE,
        [LLVMRealORD] = XCMP_NUM, [LLVMRealUNO] = XCMP_NAN, [LLVMRealUEQ] = XCMP_EQU,
        [LLVMRealUGT] = XCMP_GTU, [LLVMRealUGE] = XCMP_GEU, [LLVMRealULT] = XCMP_LTU,
        [LLVMRealULE] = XCMP_LEU, [LLVMRealUNE] = XCMP_NEU,
    };
    LLVMRealPredicate p = LLVMGetFCmpPredicate(in);
    if (p == LLVMRealPredicateFalse || p == LLVMRealPredicateTrue) {
        isel_bind(s, in, isel_movi(s, XT_U32, p == LLVMRealPredicateTrue));
        return 0;
    }
    LLVMValueRef a = LLVMGetOperand(in, 0);
    XType t = value_type(s, a);
    if (t == XT_NONE)
        return -1;
    MReg ra = isel_val(s, a), rb = isel_val(s, LLVMGetOperand(in, 1));
    isel_bind(s, in, set_cmp(s, (XCmp)cmp[p], t, ra, rb));
    return 0;
}

static int sel_select(Isel *s, LLVMValueRef in)
{
    XType t = value_type(s, in);
    if (t == XT_NONE)
        return -1;
    MReg c = isel_val(s, LLVMGetOperand(in, 0));
    MReg a = isel_val(s, LLVMGetOperand(in, 1)), b = isel_val(s, LLVMGetOperand(in, 2));
    MReg d = isel_reg(s, t);
    MInsn *x = isel_emit(s, XOP_sel, t);
    x->dst[0] = d;
    x->src[0] = a;
    x->src[1] = b;
    x->src[2] = c;
    isel_bind(s, in, d);
    return 0;
}

/* ---- casts ---------------------------------------------------------------------------- */

static MReg int_resize(Isel *s, MReg r, unsigned from, unsigned to, int sign)
{
    if (from == to)
        return r;
    if (to < from) { /* trunc */
        if (from == 64)
            r = isel_cvt(s, XT_U32, XT_U64, r);
        return isel_trunc(s, r, to);
    }
    if (sign)
        r = isel_sext(s, r, from);
    if (to == 64)
        return isel_cvt(s, sign ? XT_S64 : XT_U64, sign ? XT_S32 : XT_U32, r);
    return sign ? isel_trunc(s, r, to) : isel_op1(s, XOP_mov, XT_U32, r);
}

static int sel_intcast(Isel *s, LLVMValueRef in, int sign)
{
    unsigned from = isel_int_width(LLVMTypeOf(LLVMGetOperand(in, 0)));
    unsigned to = isel_int_width(LLVMTypeOf(in));
    if (!isel_type(s, LLVMTypeOf(in), 0) || !isel_type(s, LLVMTypeOf(LLVMGetOperand(in, 0)), 0))
        return isel_fail(s, "unsupported integer width in cast");
    isel_bind(s, in, int_resize(s, isel_val(s, LLVMGetOperand(in, 0)), from, to, sign));
    return 0;
}

static int sel_fpcast(Isel *s, LLVMValueRef in, LLVMOpcode op)
{
    LLVMValueRef a = LLVMGetOperand(in, 0);
    int sign = op == LLVMFPToSI || op == LLVMSIToFP;
    XType ft = isel_type(s, LLVMTypeOf(in), sign), st = isel_type(s, LLVMTypeOf(a), sign);
    unsigned fw = isel_int_width(LLVMTypeOf(in)), sw = isel_int_width(LLVMTypeOf(a));
    if (!ft || !st)
        return isel_fail(s, "unsupported type in floating-point conversion");
    MReg r = sw ? int_operand(s, a, sign) : isel_val(s, a);
    r = isel_cvt(s, ft, st, r);
    if (fw && fw < 32)
        r = isel_trunc(s, r, fw);
    isel_bind(s, in, r);
    return 0;
}

static int sel_copy(Isel *s, LLVMValueRef in)
{
    XType t = value_type(s, in);
    if (!t)
        return -1;
    MReg a = isel_val(s, LLVMGetOperand(in, 0));
    isel_bind(s, in, isel_op1(s, XOP_mov, xisa_type_size(t) == 8 ? XT_U64 : XT_U32, a));
    return 0;
}

static int sel_ptrtoint(Isel *s, LLVMValueRef in)
{
    unsigned w = isel_int_width(LLVMTypeOf(in));
    if (!w || w > 64)
        return isel_fail(s, "unsupported ptrtoint width");
    MReg a = isel_val(s, LLVMGetOperand(in, 0));
    isel_bind(s, in, w == 64 ? isel_op1(s, XOP_mov, XT_U64, a) : int_resize(s, a, 64, w, 0));
    return 0;
}

static int sel_inttoptr(Isel *s, LLVMValueRef in)
{
    unsigned w = isel_int_width(LLVMTypeOf(LLVMGetOperand(in, 0)));
    if (!w || w > 64)
        return isel_fail(s, "unsupported inttoptr width");
    isel_bind(s, in, int_resize(s, isel_val(s, LLVMGetOperand(in, 0)), w, 64, 0));
    return 0;
}

/* ---- control flow --------------------------------------------------------------------- */

static uint32_t block_of(Isel *s, LLVMBasicBlockRef bb)
{
    uint32_t i = 0;
    isel_map_get(&s->blocks, bb, &i);
    return i;
}

static int sel_br(Isel *s, LLVMValueRef in)
{
    if (!LLVMIsConditional(in)) {
        isel_branch(s, s->bfirst[block_of(s, LLVMGetSuccessor(in, 0))]);
        return 0;
    }
    LLVMValueRef c = LLVMGetCondition(in);
    uint32_t t = s->bfirst[block_of(s, LLVMGetSuccessor(in, 0))];
    uint32_t e = s->bfirst[block_of(s, LLVMGetSuccessor(in, 1))];
    if (LLVMIsAConstantInt(c)) {
        isel_branch(s, LLVMConstIntGetZExtValue(c) ? t : e);
        return 0;
    }
    isel_cbranch(s, isel_val(s, c), t, e);
    return 0;
}

static int sel_exit(Isel *s)
{
    isel_emit(s, XOP_exit, XT_NONE);
    s->f->blocks[s->cur].nsucc = 0;
    return 0;
}

/* Fills the phis of every block once all blocks are selected. */
static int fill_phis(Isel *s, LLVMBasicBlockRef bb)
{
    uint32_t b = s->bfirst[block_of(s, bb)];
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in)) {
        unsigned n = LLVMCountIncoming(in);
        s->loc = 0;
        if (value_type(s, in) == XT_NONE)
            return -1;
        MPhi *p = mir_phi_new(s->f, b, 0, n);
        uint32_t pi = s->f->blocks[b].nphis - 1, nin = 0;
        MPhiIn *ins = calloc(n ? n : 1, sizeof *ins);
        for (unsigned i = 0; i < n && ins; i++) {
            uint32_t pred = s->blast[block_of(s, LLVMGetIncomingBlock(in, i))];
            int dup = 0;
            for (uint32_t k = 0; k < nin; k++)
                dup |= ins[k].block == pred;
            if (dup)
                continue;
            LLVMValueRef v = LLVMGetIncomingValue(in, i);
            s->cur = pred;
            uint32_t pos = s->f->blocks[pred].nins - 1, before = s->f->blocks[pred].nins;
            MReg r = isel_val(s, v);
            /* move what isel_val emitted in front of the terminator */
            MBlock *pb = &s->f->blocks[pred];
            uint32_t added = pb->nins - before;
            if (added) {
                MInsn term = pb->ins[pos];
                memmove(&pb->ins[pos], &pb->ins[pos + 1], added * sizeof term);
                pb->ins[pos + added] = term;
            }
            ins[nin].block = pred;
            ins[nin++].reg = r;
        }
        p = &s->f->blocks[b].phis[pi];
        p->dst = isel_val(s, in);
        memcpy(p->in, ins, nin * sizeof *ins);
        p->nin = nin;
        free(ins);
    }
    return 0;
}

/* ---- the instruction dispatch ---------------------------------------------------------- */

/* True for the toolchain's own headers (clang's CUDA builtins, xgpu's cuda_runtime.h):
 * a location there is reported at the user code it was inlined into. */
static int toolchain_header(const char *file, unsigned len)
{
    const char *base = file;
    for (unsigned i = 0; i < len; i++)
        if (file[i] == '/')
            base = file + i + 1;
    size_t blen = len - (size_t)(base - file);
    return (blen >= 12 && !strncmp(base, "__clang_cuda", 12)) ||
           memmem(file, len, "/xgpu/cuda/", 11) != NULL;
}

static void set_loc(Isel *s, LLVMValueRef in)
{
    LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(in);
    const char *file = NULL;
    unsigned len = 0, line = 0, col = 0;
    while (loc) {
        LLVMMetadataRef scope = LLVMDILocationGetScope(loc);
        LLVMMetadataRef f = scope ? LLVMDIScopeGetFile(scope) : NULL;
        file = f ? LLVMDIFileGetFilename(f, &len) : NULL;
        line = LLVMDILocationGetLine(loc);
        col = LLVMDILocationGetColumn(loc);
        LLVMMetadataRef outer = LLVMDILocationGetInlinedAt(loc);
        if (!file || !outer || !toolchain_header(file, len))
            break;
        loc = outer;
    }
    if (!file || !len || !line) {
        s->loc = 0;
        return;
    }
    char *name = strndup(file, len);
    s->loc = name ? mir_loc(s->f, mir_file(s->f->mod, name), line, col) : 0;
    free(name);
}

static int sel_insn(Isel *s, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    for (size_t i = 0; i < sizeof bin_rules / sizeof *bin_rules; i++)
        if (bin_rules[i].llvm == op)
            return sel_binop(s, in, &bin_rules[i]);
    switch (op) {
    case LLVMFNeg: return sel_fneg(s, in);
    case LLVMICmp: return sel_icmp(s, in);
    case LLVMFCmp: return sel_fcmp(s, in);
    case LLVMSelect: return sel_select(s, in);
    case LLVMZExt: return sel_intcast(s, in, 0);
    case LLVMSExt: return sel_intcast(s, in, 1);
    case LLVMTrunc: return sel_intcast(s, in, 0);
    case LLVMFPToSI: case LLVMFPToUI: case LLVMSIToFP: case LLVMUIToFP:
    case LLVMFPExt: case LLVMFPTrunc: return sel_fpcast(s, in, op);
    case LLVMBitCast: case LLVMFreeze: return sel_copy(s, in);
    case LLVMPtrToInt: return sel_ptrtoint(s, in);
    case LLVMIntToPtr: return sel_inttoptr(s, in);
    case LLVMGetElementPtr:
        if (!is_lazy(in))
            isel_bind(s, in, isel_ptr_value(s, in));
        return 0;
    case LLVMAlloca: case LLVMAddrSpaceCast: case LLVMPHI: return 0; /* at uses / fill_phis */
    case LLVMLoad: return isel_load(s, in);
    case LLVMStore: return isel_store(s, in);
    case LLVMCall: return isel_call(s, in);
    case LLVMFence: {
        MInsn *x = isel_emit(s, XOP_membar, XT_NONE);
        x->x.mod = XSCOPE_GL;
        return 0;
    }
    case LLVMBr: return sel_br(s, in);
    case LLVMRet: case LLVMUnreachable: return sel_exit(s);
    case LLVMSwitch: return isel_fail(s, "unsupported instruction 'switch' (not lowered)");
    case LLVMAtomicRMW: return isel_atomicrmw(s, in);
    case LLVMAtomicCmpXchg: return isel_cmpxchg(s, in);
    case LLVMExtractValue: return isel_extractvalue(s, in);
    default: {
        char *txt = LLVMPrintValueToString(in);
        char *p = txt;
        while (*p == ' ')
            p++;
        isel_fail(s, "unsupported instruction '%s'", p);
        LLVMDisposeMessage(txt);
        return -1;
    }
    }
}

static int make_blocks(Isel *s)
{
    unsigned n = LLVMCountBasicBlocks(s->fn);
    s->bfirst = calloc(n ? n : 1, sizeof *s->bfirst);
    s->blast = calloc(n ? n : 1, sizeof *s->blast);
    if (!s->bfirst || !s->blast)
        return isel_fail(s, "out of memory");
    uint32_t i = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        isel_map_put(&s->blocks, bb, i);
        s->bfirst[i] = s->blast[i] = isel_new_block(s);
        i++;
    }
    return 0;
}

/* Loads every used non-byval parameter at entry (ld.param, imm = offset). */
static int load_params(Isel *s, const uint32_t *off)
{
    unsigned n = LLVMCountParams(s->fn);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef a = LLVMGetParam(s->fn, i);
        uint32_t dummy;
        if (!LLVMGetFirstUse(a) || isel_map_get(&s->byval, a, &dummy) ||
            isel_map_get(&s->frames, a, &dummy))
            continue;
        XType t = value_type(s, a);
        if (!t)
            return -1;
        unsigned w = isel_int_width(LLVMTypeOf(a));
        XType mt = w == 1 || w == 8 ? XT_U8 : w == 16 ? XT_U16 : t;
        MReg r = isel_reg(s, t);
        MInsn *in = isel_emit(s, XOP_ld, mt);
        in->x.mod = XS_PARAM;
        in->dst[0] = r;
        in->src[0] = MREG_RZ;
        in->x.imm = off[i];
        isel_bind(s, a, r);
    }
    return 0;
}

int isel_function(Isel *s)
{
    unsigned np = LLVMCountParams(s->fn);
    uint32_t *off = calloc(np ? np : 1, sizeof *off);
    if (!off || lower_param_layout(s->f, s->fn, s->td, off) ||
        lower_shared_layout(s->f, s->fn, s->td, &s->shared)) {
        free(off);
        return -1;
    }
    for (unsigned i = 0; i < np; i++)
        if (lower_byval_type(s->fn, i))
            isel_map_put(&s->byval, LLVMGetParam(s->fn, i), off[i]);
    int rc = make_blocks(s);
    s->cur = 0;
    if (!rc)
        rc = isel_frames(s);
    if (!rc)
        rc = isel_entry_copies(s);
    if (!rc)
        rc = load_params(s, off);
    free(off);
    uint32_t i = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->fn); bb && !rc;
         bb = LLVMGetNextBasicBlock(bb), i++) {
        if (i > 0) /* the entry block continues after the prologue (no branch reaches it) */
            s->cur = s->bfirst[i];
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            set_loc(s, in);
            sel_insn(s, in);
        }
        s->blast[i] = s->cur;
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->fn); bb && !rc && !s->failed;
         bb = LLVMGetNextBasicBlock(bb))
        rc = fill_phis(s, bb);
    return rc || s->failed ? -1 : 0;
}
