/*
 * isa.c - the instruction set's tables, operand widths, validation and text formatting.
 *
 * Everything opcode-dependent is generated from include/xgpu/isa.def; the per-opcode
 * rules that the table cannot express (which operands are 64-bit, which fields an
 * opcode uses) live in small switch statements here, once, so the assembler, the gpubin
 * reader, the emulator and the register allocator agree on them.
 *
 * Invariants checked by xisa_validate (the reader relies on them, the emulator may):
 *   - op, type, type2, mod, sub and flags are in range and meaningful for the opcode
 *     (sub: the opcode's XAtom/XShfl/XVote/XRed/XMath range, unary or binary math by
 *     opcode; on ld/st 0 or the log2 of an alignment above the access size, at most
 *     16; atomics only on generic, global and shared memory; the 32-bit-only ops shfl,
 *     vote, actmask, barred, prmt and vprintf are untyped or carry a 32-bit type);
 *   - unused register slots are RZ, unused imm/target/reconv are zero; a constant-bank
 *     operand (XF_CONST) is in a register slot of an XI_CONST opcode, aligned and within
 *     XISA_CONST_MAX, and csrc is zero without one;
 *   - a 64-bit operand names an even register (or RZ);
 *   - branch targets are < ncode and reconvergence points <= ncode.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpubin_int.h"
#include "xgpu/isa.h"

const XOpInfo xisa_ops[XOP_COUNT] = {
#define XOP(name, unit, ndst, nsrc, flags, desc) {#name, XU_##unit, ndst, nsrc, flags, desc},
#include "xgpu/isa.def"
};

const char *const xisa_type_names[XT_COUNT] = {
    "", "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f32", "f64",
};

const char *const xisa_cmp_names[XCMP_COUNT] = {
    "eq", "ne", "lt", "le", "gt", "ge", "neu", "ltu", "leu", "gtu", "geu", "equ", "num", "nan",
};

const char *const xisa_space_names[XS_COUNT] = {
    "generic", "global", "shared", "local", "const", "param", "tex",
};

const char *const xisa_sreg_names[XSR_COUNT] = {
    "tid.x",    "tid.y",    "tid.z",   "ntid.x",  "ntid.y",  "ntid.z",  "ctaid.x",
    "ctaid.y",  "ctaid.z",  "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpid",
    "nwarpid",  "smid",     "nsmid",   "clock",   "clock64",
};

const char *const xisa_scope_names[XSCOPE_COUNT] = {"cta", "gl", "sys"};

const char *const xisa_atom_names[XATOM_COUNT] = {
    "add", "sub", "min", "max", "inc", "dec", "and", "or", "xor", "exch",
};

const char *const xisa_shfl_names[XSHFL_COUNT] = {"idx", "up", "down", "bfly"};
const char *const xisa_vote_names[XVOTE_COUNT] = {"ballot", "any", "all", "uni"};
const char *const xisa_red_names[XRED_COUNT] = {"popc", "and", "or"};
const char *const xisa_hmma_names[XHMMA_STEPS] = {"q0", "q1", "q2", "q3"};

const char *const xisa_math_names[XMATH_COUNT] = {
    "sin",   "cos",   "tan",   "asin",   "acos",   "atan",  "sinh",      "cosh",
    "tanh",  "asinh", "acosh", "atanh",  "exp",    "exp2",  "exp10",     "expm1",
    "log",   "log2",  "log10", "log1p",  "cbrt",   "rsqrt", "rcp",       "floor",
    "ceil",  "trunc", "round", "rint",   "erf",    "erfc",  "lgamma",    "tgamma",
    "pow",   "atan2", "fmod",  "hypot",  "remainder", "copysign", "fdim", "nextafter",
};

const char *const *xisa_sub_names(unsigned op, unsigned *lo, unsigned *hi)
{
    *lo = 0;
    switch (op) {
    case XOP_atom: *hi = XATOM_COUNT; return xisa_atom_names;
    case XOP_shfl: *hi = XSHFL_COUNT; return xisa_shfl_names;
    case XOP_vote: *hi = XVOTE_COUNT; return xisa_vote_names;
    case XOP_barred: *hi = XRED_COUNT; return xisa_red_names;
    case XOP_math1: *hi = XMATH_FIRST_BINARY; return xisa_math_names;
    case XOP_math2: *lo = XMATH_FIRST_BINARY, *hi = XMATH_COUNT; return xisa_math_names;
    case XOP_hmma: *hi = XHMMA_STEPS; return xisa_hmma_names;
    default: *hi = 0; return NULL;
    }
}

/* Type properties, indexed by XType: size in bytes, float, signed. */
static const struct {
    uint8_t size, is_float, is_signed;
} type_props[XT_COUNT] = {
    [XT_NONE] = {0, 0, 0}, [XT_U8] = {1, 0, 0},  [XT_S8] = {1, 0, 1},
    [XT_U16] = {2, 0, 0},  [XT_S16] = {2, 0, 1}, [XT_U32] = {4, 0, 0},
    [XT_S32] = {4, 0, 1},  [XT_U64] = {8, 0, 0}, [XT_S64] = {8, 0, 1},
    [XT_F32] = {4, 1, 1},  [XT_F64] = {8, 1, 1},
};

unsigned xisa_type_size(XType t) { return t < XT_COUNT ? type_props[t].size : 0; }

unsigned xisa_mem_align(const XInsn *in)
{
    if ((in->op == XOP_ld || in->op == XOP_st) && in->sub && in->sub < 8)
        return 1u << in->sub;
    return xisa_type_size((XType)in->type);
}

int xisa_type_is_float(XType t) { return t < XT_COUNT && type_props[t].is_float; }
int xisa_type_is_signed(XType t) { return t < XT_COUNT && type_props[t].is_signed; }
unsigned xisa_type_regs(XType t) { return xisa_type_size(t) == 8 ? 2 : 1; }

XUnit xisa_insn_unit(const XInsn *in, int *is_f64)
{
    XUnit u = in->op < XOP_COUNT ? (XUnit)xisa_ops[in->op].unit : XU_CTRL;
    if (is_f64)
        *is_f64 = (u == XU_FP || u == XU_SFU) && in->type == XT_F64;
    return u;
}

/* ---- binary16 ----------------------------------------------------------------------- */

float xisa_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (ex == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (ex) {
        bits = sign | ((ex + 112u) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400u));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t xisa_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ex = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (ex == 0xff)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u));
    int e = (int)ex - 112;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t full = man | (ex ? 0x800000u : 0u), shift = 13;
    uint32_t h = (uint32_t)e << 10;
    if (e <= 0) { /* subnormal result (or zero) */
        if (e < -10)
            return (uint16_t)sign;
        shift = (uint32_t)(14 - e);
        h = 0;
    } else {
        full &= 0x7fffffu;
    }
    uint32_t q = full >> shift, rem = full & ((1u << shift) - 1), half = 1u << (shift - 1);
    h += q;
    if (rem > half || (rem == half && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

/* ---- operand widths ---------------------------------------------------------------- */

static unsigned dst_regs(const XInsn *in)
{
    switch (in->op) {
    case XOP_set: case XOP_popc: case XOP_clz: return 1;
    case XOP_shfl: case XOP_vote: case XOP_actmask: case XOP_barred: case XOP_prmt:
    case XOP_vprintf: return 1;
    case XOP_cvta: case XOP_gaddr: return 2;
    case XOP_s2r: return in->mod == XSR_CLOCK64 ? 2 : 1;
    default: return xisa_type_regs((XType)in->type);
    }
}

static unsigned src_regs(const XInsn *in, unsigned i)
{
    switch (in->op) {
    case XOP_ld: return 2;
    case XOP_st: return i == 0 ? 2 : xisa_type_regs((XType)in->type);
    case XOP_sel: return i == 2 ? 1 : xisa_type_regs((XType)in->type);
    case XOP_shl: case XOP_shr: return i == 1 ? 1 : xisa_type_regs((XType)in->type);
    case XOP_cvt: return xisa_type_regs((XType)in->type2);
    case XOP_lea: return xisa_type_regs((XType)(i == 1 ? in->type2 : in->type));
    case XOP_cvta: return 2;
    case XOP_brc: return 1;
    case XOP_atom: case XOP_atomcas: return i == 0 ? 2 : xisa_type_regs((XType)in->type);
    case XOP_shfl: case XOP_vote: case XOP_barred: case XOP_prmt: return 1;
    case XOP_vprintf: return 2;
    default: return xisa_type_regs((XType)in->type);
    }
}

/* Whether source slot i holds a register (not the immediate, not the constant-bank
 * operand, not unused). */
static int src_is_reg(const XInsn *in, unsigned i)
{
    unsigned n = xisa_ops[in->op].nsrc;
    if (i >= n)
        return 0;
    if ((in->flags & XF_CONST) && i == in->csrc)
        return 0;
    return !((in->flags & XF_IMM) && i == n - 1);
}

/* hmma: single registers; d1 only for an f32 D, s5 only for an f32 C. */
static unsigned hmma_regs(const XInsn *in, int dst, unsigned i)
{
    if (dst)
        return i == 0 || (i == 1 && (in->mod & XHMMA_D32)) ? 1 : 0;
    return i < 5 || (i == 5 && (in->mod & XHMMA_C32)) ? 1 : 0;
}

unsigned xisa_operand_regs(const XInsn *in, int dst, unsigned i)
{
    if (in->op >= XOP_COUNT)
        return 0;
    if (in->op == XOP_hmma)
        return hmma_regs(in, dst, i);
    if (dst)
        return i < xisa_ops[in->op].ndst ? dst_regs(in) : 0;
    return src_is_reg(in, i) ? src_regs(in, i) : 0;
}

unsigned xisa_const_regs(const XInsn *in)
{
    if (in->op >= XOP_COUNT || !(in->flags & XF_CONST))
        return 0;
    return src_regs(in, in->csrc);
}

/* ---- validation -------------------------------------------------------------------- */

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && n)
        vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Opcodes whose type field is unused (must be XT_NONE). */
static int op_untyped(unsigned op)
{
    switch (op) {
    case XOP_nop: case XOP_s2r: case XOP_cvta: case XOP_gaddr: case XOP_bra: case XOP_brc:
    case XOP_exit: case XOP_bar: case XOP_membar: case XOP_trap: case XOP_hmma:
    case XOP_gsync: case XOP_wsync: return 1;
    default: return 0;
    }
}

/* Opcodes whose operands are all 32-bit bit patterns: untyped (the canonical form), or
 * with a 32-bit type (u32, s32, f32) that means the same. */
static int op_b32(unsigned op)
{
    switch (op) {
    case XOP_shfl: case XOP_vote: case XOP_actmask: case XOP_barred: case XOP_prmt:
    case XOP_vprintf: return 1;
    default: return 0;
    }
}

/* Integer-unit opcodes that also move or compare float bit patterns. */
static int op_allows_float(unsigned op)
{
    switch (op) {
    case XOP_mov: case XOP_set: case XOP_sel: case XOP_cvt: case XOP_ld: case XOP_st: return 1;
    default: return 0;
    }
}

/* Number of values mod may take for the opcode (1: mod must be 0). */
static unsigned mod_limit(unsigned op)
{
    switch (op) {
    case XOP_set: return XCMP_COUNT;
    case XOP_ld: case XOP_st: case XOP_cvta: case XOP_atom: case XOP_atomcas: return XS_COUNT;
    case XOP_s2r: return XSR_COUNT;
    case XOP_membar: return XSCOPE_COUNT;
    case XOP_hmma: return XHMMA_MODS;
    default: return 1;
    }
}

/* Whether the opcode uses the imm field without XF_IMM. */
static int op_uses_imm(unsigned op)
{
    return (xisa_ops[op].flags & XI_MEM) || op == XOP_gaddr || op == XOP_bar ||
           op == XOP_barred || op == XOP_lea;
}

static int check_types(const XInsn *in, const char *name, char *err, size_t n)
{
    XType t = (XType)in->type, t2 = (XType)in->type2;
    unsigned unit = xisa_ops[in->op].unit;
    if (t >= XT_COUNT || t2 >= XT_COUNT)
        return fail(err, n, "%s: type out of range", name);
    if (op_untyped(in->op))
        return t == XT_NONE && t2 == XT_NONE ? 0 : fail(err, n, "%s takes no type", name);
    if (op_b32(in->op))
        return t2 == XT_NONE && (t == XT_NONE || t == XT_U32 || t == XT_S32 || t == XT_F32)
                   ? 0 : fail(err, n, "%s: untyped, or a 32-bit type", name);
    if (t == XT_NONE)
        return fail(err, n, "%s needs a type", name);
    if ((in->op == XOP_cvt || in->op == XOP_lea) != (t2 != XT_NONE))
        return fail(err, n, "%s: second type only (and always) for cvt and lea", name);
    if (in->op == XOP_lea && (xisa_type_is_float(t) || xisa_type_is_float(t2) ||
                              xisa_type_size(t2) > xisa_type_size(t)))
        return fail(err, n, "lea: integer types, the index (T2) no wider than the result");
    int narrow_ok = in->op == XOP_ld || in->op == XOP_st || in->op == XOP_cvt;
    if (!narrow_ok && (xisa_type_size(t) < 4 || (t2 && xisa_type_size(t2) < 4)))
        return fail(err, n, "%s: 8/16-bit types only for ld, st and cvt", name);
    if ((unit == XU_FP || unit == XU_SFU) && !xisa_type_is_float(t))
        return fail(err, n, "%s needs f32 or f64", name);
    if (unit == XU_INT && xisa_type_is_float(t) && !op_allows_float(in->op))
        return fail(err, n, "%s: integer operation on a float type", name);
    return 0;
}

static int check_flags(const XInsn *in, const char *name, char *err, size_t n)
{
    const XOpInfo *oi = &xisa_ops[in->op];
    unsigned f = in->flags;
    if (f & ~(unsigned)(XF_IMM | XF_UNIFORM | XF_NEG | XF_TOSPACE | XF_CONST))
        return fail(err, n, "%s: unknown flags 0x%x", name, f);
    if ((f & XF_IMM) &&
        (oi->nsrc == 0 || in->op == XOP_lea || (oi->flags & (XI_MEM | XI_BRANCH | XI_BARRIER))))
        return fail(err, n, "%s cannot take an immediate operand", name);
    if ((f & XF_UNIFORM) && !(oi->flags & XI_BRANCH))
        return fail(err, n, "%s: .uni only on branches", name);
    if ((f & XF_NEG) && in->op != XOP_brc)
        return fail(err, n, "%s: .not only on brc", name);
    if ((f & XF_TOSPACE) && in->op != XOP_cvta)
        return fail(err, n, "%s: .to only on cvta", name);
    if (in->mod >= mod_limit(in->op))
        return fail(err, n, "%s: modifier %u out of range", name, in->mod);
    if (in->op == XOP_cvta && in->mod == XS_GENERIC)
        return fail(err, n, "cvta needs a non-generic space");
    if (in->op != XOP_ld && in->mod == XS_TEX && mod_limit(in->op) == XS_COUNT)
        return fail(err, n, "%s: the tex space is only for ld", name);
    if ((in->op == XOP_atom || in->op == XOP_atomcas) && in->mod != XS_GENERIC &&
        in->mod != XS_GLOBAL && in->mod != XS_SHARED)
        return fail(err, n, "%s: only generic, global and shared memory", name);
    return 0;
}

/* Which atomic operations a data type supports: integer ops on integer types (inc and
 * dec unsigned only), add/min/max/exch also on floats. */
static int atom_type_ok(unsigned sub, XType t)
{
    int fl = xisa_type_is_float(t), sg = xisa_type_is_signed(t);
    switch (sub) {
    case XATOM_ADD: case XATOM_MIN: case XATOM_MAX: case XATOM_EXCH: return 1;
    case XATOM_INC: case XATOM_DEC: return !sg;
    default: return !fl;
    }
}

/* ld/st's required alignment (sub): none, or a power of two above the access size and at
 * most XISA_MEM_ALIGN_MAX. */
static int check_mem_align(const XInsn *in, const char *name, char *err, size_t n)
{
    unsigned size = xisa_type_size((XType)in->type);
    if (!in->sub)
        return 0;
    if (in->sub >= 32)
        return fail(err, n, "%s: alignment sub %u out of range 0..4", name, in->sub);
    if ((1u << in->sub) > XISA_MEM_ALIGN_MAX)
        return fail(err, n, "%s: alignment %u out of range (at most %u bytes)", name,
                    1u << in->sub, XISA_MEM_ALIGN_MAX);
    if ((1u << in->sub) <= size)
        return fail(err, n, "%s: alignment %u is not larger than the %u-byte access", name,
                    1u << in->sub, size);
    return 0;
}

/* The sub-operation: in the opcode's range (zero for opcodes without one). */
static int check_sub(const XInsn *in, const char *name, char *err, size_t n)
{
    unsigned lo, hi;
    if (in->op == XOP_ld || in->op == XOP_st)
        return check_mem_align(in, name, err, n);
    const char *const *names = xisa_sub_names(in->op, &lo, &hi);
    if (!names)
        return in->sub ? fail(err, n, "%s: sub-operation %u out of range", name, in->sub) : 0;
    if (in->sub < lo || in->sub >= hi)
        return fail(err, n, "%s: sub-operation %u out of range %u..%u", name, in->sub, lo,
                    hi - 1);
    if (in->op == XOP_atom && !atom_type_ok(in->sub, (XType)in->type))
        return fail(err, n, "atom.%s: not defined on %s", names[in->sub],
                    xisa_type_names[in->type]);
    return 0;
}

static int check_reg(unsigned r, unsigned regs, const char *name, const char *what,
                     char *err, size_t n)
{
    if (regs == 2 && r != XREG_RZ && (r & 1))
        return fail(err, n, "%s: 64-bit %s r%u is not an even register", name, what, r);
    return 0;
}

static int check_regs(const XInsn *in, const char *name, char *err, size_t n)
{
    for (unsigned i = 0; i < 2; i++) {
        unsigned w = xisa_operand_regs(in, 1, i);
        if (!w && in->dst[i] != XREG_RZ)
            return fail(err, n, "%s: unused destination slot %u is not rz", name, i);
        if (check_reg(in->dst[i], w, name, "destination", err, n))
            return -1;
    }
    for (unsigned i = 0; i < 6; i++) {
        unsigned w = xisa_operand_regs(in, 0, i);
        if (!w && in->src[i] != XREG_RZ)
            return fail(err, n, "%s: unused source slot %u is not rz", name, i);
        if (check_reg(in->src[i], w, name, "source", err, n))
            return -1;
    }
    return 0;
}

/* An XF_CONST operand: on an XI_CONST opcode, in a source slot that would hold a register
 * (not the immediate's; check_regs has seen that it holds rz), at an offset aligned to
 * its width, within XISA_CONST_MAX; csrc is zero without XF_CONST. */
static int check_const(const XInsn *in, const char *name, char *err, size_t n)
{
    if (!(in->flags & XF_CONST))
        return in->csrc ? fail(err, n, "%s: constant-operand slot without XF_CONST", name) : 0;
    unsigned ns = xisa_ops[in->op].nsrc;
    if (!(xisa_ops[in->op].flags & XI_CONST))
        return fail(err, n, "%s cannot take a constant-bank operand", name);
    if (in->csrc >= ns || ((in->flags & XF_IMM) && in->csrc == ns - 1))
        return fail(err, n, "%s: constant-bank operand in slot %u, not a register source", name,
                    in->csrc);
    unsigned bytes = 4 * xisa_const_regs(in);
    if (in->target % bytes || in->target > XISA_CONST_MAX - bytes)
        return fail(err, n, "%s: constant-bank offset %u not a multiple of %u in 0..%u", name,
                    in->target, bytes, XISA_CONST_MAX - bytes);
    return 0;
}

static int check_fields(const XInsn *in, uint32_t ncode, const char *name, char *err,
                        size_t n)
{
    if (check_const(in, name, err, n))
        return -1;
    if (check_sub(in, name, err, n))
        return -1;
    if (in->imm && !(in->flags & XF_IMM) && !op_uses_imm(in->op))
        return fail(err, n, "%s: unused immediate is not zero", name);
    if (in->op == XOP_lea && (in->imm < 0 || in->imm >= 8 * (int64_t)xisa_type_size(in->type)))
        return fail(err, n, "lea: shift %" PRId64 " out of range 0..%u", in->imm,
                    8 * xisa_type_size(in->type) - 1);
    if ((in->op == XOP_bar || in->op == XOP_barred) && (in->imm < 0 || in->imm > 15))
        return fail(err, n, "%s: barrier %" PRId64 " out of range 0..15", name, in->imm);
    int branch = (xisa_ops[in->op].flags & XI_BRANCH) != 0;
    if (branch && in->target >= ncode)
        return fail(err, n, "%s: target %u outside the kernel (%u instructions)", name,
                    in->target, ncode);
    if (!branch && in->op != XOP_gaddr && !(in->flags & XF_CONST) && in->target)
        return fail(err, n, "%s: unused target is not zero", name);
    if (in->op == XOP_brc && in->reconv > ncode)
        return fail(err, n, "brc: reconvergence point %u outside the kernel", in->reconv);
    if (in->op != XOP_brc && in->reconv)
        return fail(err, n, "%s: unused reconvergence point is not zero", name);
    return 0;
}

int xisa_validate(const XInsn *in, uint32_t ncode, char *err, size_t errlen)
{
    if (in->op >= XOP_COUNT)
        return fail(err, errlen, "bad opcode %u", in->op);
    const char *name = xisa_ops[in->op].name;
    if (check_types(in, name, err, errlen) || check_flags(in, name, err, errlen) ||
        check_regs(in, name, err, errlen) || check_fields(in, ncode, name, err, errlen))
        return -1;
    return 0;
}

/* ---- text form ----------------------------------------------------------------------- */

/* A bounded append buffer that counts what it would have written (snprintf-style). */
typedef struct Out {
    char *buf;
    size_t n, len;
    int reuse; /* the instruction's reuse bits (XREUSE_*), or -1: no annotation */
} Out;

static void put(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->n ? o->n - o->len : 0;
    int k = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->len += (size_t)k;
}

/* Register r of operand slot bit (XREUSE_SRC/DST bit number), with ".n" / ".f" when
 * reuse bits are shown. */
static void put_reg(Out *o, unsigned r, unsigned bit)
{
    if (r == XREG_RZ) {
        put(o, "rz");
        return;
    }
    put(o, "r%u", r);
    if (o->reuse >= 0)
        put(o, o->reuse >> bit & 1 ? ".n" : ".f");
}

/* An immediate of type t: f32/f64 as raw bits (0f/0d), integers in decimal. Values that
 * do not fit the raw-bits form print in decimal so that every encoding round-trips. */
static void put_imm(Out *o, int64_t v, XType t)
{
    if (t == XT_F32 && v >= 0 && v <= (int64_t)UINT32_MAX)
        put(o, "0f%08" PRIX32, (uint32_t)v);
    else if (t == XT_F64)
        put(o, "0d%016" PRIX64, (uint64_t)v);
    else
        put(o, "%" PRId64, v);
}

static void put_suffixes(Out *o, const XInsn *in)
{
    put(o, "%s", xisa_ops[in->op].name);
    if (in->op == XOP_set && in->mod < XCMP_COUNT)
        put(o, ".%s", xisa_cmp_names[in->mod]);
    if (in->op == XOP_cvta && (in->flags & XF_TOSPACE))
        put(o, ".to");
    if ((in->op == XOP_ld || in->op == XOP_st || in->op == XOP_cvta || in->op == XOP_atom ||
         in->op == XOP_atomcas) && in->mod < XS_COUNT)
        put(o, ".%s", xisa_space_names[in->mod]);
    if (in->op == XOP_membar && in->mod < XSCOPE_COUNT)
        put(o, ".%s", xisa_scope_names[in->mod]);
    unsigned lo, hi;
    const char *const *subs = xisa_sub_names(in->op, &lo, &hi);
    if (subs && in->sub >= lo && in->sub < hi)
        put(o, ".%s", subs[in->sub]);
    else if (in->sub && in->op != XOP_ld && in->op != XOP_st)
        put(o, ".sub%u", in->sub);
    if (in->op == XOP_hmma) /* layouts of A and B, formats of D and C */
        put(o, ".%s.%s.%s.%s", in->mod & XHMMA_ACOL ? "col" : "row",
            in->mod & XHMMA_BCOL ? "col" : "row", in->mod & XHMMA_D32 ? "f32" : "f16",
            in->mod & XHMMA_C32 ? "f32" : "f16");
    if (in->flags & XF_NEG)
        put(o, ".not");
    if (in->flags & XF_UNIFORM)
        put(o, ".uni");
    if (in->type && in->type < XT_COUNT)
        put(o, ".%s", xisa_type_names[in->type]);
    if (in->type2 && in->type2 < XT_COUNT)
        put(o, ".%s", xisa_type_names[in->type2]);
    if ((in->op == XOP_ld || in->op == XOP_st) && in->sub) /* required alignment */
        put(o, in->sub < 32 ? ".a%u" : ".sub%u", in->sub < 32 ? 1u << in->sub : in->sub);
}

static void put_mem(Out *o, const XInsn *in)
{
    put(o, "[");
    if (in->src[0] == XREG_RZ) {
        put(o, "%" PRId64 "]", in->imm);
        return;
    }
    put_reg(o, in->src[0], 0);
    if (in->imm > 0)
        put(o, "+%" PRId64, in->imm);
    else if (in->imm < 0)
        put(o, "-%" PRIu64, (uint64_t)0 - (uint64_t)in->imm);
    put(o, "]");
}

static void put_sym(Out *o, const XInsn *in, const char *const *syms, uint32_t nsyms)
{
    if (syms && in->target < nsyms && syms[in->target])
        put(o, "%s", syms[in->target]);
    else
        put(o, "@%u", in->target);
    if (in->imm > 0)
        put(o, "+%" PRId64, in->imm);
    else if (in->imm < 0)
        put(o, "-%" PRIu64, (uint64_t)0 - (uint64_t)in->imm);
}

/* Type in which source slot i's immediate is written. */
static XType imm_type(const XInsn *in, unsigned i)
{
    if (in->op == XOP_cvt)
        return (XType)in->type2;
    if ((in->op == XOP_sel && i == 2) || ((in->op == XOP_shl || in->op == XOP_shr) && i == 1))
        return XT_S64;
    return (XType)in->type;
}

/* Lane masks and byte selectors read best in hex. */
static int imm_is_hex(const XInsn *in)
{
    return (in->op == XOP_shfl || in->op == XOP_vote || in->op == XOP_prmt) && in->imm >= 0 &&
           in->imm <= (int64_t)UINT32_MAX;
}

static void put_sources(Out *o, const XInsn *in, int first)
{
    unsigned n = xisa_ops[in->op].nsrc;
    for (unsigned i = 0; i < n; i++) {
        put(o, first ? " " : ", ");
        first = 0;
        if (src_is_reg(in, i))
            put_reg(o, in->src[i], i);
        else if ((in->flags & XF_CONST) && i == in->csrc)
            put(o, "c[%u]", in->target);
        else if (imm_is_hex(in))
            put(o, "0x%" PRIx64, (uint64_t)in->imm);
        else
            put_imm(o, in->imm, imm_type(in, i));
    }
}

/* atom d, [mem], s1 / atomcas d, [mem], s1, s2 */
static void put_atomic(Out *o, const XInsn *in)
{
    put(o, " "); put_reg(o, in->dst[0], 6);
    put(o, ", "); put_mem(o, in);
    put(o, ", "); put_reg(o, in->src[1], 1);
    if (in->op == XOP_atomcas) {
        put(o, ", "); put_reg(o, in->src[2], 2);
    }
}

static void put_operands(Out *o, const XInsn *in, const char *const *syms, uint32_t nsyms)
{
    switch (in->op) {
    case XOP_ld: put(o, " "); put_reg(o, in->dst[0], 6); put(o, ", "); put_mem(o, in); return;
    case XOP_st:
        put(o, " "); put_mem(o, in); put(o, ", "); put_reg(o, in->src[1], 1); return;
    case XOP_s2r:
        put(o, " "); put_reg(o, in->dst[0], 6);
        put(o, ", %%%s", in->mod < XSR_COUNT ? xisa_sreg_names[in->mod] : "?");
        return;
    case XOP_gaddr:
        put(o, " "); put_reg(o, in->dst[0], 6); put(o, ", "); put_sym(o, in, syms, nsyms); return;
    case XOP_bra: put(o, " L%u", in->target); return;
    case XOP_brc:
        put(o, " "); put_reg(o, in->src[0], 0);
        put(o, ", L%u, L%u", in->target, in->reconv);
        return;
    case XOP_bar: put(o, " %" PRId64, in->imm); return;
    case XOP_atom: case XOP_atomcas: put_atomic(o, in); return;
    case XOP_barred: /* the barrier number only when it is not 0 */
        put(o, " "); put_reg(o, in->dst[0], 6); put(o, ", "); put_reg(o, in->src[0], 0);
        if (in->imm)
            put(o, ", %" PRId64, in->imm);
        return;
    default: break;
    }
    int first = 1;
    for (unsigned i = 0; i < xisa_ops[in->op].ndst; i++) {
        put(o, first ? " " : ", ");
        first = 0;
        put_reg(o, in->dst[i], 6 + i);
    }
    put_sources(o, in, first);
    if (in->op == XOP_lea) /* the shift */
        put(o, ", %" PRId64, in->imm);
}

int xisa_format_reuse(const XInsn *in, const char *const *syms, uint32_t nsyms, int reuse,
                      char *buf, size_t n)
{
    Out o = {buf, n, 0, reuse};
    if (n)
        buf[0] = '\0';
    if (in->op >= XOP_COUNT) {
        put(&o, ".word %u", in->op);
        return (int)o.len;
    }
    put_suffixes(&o, in);
    put_operands(&o, in, syms, nsyms);
    return (int)o.len;
}

int xisa_format(const XInsn *in, const char *const *syms, uint32_t nsyms, char *buf, size_t n)
{
    return xisa_format_reuse(in, syms, nsyms, -1, buf, n);
}
