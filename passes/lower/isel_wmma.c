/*
 * isel_wmma.c - instruction selection for CUDA's warp matrix functions: the
 * llvm.nvvm.wmma.m16n16k16.* intrinsics clang emits for nvcuda::wmma (mma.h) with f16
 * inputs and f16 or f32 accumulators.
 *
 *   load.{a,b}.<layout>[.stride].f16      8 x <2 x half>: 4 registers of the lane's
 *                                          elements, fields 4..7 repeat fields 0..3
 *   load.c.<layout>[.stride].{f16,f32}    4 x <2 x half> or 8 x float
 *   store.d.<layout>[.stride].{f16,f32}   the same values back to memory
 *   mma.<alayout>.<blayout>.<dtype>.<ctype>  four hmma steps, one per quadrant of D
 *
 * Loads and stores become ordinary per-lane ld/st: each lane computes the address of its
 * first element from %laneid, the layout and the leading dimension (ldm elements; 16
 * without .stride), and reaches the others at constant offsets (or, for a run-time ldm,
 * from one extra base per distinct row step). The element mapping is the one hmma
 * computes with (emulator/func/exec_tensor.c, docs/isa.md): A and B registers hold four
 * consecutive elements of the memory's minor dimension, so each is one 32-bit access;
 * an f16 accumulator stored column-major takes two 16-bit accesses per register. The
 * address space is the pointer's (generic, global or shared, through isel_addr).
 *
 * The intrinsics return 4 or 8 fields; they are kept in Isel.aggf (one entry of eight
 * vregs per call) and extractvalue reads them. A field may be used before its call is
 * selected; the call then moves its value into the vreg already made. .satfinite and
 * every other shape or element type are rejected with a located error.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

typedef enum WKind { WK_LOAD, WK_STORE, WK_MMA } WKind;

/* What an intrinsic's name says. */
typedef struct Wmma {
    WKind kind;
    char frag;    /* 'a', 'b', 'c' (loads) or 'd' (store) */
    int col;      /* load/store: the memory is column-major */
    int stride;   /* load/store: ldm is the last operand (else 16) */
    int f32;      /* load c / store d: f32 elements (else f16) */
    unsigned mod; /* mma: XHMMA_* */
} Wmma;

/* One access of a lane: element (dmaj, dmin) from the lane's first one, register reg of
 * the fragment, half 0 (32 bits), 1 (low 16) or 2 (high 16). */
typedef struct WAccess {
    uint8_t dmaj, dmin, reg, half;
} WAccess;

/* Where a lane's first element is, as (major, minor) in the memory's layout. */
typedef enum WLane {
    WL_PMAJ, /* A row-major, B column-major: major lane/4, minor 4*(lane%4) */
    WL_PMIN, /* A column-major, B row-major: major lane/2, minor 4*(lane%2) */
    WL_CROW, /* C/D row-major: major lane/4, minor 2*(lane%4) */
    WL_CCOL, /* C/D column-major: major 2*(lane%4), minor lane/4 */
} WLane;

/* ---- names ----------------------------------------------------------------------------- */

/* Copies the next '.'-separated token of *p into tok (truncated to n - 1 characters)
 * and advances past it; returns 0 at the end of the name. */
static int next_tok(const char **p, char *tok, size_t n)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t k = strcspn(s, ".");
    size_t c = k < n ? k : n - 1;
    memcpy(tok, s, c);
    tok[c] = '\0';
    *p = s[k] ? s + k + 1 : s + k;
    return 1;
}

static int layout_tok(const char *t)
{
    return !strcmp(t, "row") ? 0 : !strcmp(t, "col") ? 1 : -1;
}

static int ftype_tok(const char *t)
{
    return !strcmp(t, "f16") ? 0 : !strcmp(t, "f32") ? 1 : -1;
}

/* Parses load/store after the shape: <frag>.<layout>[.stride].<type>[.pN]. */
static int parse_ldst(const char **p, Wmma *w)
{
    char t[16];
    const char *frags = w->kind == WK_LOAD ? "abc" : "d";
    if (!next_tok(p, t, sizeof t) || strlen(t) != 1 || !strchr(frags, t[0]))
        return -1;
    w->frag = t[0];
    if (!next_tok(p, t, sizeof t) || (w->col = layout_tok(t)) < 0 || !next_tok(p, t, sizeof t))
        return -1;
    if (!strcmp(t, "stride")) {
        w->stride = 1;
        if (!next_tok(p, t, sizeof t))
            return -1;
    }
    if ((w->f32 = ftype_tok(t)) < 0 || ((w->frag == 'a' || w->frag == 'b') && w->f32))
        return -1;
    return !next_tok(p, t, sizeof t) || t[0] == 'p' ? 0 : -1;
}

/* Parses mma after the shape: <alayout>.<blayout>.<dtype>.<ctype>. */
static int parse_mma(const char **p, Wmma *w)
{
    char t[16];
    int v[4];
    for (int i = 0; i < 4; i++)
        if (!next_tok(p, t, sizeof t) || (v[i] = i < 2 ? layout_tok(t) : ftype_tok(t)) < 0)
            return -1;
    w->mod = (v[0] ? XHMMA_ACOL : 0) | (v[1] ? XHMMA_BCOL : 0) | (v[2] ? XHMMA_D32 : 0) |
             (v[3] ? XHMMA_C32 : 0);
    return next_tok(p, t, sizeof t) ? -1 : 0; /* .satfinite and anything else */
}

static int parse_name(const char *name, Wmma *w)
{
    const char *p = name + strlen("llvm.nvvm.wmma.");
    char t[16];
    memset(w, 0, sizeof *w);
    if (!next_tok(&p, t, sizeof t) || strcmp(t, "m16n16k16") || !next_tok(&p, t, sizeof t))
        return -1;
    if (!strcmp(t, "load") || !strcmp(t, "store")) {
        w->kind = t[0] == 'l' ? WK_LOAD : WK_STORE;
        return parse_ldst(&p, w);
    }
    if (!strcmp(t, "mma")) {
        w->kind = WK_MMA;
        return parse_mma(&p, w);
    }
    return -1;
}

/* ---- aggregate fields ------------------------------------------------------------------ */

static MReg *agg_fields(Isel *s, LLVMValueRef agg)
{
    uint32_t i;
    if (!isel_map_get(&s->aggs, agg, &i)) {
        if (s->naggf == s->capaggf) {
            s->capaggf = s->capaggf ? 2 * s->capaggf : 8;
            s->aggf = realloc(s->aggf, s->capaggf * sizeof *s->aggf);
            if (!s->aggf) {
                fprintf(stderr, "xgpu-cc: out of memory\n");
                abort();
            }
        }
        i = s->naggf++;
        memset(s->aggf[i], 0, sizeof s->aggf[i]);
        isel_map_put(&s->aggs, agg, i);
    }
    return s->aggf[i];
}

/* Field idx of agg is r (a move into the field's vreg when a use already made one). */
static void bind_field(Isel *s, LLVMValueRef agg, unsigned idx, MReg r)
{
    MReg *f = agg_fields(s, agg);
    if (f[idx] == MREG_NONE) {
        f[idx] = r;
        return;
    }
    MInsn *in = isel_emit(s, XOP_mov, XT_U32);
    in->dst[0] = f[idx];
    in->src[0] = r;
}

int isel_wmma_extract(Isel *s, LLVMValueRef in)
{
    LLVMValueRef agg = LLVMGetOperand(in, 0);
    unsigned idx = LLVMGetIndices(in)[0];
    XType t = isel_type(s, LLVMTypeOf(in), 0);
    if (idx >= 8 || (t != XT_U32 && t != XT_F32))
        return isel_fail(s, "unsupported extractvalue of field %u", idx);
    MReg *f = agg_fields(s, agg);
    if (f[idx] == MREG_NONE)
        f[idx] = isel_reg(s, XT_U32);
    isel_bind(s, in, f[idx]);
    return 0;
}

/* ---- packed f16 pairs ------------------------------------------------------------------ */

int isel_is_half2(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind && LLVMGetVectorSize(t) == 2 &&
           LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMHalfTypeKind;
}

MReg isel_half2_const(Isel *s, LLVMValueRef v)
{
    uint32_t bits = 0;
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef e = LLVMGetAggregateElement(v, i);
        LLVMBool loses;
        if (e && LLVMIsAConstantFP(e))
            bits |= (uint32_t)xisa_f32_to_f16((float)LLVMConstRealGetDouble(e, &loses)) << (16 * i);
        else if (!e || !LLVMIsUndef(e))
            isel_fail(s, "unsupported <2 x half> constant");
    }
    return isel_movi(s, XT_U32, bits);
}

/* ---- loads and stores ------------------------------------------------------------------ */

static WLane lane_kind(const Wmma *w)
{
    if (w->frag == 'a')
        return w->col ? WL_PMIN : WL_PMAJ;
    if (w->frag == 'b')
        return w->col ? WL_PMAJ : WL_PMIN;
    return w->col ? WL_CCOL : WL_CROW;
}

/* The accesses of one lane, in register order; returns their number. */
static unsigned accesses(const Wmma *w, WAccess *out)
{
    unsigned n = 0;
    if (w->frag == 'a' || w->frag == 'b') {
        int pmaj = lane_kind(w) == WL_PMAJ;
        for (unsigned r = 0; r < 4; r++) {
            unsigned p = r >> 1, j = r & 1;
            out[n++] = (WAccess){(uint8_t)(pmaj ? 8 * p : 0),
                                 (uint8_t)(pmaj ? 2 * j : 8 * p + 2 * j), (uint8_t)r, 0};
        }
        return n;
    }
    for (unsigned q = 0; q < 4; q++)
        for (unsigned j = 0; j < 2; j++) {
            unsigned row = 8 * (q >> 1), col = 8 * (q & 1) + j; /* from the lane's first */
            uint8_t dmaj = (uint8_t)(w->col ? col : row), dmin = (uint8_t)(w->col ? row : col);
            if (w->f32)
                out[n++] = (WAccess){dmaj, dmin, (uint8_t)(2 * q + j), 0};
            else if (w->col)
                out[n++] = (WAccess){dmaj, dmin, (uint8_t)q, (uint8_t)(1 + j)};
            else if (!j)
                out[n++] = (WAccess){dmaj, dmin, (uint8_t)q, 0};
        }
    return n;
}

typedef struct WBases {
    MReg reg[17]; /* base register per major step dmaj (run-time ldm) */
    MReg first;   /* address of the lane's first element */
    MReg ldm;     /* run-time leading dimension, or MREG_NONE */
    int64_t ldmc; /* constant leading dimension (when ldm is MREG_NONE) */
    unsigned esz; /* element bytes */
} WBases;

/* Element offset (major * ldm + minor) of the lane's first element, 32-bit. */
static MReg lane_offset(Isel *s, WLane k, const WBases *b)
{
    MReg lane = isel_reg(s, XT_U32);
    MInsn *in = isel_emit(s, XOP_s2r, XT_NONE);
    in->x.mod = XSR_LANEID;
    in->dst[0] = lane;
    MReg q4 = isel_op2i(s, XOP_shr, XT_U32, lane, 2);
    MReg l3x2 = isel_op2i(s, XOP_shl, XT_U32, isel_op2i(s, XOP_and, XT_U32, lane, 3), 1);
    MReg maj, min;
    switch (k) {
    case WL_PMAJ: maj = q4; min = isel_op2i(s, XOP_shl, XT_U32, l3x2, 1); break;
    case WL_PMIN:
        maj = isel_op2i(s, XOP_shr, XT_U32, lane, 1);
        min = isel_op2i(s, XOP_shl, XT_U32, isel_op2i(s, XOP_and, XT_U32, lane, 1), 2);
        break;
    case WL_CROW: maj = q4; min = l3x2; break;
    default: maj = l3x2; min = q4; break;
    }
    MReg rows = b->ldm ? isel_op2(s, XOP_mul, XT_U32, maj, b->ldm)
                       : isel_op2i(s, XOP_mul, XT_U32, maj, b->ldmc);
    return isel_op2(s, XOP_add, XT_U32, rows, min);
}

/* 64-bit base + (32-bit element offset << log2 esz); base MREG_RZ: the offset alone. */
static MReg add_bytes(Isel *s, MReg base, MReg elems, unsigned esz)
{
    MReg b = isel_op2i(s, XOP_shl, XT_U32, elems, esz == 4 ? 2 : 1);
    MReg w = isel_cvt(s, XT_U64, XT_U32, b);
    return base == MREG_RZ ? w : isel_op2(s, XOP_add, XT_U64, base, w);
}

/* Base register and immediate of access x. */
static MReg access_base(Isel *s, WBases *b, const WAccess *x, const IselAddr *a, int64_t *imm)
{
    *imm = a->off + (int64_t)x->dmin * b->esz;
    if (!b->ldm) {
        *imm += (int64_t)x->dmaj * b->ldmc * b->esz;
        return b->first;
    }
    if (!x->dmaj)
        return b->first;
    if (b->reg[x->dmaj] == MREG_NONE)
        b->reg[x->dmaj] = add_bytes(s, b->first, isel_op2i(s, XOP_mul, XT_U32, b->ldm, x->dmaj),
                                    b->esz);
    return b->reg[x->dmaj];
}

static void mem_insn(Isel *s, XOp op, XType t, XSpace sp, MReg base, int64_t imm, MReg v)
{
    MInsn *in = isel_emit(s, op, t);
    in->x.mod = (uint8_t)sp;
    in->src[0] = base;
    in->x.imm = imm;
    if (op == XOP_ld)
        in->dst[0] = v;
    else
        in->src[1] = v;
}

/* Address of the lane's first element; fills b. */
static int lane_bases(Isel *s, LLVMValueRef call, const Wmma *w, IselAddr *a, WBases *b)
{
    memset(b, 0, sizeof *b);
    b->esz = w->f32 ? 4 : 2;
    if (isel_addr(s, LLVMGetOperand(call, 0), a))
        return -1;
    if (a->space != XS_GENERIC && a->space != XS_GLOBAL && a->space != XS_SHARED)
        return isel_fail(s, "warp matrix %s in the %s space is not supported (generic, global "
                         "and shared only)", w->kind == WK_LOAD ? "load" : "store",
                         xisa_space_names[a->space]);
    b->ldmc = 16;
    if (w->stride) {
        LLVMValueRef l = LLVMGetOperand(call, w->kind == WK_LOAD ? 1 : w->f32 ? 9 : 5);
        if (LLVMIsAConstantInt(l) && LLVMConstIntGetZExtValue(l) <= 0xffff)
            b->ldmc = (int64_t)LLVMConstIntGetZExtValue(l);
        else
            b->ldm = isel_val(s, l);
    }
    b->first = add_bytes(s, a->base, lane_offset(s, lane_kind(w), b), b->esz);
    return 0;
}

static int wmma_load(Isel *s, LLVMValueRef call, const Wmma *w)
{
    IselAddr a;
    WBases b;
    WAccess acc[16];
    MReg regs[8] = {0};
    if (lane_bases(s, call, w, &a, &b))
        return -1;
    unsigned n = accesses(w, acc);
    for (unsigned i = 0; i < n; i++) {
        int64_t imm;
        MReg base = access_base(s, &b, &acc[i], &a, &imm);
        MReg v = isel_reg(s, XT_U32);
        mem_insn(s, XOP_ld, acc[i].half ? XT_U16 : w->f32 ? XT_F32 : XT_U32, a.space, base, imm, v);
        if (acc[i].half == 2)
            v = isel_op2(s, XOP_or, XT_U32, regs[acc[i].reg], isel_op2i(s, XOP_shl, XT_U32, v, 16));
        regs[acc[i].reg] = v;
    }
    unsigned nregs = w->f32 ? 8 : 4; /* f32 C: 8 floats; A, B, f16 C: 4 pairs */
    for (unsigned i = 0; i < nregs; i++)
        bind_field(s, call, i, regs[i]);
    if (w->frag != 'c') /* A and B: fields 4..7 repeat 0..3 */
        for (unsigned i = 0; i < 4; i++)
            bind_field(s, call, 4 + i, regs[i]);
    return 0;
}

static int wmma_store(Isel *s, LLVMValueRef call, const Wmma *w)
{
    IselAddr a;
    WBases b;
    WAccess acc[16];
    if (lane_bases(s, call, w, &a, &b))
        return -1;
    unsigned n = accesses(w, acc);
    for (unsigned i = 0; i < n; i++) {
        int64_t imm;
        MReg base = access_base(s, &b, &acc[i], &a, &imm);
        MReg v = isel_val(s, LLVMGetOperand(call, 1 + acc[i].reg));
        if (acc[i].half == 2)
            v = isel_op2i(s, XOP_shr, XT_U32, v, 16);
        mem_insn(s, XOP_st, acc[i].half ? XT_U16 : w->f32 ? XT_F32 : XT_U32, a.space, base, imm, v);
    }
    return 0;
}

/* ---- mma -------------------------------------------------------------------------------- */

static int wmma_mma(Isel *s, LLVMValueRef call, const Wmma *w)
{
    MReg av[4], bv[4], cv[8];
    unsigned nc = (w->mod & XHMMA_C32) ? 8 : 4;
    for (unsigned i = 0; i < 4; i++) {
        av[i] = isel_val(s, LLVMGetOperand(call, i));
        bv[i] = isel_val(s, LLVMGetOperand(call, 8 + i));
    }
    for (unsigned i = 0; i < nc; i++)
        cv[i] = isel_val(s, LLVMGetOperand(call, 16 + i));
    for (unsigned q = 0; q < XHMMA_STEPS; q++) {
        unsigned mi = q >> 1, ni = q & 1;
        MInsn *in = isel_emit(s, XOP_hmma, XT_NONE);
        in->x.sub = (uint8_t)q;
        in->x.mod = (uint8_t)w->mod;
        in->src[0] = av[2 * mi], in->src[1] = av[2 * mi + 1];
        in->src[2] = bv[2 * ni], in->src[3] = bv[2 * ni + 1];
        in->src[4] = (w->mod & XHMMA_C32) ? cv[2 * q] : cv[q];
        in->src[5] = (w->mod & XHMMA_C32) ? cv[2 * q + 1] : MREG_NONE;
        MReg d0 = isel_reg(s, XT_U32), d1 = (w->mod & XHMMA_D32) ? isel_reg(s, XT_U32) : MREG_NONE;
        in->dst[0] = d0, in->dst[1] = d1;
        if (w->mod & XHMMA_D32) {
            bind_field(s, call, 2 * q, d0);
            bind_field(s, call, 2 * q + 1, d1);
        } else {
            bind_field(s, call, q, d0);
        }
    }
    return 0;
}

int isel_wmma(Isel *s, LLVMValueRef call, const char *name)
{
    Wmma w;
    if (parse_name(name, &w))
        return isel_fail(s, "unsupported warp matrix intrinsic '%s' (xgpu supports the "
                         "m16n16k16 shape with f16 A and B, f16 or f32 accumulators, "
                         "without .satfinite)", name);
    switch (w.kind) {
    case WK_LOAD: return wmma_load(s, call, &w);
    case WK_STORE: return wmma_store(s, call, &w);
    default: return wmma_mma(s, call, &w);
    }
}
