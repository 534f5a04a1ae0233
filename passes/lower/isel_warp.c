/*
 * isel_warp.c - instruction selection for the collectives and library calls of CUDA
 * device code:
 *
 *   llvm.nvvm.shfl.sync.{idx,up,down,bfly}.{i32,f32}[p](mask, v, lane, c)
 *                                   -> shfl.<mode> d, p, v, lane, c, mask
 *   llvm.nvvm.vote.{ballot,any,all,uni}.sync(mask, pred) -> vote.<mode> d, pred, mask
 *   llvm.nvvm.activemask()          -> actmask d
 *   llvm.nvvm.barrier0.{popc,and,or}(pred) -> barred.<red> d, pred (barrier 0)
 *   llvm.nvvm.prmt(a, b, sel)       -> prmt d, a, b, sel
 *   llvm.nvvm.ldg.global.*(p, align) -> ld.global
 *   llvm.{sin,cos,exp,...}, __xgpu_<fn>[f](x[, y]) -> math1/math2.<fn>.{f32,f64}
 *   llvm.powi, llvm.ldexp            -> cvt + math2.pow (+ fmul)
 *   llvm.lround/llround/lrint/llrint -> math1.round/rint + cvt
 *   llvm.is.fpclass(x, mask)         -> integer tests on the bits
 *   vprintf(fmt, args)               -> vprintf d, fmt, args (generic addresses)
 *
 * Shuffle, vote, actmask, barred, prmt and vprintf operate on untyped 32-bit values.
 * The lane mask (the last source) becomes an immediate when it is a constant; other
 * constant operands are materialized. A shfl whose in-range flag is unused writes it to
 * RZ. The __xgpu_ names come from include/xgpu/cuda/math_functions.h: the math function's
 * name in xisa_math_names, with an `f` suffix for the float version.
 */
#include "lower.h"

#include <string.h>

static LLVMValueRef arg(LLVMValueRef call, unsigned i)
{
    return LLVMGetOperand(call, i);
}

/* Emits `op` (untyped, one 32-bit result) with n sources taken from call operands
 * ops[0..n-1]; the last may become an immediate. */
static MInsn *emit_b32(Isel *s, XOp op, LLVMValueRef call, const unsigned *ops, unsigned n,
                       MReg *d)
{
    MReg srcs[6] = {0};
    int last_imm = n && LLVMIsAConstantInt(arg(call, ops[n - 1]));
    for (unsigned i = 0; i + (last_imm ? 1u : 0u) < n; i++)
        srcs[i] = isel_val(s, arg(call, ops[i]));
    *d = isel_reg(s, XT_U32);
    MInsn *in = isel_emit(s, op, XT_NONE);
    in->dst[0] = *d;
    for (unsigned i = 0; i < n; i++)
        in->src[i] = srcs[i];
    if (last_imm) {
        in->x.flags |= XF_IMM;
        in->x.imm = (int64_t)(uint32_t)LLVMConstIntGetZExtValue(arg(call, ops[n - 1]));
    }
    return in;
}

int isel_shfl(Isel *s, LLVMValueRef call, int mode)
{
    static const unsigned ops[] = {1, 2, 3, 0}; /* v, lane, c, mask */
    MReg d;
    MInsn *in = emit_b32(s, XOP_shfl, call, ops, 4, &d);
    in->x.sub = (uint8_t)mode;
    if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMStructTypeKind) {
        isel_bind(s, call, d);
        return 0;
    }
    MReg p = isel_reg(s, XT_U32);
    s->f->blocks[s->cur].ins[s->f->blocks[s->cur].nins - 1].dst[1] = p;
    isel_bind_field(s, call, 0, d);
    isel_bind_field(s, call, 1, p);
    return 0;
}

int isel_vote(Isel *s, LLVMValueRef call, int mode)
{
    static const unsigned ops[] = {1, 0}; /* pred, mask */
    MReg d;
    emit_b32(s, XOP_vote, call, ops, 2, &d)->x.sub = (uint8_t)mode;
    isel_bind(s, call, d);
    return 0;
}

int isel_actmask(Isel *s, LLVMValueRef call, int unused)
{
    (void)unused;
    MReg d;
    emit_b32(s, XOP_actmask, call, NULL, 0, &d);
    isel_bind(s, call, d);
    return 0;
}

int isel_barred(Isel *s, LLVMValueRef call, int red)
{
    MReg p = isel_val(s, arg(call, 0)), d = isel_reg(s, XT_U32);
    MInsn *in = isel_emit(s, XOP_barred, XT_NONE);
    in->x.sub = (uint8_t)red;
    in->dst[0] = d;
    in->src[0] = p;
    isel_bind(s, call, d);
    return 0;
}

int isel_prmt(Isel *s, LLVMValueRef call, int unused)
{
    (void)unused;
    static const unsigned ops[] = {0, 1, 2};
    MReg d;
    emit_b32(s, XOP_prmt, call, ops, 3, &d);
    isel_bind(s, call, d);
    return 0;
}

int isel_ldg(Isel *s, LLVMValueRef call, int unused)
{
    (void)unused;
    LLVMTypeRef t = LLVMTypeOf(call);
    unsigned w = isel_int_width(t);
    XType mt = w == 8 ? XT_U8 : w == 16 ? XT_U16 : isel_type(s, t, 0);
    IselAddr a;
    if (mt == XT_NONE || (w && w != 8 && w != 16 && w != 32 && w != 64))
        return isel_fail(s, "unsupported type in llvm.nvvm.ldg");
    if (isel_addr(s, arg(call, 0), &a))
        return -1;
    MReg d = isel_reg(s, xisa_type_size(mt) == 8 ? XT_U64 : XT_U32);
    MInsn *in = isel_emit(s, XOP_ld, mt);
    in->x.mod = (uint8_t)(a.space == XS_GENERIC ? XS_GLOBAL : a.space);
    in->x.imm = a.off;
    in->dst[0] = d;
    in->src[0] = a.base;
    isel_bind(s, call, d);
    return 0;
}

/* ---- math ------------------------------------------------------------------------------ */

static XType float_result(Isel *s, LLVMValueRef call)
{
    XType t = isel_type(s, LLVMTypeOf(call), 0);
    if (t != XT_F32 && t != XT_F64) {
        isel_fail(s, "unsupported type in a math function (float and double only)");
        return XT_NONE;
    }
    return t;
}

static MReg emit_math(Isel *s, XMath fn, XType t, MReg a, MReg b)
{
    int two = fn >= XMATH_FIRST_BINARY;
    MReg d = isel_reg(s, t);
    MInsn *in = isel_emit(s, two ? XOP_math2 : XOP_math1, t);
    in->x.sub = (uint8_t)fn;
    in->dst[0] = d;
    in->src[0] = a;
    if (two)
        in->src[1] = b;
    return d;
}

int isel_math_intrin(Isel *s, LLVMValueRef call, int math)
{
    XType t = float_result(s, call);
    if (t == XT_NONE)
        return -1;
    MReg a = isel_val(s, arg(call, 0));
    MReg b = math >= XMATH_FIRST_BINARY ? isel_val(s, arg(call, 1)) : MREG_NONE;
    isel_bind(s, call, emit_math(s, (XMath)math, t, a, b));
    return 0;
}

/* The integer operand of powi / ldexp as a floating-point value of type t. */
static MReg int_as_float(Isel *s, LLVMValueRef v, XType t)
{
    unsigned w = isel_int_width(LLVMTypeOf(v));
    MReg r = isel_sext(s, isel_val(s, v), w);
    return isel_cvt(s, t, w == 64 ? XT_S64 : XT_S32, r);
}

int isel_powi(Isel *s, LLVMValueRef call, int unused)
{
    (void)unused;
    XType t = float_result(s, call);
    if (t == XT_NONE)
        return -1;
    MReg x = isel_val(s, arg(call, 0));
    isel_bind(s, call, emit_math(s, XMATH_POW, t, x, int_as_float(s, arg(call, 1), t)));
    return 0;
}

/* ldexp(x, n) = x * 2^n; 2^n is exact for every n whose result is representable. */
int isel_ldexp(Isel *s, LLVMValueRef call, int unused)
{
    (void)unused;
    XType t = float_result(s, call);
    if (t == XT_NONE)
        return -1;
    MReg x = isel_val(s, arg(call, 0));
    MReg two = isel_movi(s, t, t == XT_F64 ? 0x4000000000000000ll : 0x40000000);
    MReg p = emit_math(s, XMATH_POW, t, two, int_as_float(s, arg(call, 1), t));
    isel_bind(s, call, isel_op2(s, XOP_fmul, t, x, p));
    return 0;
}

int isel_lround(Isel *s, LLVMValueRef call, int math)
{
    LLVMValueRef x = arg(call, 0);
    XType ft = isel_type(s, LLVMTypeOf(x), 0);
    unsigned w = isel_int_width(LLVMTypeOf(call));
    if ((ft != XT_F32 && ft != XT_F64) || (w != 32 && w != 64))
        return isel_fail(s, "unsupported types in llvm.lround/lrint");
    MReg r = emit_math(s, (XMath)math, ft, isel_val(s, x), MREG_NONE);
    isel_bind(s, call, isel_cvt(s, w == 64 ? XT_S64 : XT_S32, ft, r));
    return 0;
}

/* llvm.is.fpclass(x, mask): OR of the tested classes, on the bits. Mask bits (LLVM's
 * FPClassTest): 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -zero, 6 +zero,
 * 7 +subnormal, 8 +normal, 9 +inf. */
typedef struct FpBits {
    XType it;
    MReg abs, neg;              /* |x| bits; 1 when the sign bit is set */
    int64_t inf, quiet, minnorm; /* bit patterns */
} FpBits;

static MReg cmp_imm(Isel *s, XType t, XCmp c, MReg a, int64_t imm)
{
    MReg d = isel_op2i(s, XOP_set, t, a, imm);
    s->f->blocks[s->cur].ins[s->f->blocks[s->cur].nins - 1].x.mod = (uint8_t)c;
    return d;
}

/* Class test k on |x|: 0 snan, 1 qnan, 2 inf, 3 normal, 4 subnormal, 5 zero. */
static MReg fp_class(Isel *s, const FpBits *b, int k)
{
    switch (k) {
    case 0: /* signalling NaN: inf < a < inf|quiet */
        return isel_op2(s, XOP_and, XT_U32, cmp_imm(s, b->it, XCMP_GT, b->abs, b->inf),
                        cmp_imm(s, b->it, XCMP_LT, b->abs, b->inf | b->quiet));
    case 1: return cmp_imm(s, b->it, XCMP_GE, b->abs, b->inf | b->quiet);
    case 2: return cmp_imm(s, b->it, XCMP_EQ, b->abs, b->inf);
    case 3: /* normal: minnorm <= a < inf, i.e. a - minnorm < inf - minnorm */
        return cmp_imm(s, b->it, XCMP_LT, isel_op2i(s, XOP_sub, b->it, b->abs, b->minnorm),
                       b->inf - b->minnorm);
    case 4: /* subnormal: 0 < a < minnorm, i.e. a - 1 < minnorm - 1 */
        return cmp_imm(s, b->it, XCMP_LT, isel_op2i(s, XOP_sub, b->it, b->abs, 1),
                       b->minnorm - 1);
    default: return cmp_imm(s, b->it, XCMP_EQ, b->abs, 0);
    }
}

int isel_fpclass(Isel *s, LLVMValueRef call, int unused)
{
    (void)unused;
    LLVMValueRef x = arg(call, 0), m = arg(call, 1);
    XType ft = isel_type(s, LLVMTypeOf(x), 0);
    if ((ft != XT_F32 && ft != XT_F64) || !LLVMIsAConstantInt(m))
        return isel_fail(s, "unsupported llvm.is.fpclass (float or double, constant mask)");
    unsigned mask = (unsigned)LLVMConstIntGetZExtValue(m);
    int d = ft == XT_F64;
    FpBits b = {.it = d ? XT_U64 : XT_U32};
    b.inf = d ? 0x7ff0000000000000ll : 0x7f800000;
    b.quiet = d ? 0x0008000000000000ll : 0x00400000;
    b.minnorm = d ? 0x0010000000000000ll : 0x00800000;
    MReg r = isel_val(s, x);
    b.abs = isel_op2i(s, XOP_and, b.it, r, d ? INT64_MAX : 0x7fffffff);
    b.neg = isel_op2i(s, XOP_shr, b.it, r, d ? 63 : 31);
    if (d)
        b.neg = isel_cvt(s, XT_U32, XT_U64, b.neg);
    /* negative bit, positive bit of each signed class: inf, normal, subnormal, zero */
    static const int8_t negbit[] = {-1, -1, 2, 3, 4, 5}, posbit[] = {0, 1, 9, 8, 7, 6};
    MReg acc = MREG_NONE;
    for (int k = 0; k < 6; k++) {
        int pn = negbit[k] >= 0 && (mask >> negbit[k] & 1), pp = mask >> posbit[k] & 1;
        if (!pn && !pp)
            continue;
        MReg c = fp_class(s, &b, k);
        if (negbit[k] >= 0 && pn != pp) /* only one sign: test it */
            c = isel_op2(s, XOP_and, XT_U32, c,
                         pn ? b.neg : isel_op2i(s, XOP_xor, XT_U32, b.neg, 1));
        acc = acc == MREG_NONE ? c : isel_op2(s, XOP_or, XT_U32, acc, c);
    }
    isel_bind(s, call, acc == MREG_NONE ? isel_movi(s, XT_U32, 0) : acc);
    return 0;
}

/* __xgpu_<fn> (double) / __xgpu_<fn>f (float): the XMath entry, or -1. */
static int xgpu_math_of(const char *name, int *is_float)
{
    if (strncmp(name, "__xgpu_", 7))
        return -1;
    name += 7;
    for (int i = 0; i < XMATH_COUNT; i++) {
        size_t n = strlen(xisa_math_names[i]);
        if (strncmp(name, xisa_math_names[i], n))
            continue;
        if (!name[n] || (name[n] == 'f' && !name[n + 1])) {
            *is_float = name[n] == 'f';
            return i;
        }
    }
    return -1;
}

int lower_known_external(const char *name)
{
    int f;
    return !strcmp(name, "vprintf") || !strcmp(name, "__xgpu_grid_sync") ||
           xgpu_math_of(name, &f) >= 0;
}

static int sel_vprintf(Isel *s, LLVMValueRef call)
{
    if (LLVMGetNumArgOperands(call) != 2)
        return isel_fail(s, "vprintf takes a format and an argument buffer");
    MReg fmt = isel_val(s, arg(call, 0)), args = isel_val(s, arg(call, 1));
    MReg d = isel_reg(s, XT_U32);
    MInsn *in = isel_emit(s, XOP_vprintf, XT_NONE);
    in->dst[0] = d;
    in->src[0] = fmt;
    in->src[1] = args;
    isel_bind(s, call, d);
    return 0;
}

int isel_known_call(Isel *s, LLVMValueRef call, const char *name)
{
    if (!strcmp(name, "vprintf"))
        return sel_vprintf(s, call);
    if (!strcmp(name, "__xgpu_grid_sync")) { /* cooperative_groups.h: this_grid().sync() */
        isel_emit(s, XOP_gsync, XT_NONE);
        return 0;
    }
    int is_float;
    int fn = xgpu_math_of(name, &is_float);
    if (fn < 0)
        return 1;
    XType t = float_result(s, call);
    unsigned want = fn >= XMATH_FIRST_BINARY ? 2 : 1;
    if (t == XT_NONE)
        return -1;
    if ((t == XT_F32) != is_float || LLVMGetNumArgOperands(call) != want)
        return isel_fail(s, "'%s' called with the wrong signature", name);
    return isel_math_intrin(s, call, fn);
}
