/*
 * fma.c - contract a*b+c into fused multiply-adds where the IR allows it.
 *
 * clang compiles CUDA device code with -ffp-contract=fast: every fmul and fadd/fsub it
 * emits carries the `contract` fast-math flag, and NVIDIA's backend fuses such pairs into
 * FMA instructions. xgpu does the same, at the IR level, after the optimization
 * pipeline: an fadd/fsub with `contract` whose operand is a `contract` fmul of the same
 * type that has no other use becomes a call to llvm.fma (isel's ffma):
 *     a*b + c -> fma(a, b, c)        c + a*b -> fma(a, b, c)
 *     a*b - c -> fma(a, b, -c)       c - a*b -> fma(-a, b, c)
 * Requires: prepared IR (prepare.c, after the LLVM passes). Invalidates nothing isel
 * depends on. Code without the flag (e.g. -ffp-contract=off) is left alone, so results
 * stay bit-exact with the host where the program asked for that.
 */
#include "lower.h"

#include <llvm-c/DebugInfo.h>

static int contractable(LLVMValueRef v)
{
    return LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v) &&
           (LLVMGetFastMathFlags(v) & LLVMFastMathAllowContract);
}

/* The fmul operand worth fusing: contractable, single use, in the same block. */
static LLVMValueRef fusable_mul(LLVMValueRef op, LLVMValueRef user)
{
    if (!LLVMIsAInstruction(op) || LLVMGetInstructionOpcode(op) != LLVMFMul ||
        !contractable(op) || LLVMGetInstructionParent(op) != LLVMGetInstructionParent(user))
        return NULL;
    LLVMUseRef u = LLVMGetFirstUse(op);
    return u && !LLVMGetNextUse(u) ? op : NULL;
}

static LLVMValueRef fma_decl(LLVMModuleRef m, LLVMTypeRef t)
{
    unsigned id = LLVMLookupIntrinsicID("llvm.fma", 8);
    return LLVMGetIntrinsicDeclaration(m, id, &t, 1);
}

/* Tries to fuse the fadd/fsub `in`; returns 1 when it was replaced. */
static int fuse(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if ((op != LLVMFAdd && op != LLVMFSub) || !contractable(in))
        return 0;
    LLVMValueRef x = LLVMGetOperand(in, 0), y = LLVMGetOperand(in, 1);
    LLVMValueRef mul = fusable_mul(x, in);
    int mul_left = mul != NULL;
    if (!mul)
        mul = fusable_mul(y, in);
    if (!mul)
        return 0;
    LLVMValueRef c = mul_left ? y : x;
    LLVMValueRef a = LLVMGetOperand(mul, 0), bb = LLVMGetOperand(mul, 1);
    LLVMPositionBuilderBefore(b, in);
    if (op == LLVMFSub && mul_left)
        c = LLVMBuildFNeg(b, c, "");
    else if (op == LLVMFSub)
        a = LLVMBuildFNeg(b, a, "");
    LLVMTypeRef t = LLVMTypeOf(in);
    LLVMValueRef fn = fma_decl(m, t), args[3] = {a, bb, c};
    LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(in));
    LLVMReplaceAllUsesWith(in, call);
    LLVMInstructionEraseFromParent(in);
    LLVMInstructionEraseFromParent(mul);
    return 1;
}

int xgpu_contract_fma(LLVMModuleRef m)
{
    int changed = 0;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;) {
                LLVMValueRef next = LLVMGetNextInstruction(i);
                changed |= fuse(m, b, i);
                i = next;
            }
    LLVMDisposeBuilder(b);
    return changed;
}
