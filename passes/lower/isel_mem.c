/*
 * isel_mem.c - instruction selection for memory: frame slots, pointer values, address
 * folding, loads, stores and llvm.memcpy / memmove / memset.
 *
 * Pointer values. An alloca lives in a slot of the thread's local frame (f->local_bytes);
 * its generic address is cvta.local of the slot offset. A byval kernel parameter that is
 * only read is addressed in the parameter space (generic: XGPU_PARAM_BASE + offset); one
 * the kernel may write is copied into a frame slot at entry and treated like an alloca.
 * A __shared__ variable is a compile-time offset in the shared window (a pointer in
 * addrspace 3 holds that offset); __device__/__constant__ variables are reached with
 * gaddr. Address-space casts to generic use cvta for shared and local, and are copies
 * for global and const (their generic addresses are the device addresses).
 *
 * Address folding. A load or store looks through constant-index GEPs and casts to
 * generic: the accumulated byte offset goes into the instruction's immediate, and the
 * space comes from the innermost pointer (so `load (addrspacecast @shared to ptr)`
 * becomes ld.shared [imm]). GEPs with only constant indices and address-space casts are
 * therefore never selected where they stand, only where a value is needed (isel.c).
 *
 * Alignment. A GPU checks a vector access (ld.v4.f32) against the vector's alignment; here
 * a vector is several scalar accesses (prepare.c splits vector loads and stores, keeping
 * the vector's alignment on element 0; a float4 copy is two 8-byte units). A load or store
 * whose alignment exceeds its size therefore carries that alignment, up to 16, in
 * XInsn.sub, and so does each unit of an unrolled memcpy/memmove/memset that starts at a
 * multiple of the call's alignment; the emulator checks it instead of the size.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

#define UNROLL_MAX 256 /* constant-length copies up to this many bytes are unrolled */

static int64_t align_up(int64_t v, int64_t a)
{
    return (v + a - 1) / a * a;
}

/* The LLVM address space of texel loads: texture_fetch_functions.h reads every texel
 * through a pointer in it, and such loads become ld.tex (the texture path, docs/textures.md). */
#define AS_TEXTURE 200

static int space_of_as(unsigned as)
{
    switch (as) {
    case 0: return XS_GENERIC;
    case 1: return XS_GLOBAL;
    case 3: return XS_SHARED;
    case 4: return XS_CONST;
    case 5: return XS_LOCAL;
    case 101: return XS_PARAM;
    case AS_TEXTURE: return XS_TEX;
    default: return -1;
    }
}

static unsigned ptr_as(LLVMValueRef v)
{
    return LLVMGetPointerAddressSpace(LLVMTypeOf(v));
}

/* ---- frame slots ------------------------------------------------------------------------ */

static uint32_t new_slot(Isel *s, uint64_t size, uint64_t align)
{
    int64_t off = align_up(s->f->local_bytes, align ? (int64_t)align : 1);
    s->f->local_bytes = (uint32_t)(off + (int64_t)size);
    return (uint32_t)off;
}

/* Whether memory reached through pointer v may be written (or the pointer escapes). */
static int ptr_written(LLVMValueRef v, int depth)
{
    if (depth > 8)
        return 1;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsALoadInst(user) || LLVMIsAICmpInst(user))
            continue;
        if (LLVMIsAGetElementPtrInst(user) || LLVMIsAAddrSpaceCastInst(user) ||
            LLVMIsABitCastInst(user)) {
            if (ptr_written(user, depth + 1))
                return 1;
            continue;
        }
        if (LLVMIsACallInst(user)) {
            LLVMValueRef c = LLVMGetCalledValue(user);
            size_t len;
            const char *n = c && LLVMIsAFunction(c) ? LLVMGetValueName2(c, &len) : "";
            int src_of_copy = (!strncmp(n, "llvm.memcpy", 11) || !strncmp(n, "llvm.memmove", 12)) &&
                              LLVMGetOperand(user, 1) == v && LLVMGetOperand(user, 0) != v;
            if (src_of_copy || !strncmp(n, "llvm.lifetime", 13))
                continue;
        }
        return 1;
    }
    return 0;
}

int isel_frames(Isel *s)
{
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(s->fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsAAllocaInst(in))
                continue;
            LLVMValueRef n = LLVMGetOperand(in, 0);
            s->loc = 0;
            if (!LLVMIsAConstantInt(n))
                return isel_fail(s, "variable-sized stack arrays (dynamic alloca) are not "
                                 "supported");
            uint64_t size = LLVMABISizeOfType(s->td, LLVMGetAllocatedType(in)) *
                            LLVMConstIntGetZExtValue(n);
            isel_map_put(&s->frames, in, new_slot(s, size, LLVMGetAlignment(in)));
        }
    unsigned np = LLVMCountParams(s->fn);
    for (unsigned i = 0; i < np; i++) {
        LLVMValueRef a = LLVMGetParam(s->fn, i);
        LLVMTypeRef t = lower_byval_type(s->fn, i);
        if (!t || !ptr_written(a, 0))
            continue;
        isel_map_put(&s->frames, a, new_slot(s, LLVMABISizeOfType(s->td, t),
                                             s->f->params[i].align));
    }
    return 0;
}

static XType unit_type(unsigned u)
{
    return u == 1 ? XT_U8 : u == 2 ? XT_U16 : u == 4 ? XT_U32 : XT_U64;
}

/* XInsn.sub of an access of type t whose address is known to be a multiple of align:
 * log2 of the alignment when it exceeds the access size (up to XISA_MEM_ALIGN_MAX), so
 * that the part of a vector access the GPU checks as a whole checks the vector's
 * alignment; else 0. */
static uint8_t align_sub(XType t, uint64_t align)
{
    if (align > XISA_MEM_ALIGN_MAX)
        align = XISA_MEM_ALIGN_MAX;
    if (align <= xisa_type_size(t) || (align & (align - 1)))
        return 0;
    return (uint8_t)__builtin_ctzll(align);
}

static MReg emit_ld_a(Isel *s, XType t, XSpace sp, MReg base, int64_t off, uint64_t align)
{
    MReg d = isel_reg(s, xisa_type_size(t) == 8 ? XT_U64 : XT_U32);
    MInsn *in = isel_emit(s, XOP_ld, t);
    in->x.mod = (uint8_t)sp;
    in->x.sub = align_sub(t, align);
    in->dst[0] = d;
    in->src[0] = base;
    in->x.imm = off;
    return d;
}

static void emit_st_a(Isel *s, XType t, XSpace sp, MReg base, int64_t off, MReg v,
                      uint64_t align)
{
    MInsn *in = isel_emit(s, XOP_st, t);
    in->x.mod = (uint8_t)sp;
    in->x.sub = align_sub(t, align);
    in->src[0] = base;
    in->src[1] = v;
    in->x.imm = off;
}

static MReg emit_ld(Isel *s, XType t, XSpace sp, MReg base, int64_t off)
{
    return emit_ld_a(s, t, sp, base, off, 0);
}

static void emit_st(Isel *s, XType t, XSpace sp, MReg base, int64_t off, MReg v)
{
    emit_st_a(s, t, sp, base, off, v, 0);
}

/* Largest power of two <= limit that divides align. */
static unsigned pick_unit(unsigned align, uint64_t left)
{
    unsigned u = 8;
    while (u > 1 && (u > align || u > left))
        u /= 2;
    return u;
}

int isel_entry_copies(Isel *s)
{
    unsigned np = LLVMCountParams(s->fn);
    for (unsigned i = 0; i < np; i++) {
        LLVMValueRef a = LLVMGetParam(s->fn, i);
        uint32_t slot;
        if (!isel_map_get(&s->frames, a, &slot))
            continue;
        const XParam *p = &s->f->params[i];
        for (uint64_t pos = 0; pos < p->size;) {
            unsigned u = pick_unit(p->align, p->size - pos);
            MReg v = emit_ld(s, unit_type(u), XS_PARAM, MREG_RZ, p->offset + (int64_t)pos);
            emit_st(s, unit_type(u), XS_LOCAL, MREG_RZ, slot + (int64_t)pos, v);
            pos += u;
        }
    }
    return 0;
}

/* ---- pointer values ---------------------------------------------------------------------- */

static int is_gep(LLVMValueRef v)
{
    return LLVMIsAGetElementPtrInst(v) ||
           (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMGetElementPtr);
}

static int is_cast(LLVMValueRef v)
{
    return LLVMIsAAddrSpaceCastInst(v) ||
           (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMAddrSpaceCast);
}

/* Byte offset of a GEP whose indices are all constant; 0 when one is not. */
static int gep_const(Isel *s, LLVMValueRef g, int64_t *off)
{
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(g);
    int n = LLVMGetNumOperands(g);
    int64_t acc = 0;
    for (int i = 1; i < n; i++) {
        LLVMValueRef idx = LLVMGetOperand(g, (unsigned)i);
        if (!LLVMIsAConstantInt(idx))
            return 0;
        int64_t c = LLVMConstIntGetSExtValue(idx);
        if (i > 1 && LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
            acc += (int64_t)LLVMOffsetOfElement(s->td, ty, (unsigned)c);
            ty = LLVMStructGetTypeAtIndex(ty, (unsigned)c);
            continue;
        }
        if (i > 1)
            ty = LLVMGetElementType(ty);
        acc += c * (int64_t)LLVMABISizeOfType(s->td, ty);
    }
    *off = acc;
    return 1;
}

static MReg index64(Isel *s, LLVMValueRef idx)
{
    unsigned w = isel_int_width(LLVMTypeOf(idx));
    MReg r = isel_val(s, idx);
    if (w == 64)
        return r;
    return isel_cvt(s, XT_S64, XT_S32, isel_sext(s, r, w));
}

static MReg scaled(Isel *s, MReg r, int64_t scale)
{
    if (scale == 1)
        return r;
    if (scale > 0 && (scale & (scale - 1)) == 0) {
        int sh = 0;
        while ((1ll << sh) != scale)
            sh++;
        return isel_op2i(s, XOP_shl, XT_U64, r, sh);
    }
    return isel_op2i(s, XOP_mul, XT_U64, r, scale);
}

static MReg gep_value(Isel *s, LLVMValueRef g)
{
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(g);
    LLVMValueRef base = LLVMGetOperand(g, 0);
    uint32_t soff;
    int64_t c = 0;
    MReg acc = MREG_NONE; /* a shared variable's offset is a constant: fold it into c */
    if (LLVMIsAGlobalVariable(base) && ptr_as(base) == 3 &&
        !lower_shared_offset(&s->shared, base, &soff))
        c = soff;
    else
        acc = isel_val(s, base);
    int n = LLVMGetNumOperands(g);
    for (int i = 1; i < n; i++) {
        LLVMValueRef idx = LLVMGetOperand(g, (unsigned)i);
        if (i > 1 && LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
            unsigned f = (unsigned)LLVMConstIntGetZExtValue(idx);
            c += (int64_t)LLVMOffsetOfElement(s->td, ty, f);
            ty = LLVMStructGetTypeAtIndex(ty, f);
            continue;
        }
        if (i > 1)
            ty = LLVMGetElementType(ty);
        int64_t scale = (int64_t)LLVMABISizeOfType(s->td, ty);
        if (LLVMIsAConstantInt(idx))
            c += LLVMConstIntGetSExtValue(idx) * scale;
        else if (LLVMGetTypeKind(LLVMTypeOf(idx)) != LLVMIntegerTypeKind)
            isel_fail(s, "vector getelementptr is not supported");
        else if (acc == MREG_NONE)
            acc = scaled(s, index64(s, idx), scale);
        else
            acc = isel_op2(s, XOP_add, XT_U64, acc, scaled(s, index64(s, idx), scale));
    }
    MReg r = acc == MREG_NONE ? isel_movi(s, XT_U64, c)
             : c ? isel_op2i(s, XOP_add, XT_U64, acc, c) : acc;
    int sv = LLVMIsAGlobalVariable(base) ? lower_shared_index(&s->shared, base) : -1;
    if (sv >= 0 && sv < 64 && mir_is_vreg(r)) /* for the phase analysis (phases.c) */
        s->f->vregs[r].svar = (uint16_t)(sv + 1);
    return r;
}

static MReg cvta(Isel *s, XSpace sp, MReg r, int to_space)
{
    MReg d = isel_reg(s, XT_U64);
    MInsn *in = isel_emit(s, XOP_cvta, XT_NONE);
    in->x.mod = (uint8_t)sp;
    in->x.flags = to_space ? XF_TOSPACE : 0;
    in->dst[0] = d;
    in->src[0] = r;
    return d;
}

static MReg cast_value(Isel *s, LLVMValueRef v)
{
    LLVMValueRef op = LLVMGetOperand(v, 0);
    unsigned from = ptr_as(op), to = ptr_as(v);
    MReg r = isel_val(s, op);
    int sp = space_of_as(from ? from : to);
    if (from == to || sp == XS_GLOBAL || sp == XS_CONST || sp == XS_TEX)
        return r;
    if ((from == 0 || to == 0) && (sp == XS_SHARED || sp == XS_LOCAL))
        return cvta(s, (XSpace)sp, r, from == 0);
    if (from == 101 && to == 0)
        return isel_op2i(s, XOP_add, XT_U64, r, (int64_t)XGPU_PARAM_BASE);
    isel_fail(s, "unsupported address space cast (%u to %u)", from, to);
    return r;
}

static MReg global_value(Isel *s, LLVMValueRef g)
{
    uint32_t off;
    if (ptr_as(g) == 3) {
        if (lower_shared_offset(&s->shared, g, &off))
            isel_fail(s, "shared variable without a layout");
        MReg r = isel_movi(s, XT_U64, off);
        int sv = lower_shared_index(&s->shared, g);
        if (sv >= 0 && sv < 64) /* for the phase analysis (phases.c) */
            s->f->vregs[r].svar = (uint16_t)(sv + 1);
        return r;
    }
    int idx = lower_global_index(s->globals, g);
    if (idx < 0) {
        size_t len;
        isel_fail(s, "reference to unsupported global '%s'", LLVMGetValueName2(g, &len));
        idx = 0;
    }
    MReg d = isel_reg(s, XT_U64);
    MInsn *in = isel_emit(s, XOP_gaddr, XT_NONE);
    in->dst[0] = d;
    in->x.target = (uint32_t)idx;
    return d;
}

MReg isel_ptr_value(Isel *s, LLVMValueRef v)
{
    uint32_t off;
    if (isel_map_get(&s->frames, v, &off)) {
        MReg r = isel_movi(s, XT_U64, off);
        return ptr_as(v) == 0 ? cvta(s, XS_LOCAL, r, 0) : r;
    }
    if (isel_map_get(&s->byval, v, &off))
        return isel_movi(s, XT_U64, (int64_t)(XGPU_PARAM_BASE + off));
    if (LLVMIsAGlobalVariable(v))
        return global_value(s, v);
    if (is_gep(v))
        return gep_value(s, v);
    if (is_cast(v))
        return cast_value(s, v);
    if (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMBitCast)
        return isel_val(s, LLVMGetOperand(v, 0));
    isel_fail(s, "unsupported pointer value");
    return isel_movi(s, XT_U64, 0);
}

/* ---- addresses ----------------------------------------------------------------------- */

int isel_addr(Isel *s, LLVMValueRef ptr, IselAddr *a)
{
    int64_t off = 0, c;
    for (int depth = 0; depth < 64; depth++) {
        if (is_gep(ptr) && gep_const(s, ptr, &c)) {
            off += c;
            ptr = LLVMGetOperand(ptr, 0);
        } else if (is_cast(ptr) && ptr_as(ptr) == 0 &&
                   space_of_as(ptr_as(LLVMGetOperand(ptr, 0))) > 0) {
            ptr = LLVMGetOperand(ptr, 0);
        } else {
            break;
        }
    }
    uint32_t slot;
    a->base = MREG_RZ;
    if (isel_map_get(&s->frames, ptr, &slot)) {
        a->space = XS_LOCAL;
        a->off = slot + off;
    } else if (isel_map_get(&s->byval, ptr, &slot)) {
        a->space = XS_PARAM;
        a->off = slot + off;
    } else if (LLVMIsAGlobalVariable(ptr) && ptr_as(ptr) == 3) {
        if (lower_shared_offset(&s->shared, ptr, &slot))
            return isel_fail(s, "shared variable without a layout");
        a->space = XS_SHARED;
        a->off = slot + off;
    } else {
        int sp = space_of_as(ptr_as(ptr));
        if (sp < 0)
            return isel_fail(s, "unsupported address space %u", ptr_as(ptr));
        if (LLVMIsAGlobalVariable(ptr) && sp == XS_GENERIC)
            sp = XS_GLOBAL;
        a->space = (XSpace)sp;
        a->base = isel_val(s, ptr);
        a->off = off;
    }
    return 0;
}

/* ---- loads and stores ------------------------------------------------------------------ */

static XType mem_type(LLVMTypeRef t)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind:
        switch (LLVMGetIntTypeWidth(t)) {
        case 1: case 8: return XT_U8;
        case 16: return XT_U16;
        case 32: return XT_U32;
        case 64: return XT_U64;
        default: return XT_NONE;
        }
    case LLVMPointerTypeKind: return XT_U64;
    case LLVMFloatTypeKind: return XT_F32;
    case LLVMDoubleTypeKind: return XT_F64;
    case LLVMVectorTypeKind: return isel_is_half2(t) ? XT_U32 : XT_NONE; /* packed bits */
    default: return XT_NONE;
    }
}

static int check_access(Isel *s, LLVMValueRef in, LLVMTypeRef t, const char *what)
{
    LLVMAtomicOrdering o = LLVMGetOrdering(in);
    if (o != LLVMAtomicOrderingNotAtomic && o != LLVMAtomicOrderingUnordered &&
        o != LLVMAtomicOrderingMonotonic)
        return isel_fail(s, "atomic %s with ordering stronger than monotonic is not "
                         "supported", what);
    if (mem_type(t) == XT_NONE) {
        char *ts = LLVMPrintTypeToString(t);
        isel_fail(s, "unsupported %s of type '%s' (aggregates and vectors must be split "
                  "earlier)", what, ts);
        LLVMDisposeMessage(ts);
        return -1;
    }
    return 0;
}

int isel_load(Isel *s, LLVMValueRef in)
{
    LLVMTypeRef t = LLVMTypeOf(in);
    IselAddr a;
    if (check_access(s, in, t, "load") || isel_addr(s, LLVMGetOperand(in, 0), &a))
        return -1;
    isel_bind(s, in, emit_ld_a(s, mem_type(t), a.space, a.base, a.off, LLVMGetAlignment(in)));
    return 0;
}

int isel_store(Isel *s, LLVMValueRef in)
{
    LLVMValueRef v = LLVMGetOperand(in, 0);
    IselAddr a;
    if (check_access(s, in, LLVMTypeOf(v), "store"))
        return -1;
    MReg r = isel_val(s, v);
    if (isel_addr(s, LLVMGetOperand(in, 1), &a))
        return -1;
    if (a.space == XS_PARAM)
        return isel_fail(s, "store to a kernel parameter");
    if (a.space == XS_TEX)
        return isel_fail(s, "store through a texture-space pointer");
    emit_st_a(s, mem_type(LLVMTypeOf(v)), a.space, a.base, a.off, r, LLVMGetAlignment(in));
    return 0;
}

/* ---- memcpy / memmove / memset --------------------------------------------------------- */

/* The alignment of pointer argument arg of a memcpy/memmove/memset call, at most
 * XISA_MEM_ALIGN_MAX (the widest vector access). */
static unsigned call_align(LLVMValueRef call, unsigned arg)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, arg + 1, kind);
    uint64_t v = a ? LLVMGetEnumAttributeValue(a) : 1;
    return v > XISA_MEM_ALIGN_MAX ? XISA_MEM_ALIGN_MAX : v ? (unsigned)v : 1;
}

/* The alignment the unit at byte pos of a copy or set of alignment align must check: the
 * copy's own at each multiple of it (where a GPU's vector access of that width starts),
 * else the unit's size. */
static unsigned unit_align(unsigned align, uint64_t pos)
{
    return pos % align == 0 ? align : 0;
}

/* A copy of len bytes (len <= UNROLL_MAX) as loads and stores of up to 8 bytes; the unit
 * at each multiple of align (up to 16) checks that alignment, as the GPU's vector
 * access of the copy would. */
static void copy_unrolled(Isel *s, const IselAddr *d, const IselAddr *sa, uint64_t len,
                          unsigned align, int overlap)
{
    MReg regs[UNROLL_MAX];
    unsigned units[UNROLL_MAX], n = 0;
    for (uint64_t pos = 0; pos < len; pos += units[n++]) {
        units[n] = pick_unit(align, len - pos);
        unsigned ua = unit_align(align, pos);
        regs[n] = emit_ld_a(s, unit_type(units[n]), sa->space, sa->base,
                            sa->off + (int64_t)pos, ua);
        if (!overlap)
            emit_st_a(s, unit_type(units[n]), d->space, d->base, d->off + (int64_t)pos,
                      regs[n], ua);
    }
    uint64_t pos = 0;
    for (unsigned i = 0; overlap && i < n; pos += units[i++])
        emit_st_a(s, unit_type(units[i]), d->space, d->base, d->off + (int64_t)pos, regs[i],
                  unit_align(align, pos));
}

/* Address of byte i of a (a register and an immediate). */
static MReg addr_at(Isel *s, const IselAddr *a, MReg i)
{
    return a->base == MREG_RZ ? i : isel_op2(s, XOP_add, XT_U64, a->base, i);
}

/* Byte loop from s->cur: for i in [0,n) (or down from n), body(i); ends in block `exit`.
 * kind 0: copy forward, 1: copy backward, 2: set bytes to v. */
static void byte_loop(Isel *s, const IselAddr *d, const IselAddr *sa, MReg n, MReg v, int kind,
                      uint32_t exit)
{
    uint32_t pre = s->cur, head = isel_new_block(s), body = isel_new_block(s);
    MReg i0 = kind == 1 ? n : isel_movi(s, XT_U64, 0);
    isel_branch(s, head);
    s->cur = head;
    MReg i = isel_reg(s, XT_U64), i1 = isel_reg(s, XT_U64);
    MPhi *p = mir_phi_new(s->f, head, i, 2);
    p->in[0] = (MPhiIn){pre, i0};
    p->in[1] = (MPhiIn){body, i1};
    MReg c = kind == 1 ? isel_op2i(s, XOP_set, XT_U64, i, 0) : isel_op2(s, XOP_set, XT_U64, i, n);
    s->f->blocks[head].ins[s->f->blocks[head].nins - 1].x.mod = kind == 1 ? XCMP_NE : XCMP_LT;
    isel_cbranch(s, c, body, exit);
    s->cur = body;
    MReg at = kind == 1 ? isel_op2i(s, XOP_sub, XT_U64, i, 1) : i;
    if (kind != 2)
        v = emit_ld(s, XT_U8, sa->space, addr_at(s, sa, at), sa->off);
    emit_st(s, XT_U8, d->space, addr_at(s, d, at), d->off, v);
    MInsn *in = isel_emit(s, kind == 1 ? XOP_mov : XOP_add, XT_U64);
    in->dst[0] = i1;
    in->src[0] = at;
    if (kind != 1) {
        in->x.flags = XF_IMM;
        in->x.imm = 1;
    }
    isel_branch(s, head);
    s->cur = exit;
}

static MReg len64(Isel *s, LLVMValueRef len)
{
    MReg r = isel_val(s, len);
    return isel_int_width(LLVMTypeOf(len)) == 64 ? r : isel_cvt(s, XT_U64, XT_U32, r);
}

static int sel_copy(Isel *s, LLVMValueRef call, int is_move)
{
    LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
    LLVMValueRef len = LLVMGetOperand(call, 2);
    IselAddr d, sa;
    if (isel_addr(s, dst, &d) || isel_addr(s, src, &sa))
        return -1;
    if (d.space == XS_PARAM || d.space == XS_TEX)
        return isel_fail(s, "copy into a kernel parameter or texture-space memory");
    unsigned al = call_align(call, 0) < call_align(call, 1) ? call_align(call, 0)
                                                             : call_align(call, 1);
    if (LLVMIsAConstantInt(len) && LLVMConstIntGetZExtValue(len) <= UNROLL_MAX) {
        copy_unrolled(s, &d, &sa, LLVMConstIntGetZExtValue(len), al, is_move);
        return 0;
    }
    MReg n = len64(s, len);
    uint32_t exit = isel_new_block(s);
    if (!is_move) {
        byte_loop(s, &d, &sa, n, 0, 0, exit);
        return 0;
    }
    /* memmove: copy backward when the destination is above the source */
    MReg c = isel_op2(s, XOP_set, XT_U64, isel_val(s, dst), isel_val(s, src));
    s->f->blocks[s->cur].ins[s->f->blocks[s->cur].nins - 1].x.mod = XCMP_GT;
    uint32_t back = isel_new_block(s), fwd = isel_new_block(s);
    isel_cbranch(s, c, back, fwd);
    s->cur = back;
    byte_loop(s, &d, &sa, n, 0, 1, exit);
    s->cur = fwd;
    byte_loop(s, &d, &sa, n, 0, 0, exit);
    return 0;
}

static MReg splat(Isel *s, LLVMValueRef v, unsigned unit)
{
    if (LLVMIsAConstantInt(v)) {
        uint64_t b = LLVMConstIntGetZExtValue(v) & 0xff;
        uint64_t pat = b * 0x0101010101010101ull;
        return isel_movi(s, unit == 8 ? XT_U64 : XT_U32, (int64_t)(unit == 8 ? pat : pat & 0xffffffffu));
    }
    MReg r = isel_val(s, v);
    if (unit == 1)
        return r;
    r = isel_op2i(s, XOP_mul, XT_U32, r, 0x01010101);
    if (unit < 8)
        return r;
    r = isel_cvt(s, XT_U64, XT_U32, r);
    return isel_op2(s, XOP_or, XT_U64, r, isel_op2i(s, XOP_shl, XT_U64, r, 32));
}

static int sel_set(Isel *s, LLVMValueRef call)
{
    LLVMValueRef len = LLVMGetOperand(call, 2), v = LLVMGetOperand(call, 1);
    IselAddr d;
    if (isel_addr(s, LLVMGetOperand(call, 0), &d))
        return -1;
    if (d.space == XS_PARAM || d.space == XS_TEX)
        return isel_fail(s, "memset of a kernel parameter or texture-space memory");
    unsigned al = call_align(call, 0);
    if (LLVMIsAConstantInt(len) && LLVMConstIntGetZExtValue(len) <= UNROLL_MAX) {
        uint64_t n = LLVMConstIntGetZExtValue(len);
        MReg pat[9] = {0};
        for (uint64_t pos = 0; pos < n;) {
            unsigned u = pick_unit(al, n - pos);
            if (!pat[u])
                pat[u] = splat(s, v, u);
            emit_st_a(s, unit_type(u), d.space, d.base, d.off + (int64_t)pos, pat[u],
                      unit_align(al, pos));
            pos += u;
        }
        return 0;
    }
    MReg n = len64(s, len), b = isel_val(s, v);
    uint32_t exit = isel_new_block(s);
    byte_loop(s, &d, &d, n, b, 2, exit);
    return 0;
}

int isel_memop(Isel *s, LLVMValueRef call, const char *name)
{
    if (!strncmp(name, "llvm.memcpy", 11))
        return sel_copy(s, call, 0);
    if (!strncmp(name, "llvm.memmove", 12))
        return sel_copy(s, call, 1);
    return sel_set(s, call);
}
