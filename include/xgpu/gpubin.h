/*
 * gpubin.h - the xgpu device binary ("gpubin"): an ELF64 file with the project's own
 * sections, its in-memory form, and the fat container that embeds it in a host program.
 *
 * One writer (used by xgpu-cc and the assembler) and one reader (used by the runtime,
 * the emulator's loader and xgpu-objdump) live in libxgpuisa. The reader is
 * bounds-checked: any malformed input yields a non-zero return and a one-line message,
 * never a crash. Every section starts with an XSecHeader carrying its own version.
 *
 * Sections (all integers little-endian; string fields are offsets into the section's
 * own string pool, which follows its records):
 *   .xgpu.info     producer, options, the image's checksum (CRC-32, verified on read)
 *   .xgpu.kernels  XKernel records and their parameter tables
 *   .xgpu.text     XInsn[]  (32 bytes each; kernels index into it)
 *   .xgpu.globals  XGlobal records with initial bytes
 *   .xgpu.lines    files, then XLine records sorted by pc
 *   .xgpu.reuse    (optional) Memento reuse bits: RTHLD, source, one byte per instruction
 *   .xgpu.phases   (optional) Zorua phase specifiers: thresholds, then XPhase records
 *   .xgpu.assist   (optional) CABA assist-warp routines: records, their code, names
 * The exact byte layout is documented in docs/gpubin.md.
 *
 * Fat container. The host object embeds, in clang's .nv_fatbin section, an XFatHeader
 * followed by the gpubin ELF bytes (clang's wrapper points at the header). Linking
 * several translation units concatenates containers, each padded to 8 bytes.
 */
#ifndef XGPU_GPUBIN_H
#define XGPU_GPUBIN_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>
#include "xgpu/isa.h"

#define XGPUBIN_VERSION 2u /* 2: .xgpu.info carries the image checksum */
#define XSEC_MAGIC 0x43455358u /* "XSEC" */

typedef struct XSecHeader {
    uint32_t magic;   /* XSEC_MAGIC */
    uint16_t version; /* per-section format version */
    uint16_t reserved;
    uint32_t count;   /* number of records */
    uint32_t size;    /* bytes of the whole section, header included */
} XSecHeader;

#define XFAT_MAGIC 0x54414655504758ull /* "XGPUFAT\0" read as little-endian u64 */
#define XFAT_VERSION 1u

typedef struct XFatHeader {
    uint64_t magic;   /* XFAT_MAGIC */
    uint32_t version; /* XFAT_VERSION */
    uint32_t flags;   /* zero */
    uint64_t size;    /* bytes of the ELF image that follows */
} XFatHeader;

/* A kernel parameter as the device sees it: bytes [offset, offset+size) of the launch's
 * parameter buffer (natural C layout of the kernel's parameter list). */
typedef struct XParam {
    uint32_t offset;
    uint32_t size;
    uint32_t align;
} XParam;

typedef struct XKernel {
    const char *name;         /* mangled name, as __cudaRegisterFunction gives it */
    uint32_t code_start;      /* first instruction (index into text) */
    uint32_t code_count;      /* number of instructions */
    uint32_t nregs;           /* registers per thread (highest used + 1) */
    uint32_t shared_bytes;    /* static shared memory per CTA */
    uint32_t local_bytes;     /* local memory (spills, stack arrays) per thread */
    uint32_t param_bytes;     /* size of the parameter buffer */
    uint32_t nparams;
    XParam *params;
    const char *signature;    /* source-level signature, "" when unknown */
    uint32_t max_threads;     /* __launch_bounds__ maximum threads per block, 0 = none */
    uint32_t min_blocks;      /* __launch_bounds__ minimum blocks per SM, 0 = none */
} XKernel;

#define XKERNEL_MAX_THREADS 1024u /* largest launch bound (CUDA's block size limit) */
#define XKERNEL_MAX_MIN_BLOCKS 32u /* largest minimum-blocks bound (CUDA's per-SM limit) */

typedef enum XGlobalSpace { XG_GLOBAL = 1, XG_CONST = 4 } XGlobalSpace;

typedef struct XGlobal {
    const char *name;   /* symbol name (what __cudaRegisterVar gives) */
    uint32_t space;     /* XGlobalSpace */
    uint32_t align;
    uint64_t size;
    const uint8_t *init; /* size bytes, or NULL for zero-initialized */
    uint32_t managed;    /* a __managed__ variable: the host's copy is kept current */
} XGlobal;

typedef struct XLine {
    uint32_t pc;   /* absolute text index; applies until the next record */
    uint32_t file; /* index into files */
    uint32_t line; /* 0 = unknown */
} XLine;

/* A Zorua phase specifier (Vijaykumar et al., MICRO 2016; docs/hints.md): from
 * kernel-relative pc on, the kernel's warps need `regs` registers per thread and the CTA
 * `shared` bytes of static shared memory (plus the launch's dynamic shared memory when
 * XPHASE_DYNAMIC is set), until the next record of the same kernel. Records are sorted by
 * (kernel, pc), one per pc. */
typedef struct XPhase {
    uint32_t kernel; /* index into kernels */
    uint32_t pc;     /* kernel-relative: the first instruction of the phase */
    uint32_t regs;   /* live registers per thread in the phase (a 64-bit pair counts 2) */
    uint32_t shared; /* live static shared bytes per CTA in the phase */
    uint32_t flags;  /* XPHASE_* */
} XPhase;

enum {
    XPHASE_BARRIER = 1u << 0, /* implicit boundary at a barrier or fence (Zorua's barrier-phase bit) */
    XPHASE_ENTRY = 1u << 1,   /* the kernel's first phase (pc 0) */
    XPHASE_DYNAMIC = 1u << 2, /* the dynamic `extern __shared__` array is live */
    XPHASE_ALL = 7u
};

#define XPHASE_DELTA_DEFAULT 25u /* percent change that starts a phase */
#define XPHASE_GAP_DEFAULT 10u   /* instructions at least between two boundaries */
#define XPHASE_DELTA_MAX 1000u
#define XPHASE_GAP_MAX 100000u

/* A CABA assist-warp routine (Vijaykumar et al., ISCA 2015; docs/gpubin.md): a small
 * routine the SM runs in an assist warp to decompress or compress one cache line, carried
 * in the module's .xgpu.assist section apart from its kernels. Its parameter buffer and
 * registers follow the kernel ABI; its code is its own, with routine-relative pcs (branch
 * targets and reconvergence points too). A module has at most one routine per
 * (algo, dir). xgpu-cc attaches the built-in ones (xgpu/assist.h). */
typedef enum XAssistAlgo {
    XASSIST_BDI = 0,   /* Base-Delta-Immediate (the emulator's XcAlgo, same order) */
    XASSIST_FPC = 1,   /* Frequent Pattern Compression */
    XASSIST_CPACK = 2, /* C-Pack */
    XASSIST_NALGO = 3
} XAssistAlgo;

typedef enum XAssistDir {
    XASSIST_DECOMP = 0, /* a compressed line to its bytes */
    XASSIST_COMP = 1,   /* a line's bytes to their compressed form */
    XASSIST_NDIR = 2
} XAssistDir;

typedef struct XAssist {
    const char *name;     /* e.g. "caba_bdi_decomp" */
    uint32_t algo, dir;   /* XAssistAlgo, XAssistDir */
    uint32_t nregs;       /* registers per thread the routine uses */
    uint32_t param_bytes; /* its parameter buffer */
    const XInsn *text;    /* its own code, routine-relative pcs (branch targets too) */
    uint32_t ntext;
} XAssist;

typedef struct XGpubin {
    const char *producer; /* e.g. "xgpu-cc 0.1" */
    const char *options;  /* compile options that shape the code, free text */
    XKernel *kernels;
    uint32_t nkernels;
    XInsn *text;
    uint32_t ntext;
    XGlobal *globals;
    uint32_t nglobals;
    const char **files;
    uint32_t nfiles;
    XLine *lines;
    uint32_t nlines;
    /* Memento reuse bits (docs/hints.md), one byte per text instruction (XREUSE_*), or
     * NULL when the module has none. */
    const uint8_t *reuse;
    uint32_t reuse_rthld;  /* the near/far threshold they were computed with */
    uint32_t reuse_source; /* XREUSE_STATIC or XREUSE_PROFILE */
    /* Zorua phase specifiers; the module has the section when phase_delta is non-zero
     * (then it may still hold no record). */
    XPhase *phases;
    uint32_t nphases;
    uint32_t phase_delta; /* the thresholds they were placed with: percent (1..1000) */
    uint32_t phase_gap;   /* and minimum distance in instructions (1..100000) */
    /* CABA assist routines (.xgpu.assist), or NULL/0 when the module has none. */
    XAssist *assist;
    uint32_t nassist;
    void *arena; /* reader/assembler-owned storage; NULL for caller-built modules */
} XGpubin;

/* Writes g as a gpubin ELF file. Returns 0, or -1 with a message in err. */
int xgpubin_write_file(const XGpubin *g, const char *path, char *err, size_t errlen);

/* Builds the gpubin ELF image of g in memory: *buf (malloc'd, the caller frees it) and
 * *len. Returns 0, or -1 with a message in err. */
int xgpubin_write_mem(const XGpubin *g, void **buf, size_t *len, char *err, size_t errlen);

/* Writes g as a fat container (XFatHeader + ELF) to path. */
int xgpubin_write_fat(const XGpubin *g, const char *path, char *err, size_t errlen);

/* Parses a gpubin ELF image of len bytes. On success *out owns a copy of everything it
 * needs (buf may be freed). Validates every section and every instruction
 * (xisa_validate), kernel code ranges, parameter tables, line records and assist
 * routines. */
int xgpubin_read(const void *buf, size_t len, XGpubin **out, char *err, size_t errlen);
void xgpubin_free(XGpubin *g);

/* Parses one fat container at p, of at most avail bytes (SIZE_MAX when the caller only
 * has a pointer, as the runtime does). Sets *elf and *elflen to the image and *next to the
 * number of bytes consumed including padding. */
int xfat_parse(const void *p, size_t avail, const void **elf, size_t *elflen, size_t *next,
               char *err, size_t errlen);

/* Finds the line record for an absolute pc; NULL when none. */
const XLine *xgpubin_line(const XGpubin *g, uint32_t pc);
/* Index of the kernel named name, or -1. */
int xgpubin_find_kernel(const XGpubin *g, const char *name);

/* Assembles the text form (isa.h) into a module. Directives:
 *   .kernel NAME               starts a kernel; instructions follow
 *   .regs N  .shared N  .local N   kernel resources (defaults: computed regs, 0, 0)
 *   .launch_bounds MAX [MIN]   the kernel's __launch_bounds__
 *   .param SIZE [ALIGN]        appends a parameter (laid out in order, natural alignment)
 *   .global NAME SIZE [ALIGN] [const] [= b0 b1 ...]   a device symbol (byte initializer)
 *   .loc FILE LINE             attaches a source line to the following instructions
 *   .phases DELTA GAP          the module has phase specifiers, placed with these thresholds
 *   .phase REGS SHARED [entry] [barrier] [dynamic]   a phase specifier at the next
 *                              instruction (needs .phases)
 *   LABEL:                     a branch target within the current kernel
 * `#` and `//` start comments. On error returns -1 with "LINE: message" in err. */
int xasm_assemble(const char *text, XGpubin **out, char *err, size_t errlen);
/* The same for text read from the file `name`: an error is "name:LINE: error: message"
 * (diag.h), or "name: error: message" when it concerns no line. */
int xasm_assemble_named(const char *name, const char *text, XGpubin **out, char *err,
                        size_t errlen);

/* Writes the text form of a whole module (directives, labels L<pc>, instructions) so that
 * xasm_assemble reads it back to the same module, less its assist routines (their text
 * form is their source, emulator/mech/assist/). */
int xgpubin_disassemble(const XGpubin *g, void *file /* FILE * */);

#pragma GCC visibility pop

#endif
