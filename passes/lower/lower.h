/*
 * lower.h - device IR (nvptx64 LLVM IR from clang) to an xgpu gpubin.
 *
 * The driver calls only xgpu_lower_file. Everything below the "internal" line is shared
 * by the files of the lowering (prepare.c, globals.c, isel*.c, pipeline.c) and by the
 * pass tests; it is not an interface for the rest of the project.
 *
 * Diagnostics are printed as "file:line:col: error: message" with the source line and a
 * caret (xgpu/diag.h; the IR's debug locations, or the input's name when the IR carries
 * none); functions return non-zero after printing.
 */
#ifndef XGPU_LOWER_H
#define XGPU_LOWER_H

#include <stdint.h>
#include <stdio.h>

/* A kernel's source signature, from the front end (passes/frontend.c). name is a mangled
 * kernel name; with prefix set it is instead the start shared by the mangled names of a
 * kernel template's instantiations ("_ZN2ns4scanI"), used when no exact name matches. */
typedef struct XgpuSignature {
    const char *name;
    const char *signature; /* e.g. "void saxpy(int n, float a, const float *x, float *y)" */
    int prefix;
} XgpuSignature;

typedef struct XgpuLowerOptions {
    unsigned opt_level;      /* 0..3: how much LLVM cleanup prepare runs */
    unsigned max_regs;       /* registers per thread for regalloc; 0 means 255 */
    unsigned min_regs;       /* a kernel declares at least this many (padding); 0: none */
    unsigned rthld;          /* Memento near/far reuse threshold; 0 means 12 */
    const char *reuse_profile; /* reuse profile to take the bits from (majority), or NULL */
    unsigned phase_delta;    /* Zorua: percent change that starts a phase; 0 means 25 */
    unsigned phase_gap;      /* Zorua: instructions at least between boundaries; 0 means 10 */
    int no_assist;           /* leave out the CABA assist routines (.xgpu.assist) */
    int debug_dumps;         /* print MIR after each pass to stderr (also env XGPU_DUMP=1) */
    const char *source_name; /* name for messages without a location; NULL: the IR path */
    const XgpuSignature *signatures; /* source signatures of the kernels (may be none) */
    unsigned nsignatures;
} XgpuLowerOptions;

/* Lowers the device IR in ir_path (.bc or .ll) to a fat container (XFatHeader + gpubin
 * ELF) at out_fat_path; when asm_out is non-NULL also writes the disassembly there.
 * Returns 0, or non-zero after printing diagnostics. */
int xgpu_lower_file(const char *ir_path, const XgpuLowerOptions *o, const char *out_fat_path,
                    FILE *asm_out);

/* ---- internal ------------------------------------------------------------------------ */

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include "mir.h"

/* pipeline stages before the MIR backend */
int xgpu_load_ir(LLVMContextRef ctx, const char *path, LLVMModuleRef *out);
int xgpu_prepare(LLVMModuleRef m, const XgpuLowerOptions *o, const char *src); /* prepare.c */
/* fma.c: fuses `contract` fmul + fadd/fsub pairs into llvm.fma; returns whether it changed
 * anything. */
int xgpu_contract_fma(LLVMModuleRef m);
/* overflow.c: llvm.*.with.overflow calls become plain arithmetic and a test. */
int xgpu_expand_overflow(LLVMModuleRef m);
MModule *xgpu_isel_module(LLVMModuleRef m, const char *src);                   /* isel_module.c */
/* Parse + prepare + isel: the MIR of every kernel, before any backend pass (for tests).
 * Returns NULL after printing diagnostics. */
MModule *xgpu_lower_to_mir(const char *ir_path, const XgpuLowerOptions *o);

/* Located diagnostic for LLVM values without an MFunc (prepare). at may be an
 * instruction, a function or NULL. Returns -1. */
int lower_diag(const char *src, LLVMValueRef at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Kernels of the module (nvvm.annotations "kernel" = 1, or the ptx_kernel calling
 * convention). *out is malloc'ed; returns the count. */
uint32_t lower_kernels(LLVMModuleRef m, LLVMValueRef **out);
int lower_is_kernel(LLVMValueRef *kernels, uint32_t n, LLVMValueRef fn);
/* Whether llvm.global.annotations gives g the annotation text (annotate("...")). The
 * headers spell __managed__ as __device__ plus this annotation (clang implements managed
 * for HIP only). */
#define XGPU_MANAGED_ANNOTATION "xgpu.managed"
int lower_annotated(LLVMModuleRef m, LLVMValueRef g, const char *text);
/* A kernel's __launch_bounds__ from nvvm.annotations: maxntid{x,y,z} (their product) and
 * minctasm; 0 where absent. */
void lower_launch_bounds(LLVMModuleRef m, LLVMValueRef fn, uint32_t *max_threads,
                         uint32_t *min_blocks);

/* globals.c: __device__/__constant__ symbols of the module, per-kernel shared layout and
 * parameter layout. */
typedef struct LowerGlobals {
    LLVMValueRef *vars;
    uint32_t *index; /* MModule.globals index of vars[i] */
    uint32_t n;
} LowerGlobals;
int lower_globals(MModule *mm, LLVMModuleRef m, const char *src, LowerGlobals *out);
void lower_globals_free(LowerGlobals *g);
int lower_global_index(const LowerGlobals *g, LLVMValueRef var); /* -1 when absent */

typedef struct SharedLayout {
    LLVMValueRef *vars;
    uint32_t *off;
    uint32_t n;
    uint32_t static_bytes; /* size of the static variables (MFunc.shared_bytes) */
    uint32_t dyn_off;      /* where extern __shared__ arrays start */
} SharedLayout;
int lower_shared_layout(MFunc *f, LLVMValueRef fn, LLVMTargetDataRef td, SharedLayout *out);
void lower_shared_free(SharedLayout *s);
int lower_shared_offset(const SharedLayout *s, LLVMValueRef var, uint32_t *off);
/* Index of var in the layout (= in MFunc.svars), or -1. */
int lower_shared_index(const SharedLayout *s, LLVMValueRef var);
/* Fills f->params / nparams / param_bytes; off[i] receives argument i's offset. */
int lower_param_layout(MFunc *f, LLVMValueRef fn, LLVMTargetDataRef td, uint32_t *off);
/* The byval type of argument i, or NULL. */
LLVMTypeRef lower_byval_type(LLVMValueRef fn, unsigned i);

/* ---- instruction selection (isel*.c) ------------------------------------------------- */

/* Open-addressing map from LLVM objects to 32-bit values. */
typedef struct IselMap {
    const void **keys;
    uint32_t *vals;
    uint32_t cap, n;
} IselMap;
int isel_map_get(const IselMap *m, const void *key, uint32_t *val);
void isel_map_put(IselMap *m, const void *key, uint32_t val);
void isel_map_free(IselMap *m);

/* Where a memory operand lives: space(base + off); base MREG_RZ = absolute. */
typedef struct IselAddr {
    XSpace space;
    MReg base;
    int64_t off;
} IselAddr;

typedef struct Isel {
    MFunc *f;
    LLVMValueRef fn;
    LLVMTargetDataRef td;
    const LowerGlobals *globals;
    SharedLayout shared;
    IselMap vals;     /* instruction / argument -> vreg */
    IselMap blocks;   /* LLVM block -> position in bfirst/blast */
    IselMap frames;   /* alloca or written byval argument -> local offset */
    IselMap byval;    /* read-only byval argument -> parameter offset */
    IselMap field1;   /* two-field aggregate result ({old, ok} of cmpxchg, {v, p} of
                       * shfl.p) -> vreg of field 1; field 0 lives in vals */
    IselMap aggs;     /* wmma call with 4 or 8 fields -> index in aggf */
    MReg (*aggf)[8];  /* their fields' vregs (MREG_NONE: not made yet) */
    uint32_t naggf, capaggf;
    uint32_t *bfirst; /* MIR block where an LLVM block starts */
    uint32_t *blast;  /* MIR block holding its terminator */
    uint32_t cur;     /* MIR block being filled */
    uint32_t loc;     /* location of the instruction being selected */
    int failed;
} Isel;

/* isel.c: emission helpers shared by the isel files. */
int isel_function(Isel *s);
int isel_fail(Isel *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
MInsn *isel_emit(Isel *s, XOp op, XType t);
MReg isel_reg(Isel *s, XType t);
MReg isel_op1(Isel *s, XOp op, XType t, MReg a);
MReg isel_op2(Isel *s, XOp op, XType t, MReg a, MReg b);
MReg isel_op2i(Isel *s, XOp op, XType t, MReg a, int64_t imm);
MReg isel_movi(Isel *s, XType t, int64_t imm);
MReg isel_cvt(Isel *s, XType to, XType from, MReg a);
MReg isel_val(Isel *s, LLVMValueRef v);      /* operand in a register */
void isel_bind(Isel *s, LLVMValueRef v, MReg r); /* result of instruction v is r */
XType isel_type(Isel *s, LLVMTypeRef t, int is_signed); /* XT_NONE: unsupported */
unsigned isel_int_width(LLVMTypeRef t);      /* bits of an integer type, else 0 */
MReg isel_sext(Isel *s, MReg r, unsigned w); /* narrow (w < 32) -> sign-extended 32 */
MReg isel_trunc(Isel *s, MReg r, unsigned w); /* keep the low w bits (w < 32) */
uint32_t isel_new_block(Isel *s);
void isel_branch(Isel *s, uint32_t target);
void isel_cbranch(Isel *s, MReg cond, uint32_t then, uint32_t els);

/* isel_mem.c: addresses, loads, stores, allocas, memcpy/memmove/memset. */
int isel_frames(Isel *s); /* allocas and written byval arguments -> frame slots */
int isel_addr(Isel *s, LLVMValueRef ptr, IselAddr *a);
MReg isel_ptr_value(Isel *s, LLVMValueRef v); /* pointer-valued instructions / constants */
int isel_load(Isel *s, LLVMValueRef in);
int isel_store(Isel *s, LLVMValueRef in);
int isel_memop(Isel *s, LLVMValueRef call, const char *name);
int isel_entry_copies(Isel *s); /* copy written byval arguments into their frame slots */

/* isel_intrin.c: calls to intrinsics. */
int isel_call(Isel *s, LLVMValueRef call);

/* isel_atomic.c: atomicrmw, cmpxchg, the NVVM atomic intrinsics, and fields of the
 * two-field aggregates those and the shuffles return. */
int isel_atomicrmw(Isel *s, LLVMValueRef in);
int isel_cmpxchg(Isel *s, LLVMValueRef in);
int isel_atomic_intrin(Isel *s, LLVMValueRef call, int sub); /* sub: XAtom */
int isel_extractvalue(Isel *s, LLVMValueRef in);
/* Binds field idx (0 or 1) of aggregate-valued instruction agg to r. */
void isel_bind_field(Isel *s, LLVMValueRef agg, unsigned idx, MReg r);

/* isel_warp.c: warp and block collectives, byte permute, math functions, printf.
 * Handlers in the shape of isel_intrin.c's table (arg: XShfl, XVote, XRed, ...). */
int isel_shfl(Isel *s, LLVMValueRef call, int mode);
int isel_vote(Isel *s, LLVMValueRef call, int mode);
int isel_actmask(Isel *s, LLVMValueRef call, int unused);
int isel_barred(Isel *s, LLVMValueRef call, int red);
int isel_prmt(Isel *s, LLVMValueRef call, int unused);
int isel_math_intrin(Isel *s, LLVMValueRef call, int math); /* llvm.sin etc.: XMath */
int isel_powi(Isel *s, LLVMValueRef call, int unused);
int isel_ldexp(Isel *s, LLVMValueRef call, int unused);
int isel_lround(Isel *s, LLVMValueRef call, int math);  /* llvm.lround/lrint: XMath */
int isel_ldg(Isel *s, LLVMValueRef call, int unused);
int isel_fpclass(Isel *s, LLVMValueRef call, int unused);
/* isel_wmma.c: llvm.nvvm.wmma.* (name is the callee's), and extractvalue on their
 * multi-field results. */
int isel_wmma(Isel *s, LLVMValueRef call, const char *name);
int isel_wmma_extract(Isel *s, LLVMValueRef in);
int isel_is_half2(LLVMTypeRef t);                   /* <2 x half> */
MReg isel_half2_const(Isel *s, LLVMValueRef v);     /* a <2 x half> constant, packed */
/* Calls to non-intrinsic declarations the lowering knows: vprintf and the math library's
 * __xgpu_<fn>[f]. Returns 1 when `name` is not one of them (nothing emitted). */
int isel_known_call(Isel *s, LLVMValueRef call, const char *name);
/* Whether a declared function may stay called after prepare (vprintf, __xgpu_*). */
int lower_known_external(const char *name);

#endif
