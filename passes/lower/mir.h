/*
 * mir.h - xgpu's machine IR: the form device code takes between instruction selection
 * and the encoded gpubin.
 *
 * A kernel (MFunc) is a list of basic blocks of MInsns. An MInsn is an XInsn (isa.h)
 * whose register operands are virtual registers (MReg) instead of machine registers:
 * isel creates them without limit, register allocation maps each to r0..r254 (a wide
 * one to an even-aligned pair) and rewrites x.dst/x.src. Until mir_emit, branch fields
 * x.target / x.reconv hold block indices, not pcs.
 *
 * Block shape: phis first (MBlock.phis), then ordinary instructions, ending in exactly
 * one terminator:
 *   bra            x.target = successor block             succ = {target}
 *   brc  s0        x.target = block taken when s0 != 0     succ = {target, else}
 *                  (XF_NEG: taken when s0 == 0)
 *   exit / trap                                            succ = {}
 * The else successor of brc is MBlock.succ[1]; mir_emit places it next or adds a bra.
 *
 * The pipeline over one kernel, in order (passes/lower/pipeline.c):
 *   isel -> mir_cfg -> mir_fold -> mir_sched -> mir_outssa -> mir_cfg -> mir_postdom
 *        -> mir_divergence -> mir_shared_refs -> mir_regalloc -> mir_emit -> mir_phases
 * (mir_fold and mir_sched only above -O0).
 */
#ifndef XGPU_MIR_H
#define XGPU_MIR_H

#include <stdint.h>
#include <stdio.h>
#include "xgpu/gpubin.h"
#include "xgpu/isa.h"

typedef uint32_t MReg; /* virtual register number; MREG_NONE = unused slot */
#define MREG_NONE 0u
#define MREG_RZ 0xffffffffu /* the zero register (reads 0) */

typedef struct MInsn {
    XInsn x;       /* op, types, mod, flags, imm; branch fields are block indices */
    MReg dst[2];
    MReg src[6];
    uint32_t loc;  /* index into MFunc.locs; 0 = no source location */
    uint64_t shared; /* set by mir_shared_refs: bit i = the access may touch svars[i] */
} MInsn;

typedef struct MPhiIn {
    uint32_t block; /* predecessor block */
    MReg reg;       /* value flowing in from it (a vreg; constants are materialized there) */
} MPhiIn;

typedef struct MPhi {
    MReg dst;
    MPhiIn *in;
    uint32_t nin;
} MPhi;

typedef struct MBlock {
    MInsn *ins;
    uint32_t nins, capins;
    MPhi *phis;
    uint32_t nphis, capphis;
    uint32_t succ[2];
    uint32_t nsucc;
    uint32_t *preds; /* filled by mir_cfg */
    uint32_t npreds;
    /* analyses (mir_cfg, mir_postdom) */
    uint32_t rpo;    /* reverse-postorder number */
    uint32_t ipdom;  /* immediate post-dominator block, or MIR_EXIT */
    int loop_depth;
} MBlock;

#define MIR_EXIT 0xffffffffu /* the virtual exit node */

typedef struct MVreg {
    uint8_t wide;    /* 1: 64-bit value in a register pair */
    uint8_t divergent; /* set by mir_divergence: may differ across lanes */
    uint16_t phys;   /* allocated register (even for wide), set by mir_regalloc */
    uint16_t svar;   /* set by isel: 1 + index in MFunc.svars of the __shared__ variable
                      * whose address this value is (0: none) */
} MVreg;

typedef struct MLoc {
    uint32_t file; /* index into the module's files */
    uint32_t line;
    uint32_t col;  /* 0 = unknown (messages only; line records carry no column) */
} MLoc;

/* A __shared__ variable a kernel uses, at its static offset (globals.c). */
typedef struct MShared {
    uint32_t off;
    uint32_t size;   /* bytes; 0 for a dynamic `extern __shared__` array */
    uint8_t dynamic; /* extern __shared__: sized at launch */
} MShared;

typedef struct MFunc {
    char *name;
    struct MModule *mod;
    MBlock *blocks; /* block 0 is the entry */
    uint32_t nblocks, capblocks;
    MVreg *vregs;   /* indexed by MReg; vregs[0] unused */
    uint32_t nvregs, capvregs;
    MLoc *locs;     /* locs[0] = unknown */
    uint32_t nlocs, caplocs;
    uint32_t decl_loc; /* location of the kernel's definition */
    /* resources */
    uint32_t shared_bytes; /* static shared memory */
    uint32_t local_bytes;  /* per-thread frame (allocas; regalloc appends spill slots) */
    uint32_t param_bytes;
    XParam *params;
    uint32_t nparams;
    uint32_t nregs;        /* set by mir_regalloc */
    uint32_t max_threads;  /* __launch_bounds__ (lower_launch_bounds), 0 = none */
    uint32_t min_blocks;
    char *signature;
    MShared *svars;        /* shared variables, in layout order (lower_shared_layout) */
    uint32_t nsvars;
    uint64_t shared_escaped; /* set by mir_shared_refs: svars whose address is stored */
    /* per-kernel results of mir_emit */
    XInsn *code;
    uint32_t ncode;
    uint32_t *code_loc; /* loc per emitted instruction */
    uint64_t *code_shared; /* MInsn.shared per emitted instruction */
    XPhase *phases;     /* mir_phases: kernel-relative records (kernel field 0) */
    uint32_t nphases;
} MFunc;

typedef struct MModule {
    MFunc **funcs; /* kernels, in definition order */
    uint32_t nfuncs;
    XGlobal *globals;
    uint32_t nglobals;
    char **files;
    uint32_t nfiles;
    const char *source; /* name of the input, for diagnostics without a location */
    int errors;         /* count of mir_error reports */
} MModule;

/* Zeroed allocation of n elements of sz bytes; running out of memory is an internal
 * error (the compiler stops). */
void *mir_zalloc(size_t n, size_t sz);

/* Construction (mir.c). Everything is owned by the module and freed by mir_module_free. */
MModule *mir_module_new(const char *source);
void mir_module_free(MModule *m);
MFunc *mir_func_new(MModule *m, const char *name);
uint32_t mir_block_new(MFunc *f);
MReg mir_vreg_new(MFunc *f, int wide);
/* Appends an instruction to block b and returns it (valid until the next append). */
MInsn *mir_append(MFunc *f, uint32_t b, XOp op, XType type);
MPhi *mir_phi_new(MFunc *f, uint32_t b, MReg dst, uint32_t nin);
uint32_t mir_file(MModule *m, const char *path);         /* interned file index */
/* A new location index (col 0 when unknown). */
uint32_t mir_loc(MFunc *f, uint32_t file, uint32_t line, uint32_t col);
uint32_t mir_global_add(MModule *m, const XGlobal *g);    /* copies g (name and init) */
/* The terminator of block b, or NULL if it has none yet. */
MInsn *mir_terminator(MFunc *f, uint32_t b);
/* Inserts an instruction at position pos of block b and returns it. */
MInsn *mir_insert(MFunc *f, uint32_t b, uint32_t pos, XOp op, XType type);

/* Reports a user-facing error: "file:line:col: error: in kernel 'k': message" and the
 * source line (diag.h; the kernel's own location when loc is 0). Counts it in m->errors.
 * Returns -1. */
int mir_error(MFunc *f, uint32_t loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Debug text dump of a function (vregs as %N, blocks as bbN). */
void mir_print(const MFunc *f, FILE *out);

/* Backend passes (one file each). Each returns 0, or -1 after reporting with mir_error. */
int mir_cfg(MFunc *f);        /* cfg.c: succ from terminators, preds, rpo, drop unreachable blocks, loop depth */
/* fold.c: on SSA MIR, peephole combining: constants into immediate operands, scaled-index
 * address arithmetic into one lea, multiply-add into mad, offsets into memory operands. */
int mir_fold(MFunc *f);
/* sched.c: on SSA MIR, list scheduling within each block that hides the target's
 * latencies, keeping at most max_live values live where the source order did. */
typedef struct MSchedOptions {
    uint32_t max_live; /* register-pressure limit in 32-bit registers (0: the default) */
} MSchedOptions;
int mir_sched(MFunc *f, const MSchedOptions *o);
int mir_outssa(MFunc *f);     /* outssa.c: split critical edges, phis -> sequenced copies */
int mir_postdom(MFunc *f);    /* cfg.c: ipdom of every block, with a virtual exit */
int mir_divergence(MFunc *f); /* divergence.c: mark divergent vregs, XF_UNIFORM on uniform brc */
typedef struct MRegallocOptions {
    uint32_t max_regs; /* registers per thread available (<= 255) */
} MRegallocOptions;
int mir_regalloc(MFunc *f, const MRegallocOptions *o); /* regalloc.c: linear scan, pairs, spills */
int mir_emit(MFunc *f);       /* emit.c: layout, pcs, reconvergence pcs -> f->code */
/* phases.c: which shared variables each memory access may touch (before regalloc), and
 * the Zorua phase specifiers of the emitted code (after mir_emit). */
int mir_shared_refs(MFunc *f);
typedef struct MPhaseOptions {
    unsigned delta; /* percent change of live registers or shared bytes (XPHASE_DELTA_DEFAULT) */
    unsigned gap;   /* instructions at least after the previous boundary */
} MPhaseOptions;
int mir_phases(MFunc *f, const MPhaseOptions *o);

/* Analysis helpers shared by the backend passes (mir.c). */
/* Number of register source slots of an instruction (nsrc, less the immediate) and of
 * destination slots. Slots holding MREG_NONE or MREG_RZ are not vreg operands. */
unsigned mir_nsrc(const MInsn *in);
unsigned mir_ndst(const MInsn *in);
static inline int mir_is_vreg(MReg r) { return r != MREG_NONE && r != MREG_RZ; }

/* Liveness over vregs: per block, the sets live on entry (after the block's phis have
 * defined their results) and on exit (including phi inputs of successors taken along
 * that edge). Requires succ[] (mir_cfg). Sets are bit vectors of `words` 64-bit words. */
typedef struct MLive {
    uint32_t nblocks, words;
    uint64_t *in, *out; /* block b's set starts at b * words */
} MLive;
void mir_live(const MFunc *f, MLive *lv);
void mir_live_free(MLive *lv);
static inline int mir_live_has(const uint64_t *set, MReg r)
{
    return (int)((set[r >> 6] >> (r & 63)) & 1u);
}
static inline const uint64_t *mir_live_in(const MLive *lv, uint32_t b)
{
    return lv->in + (size_t)b * lv->words;
}
static inline const uint64_t *mir_live_out(const MLive *lv, uint32_t b)
{
    return lv->out + (size_t)b * lv->words;
}

/* Builds the gpubin of the whole module from the emitted kernels (emit.c). The result
 * points into m; it is valid until m is freed. Caller frees the arrays with free(). */
int mir_module_gpubin(MModule *m, XGpubin *out);

#endif
