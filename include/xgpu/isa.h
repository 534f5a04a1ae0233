/*
 * isa.h - the xgpu device instruction set: encoding, operand conventions, and the text
 * form shared by the disassembler (xgpu-objdump) and the assembler (tests).
 *
 * Model. A thread has 32-bit general registers r0..r254; r255 is RZ (reads 0, writes are
 * dropped). 64-bit values (i64, f64, pointers) live in aligned pairs: a 64-bit operand
 * names the even register r(2k) and occupies r(2k):r(2k+1), low word first. There are no
 * predicate registers: comparisons write 0 or 1 into a general register and conditional
 * branches test a register against zero.
 *
 * Every instruction is one fixed-size 32-byte XInsn (below), stored little-endian in the
 * .xgpu.text section. Branch targets and reconvergence points are instruction indices
 * relative to the start of the kernel (pc 0 is the kernel's first instruction). A
 * reconvergence point equal to the kernel's instruction count means the paths only
 * meet at exit.
 *
 * Address spaces. Memory instructions name a space in `mod`. Global and const addresses
 * are device addresses (const data is ordinary device memory that kernels only read).
 * Shared and local addresses are offsets into the CTA's shared window and the thread's
 * local window. A generic address is a device address, or an offset plus the window base
 * XGPU_SHARED_BASE / XGPU_LOCAL_BASE (cvta converts), so accesses through generic
 * pointers reach shared and local memory too. Param addresses are byte offsets into the
 * launch's parameter buffer; XGPU_PARAM_BASE + offset is its (read-only) generic address.
 *
 * Text form, one instruction per line (what xisa_format prints and xasm reads):
 *     add.s32 r3, r1, r2          set.lt.s32 r4, r3, 100      cvt.f32.s32 r5, r3
 *     mov.f32 r6, 0f3FC00000      mov.f64 r8, 0d3FF8000000000000
 *     ld.global.f32 r7, [r10+8]   st.shared.u32 [r2], r7       ld.local.u32 r7, [16]
 *     s2r r0, %tid.x              cvta.shared r10, r2          cvta.to.shared r2, r10
 *     gaddr r12, table+16         bar 0       membar.gl        exit
 *     bra L4                      brc r4, L9, L12   (target, reconvergence)
 *     brc.not.uni r4, L9, L12     (XF_NEG, XF_UNIFORM)
 *     atom.global.add.s32 r1, [r2+4], r3      atomcas.shared.u32 r1, [r2], r3, r4
 *     shfl.down r1, r2, r3, r4, r5, 0xffffffff   vote.ballot r1, r2, 0xffffffff
 *     barred.popc r1, r2    math1.sin.f32 r1, r2    math2.pow.f64 r2, r4, r6
 *     vprintf r1, r2, r4    actmask r1    prmt r1, r2, r3, r4
 *     hmma.q1.row.col.f32.f32 r8, r9, r0, r1, r6, r7, r10, r11
 *     hmma.q3.col.row.f16.f16 r4, rz, r2, r3, r6, r7, r12, rz
 * The sub-operation (XInsn.sub) is printed right after the space (atom) or the opcode.
 * On ld and st, sub is instead a required alignment larger than the access (below),
 * printed after the type: `ld.global.u64.a16 r4, [r2]` is one 8-byte part of a 16-byte
 * vector access and faults unless its address is a multiple of 16.
 * barred's barrier number (imm) follows as a third operand when it is not 0
 * (`barred.popc r1, r2, 3`); lane masks and byte selectors print in hex.
 * hmma's suffixes are its quadrant (sub), the layouts of A and B, then the formats of D
 * and C (mod, XHMMA_*); it is untyped.
 * Suffix order: op[.cmp|.space|.sreg-less mods][.to][.not][.uni][.T][.T2]. Integer
 * immediates are decimal or 0x hex; f32/f64 immediates are raw bits in PTX style
 * (0f + 8 hex digits, 0d + 16). Labels are `name:` lines; the disassembler names them
 * L<pc>. Directives (assembler and disassembler alike) are listed at xasm_assemble.
 */
#ifndef XGPU_ISA_H
#define XGPU_ISA_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>

/* Opcodes, generated from isa.def. */
typedef enum XOp {
#define XOP(name, unit, ndst, nsrc, flags, desc) XOP_##name,
#include "xgpu/isa.def"
    XOP_COUNT
} XOp;

/* Execution unit classes (isa.def's unit column). */
typedef enum XUnit {
    XU_INT,    /* integer ALU */
    XU_FP,     /* fp32 pipe; fp64 pipe when the instruction's type is f64 */
    XU_SFU,    /* special function unit (sqrt, transcendental, fmod) */
    XU_LDST,   /* load/store unit */
    XU_CTRL,   /* branch / barrier / exit, handled at issue */
    XU_TENSOR, /* tensor cores */
    XU_COUNT
} XUnit;

/* Opcode property flags (isa.def's flags column). */
enum {
    XI_MEM = 1u << 0,     /* accesses memory through [s0 + imm] */
    XI_LOAD = 1u << 1,    /* reads memory */
    XI_STORE = 1u << 2,   /* writes memory */
    XI_BRANCH = 1u << 3,  /* may change pc; target is valid */
    XI_COND = 1u << 4,    /* conditional branch; reconv is valid */
    XI_EXIT = 1u << 5,    /* ends the active lanes */
    XI_BARRIER = 1u << 6, /* block-wide barrier */
    XI_ATOMIC = 1u << 7,  /* read-modify-write done atomically */
    XI_CONST = 1u << 8,   /* one source may read the constant bank (XF_CONST) */
};

/* Operand types (XInsn.type, .type2). Widths: 8/16 only for memory and cvt. */
typedef enum XType {
    XT_NONE, /* untyped */
    XT_U8,
    XT_S8,
    XT_U16,
    XT_S16,
    XT_U32,
    XT_S32,
    XT_U64,
    XT_S64,
    XT_F32,
    XT_F64,
    XT_COUNT
} XType;

/* Compare codes for `set` (XInsn.mod). Signedness comes from the type. Float compares:
 * the ordered ones are false when either side is NaN, the unordered ones true. */
typedef enum XCmp {
    XCMP_EQ, XCMP_NE, XCMP_LT, XCMP_LE, XCMP_GT, XCMP_GE, /* integer, or ordered float */
    XCMP_NEU, XCMP_LTU, XCMP_LEU, XCMP_GTU, XCMP_GEU, XCMP_EQU, /* unordered float */
    XCMP_NUM, /* float: neither is NaN */
    XCMP_NAN, /* float: either is NaN */
    XCMP_COUNT
} XCmp;

/* Address spaces (XInsn.mod of ld/st/cvta). */
typedef enum XSpace {
    XS_GENERIC,
    XS_GLOBAL,
    XS_SHARED,
    XS_LOCAL,
    XS_CONST,
    XS_PARAM,
    XS_TEX,     /* read-only global data fetched through the texture path (ld only) */
    XS_COUNT
} XSpace;

/* Special registers read by s2r (XInsn.mod). */
typedef enum XSreg {
    XSR_TID_X, XSR_TID_Y, XSR_TID_Z,
    XSR_NTID_X, XSR_NTID_Y, XSR_NTID_Z,
    XSR_CTAID_X, XSR_CTAID_Y, XSR_CTAID_Z,
    XSR_NCTAID_X, XSR_NCTAID_Y, XSR_NCTAID_Z,
    XSR_LANEID,   /* lane within the warp */
    XSR_WARPID,   /* warp within the CTA */
    XSR_NWARPID,  /* warps per CTA */
    XSR_SMID,     /* SM running the CTA */
    XSR_NSMID,    /* number of SMs */
    XSR_CLOCK,    /* low 32 bits of the SM cycle counter */
    XSR_CLOCK64,  /* 64-bit cycle counter (d is a pair) */
    XSR_COUNT
} XSreg;

/* Atomic operations (atom's sub). Signedness and float-ness come from the type: add on
 * f32/f64 is a floating-point add; min/max compare signed for s32/s64. */
typedef enum XAtom {
    XATOM_ADD,
    XATOM_SUB,
    XATOM_MIN,
    XATOM_MAX,
    XATOM_INC,  /* old >= s1 ? 0 : old + 1 (unsigned, CUDA atomicInc) */
    XATOM_DEC,  /* old == 0 || old > s1 ? s1 : old - 1 (CUDA atomicDec) */
    XATOM_AND,
    XATOM_OR,
    XATOM_XOR,
    XATOM_EXCH,
    XATOM_COUNT
} XAtom;

/* Shuffle modes (shfl's sub), with PTX shfl.sync's lane arithmetic: s1 is the lane or
 * offset, s2 packs the clamp value (bits 0-4) and the segment mask (bits 8-12). */
typedef enum XShfl { XSHFL_IDX, XSHFL_UP, XSHFL_DOWN, XSHFL_BFLY, XSHFL_COUNT } XShfl;

/* Warp votes (vote's sub). */
typedef enum XVote {
    XVOTE_BALLOT, /* d = mask of lanes whose predicate is true */
    XVOTE_ANY,    /* d = 1 if any */
    XVOTE_ALL,    /* d = 1 if all */
    XVOTE_UNI,    /* d = 1 if all agree */
    XVOTE_COUNT
} XVote;

/* Barrier reductions (barred's sub): __syncthreads_count / _and / _or. */
typedef enum XRed { XRED_POPC, XRED_AND, XRED_OR, XRED_COUNT } XRed;

/* Math functions (math1/math2's sub). The emulator computes them with the host C
 * library in the instruction's precision (see docs/isa.md for the accuracy). */
typedef enum XMath {
    /* one operand */
    XMATH_SIN, XMATH_COS, XMATH_TAN, XMATH_ASIN, XMATH_ACOS, XMATH_ATAN,
    XMATH_SINH, XMATH_COSH, XMATH_TANH, XMATH_ASINH, XMATH_ACOSH, XMATH_ATANH,
    XMATH_EXP, XMATH_EXP2, XMATH_EXP10, XMATH_EXPM1,
    XMATH_LOG, XMATH_LOG2, XMATH_LOG10, XMATH_LOG1P,
    XMATH_CBRT, XMATH_RSQRT, XMATH_RCP,
    XMATH_FLOOR, XMATH_CEIL, XMATH_TRUNC, XMATH_ROUND, XMATH_RINT,
    XMATH_ERF, XMATH_ERFC, XMATH_LGAMMA, XMATH_TGAMMA,
    /* two operands */
    XMATH_POW, XMATH_ATAN2, XMATH_FMOD, XMATH_HYPOT, XMATH_REMAINDER, XMATH_COPYSIGN,
    XMATH_FDIM, XMATH_NEXTAFTER,
    XMATH_COUNT
} XMath;
#define XMATH_FIRST_BINARY XMATH_POW

/* Tensor steps (hmma). One warp matrix multiply-accumulate D = A*B + C of 16x16x16 with
 * f16 A and B is four hmma instructions, one per quadrant of D: sub = 2*mi + ni is the
 * quadrant (rows 8*mi.., columns 8*ni..), mod holds the XHMMA_* bits below. Sources: s0, s1
 * the A registers of rows 8*mi..8*mi+7, s2, s3 the B registers of columns 8*ni..8*ni+7,
 * s4 (and s5 for an f32 C) the quadrant's C registers; d0 (and d1 for an f32 D) receives
 * the quadrant of D. Every operand is one 32-bit register; the instruction reads its
 * sources in all 32 lanes. The per-lane element mapping is in docs/isa.md. */
enum {
    XHMMA_ACOL = 1u << 0, /* A was loaded column-major */
    XHMMA_BCOL = 1u << 1, /* B was loaded column-major */
    XHMMA_D32 = 1u << 2,  /* D is f32 (two registers), else packed f16x2 (one) */
    XHMMA_C32 = 1u << 3,  /* C is f32 (two registers), else packed f16x2 (one) */
    XHMMA_MODS = 16       /* mod values */
};
#define XHMMA_STEPS 4u /* hmma instructions (quadrants) per 16x16x16 product */

/* Memory fence scopes (membar's mod). */
typedef enum XScope { XSCOPE_CTA, XSCOPE_GL, XSCOPE_SYS, XSCOPE_COUNT } XScope;

/* Per-instruction flags (XInsn.flags). */
enum {
    XF_IMM = 1u << 0,     /* the last source operand is XInsn.imm, not a register */
    XF_UNIFORM = 1u << 1, /* branch proven uniform: never splits the warp */
    XF_NEG = 1u << 2,     /* brc: branch when the condition is zero */
    XF_TOSPACE = 1u << 3, /* cvta: generic -> space */
    XF_CONST = 1u << 4,   /* source slot csrc reads the constant bank: the kernel parameter
                           * buffer's word(s) at byte offset target (c[target]), not a
                           * register; only on XI_CONST opcodes (xisa_const_regs) */
};

/* Largest constant-bank offset an XF_CONST operand may name: CUDA's 32,764-byte limit on a
 * kernel's parameters (CUDA C++ Programming Guide, "Function Parameters", CUDA 12.1). */
#define XISA_CONST_MAX 32764u

#define XREG_RZ 255u    /* zero register */
#define XREG_MAX 255u   /* registers r0..r254 are allocatable */
#define XGPU_WARP_SIZE 32u

/* Generic-address windows (see the file comment). Each window is 4 GiB. */
#define XGPU_GLOBAL_BASE 0x0000001000000000ull /* first device allocation */
#define XGPU_PARAM_BASE 0x0000fc0000000000ull
#define XGPU_LOCAL_BASE 0x0000fd0000000000ull
#define XGPU_SHARED_BASE 0x0000fe0000000000ull
#define XGPU_WINDOW_SIZE 0x0000000100000000ull
/* GPU i of a system of several allocates from XGPU_GLOBAL_BASE + i x XGPU_GPU_SPAN (the
 * last one up to XGPU_PARAM_BASE), so a device address names its GPU. */
#define XGPU_GPU_SPAN 0x0000010000000000ull

/* One encoded instruction: 32 bytes, the .xgpu.text record. Unused register slots are
 * XREG_RZ; unused fields are zero. */
typedef struct XInsn {
    uint16_t op;     /* XOp */
    uint8_t type;    /* XType of the result / operation */
    uint8_t type2;   /* XType of the source (cvt) */
    uint8_t mod;     /* XCmp for set, XSpace for ld/st/cvta, XSreg for s2r, XScope for membar,
                      * XHMMA_* bits for hmma */
    uint8_t flags;   /* XF_* */
    uint8_t dst[2];  /* destination registers */
    uint8_t src[6];  /* source registers */
    uint8_t sub;     /* sub-operation: XAtom (atom), XShfl, XVote, XRed, XMath, hmma's
                      * quadrant; ld/st: 0, or log2 of a required alignment larger than
                      * the access size (at most XISA_MEM_ALIGN_MAX); else 0 */
    uint8_t csrc;    /* XF_CONST: the source slot that reads the constant bank; else 0 */
    int64_t imm;     /* immediate operand, memory offset, barrier id or symbol addend */
    uint32_t target; /* branch target pc, gaddr's symbol index, or XF_CONST's byte offset */
    uint32_t reconv; /* brc: reconvergence pc (immediate post-dominator) */
} XInsn;

_Static_assert(sizeof(XInsn) == 32, "XInsn is the 32-byte encoding");

/* Static description of an opcode, one row of isa.def. */
typedef struct XOpInfo {
    const char *name;
    uint8_t unit;  /* XUnit */
    uint8_t ndst;
    uint8_t nsrc;
    uint16_t flags; /* XI_* */
    const char *desc;
} XOpInfo;

extern const XOpInfo xisa_ops[XOP_COUNT];
extern const char *const xisa_type_names[XT_COUNT]; /* "", "u8", ... "f64" */
extern const char *const xisa_cmp_names[XCMP_COUNT];
extern const char *const xisa_space_names[XS_COUNT];
extern const char *const xisa_sreg_names[XSR_COUNT]; /* "tid.x", ... (printed with %) */
extern const char *const xisa_scope_names[XSCOPE_COUNT];
extern const char *const xisa_atom_names[XATOM_COUNT];   /* "add", ... */
extern const char *const xisa_shfl_names[XSHFL_COUNT];   /* "idx", "up", "down", "bfly" */
extern const char *const xisa_vote_names[XVOTE_COUNT];   /* "ballot", "any", "all", "uni" */
extern const char *const xisa_red_names[XRED_COUNT];     /* "popc", "and", "or" */
extern const char *const xisa_math_names[XMATH_COUNT];   /* "sin", ... "nextafter" */
extern const char *const xisa_hmma_names[XHMMA_STEPS];   /* "q0" ... "q3" */

/* Alignment of memory accesses. A GPU checks a vector access (ld.v4.f32, 16 bytes) as a
 * whole; xgpu performs it as several scalar ld/st, and the first part of the vector
 * carries the vector's alignment in sub (log2, only when it exceeds the part's size, up to
 * 16 bytes). xisa_mem_align gives the alignment an ld or st requires: 1 << sub when sub is
 * set, else its access size; other opcodes: their type size. */
#define XISA_MEM_ALIGN_MAX 16u
unsigned xisa_mem_align(const XInsn *in);

/* Size in bytes of a value of type t (1, 2, 4 or 8; 0 for XT_NONE). */
unsigned xisa_type_size(XType t);
int xisa_type_is_float(XType t);
int xisa_type_is_signed(XType t);
/* Registers an operand of type t occupies (1 or 2). */
unsigned xisa_type_regs(XType t);
/* IEEE binary16 (the f16 elements hmma reads and writes): bits -> float is exact; float ->
 * bits rounds to nearest even, overflowing to infinity; NaN stays NaN (quiet). */
float xisa_f16_to_f32(uint16_t h);
uint16_t xisa_f32_to_f16(float f);
/* Unit an instruction really uses (XU_FP resolves by type; the fp64 pipe is reported
 * as XU_FP with *is_f64 set). */
XUnit xisa_insn_unit(const XInsn *in, int *is_f64);

/* Registers (1 or 2) the operand occupies: destination slot i when dst is non-zero,
 * else source slot i; 0 when the slot is not a register operand of the instruction.
 * Width follows the op: set/popc/clz results, sel's s2, shift counts and brc's
 * condition are 32-bit; cvt's source follows type2; memory addresses, cvta operands
 * and gaddr's result are 64-bit; s2r's result is 64-bit only for clock64. hmma's operands
 * are 32-bit; its d1 and s5 are used only for an f32 D and C. */
unsigned xisa_operand_regs(const XInsn *in, int dst, unsigned i);
/* Registers' worth (1 or 2) of the XF_CONST operand: the width source slot csrc would
 * have as a register; 0 when the instruction has none. */
unsigned xisa_const_regs(const XInsn *in);

/* Memento reuse bits (docs/hints.md): one byte per instruction; bit XREUSE_SRC(i) or
 * XREUSE_DST(i) set means that operand's value is read again within RTHLD instructions
 * of the warp (near); clear means far, never reused, or not a register. */
#define XREUSE_SRC(i) (1u << (i))
#define XREUSE_DST(i) (1u << (6 + (i)))
#define XREUSE_RTHLD_DEFAULT 12u
enum { XREUSE_STATIC = 0, XREUSE_PROFILE = 1 };

/* The static estimate for one kernel's code (n instructions, branch targets relative to
 * code): the shortest distance over the control-flow paths (reuse.c). Writes n bytes to
 * bits. Returns 0, or -1 when out of memory. */
int xisa_reuse_static(const XInsn *code, uint32_t n, unsigned rthld, uint8_t *bits);
/* FNV-1a over the 32-byte encodings of a kernel's code: identifies the code a reuse
 * profile was recorded on. */
uint64_t xisa_code_hash(const XInsn *code, uint32_t n);
/* Applies a reuse profile file (written by the emulator, XGPU_REUSE_PROFILE) to the bits
 * of one kernel named name (n instructions at code): every operand the profile counted
 * gets the majority value (near when near > far, far when far > near; a tie keeps the
 * static bit). Returns the number of operands set from the profile, 0 when the profile
 * has no record of this kernel's code, or -1 with a message in err (unreadable file,
 * syntax error with its line, or a threshold other than rthld). */
int xisa_reuse_apply_profile(const char *path, const char *name, const XInsn *code, uint32_t n,
                             unsigned rthld, uint8_t *bits, char *err, size_t errlen);

/* Checks an instruction's fields against the table (opcode, register alignment of
 * 64-bit operands, enum ranges, branch targets < ncode). Returns 0 when valid, else
 * writes a one-line reason into err. */
int xisa_validate(const XInsn *in, uint32_t ncode, char *err, size_t errlen);

/* Formats one instruction as text (no pc, no newline). syms (may be NULL) names gaddr
 * symbols. Returns the length written, as snprintf does. */
int xisa_format(const XInsn *in, const char *const *syms, uint32_t nsyms, char *buf, size_t n);
/* The same with every register operand marked ".n" (near) or ".f" (far) from reuse, the
 * instruction's XREUSE_* bits; reuse < 0 formats as xisa_format. */
int xisa_format_reuse(const XInsn *in, const char *const *syms, uint32_t nsyms, int reuse,
                      char *buf, size_t n);

#pragma GCC visibility pop

#endif
