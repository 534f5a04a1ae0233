/*
 * overflow.c - expand LLVM's arithmetic-with-overflow intrinsics into plain IR.
 *
 * The optimizer forms llvm.{u,s}{add,sub,mul}.with.overflow.iN (loop trip counts, range
 * checks); each returns {iN result, i1 overflow}, an aggregate that isel does not keep in
 * registers. Every call becomes the wrapping operation and an overflow test, and its
 * extractvalue users take the two values:
 *     uadd: r < a (unsigned)            usub: a < b (unsigned)
 *     sadd: ((a ^ r) & (b ^ r)) < 0     ssub: ((a ^ b) & (a ^ r)) < 0
 *     umul, smul up to 32 bits: the product in twice the width differs from r extended
 *     umul, smul of 64 bits: a != 0 and r / a != b (signed also: a = -1 and b = MIN)
 * A use of the whole aggregate gets one rebuilt with insertvalue.
 * Requires: prepared IR (after the LLVM passes, which would fold the expansion back).
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

typedef enum OvOp { OV_UADD, OV_USUB, OV_UMUL, OV_SADD, OV_SSUB, OV_SMUL, OV_NONE } OvOp;

static OvOp overflow_op(LLVMValueRef call)
{
    static const char *const names[] = {"llvm.uadd.with.overflow.", "llvm.usub.with.overflow.",
                                        "llvm.umul.with.overflow.", "llvm.sadd.with.overflow.",
                                        "llvm.ssub.with.overflow.", "llvm.smul.with.overflow."};
    LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
    size_t len = 0;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
    for (int i = 0; name && i < OV_NONE; i++)
        if (!strncmp(name, names[i], strlen(names[i])))
            return (OvOp)i;
    return OV_NONE;
}

/* The overflow bit of a 64-bit multiplication r = a * b. */
static LLVMValueRef mul64_overflow(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y,
                                   LLVMValueRef r, int sign)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
    LLVMValueRef nz = LLVMBuildICmp(b, LLVMIntNE, x, zero, "");
    /* divide by a safe divisor: 1 where a = 0 (the result is then unused) */
    LLVMValueRef div = LLVMBuildSelect(b, nz, x, one, "");
    LLVMValueRef q = sign ? LLVMBuildSDiv(b, r, div, "") : LLVMBuildUDiv(b, r, div, "");
    LLVMValueRef ov = LLVMBuildAnd(b, nz, LLVMBuildICmp(b, LLVMIntNE, q, y, ""), "");
    if (!sign)
        return ov;
    LLVMValueRef min = LLVMConstInt(t, 1ull << 63, 0);
    LLVMValueRef both = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, x, LLVMConstAllOnes(t), ""),
                                     LLVMBuildICmp(b, LLVMIntEQ, y, min, ""), "");
    return LLVMBuildOr(b, ov, both, "");
}

/* The overflow bit of a multiplication of up to 32 bits, through twice the width. */
static LLVMValueRef mul_narrow_overflow(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y,
                                        LLVMValueRef r, int sign)
{
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(x));
    LLVMTypeRef wide = LLVMIntTypeInContext(LLVMGetTypeContext(LLVMTypeOf(x)), 2 * w);
    LLVMValueRef wx = sign ? LLVMBuildSExt(b, x, wide, "") : LLVMBuildZExt(b, x, wide, "");
    LLVMValueRef wy = sign ? LLVMBuildSExt(b, y, wide, "") : LLVMBuildZExt(b, y, wide, "");
    LLVMValueRef wr = sign ? LLVMBuildSExt(b, r, wide, "") : LLVMBuildZExt(b, r, wide, "");
    return LLVMBuildICmp(b, LLVMIntNE, LLVMBuildMul(b, wx, wy, ""), wr, "");
}

static void expand(LLVMBuilderRef b, LLVMValueRef call, OvOp op)
{
    LLVMValueRef x = LLVMGetOperand(call, 0), y = LLVMGetOperand(call, 1), r, ov;
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(x));
    LLVMPositionBuilderBefore(b, call);
    switch (op) {
    case OV_UADD:
        r = LLVMBuildAdd(b, x, y, "");
        ov = LLVMBuildICmp(b, LLVMIntULT, r, x, "");
        break;
    case OV_USUB:
        r = LLVMBuildSub(b, x, y, "");
        ov = LLVMBuildICmp(b, LLVMIntULT, x, y, "");
        break;
    case OV_SADD:
        r = LLVMBuildAdd(b, x, y, "");
        ov = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildAnd(b, LLVMBuildXor(b, x, r, ""),
                                                       LLVMBuildXor(b, y, r, ""), ""), zero, "");
        break;
    case OV_SSUB:
        r = LLVMBuildSub(b, x, y, "");
        ov = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildAnd(b, LLVMBuildXor(b, x, y, ""),
                                                       LLVMBuildXor(b, x, r, ""), ""), zero, "");
        break;
    default: { /* OV_UMUL, OV_SMUL */
        int sign = op == OV_SMUL;
        r = LLVMBuildMul(b, x, y, "");
        ov = LLVMGetIntTypeWidth(LLVMTypeOf(x)) > 32 ? mul64_overflow(b, x, y, r, sign)
                                                     : mul_narrow_overflow(b, x, y, r, sign);
    }
    }
    for (LLVMUseRef u = LLVMGetFirstUse(call), next; u; u = next) {
        next = LLVMGetNextUse(u);
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsAExtractValueInst(user) && LLVMGetNumIndices(user) == 1) {
            LLVMReplaceAllUsesWith(user, LLVMGetIndices(user)[0] == 0 ? r : ov);
            LLVMInstructionEraseFromParent(user);
        }
    }
    if (LLVMGetFirstUse(call)) { /* the aggregate itself is used */
        LLVMValueRef whole = LLVMBuildInsertValue(b, LLVMGetUndef(LLVMTypeOf(call)), r, 0, "");
        LLVMReplaceAllUsesWith(call, LLVMBuildInsertValue(b, whole, ov, 1, ""));
    }
    LLVMInstructionEraseFromParent(call);
}

int xgpu_expand_overflow(LLVMModuleRef m)
{
    LLVMValueRef *calls = NULL;
    size_t n = 0, cap = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
                if (overflow_op(in) != OV_NONE &&
                    LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(in, 0))) == LLVMIntegerTypeKind) {
                    if (n == cap) {
                        LLVMValueRef *c = realloc(calls, (cap = cap ? 2 * cap : 16) * sizeof *c);
                        if (!c)
                            break;
                        calls = c;
                    }
                    calls[n++] = in;
                }
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (size_t i = 0; i < n; i++)
        expand(b, calls[i], overflow_op(calls[i]));
    LLVMDisposeBuilder(b);
    free(calls);
    return n > 0;
}
