/*
 * isel_intrin.c - instruction selection for calls. After prepare, the only calls left
 * are to intrinsics and to the few declarations the lowering knows (vprintf and the math
 * library's __xgpu_* functions, isel_warp.c); each accepted intrinsic maps to xgpu
 * instructions through the table below (matched on the name without its type suffix, e.g. "llvm.umin" for
 * "llvm.umin.i32"). Anything else is a located error.
 *
 * Narrow integers follow isel.c's model (zero-extended in 32-bit registers): signed
 * operations sign-extend first and mask their result.
 */
#include "lower.h"

#include <stdint.h>
#include <string.h>

typedef int (*IntrinFn)(Isel *s, LLVMValueRef call, int arg);

typedef struct IntrinRule {
    const char *name; /* prefix up to the type suffix */
    IntrinFn fn;
    int arg;          /* handler-specific: an opcode, a special register, ... */
} IntrinRule;

static LLVMValueRef arg(LLVMValueRef call, unsigned i)
{
    return LLVMGetOperand(call, i);
}

static unsigned res_width(LLVMValueRef call)
{
    return isel_int_width(LLVMTypeOf(call));
}

static int drop(Isel *s, LLVMValueRef call, int a)
{
    (void)s, (void)call, (void)a;
    return 0;
}

static int sreg(Isel *s, LLVMValueRef call, int sr)
{
    XType t = sr == XSR_CLOCK64 ? XT_U64 : XT_U32;
    MReg d = isel_reg(s, t);
    MInsn *in = isel_emit(s, XOP_s2r, XT_NONE);
    in->x.mod = (uint8_t)sr;
    in->dst[0] = d;
    isel_bind(s, call, d);
    return 0;
}

static int warpsize(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    isel_bind(s, call, isel_movi(s, XT_U32, XGPU_WARP_SIZE));
    return 0;
}

static int barrier(Isel *s, LLVMValueRef call, int with_id)
{
    int64_t id = 0;
    if (with_id) {
        LLVMValueRef v = arg(call, 0);
        if (!LLVMIsAConstantInt(v))
            return isel_fail(s, "barrier with a non-constant id is not supported");
        id = LLVMConstIntGetSExtValue(v);
    }
    isel_emit(s, XOP_bar, XT_NONE)->x.imm = id;
    return 0;
}

/* __syncwarp(mask): wsync with the mask as a register or an immediate. */
static int warpsync(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    LLVMValueRef m = arg(call, 0);
    MInsn *in;
    if (LLVMIsAConstantInt(m)) {
        in = isel_emit(s, XOP_wsync, XT_NONE);
        in->x.flags = XF_IMM;
        in->x.imm = (int64_t)(uint32_t)LLVMConstIntGetZExtValue(m);
    } else {
        MReg r = isel_val(s, m);
        in = isel_emit(s, XOP_wsync, XT_NONE);
        in->src[0] = r;
    }
    return 0;
}

static int membar(Isel *s, LLVMValueRef call, int scope)
{
    (void)call;
    isel_emit(s, XOP_membar, XT_NONE)->x.mod = (uint8_t)scope;
    return 0;
}

static int trap(Isel *s, LLVMValueRef call, int a)
{
    (void)call, (void)a;
    isel_emit(s, XOP_trap, XT_NONE);
    s->f->blocks[s->cur].nsucc = 0;
    s->cur = isel_new_block(s); /* whatever follows is unreachable */
    return 0;
}

static int memop(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    size_t len;
    return isel_memop(s, call, LLVMGetValueName2(LLVMGetCalledValue(call), &len));
}

static int copy_arg(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    isel_bind(s, call, isel_val(s, arg(call, 0)));
    return 0;
}

/* ---- integer ------------------------------------------------------------------------- */

static XType itype(unsigned w, int sign)
{
    return w == 64 ? (sign ? XT_S64 : XT_U64) : (sign ? XT_S32 : XT_U32);
}

static MReg iarg(Isel *s, LLVMValueRef call, unsigned i, int sign)
{
    MReg r = isel_val(s, arg(call, i));
    return sign ? isel_sext(s, r, isel_int_width(LLVMTypeOf(arg(call, i)))) : r;
}

static int check_int(Isel *s, LLVMValueRef call, unsigned w)
{
    if (w != 1 && w != 8 && w != 16 && w != 32 && w != 64)
        return isel_fail(s, "unsupported type in intrinsic call (integers of 1 to 64 bits)");
    (void)call;
    return 0;
}

/* umin/umax (arg = op), smin/smax (arg = op | 0x100) */
static int minmax(Isel *s, LLVMValueRef call, int a)
{
    unsigned w = res_width(call);
    int sign = a >> 8;
    if (check_int(s, call, w))
        return -1;
    MReg d = isel_op2(s, (XOp)(a & 0xff), itype(w, sign), iarg(s, call, 0, sign),
                      iarg(s, call, 1, sign));
    isel_bind(s, call, sign && w < 32 ? isel_trunc(s, d, w) : d);
    return 0;
}

/* Saturating add and subtract (arg: 0 uadd, 1 usub, 2 sadd, 3 ssub). Unsigned:
 * a - min(a, b) and min(a, ~b) + b in the value's width; signed (up to 32 bits): the exact
 * result in 64 bits, clamped to the width's range. */
static int satop(Isel *s, LLVMValueRef call, int a)
{
    unsigned w = res_width(call);
    if (check_int(s, call, w))
        return -1;
    if (a >= 2 && w == 64)
        return isel_fail(s, "64-bit signed saturating arithmetic is not supported");
    MReg x = iarg(s, call, 0, a >= 2), y = iarg(s, call, 1, a >= 2), d;
    XType t = itype(w, 0);
    if (a == 1) {
        d = isel_op2(s, XOP_sub, t, isel_op2(s, XOP_max, t, x, y), y);
    } else if (a == 0) {
        int64_t ones = w >= 64 ? -1 : (int64_t)((1ull << w) - 1);
        d = isel_op2(s, XOP_add, t, isel_op2(s, XOP_min, t, x, isel_op2i(s, XOP_xor, t, y, ones)),
                     y);
    } else {
        MReg x64 = isel_cvt(s, XT_S64, XT_S32, x), y64 = isel_cvt(s, XT_S64, XT_S32, y);
        MReg r = isel_op2(s, a == 2 ? XOP_add : XOP_sub, XT_S64, x64, y64);
        int64_t hi = (int64_t)((1ull << (w - 1)) - 1), lo = -hi - 1;
        r = isel_op2(s, XOP_min, XT_S64, isel_op2i(s, XOP_max, XT_S64, r, lo), isel_movi(s, XT_S64, hi));
        d = isel_cvt(s, XT_S32, XT_S64, r);
        if (w < 32)
            d = isel_trunc(s, d, w);
    }
    isel_bind(s, call, d);
    return 0;
}

static int iabs(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    unsigned w = res_width(call);
    if (check_int(s, call, w))
        return -1;
    MReg d = isel_op1(s, XOP_abs, itype(w, 1), iarg(s, call, 0, 1));
    isel_bind(s, call, w < 32 ? isel_trunc(s, d, w) : d);
    return 0;
}

/* A 32-bit count widened to the result type. */
static MReg count_result(Isel *s, MReg r, unsigned w)
{
    return w == 64 ? isel_cvt(s, XT_U64, XT_U32, r) : r;
}

static int ctpop(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    unsigned w = res_width(call);
    if (check_int(s, call, w))
        return -1;
    isel_bind(s, call, count_result(s, isel_op1(s, XOP_popc, itype(w, 0), iarg(s, call, 0, 0)), w));
    return 0;
}

static int ctlz(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    unsigned w = res_width(call);
    if (check_int(s, call, w))
        return -1;
    MReg d = isel_op1(s, XOP_clz, itype(w, 0), iarg(s, call, 0, 0));
    if (w < 32)
        d = isel_op2i(s, XOP_sub, XT_U32, d, 32 - (int64_t)w);
    isel_bind(s, call, count_result(s, d, w));
    return 0;
}

static int cttz(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    unsigned w = res_width(call);
    if (check_int(s, call, w))
        return -1;
    XType t = itype(w, 0);
    MReg x = iarg(s, call, 0, 0);
    MReg m = isel_op2(s, XOP_and, t, isel_op1(s, XOP_not, t, x), isel_op2i(s, XOP_sub, t, x, 1));
    if (w < 32)
        m = isel_trunc(s, m, w);
    isel_bind(s, call, count_result(s, isel_op1(s, XOP_popc, t, m), w));
    return 0;
}

static int bitrev(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    unsigned w = res_width(call);
    if (check_int(s, call, w))
        return -1;
    MReg d = isel_op1(s, XOP_brev, itype(w, 0), iarg(s, call, 0, 0));
    if (w < 32)
        d = isel_op2i(s, XOP_shr, XT_U32, d, 32 - (int64_t)w);
    isel_bind(s, call, d);
    return 0;
}

static int bswap(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    unsigned w = res_width(call);
    if (w != 16 && w != 32 && w != 64)
        return isel_fail(s, "unsupported type in llvm.bswap");
    XType t = itype(w, 0);
    MReg x = iarg(s, call, 0, 0), acc = 0;
    unsigned n = w / 8;
    for (unsigned i = 0; i < n; i++) {
        MReg b = isel_op2i(s, XOP_and, t, i ? isel_op2i(s, XOP_shr, t, x, 8 * i) : x, 0xff);
        unsigned sh = 8 * (n - 1 - i);
        if (sh)
            b = isel_op2i(s, XOP_shl, t, b, sh);
        acc = acc ? isel_op2(s, XOP_or, t, acc, b) : b;
    }
    isel_bind(s, call, acc);
    return 0;
}

/* fshl(a, b, c) = a << c | b >> (w - c); fshr(a, b, c) = a << (w - c) | b >> c, with
 * c taken modulo w; shifts by w give 0 in the ISA, so c = 0 needs no special case. */
static int funnel(Isel *s, LLVMValueRef call, int right)
{
    unsigned w = res_width(call);
    if (w != 32 && w != 64)
        return isel_fail(s, "funnel shifts are supported on 32- and 64-bit integers only");
    XType t = itype(w, 0);
    MReg a = iarg(s, call, 0, 0), b = iarg(s, call, 1, 0);
    MReg c = iarg(s, call, 2, 0); /* shift counts are 32-bit registers */
    if (w == 64)
        c = isel_cvt(s, XT_U32, XT_U64, c);
    c = isel_op2i(s, XOP_and, XT_U32, c, w - 1);
    MReg wc = isel_op2(s, XOP_sub, XT_U32, isel_movi(s, XT_U32, w), c);
    MReg hi = isel_op2(s, XOP_shl, t, a, right ? wc : c);
    MReg lo = isel_op2(s, XOP_shr, t, b, right ? c : wc);
    isel_bind(s, call, isel_op2(s, XOP_or, t, hi, lo));
    return 0;
}

/* ---- floating point ------------------------------------------------------------------ */

static XType ftype(Isel *s, LLVMValueRef call)
{
    XType t = isel_type(s, LLVMTypeOf(call), 0);
    if (t != XT_F32 && t != XT_F64) {
        isel_fail(s, "unsupported type in floating-point intrinsic (float and double only)");
        return XT_NONE;
    }
    return t;
}

static int fop(Isel *s, LLVMValueRef call, int op)
{
    XType t = ftype(s, call);
    if (!t)
        return -1;
    unsigned n = xisa_ops[op].nsrc;
    MReg d = isel_reg(s, t);
    MReg srcs[3];
    for (unsigned i = 0; i < n; i++)
        srcs[i] = isel_val(s, arg(call, i));
    MInsn *in = isel_emit(s, (XOp)op, t);
    in->dst[0] = d;
    for (unsigned i = 0; i < n; i++)
        in->src[i] = srcs[i];
    isel_bind(s, call, d);
    return 0;
}

static int fcopysign(Isel *s, LLVMValueRef call, int a)
{
    (void)a;
    XType t = ftype(s, call);
    if (!t)
        return -1;
    XType it = t == XT_F64 ? XT_U64 : XT_U32;
    int64_t sign = t == XT_F64 ? INT64_MIN : (int64_t)0x80000000u;
    int64_t magmask = t == XT_F64 ? INT64_MAX : 0x7fffffff;
    MReg mag = isel_op2i(s, XOP_and, it, isel_val(s, arg(call, 0)), magmask);
    MReg sg = isel_op2i(s, XOP_and, it, isel_val(s, arg(call, 1)), sign);
    isel_bind(s, call, isel_op2(s, XOP_or, it, mag, sg));
    return 0;
}

#define SREG(n, r) {"llvm.nvvm.read.ptx.sreg." n, sreg, r}
#define MATH(n, m) {"llvm." n, isel_math_intrin, XMATH_##m}
static const IntrinRule rules[] = {
    /* name                              handler   arg */
    SREG("tid.x", XSR_TID_X), SREG("tid.y", XSR_TID_Y), SREG("tid.z", XSR_TID_Z),
    SREG("ntid.x", XSR_NTID_X), SREG("ntid.y", XSR_NTID_Y), SREG("ntid.z", XSR_NTID_Z),
    SREG("ctaid.x", XSR_CTAID_X), SREG("ctaid.y", XSR_CTAID_Y), SREG("ctaid.z", XSR_CTAID_Z),
    SREG("nctaid.x", XSR_NCTAID_X), SREG("nctaid.y", XSR_NCTAID_Y),
    SREG("nctaid.z", XSR_NCTAID_Z), SREG("laneid", XSR_LANEID), SREG("warpid", XSR_WARPID),
    SREG("nwarpid", XSR_NWARPID), SREG("smid", XSR_SMID), SREG("nsmid", XSR_NSMID),
    SREG("clock", XSR_CLOCK), SREG("clock64", XSR_CLOCK64),
    {"llvm.nvvm.read.ptx.sreg.warpsize", warpsize, 0},
    {"llvm.nvvm.barrier0", barrier, 0},
    {"llvm.nvvm.barrier.sync", barrier, 1},
    {"llvm.nvvm.bar.sync", barrier, 1},
    {"llvm.nvvm.membar.cta", membar, XSCOPE_CTA},
    {"llvm.nvvm.bar.warp.sync", warpsync, 0},
    {"llvm.nvvm.membar.gl", membar, XSCOPE_GL},
    {"llvm.nvvm.membar.sys", membar, XSCOPE_SYS},
    {"llvm.trap", trap, 0},
    {"llvm.debugtrap", trap, 0},
    {"llvm.memcpy", memop, 0},
    {"llvm.memcpy.inline", memop, 0},
    {"llvm.memmove", memop, 0},
    {"llvm.memset", memop, 0},
    {"llvm.memset.inline", memop, 0},
    {"llvm.umin", minmax, XOP_min},
    {"llvm.umax", minmax, XOP_max},
    {"llvm.smin", minmax, XOP_min | 0x100},
    {"llvm.smax", minmax, XOP_max | 0x100},
    {"llvm.uadd.sat", satop, 0},
    {"llvm.usub.sat", satop, 1},
    {"llvm.sadd.sat", satop, 2},
    {"llvm.ssub.sat", satop, 3},
    {"llvm.abs", iabs, 0},
    {"llvm.ctpop", ctpop, 0},
    {"llvm.ctlz", ctlz, 0},
    {"llvm.cttz", cttz, 0},
    {"llvm.bitreverse", bitrev, 0},
    {"llvm.bswap", bswap, 0},
    {"llvm.fshl", funnel, 0},
    {"llvm.fshr", funnel, 1},
    {"llvm.fabs", fop, XOP_fabs},
    {"llvm.minnum", fop, XOP_fmin},
    {"llvm.maxnum", fop, XOP_fmax},
    {"llvm.sqrt", fop, XOP_fsqrt},
    {"llvm.fma", fop, XOP_ffma},
    {"llvm.fmuladd", fop, XOP_ffma},
    {"llvm.copysign", fcopysign, 0},
    MATH("sin", SIN), MATH("cos", COS), MATH("tan", TAN), MATH("asin", ASIN),
    MATH("acos", ACOS), MATH("atan", ATAN), MATH("sinh", SINH), MATH("cosh", COSH),
    MATH("tanh", TANH), MATH("exp", EXP), MATH("exp2", EXP2), MATH("exp10", EXP10),
    MATH("log", LOG), MATH("log2", LOG2), MATH("log10", LOG10), MATH("pow", POW),
    MATH("atan2", ATAN2), MATH("floor", FLOOR), MATH("ceil", CEIL), MATH("trunc", TRUNC),
    MATH("round", ROUND), MATH("rint", RINT), MATH("nearbyint", RINT),
    MATH("roundeven", RINT),
    {"llvm.powi", isel_powi, 0},
    {"llvm.ldexp", isel_ldexp, 0},
    {"llvm.lround", isel_lround, XMATH_ROUND},
    {"llvm.llround", isel_lround, XMATH_ROUND},
    {"llvm.lrint", isel_lround, XMATH_RINT},
    {"llvm.llrint", isel_lround, XMATH_RINT},
    {"llvm.canonicalize", copy_arg, 0},
    {"llvm.is.fpclass", isel_fpclass, 0},
    {"llvm.nvvm.shfl.sync.idx", isel_shfl, XSHFL_IDX},
    {"llvm.nvvm.shfl.sync.up", isel_shfl, XSHFL_UP},
    {"llvm.nvvm.shfl.sync.down", isel_shfl, XSHFL_DOWN},
    {"llvm.nvvm.shfl.sync.bfly", isel_shfl, XSHFL_BFLY},
    {"llvm.nvvm.vote.ballot.sync", isel_vote, XVOTE_BALLOT},
    {"llvm.nvvm.vote.any.sync", isel_vote, XVOTE_ANY},
    {"llvm.nvvm.vote.all.sync", isel_vote, XVOTE_ALL},
    {"llvm.nvvm.vote.uni.sync", isel_vote, XVOTE_UNI},
    {"llvm.nvvm.activemask", isel_actmask, 0},
    {"llvm.nvvm.barrier0.popc", isel_barred, XRED_POPC},
    {"llvm.nvvm.barrier0.and", isel_barred, XRED_AND},
    {"llvm.nvvm.barrier0.or", isel_barred, XRED_OR},
    {"llvm.nvvm.barrier.sync.cnt", barrier, 1},
    {"llvm.nvvm.bar.warp.sync", membar, XSCOPE_CTA},
    {"llvm.nvvm.prmt", isel_prmt, 0},
    {"llvm.nvvm.ldg.global.i", isel_ldg, 0},
    {"llvm.nvvm.ldg.global.f", isel_ldg, 0},
    {"llvm.nvvm.ldg.global.p", isel_ldg, 0},
    {"llvm.nvvm.ldu.global.i", isel_ldg, 0},
    {"llvm.nvvm.ldu.global.f", isel_ldg, 0},
    {"llvm.nvvm.ldu.global.p", isel_ldg, 0},
    {"llvm.nvvm.atomic.load.inc.32", isel_atomic_intrin, XATOM_INC},
    {"llvm.nvvm.atomic.load.dec.32", isel_atomic_intrin, XATOM_DEC},
    {"llvm.expect", copy_arg, 0},
    {"llvm.assume", drop, 0},
    {"llvm.lifetime.start", drop, 0},
    {"llvm.lifetime.end", drop, 0},
    {"llvm.dbg.declare", drop, 0},
    {"llvm.dbg.value", drop, 0},
    {"llvm.dbg.label", drop, 0},
    {"llvm.dbg.assign", drop, 0},
    {"llvm.experimental.noalias.scope.decl", drop, 0},
    {"llvm.sideeffect", drop, 0},
    {"llvm.donothing", drop, 0},
    {"llvm.invariant.end", drop, 0},
};

/* name equals rule, or is rule followed by a type suffix (".i32", ".p0.p0.i64", ".f32"). */
static int name_matches(const char *name, const char *rule)
{
    size_t n = strlen(rule);
    if (strncmp(name, rule, n))
        return 0;
    const char *rest = name + n;
    if (!*rest)
        return 1;
    if (rest[0] != '.')
        return 0;
    char c = rest[1];
    return c == 'i' || c == 'p' || c == 'f' || c == 'v';
}

int isel_call(Isel *s, LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (callee && LLVMIsAInlineAsm(callee))
        return isel_fail(s, "inline assembly is not supported");
    if (!callee || !LLVMIsAFunction(callee))
        return isel_fail(s, "indirect calls are not supported");
    size_t len;
    const char *name = LLVMGetValueName2(callee, &len);
    const IntrinRule *best = NULL;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (name_matches(name, rules[i].name) &&
            (!best || strlen(rules[i].name) > strlen(best->name)))
            best = &rules[i];
    if (!strncmp(name, "llvm.nvvm.wmma.", 15))
        return isel_wmma(s, call, name);
    if (best)
        return best->fn(s, call, best->arg);
    if (!strncmp(name, "llvm.", 5))
        return isel_fail(s, "unsupported intrinsic '%s'", name);
    int rc = isel_known_call(s, call, name);
    if (rc <= 0)
        return rc;
    return isel_fail(s, "call to '%s' is not supported", name);
}
