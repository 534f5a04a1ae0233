/*
 * exec_alu.c - semantics of the integer, floating-point, compare, select, convert and
 * special-register instructions, written in the DSL of exec.h.
 *
 * Operand values: A, B, C are the sources converted to the instruction's C type T (U is
 * the unsigned type of the same width), D is the result. Each semantic line is expanded
 * into one handler per type and per form (register or immediate last source, the `_i`
 * variants); the immediate is raw bits (f32/f64 in PTX style) truncated to the width.
 * Integer arithmetic that may overflow is done in U so it wraps without undefined
 * behaviour. Shift counts are 32-bit (the low word when a pair is named; an immediate
 * count above 2^32-1 counts as huge). Values of 8/16-bit type sit in a 32-bit register
 * extended by their signedness; cvt reads only their low bits.
 */
#include <math.h>
#include <string.h>
#include "func/exec.h"

#define AI static inline __attribute__((always_inline))

/* --- typed register access: ld_<t>, st_<t>, im_<t> ------------------------------------ */

static inline float bits_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double bits_d(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
static inline uint32_t f_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t d_bits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }

#define REG32(sfx, TT, FROM, TO)                                                            \
    AI TT ld_##sfx(EmuRows r, unsigned row, unsigned l) { return FROM(r[row][l]); }         \
    AI void st_##sfx(EmuRows r, unsigned row, unsigned l, TT v) { r[row][l] = TO(v); }      \
    AI TT im_##sfx(int64_t i) { return FROM((uint32_t)i); }
#define REG64(sfx, TT, FROM, TO)                                                            \
    AI TT ld_##sfx(EmuRows r, unsigned row, unsigned l) { return FROM(rr64(r, row, l)); }   \
    AI void st_##sfx(EmuRows r, unsigned row, unsigned l, TT v) { rw64(r, row, l, TO(v)); } \
    AI TT im_##sfx(int64_t i) { return FROM((uint64_t)i); }
#define CAST_U32(v) ((uint32_t)(v))
#define CAST_S32(v) ((int32_t)(v))
#define CAST_U64(v) ((uint64_t)(v))
#define CAST_S64(v) ((int64_t)(v))
REG32(u32, uint32_t, CAST_U32, CAST_U32)
REG32(s32, int32_t, CAST_S32, CAST_U32)
REG32(f32, float, bits_f, f_bits)
REG64(u64, uint64_t, CAST_U64, CAST_U64)
REG64(s64, int64_t, CAST_S64, CAST_U64)
REG64(f64, double, bits_d, d_bits)

/* --- handler templates ------------------------------------------------------------------ */

/* Declares T, U and BITS inside a handler. */
#define TYPES(TT, UU, NB, SG) typedef TT T; typedef UU U; enum { BITS = NB, SGN = SG }; (void)sizeof(T); (void)sizeof(U); (void)BITS; (void)SGN

/* Generates name_sfx (register form) and name_sfx_i (immediate form) from a kernel
 * name_sfx_k(..., K) whose K is a compile-time constant. */
#define FORMS(name, sfx)                                                                    \
    EMU_HOT static int name##_##sfx(EXEC_ARGS)                                              \
    { return name##_##sfx##_k(x, w, in, mask, 0); }                                        \
    EMU_HOT static int name##_##sfx##_i(EXEC_ARGS)                                          \
    { return name##_##sfx##_k(x, w, in, mask, 1); }

#define UNOP(name, sfx, TT, UU, NB, SG, body)                                                   \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        TYPES(TT, UU, NB, SG); OPERANDS; (void)x;                                               \
        MAP(T, ld_##sfx(R, d, l), st_##sfx(R, d, l, D),                                     \
            T A = K ? im_##sfx(imm) : ld_##sfx(R, s0, l); body);                            \
        return 0; }                                                                         \
    FORMS(name, sfx)
#define BINOP(name, sfx, TT, UU, NB, SG, body)                                                  \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        TYPES(TT, UU, NB, SG); OPERANDS; (void)x;                                               \
        MAP(T, ld_##sfx(R, d, l), st_##sfx(R, d, l, D),                                     \
            T A = ld_##sfx(R, s0, l); T B = K ? im_##sfx(imm) : ld_##sfx(R, s1, l); body);  \
        return 0; }                                                                         \
    FORMS(name, sfx)
#define TERNOP(name, sfx, TT, UU, NB, SG, body)                                                 \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        TYPES(TT, UU, NB, SG); OPERANDS; (void)x;                                               \
        MAP(T, ld_##sfx(R, d, l), st_##sfx(R, d, l, D),                                     \
            T A = ld_##sfx(R, s0, l); T B = ld_##sfx(R, s1, l);                             \
            T C = K ? im_##sfx(imm) : ld_##sfx(R, s2, l); body);                            \
        return 0; }                                                                         \
    FORMS(name, sfx)
/* Shifts: B is the 32-bit count. */
#define SHIFTOP(name, sfx, TT, UU, NB, SG, body)                                                \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        TYPES(TT, UU, NB, SG); OPERANDS; (void)x;                                               \
        const uint32_t bimm = (uint64_t)imm > UINT32_MAX ? UINT32_MAX : (uint32_t)imm;     \
        MAP(T, ld_##sfx(R, d, l), st_##sfx(R, d, l, D),                                     \
            T A = ld_##sfx(R, s0, l); uint32_t B = K ? bimm : R[s1][l]; body);              \
        return 0; }                                                                         \
    FORMS(name, sfx)
/* Bit counts: D is 32-bit. */
#define COUNTOP(name, sfx, TT, UU, NB, SG, body)                                                \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        TYPES(TT, UU, NB, SG); OPERANDS; (void)x;                                               \
        MAP(uint32_t, R[d][l], R[d][l] = D,                                                 \
            T A = K ? im_##sfx(imm) : ld_##sfx(R, s0, l); body);                            \
        return 0; }                                                                         \
    FORMS(name, sfx)

/* 64-bit integer ops on register pairs as 32-bit words (PAIR_MAP): body sets lo and hi
 * from the words of A (alo, ahi) and of B (blo, bhi). Where one 64-bit operation does
 * what several word operations would (shifts, multiplies) the 64-bit form is kept. */
#define PAIR_OPERANDS                                                                       \
    OPERANDS; (void)x;                                                                      \
    const uint32_t ilo = (uint32_t)imm, ihi = (uint32_t)((uint64_t)imm >> 32);             \
    (void)ilo; (void)ihi
#define PUNOP(name, sfx, ...)                                                               \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        PAIR_OPERANDS;                                                                      \
        PAIR_MAP(const uint32_t alo = K ? ilo : R[s0][l], ahi = K ? ihi : R[s0 + 1][l];     \
                 __VA_ARGS__);                                                              \
        return 0; }                                                                         \
    FORMS(name, sfx)
#define PBINOP(name, sfx, ...)                                                              \
    AI int name##_##sfx##_k(EXEC_ARGS, const int K) {                                      \
        PAIR_OPERANDS;                                                                      \
        PAIR_MAP(const uint32_t alo = R[s0][l], ahi = R[s0 + 1][l];                         \
                 const uint32_t blo = K ? ilo : R[s1][l], bhi = K ? ihi : R[s1 + 1][l];     \
                 __VA_ARGS__);                                                              \
        return 0; }                                                                         \
    FORMS(name, sfx)

#define ENT(name, sfx) {name##_##sfx, name##_##sfx##_i}

/* Selects the handler for xi's type and form. */
static int pick(const EmuExecFn tab[XT_COUNT][2], const XInsn *xi, EmuInsn *o)
{
    if (xi->type >= XT_COUNT || !tab[xi->type][(xi->flags & XF_IMM) != 0])
        return -1;
    o->fn = tab[xi->type][(xi->flags & XF_IMM) != 0];
    o->kind = EK_PLAIN;
    return 0;
}

#define PICKER(name)                                                                        \
    int emu_pick_##name(const XInsn *xi, EmuInsn *o) { return pick(name##_tab, xi, o); }

/* Integer ops on u32, s32, u64, s64. */
#define INT_FAMILY(TEMPLATE, name, body)                                                    \
    TEMPLATE(name, u32, uint32_t, uint32_t, 32, 0, body)                                       \
    TEMPLATE(name, s32, int32_t, uint32_t, 32, 1, body)                                        \
    TEMPLATE(name, u64, uint64_t, uint64_t, 64, 0, body)                                       \
    TEMPLATE(name, s64, int64_t, uint64_t, 64, 1, body)                                        \
    static const EmuExecFn name##_tab[XT_COUNT][2] = {                                      \
        [XT_U32] = ENT(name, u32), [XT_S32] = ENT(name, s32),                               \
        [XT_U64] = ENT(name, u64), [XT_S64] = ENT(name, s64)};                              \
    PICKER(name)
/* A binary INT_FAMILY whose 64-bit types work on 32-bit words (pair_body sets lo and hi:
 * see PBINOP); u64 and s64 share the handler, the operation being the same bits. */
#define INT_FAMILY_PAIR(name, body, ...)                                                    \
    BINOP(name, u32, uint32_t, uint32_t, 32, 0, body)                                          \
    BINOP(name, s32, int32_t, uint32_t, 32, 1, body)                                           \
    PBINOP(name, u64, __VA_ARGS__)                                                          \
    static const EmuExecFn name##_tab[XT_COUNT][2] = {                                      \
        [XT_U32] = ENT(name, u32), [XT_S32] = ENT(name, s32),                               \
        [XT_U64] = ENT(name, u64), [XT_S64] = ENT(name, u64)};                              \
    PICKER(name)
/* Float ops on f32, f64; F is the function suffix for float (f) or double (). */
#define FP_FAMILY(TEMPLATE, name, body)                                                     \
    TEMPLATE(name, f32, float, uint32_t, 32, 1, body)                                          \
    TEMPLATE(name, f64, double, uint64_t, 64, 1, body)                                         \
    static const EmuExecFn name##_tab[XT_COUNT][2] = {                                      \
        [XT_F32] = ENT(name, f32), [XT_F64] = ENT(name, f64)};                              \
    PICKER(name)

#define IS_SIGNED SGN
#define NEG(v) (SGN && ((U)(v) >> (BITS - 1)))
#define TMIN ((T)((U)1 << (BITS - 1)))

/* --- integer ------------------------------------------------------------------------------ */

INT_FAMILY_PAIR(add, D = (T)((U)A + (U)B), lo = alo + blo, hi = ahi + bhi + (lo < alo))
INT_FAMILY_PAIR(sub, D = (T)((U)A - (U)B), lo = alo - blo, hi = ahi - bhi - (alo < blo))
INT_FAMILY(BINOP, mul, D = (T)((U)A * (U)B))
INT_FAMILY(TERNOP, mad, D = (T)((U)A * (U)B + (U)C))
INT_FAMILY(BINOP, mulhi, D = (T)(IS_SIGNED ? (U)(((__int128)A * B) >> BITS)
                                          : (U)(((unsigned __int128)(U)A * (U)B) >> BITS)))
INT_FAMILY(BINOP, div, D = B == 0 ? (T)~(U)0 : (IS_SIGNED && A == TMIN && B == (T)-1) ? A : A / B)
INT_FAMILY(BINOP, rem, D = B == 0 ? A : (IS_SIGNED && A == TMIN && B == (T)-1) ? 0 : A % B)
INT_FAMILY(BINOP, and, D = A & B)
INT_FAMILY(BINOP, or, D = A | B)
INT_FAMILY(BINOP, xor, D = A ^ B)
INT_FAMILY(UNOP, not, D = (T)~(U)A)
INT_FAMILY(SHIFTOP, shl, D = B >= BITS ? 0 : (T)((U)A << B))
INT_FAMILY(SHIFTOP, shr, D = B >= BITS ? (NEG(A) ? (T)-1 : 0) : (T)(A >> B))
INT_FAMILY(BINOP, min, D = A < B ? A : B)
INT_FAMILY(BINOP, max, D = A > B ? A : B)
INT_FAMILY(UNOP, abs, D = NEG(A) ? (T)(0 - (U)A) : A)
INT_FAMILY(UNOP, neg, D = (T)(0 - (U)A))
INT_FAMILY(COUNTOP, popc, D = (uint32_t)__builtin_popcountll((U)A))
INT_FAMILY(COUNTOP, clz, D = A == 0 ? BITS : (uint32_t)__builtin_clzll((U)A) - (64 - BITS))
INT_FAMILY(UNOP, brev, U v = (U)A; U r = 0; for (int i = 0; i < BITS; i++, v >>= 1) r = (U)(r << 1 | (v & 1)); D = (T)r)

/* lea: d = s0 + (s1 extended from T2) << imm; xisa_validate keeps imm below T's width.
 * The 64-bit forms by how the index widens (T2): zero, sign, or not at all. */
#define LEA64(name, INDEX)                                                                  \
    EMU_HOT static int name(EXEC_ARGS)                                                      \
    {                                                                                       \
        OPERANDS; (void)x;                                                                  \
        const unsigned sh = (unsigned)imm;                                                  \
        PAIR_MAP(const uint64_t v = rr64(R, s0, l) + ((uint64_t)(INDEX) << sh);            \
                 lo = (uint32_t)v; hi = (uint32_t)(v >> 32));                               \
        return 0;                                                                           \
    }
LEA64(lea_u64_u32, R[s1][l])
LEA64(lea_u64_s32, (int64_t)(int32_t)R[s1][l])
LEA64(lea_u64_u64, rr64(R, s1, l))

EMU_HOT static int lea_u32(EXEC_ARGS)
{
    OPERANDS;
    (void)x;
    const unsigned sh = (unsigned)imm;
    MAP(uint32_t, R[d][l], R[d][l] = D, D = R[s0][l] + (R[s1][l] << sh));
    return 0;
}

int emu_pick_lea(const XInsn *xi, EmuInsn *o)
{
    int wide = xi->type == XT_U64 || xi->type == XT_S64;
    int wide_index = xi->type2 == XT_U64 || xi->type2 == XT_S64;
    o->fn = !wide ? lea_u32 : wide_index ? lea_u64_u64
          : xi->type2 == XT_S32 ? lea_u64_s32 : lea_u64_u32;
    o->kind = EK_PLAIN;
    return 0;
}

/* --- floating point ------------------------------------------------------------------------ */

#define FSEL(f, d) (sizeof(T) == 4 ? f : d)
FP_FAMILY(BINOP, fadd, D = A + B)
FP_FAMILY(BINOP, fsub, D = A - B)
FP_FAMILY(BINOP, fmul, D = A * B)
FP_FAMILY(BINOP, fdiv, D = A / B)
FP_FAMILY(TERNOP, ffma, D = (T)FSEL(fmaf((float)A, (float)B, (float)C), fma(A, B, C)))
FP_FAMILY(BINOP, frem, D = (T)FSEL(fmodf((float)A, (float)B), fmod(A, B)))
FP_FAMILY(BINOP, fmin, D = (T)FSEL(fminf((float)A, (float)B), fmin(A, B)))
FP_FAMILY(BINOP, fmax, D = (T)FSEL(fmaxf((float)A, (float)B), fmax(A, B)))
FP_FAMILY(UNOP, fneg, D = -A)
FP_FAMILY(UNOP, fabs, D = (T)FSEL(fabsf((float)A), fabs(A)))
FP_FAMILY(UNOP, fsqrt, D = (T)FSEL(sqrtf((float)A), sqrt(A)))

/* --- moves ------------------------------------------------------------------------------- */

UNOP(mov, u32, uint32_t, uint32_t, 32, 0, D = A)
PUNOP(mov, u64, lo = alo, hi = ahi)

int emu_pick_mov(const XInsn *xi, EmuInsn *o)
{
    int wide = xi->type == XT_U64 || xi->type == XT_S64 || xi->type == XT_F64;
    if (xi->type >= XT_COUNT)
        return -1;
    o->fn = wide ? ((xi->flags & XF_IMM) ? mov_u64_i : mov_u64)
                 : ((xi->flags & XF_IMM) ? mov_u32_i : mov_u32);
    o->kind = EK_PLAIN;
    return 0;
}

/* gaddr: decode.c puts the symbol's address + addend into imm. */
int emu_pick_gaddr(const XInsn *xi, EmuInsn *o)
{
    (void)xi;
    o->fn = mov_u64_i;
    o->kind = EK_PLAIN;
    return 0;
}

/* cvta: a 64-bit add of the window base (to generic) or its negation (to the space). */

int emu_pick_cvta(const XInsn *xi, EmuInsn *o)
{
    static const uint64_t base[XS_COUNT] = {
        [XS_SHARED] = XGPU_SHARED_BASE, [XS_LOCAL] = XGPU_LOCAL_BASE, [XS_PARAM] = XGPU_PARAM_BASE};
    if (xi->mod >= XS_COUNT)
        return -1;
    uint64_t delta = (xi->flags & XF_TOSPACE) ? 0 - base[xi->mod] : base[xi->mod];
    o->kind = EK_PLAIN;
    if (xi->flags & XF_IMM) { /* constant address: fold into a mov */
        o->fn = mov_u64_i;
        o->imm = (int64_t)((uint64_t)xi->imm + delta);
    } else {
        o->fn = add_u64_i; /* a 64-bit add of the window's base */
        o->imm = (int64_t)delta;
    }
    return 0;
}

/* --- select and compare ---------------------------------------------------------------- */

#define SELOP(sfx, TT)                                                                      \
    AI int sel_##sfx##_k(EXEC_ARGS, const int K) {                                         \
        OPERANDS; (void)x;                                                                  \
        MAP(TT, ld_##sfx(R, d, l), st_##sfx(R, d, l, D),                                    \
            uint32_t c = K ? (uint32_t)imm : R[s2][l];                                      \
            D = c ? ld_##sfx(R, s0, l) : ld_##sfx(R, s1, l));                               \
        return 0; }                                                                         \
    FORMS(sel, sfx)
SELOP(u32, uint32_t)
SELOP(u64, uint64_t)

int emu_pick_sel(const XInsn *xi, EmuInsn *o)
{
    int wide = xi->type == XT_U64 || xi->type == XT_S64 || xi->type == XT_F64;
    if (xi->type >= XT_COUNT)
        return -1;
    o->fn = wide ? ((xi->flags & XF_IMM) ? sel_u64_i : sel_u64)
                 : ((xi->flags & XF_IMM) ? sel_u32_i : sel_u32);
    o->kind = EK_PLAIN;
    return 0;
}

#define SETC(sfx, code, expr)                                                               \
    case code:                                                                              \
        MAP(uint32_t, R[d][l], R[d][l] = D,                                                 \
            T A = ld_##sfx(R, s0, l); T B = K ? im_##sfx(imm) : ld_##sfx(R, s1, l);         \
            D = (expr) ? 1u : 0u);                                                          \
        break;
#define SET_ORDERED(sfx)                                                                    \
    SETC(sfx, XCMP_EQ, A == B) SETC(sfx, XCMP_NE, A < B || A > B) SETC(sfx, XCMP_LT, A < B) \
    SETC(sfx, XCMP_LE, A <= B) SETC(sfx, XCMP_GT, A > B) SETC(sfx, XCMP_GE, A >= B)
#define SET_UNORDERED(sfx)                                                                  \
    SETC(sfx, XCMP_NEU, A != B) SETC(sfx, XCMP_LTU, !(A >= B)) SETC(sfx, XCMP_LEU, !(A > B)) \
    SETC(sfx, XCMP_GTU, !(A <= B)) SETC(sfx, XCMP_GEU, !(A < B))                            \
    SETC(sfx, XCMP_EQU, !(A < B || A > B)) SETC(sfx, XCMP_NUM, A == A && B == B)           \
    SETC(sfx, XCMP_NAN, A != A || B != B)
#define SETOP(sfx, TT, CASES)                                                               \
    AI int set_##sfx##_k(EXEC_ARGS, const int K) {                                         \
        typedef TT T; OPERANDS; (void)x;                                                    \
        switch (in->mod) { CASES }                                                          \
        return 0; }                                                                         \
    FORMS(set, sfx)
SETOP(u32, uint32_t, SET_ORDERED(u32))
SETOP(s32, int32_t, SET_ORDERED(s32))
SETOP(u64, uint64_t, SET_ORDERED(u64))
SETOP(s64, int64_t, SET_ORDERED(s64))
SETOP(f32, float, SET_ORDERED(f32) SET_UNORDERED(f32))
SETOP(f64, double, SET_ORDERED(f64) SET_UNORDERED(f64))
static const EmuExecFn set_tab[XT_COUNT][2] = {
    [XT_U32] = ENT(set, u32), [XT_S32] = ENT(set, s32), [XT_U64] = ENT(set, u64),
    [XT_S64] = ENT(set, s64), [XT_F32] = ENT(set, f32), [XT_F64] = ENT(set, f64)};

int emu_pick_set(const XInsn *xi, EmuInsn *o)
{
    int is_float = xi->type == XT_F32 || xi->type == XT_F64;
    if (xi->mod >= XCMP_COUNT || (!is_float && xi->mod > XCMP_GE))
        return -1;
    return pick(set_tab, xi, o);
}

/* --- special registers ------------------------------------------------------------------- */

/* Special register sr of warp w, for the registers that are the same in all its lanes
 * (not the thread indices, not the lane id: s2r_run computes those). */
static uint32_t sreg_value(const EmuExec *x, const EmuWarp *w, unsigned sr)
{
    switch (sr) {
    case XSR_NTID_X: return x->block.x;
    case XSR_NTID_Y: return x->block.y;
    case XSR_NTID_Z: return x->block.z;
    case XSR_CTAID_X: return x->ctaid.x;
    case XSR_CTAID_Y: return x->ctaid.y;
    case XSR_CTAID_Z: return x->ctaid.z;
    case XSR_NCTAID_X: return x->grid.x;
    case XSR_NCTAID_Y: return x->grid.y;
    case XSR_NCTAID_Z: return x->grid.z;
    case XSR_WARPID: return w->id;
    case XSR_NWARPID: return x->nwarps;
    case XSR_SMID:
        if (x->now)
            return x->smid;
        return (uint32_t)(((uint64_t)x->ctaid.z * x->grid.y * x->grid.x +
                           (uint64_t)x->ctaid.y * x->grid.x + x->ctaid.x) % x->sm_count);
    case XSR_NSMID: return x->sm_count;
    case XSR_CLOCK: /* timing: the SM cycle of issue; else instructions before this one */
        return (uint32_t)(x->now ? *x->now : w->clock - 1);
    default: return 0;
    }
}

/* The thread-index registers of every lane of w: lane l's (tid.x, .y, .z) follows lane
 * l-1's as a counter in the block's shape, so no lane divides. */
static void tid_lanes(const EmuExec *x, const EmuWarp *w, unsigned sr, uint32_t v[32])
{
    const uint32_t bx = x->block.x, by = x->block.y, t0 = w->id * XGPU_WARP_SIZE;
    uint32_t tx = t0 % bx, ty = t0 / bx % by, tz = t0 / bx / by;
    for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {
        v[l] = sr == XSR_TID_X ? tx : sr == XSR_TID_Y ? ty : tz;
        if (++tx == bx) {
            tx = 0;
            if (++ty == by)
                ty = 0, tz++;
        }
    }
}

/* Every special register but the thread indices and the lane id is the same in all lanes
 * of a warp: it is computed once. */
static int s2r_run(EXEC_ARGS)
{
    OPERANDS;
    const unsigned sr = in->mod;
    if (sr == XSR_CLOCK64) {
        uint64_t t = x->now ? *x->now : w->clock - 1;
        LANES rw64(R, d, l, t);
        return 0;
    }
    if (sr == XSR_TID_X || sr == XSR_TID_Y || sr == XSR_TID_Z) {
        uint32_t v[32];
        tid_lanes(x, w, sr, v);
        LANES R[d][l] = v[l];
    } else if (sr == XSR_LANEID) {
        LANES R[d][l] = l;
    } else {
        const uint32_t v = sreg_value(x, w, sr);
        LANES R[d][l] = v;
    }
    return 0;
}

int emu_pick_s2r(const XInsn *xi, EmuInsn *o)
{
    if (xi->mod >= XSR_COUNT)
        return -1;
    o->fn = s2r_run;
    o->kind = EK_PLAIN;
    return 0;
}

/* --- conversions ----------------------------------------------------------------------- */

/* Value of raw register bits `raw` of type t2 converted to type t, as the raw bits the
 * destination holds (8/16/32-bit results extended to 64 by their signedness). */
AI uint64_t cvt_value(uint64_t raw, const int t, const int t2)
{
    static const uint8_t size[XT_COUNT] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    const int sgn2 = t2 == XT_S8 || t2 == XT_S16 || t2 == XT_S32 || t2 == XT_S64;
    const int sgn = t == XT_S8 || t == XT_S16 || t == XT_S32 || t == XT_S64;
    const int bits = size[t] * 8, bits2 = size[t2] * 8;
    const int fl2 = t2 == XT_F32 || t2 == XT_F64;
    if (fl2) {
        double v = t2 == XT_F32 ? (double)bits_f((uint32_t)raw) : bits_d(raw);
        if (t == XT_F32)
            return f_bits((float)v);
        if (t == XT_F64)
            return d_bits(v);
        if (v != v)
            return 0;
        if (sgn) {
            int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
            int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
            if (v <= (double)lo)
                return (uint64_t)lo;
            if (v >= (double)hi)
                return (uint64_t)hi;
            return (uint64_t)(int64_t)v;
        }
        uint64_t hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        if (v <= 0)
            return 0;
        if (v >= (double)hi)
            return hi;
        return (uint64_t)v;
    }
    uint64_t u = bits2 == 64 ? raw : raw & (((uint64_t)1 << bits2) - 1);
    int64_t s = bits2 == 64 ? (int64_t)raw : (int64_t)(u << (64 - bits2)) >> (64 - bits2);
    if (t == XT_F32)
        return f_bits(sgn2 ? (float)s : (float)u);
    if (t == XT_F64)
        return d_bits(sgn2 ? (double)s : (double)u);
    uint64_t v = sgn2 ? (uint64_t)s : u;
    if (bits == 64)
        return v;
    v &= ((uint64_t)1 << bits) - 1;
    return sgn ? (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits)) : v;
}

AI int cvt_run(EXEC_ARGS, const int t, const int t2, const int K)
{
    OPERANDS;
    (void)x;
    const int wide = t == XT_U64 || t == XT_S64 || t == XT_F64;
    const int wide2 = t2 == XT_U64 || t2 == XT_S64 || t2 == XT_F64;
    MAP(uint64_t, wide ? rr64(R, d, l) : R[d][l],
        if (wide) rw64(R, d, l, D); else R[d][l] = (uint32_t)D,
        uint64_t raw = K ? (uint64_t)imm : wide2 ? rr64(R, s0, l) : R[s0][l];
        D = cvt_value(raw, t, t2));
    return 0;
}

#define CVT_OUTER(X) X(U8) X(S8) X(U16) X(S16) X(U32) X(S32) X(U64) X(S64) X(F32) X(F64)
#define CVT_INNER(X, a)                                                                     \
    X(a, U8) X(a, S8) X(a, U16) X(a, S16) X(a, U32) X(a, S32) X(a, U64) X(a, S64) X(a, F32) X(a, F64)
#define CVT_DEF(a, b)                                                                       \
    EMU_HOT static int cvt_##a##_##b(EXEC_ARGS)                                             \
    { return cvt_run(x, w, in, mask, XT_##a, XT_##b, 0); }                                 \
    EMU_HOT static int cvt_##a##_##b##_i(EXEC_ARGS)                                         \
    { return cvt_run(x, w, in, mask, XT_##a, XT_##b, 1); }
#define CVT_DEF_ROW(a) CVT_INNER(CVT_DEF, a)
#define CVT_ENT(a, b) [XT_##a][XT_##b] = {cvt_##a##_##b, cvt_##a##_##b##_i},
#define CVT_ENT_ROW(a) CVT_INNER(CVT_ENT, a)
CVT_OUTER(CVT_DEF_ROW)
static const EmuExecFn cvt_tab[XT_COUNT][XT_COUNT][2] = {CVT_OUTER(CVT_ENT_ROW)};

/* A 32-bit integer register widened to a 64-bit integer (the index arithmetic of most
 * address computations): the word, and zeros or copies of its sign bit. */
EMU_HOT static int cvt_widen_u(EXEC_ARGS)
{
    OPERANDS;
    (void)x;
    PAIR_MAP(lo = R[s0][l], hi = 0);
    return 0;
}

EMU_HOT static int cvt_widen_s(EXEC_ARGS)
{
    OPERANDS;
    (void)x;
    PAIR_MAP(lo = R[s0][l], hi = 0u - (lo >> 31));
    return 0;
}

int emu_pick_cvt(const XInsn *xi, EmuInsn *o)
{
    if (xi->type >= XT_COUNT || xi->type2 >= XT_COUNT)
        return -1;
    const int to64 = xi->type == XT_U64 || xi->type == XT_S64;
    if (to64 && !(xi->flags & XF_IMM) && (xi->type2 == XT_U32 || xi->type2 == XT_S32)) {
        o->fn = xi->type2 == XT_S32 ? cvt_widen_s : cvt_widen_u;
        o->kind = EK_PLAIN;
        return 0;
    }
    o->fn = cvt_tab[xi->type][xi->type2][(xi->flags & XF_IMM) != 0];
    o->kind = EK_PLAIN;
    return o->fn ? 0 : -1;
}
