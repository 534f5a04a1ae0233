/*
 * gpubin_int.h - private to libxgpuisa: the gpubin's on-disk record layouts, the arena
 * that owns a module's storage, and the module checks shared by the reader, the writer
 * and the assembler.
 *
 * On-disk layout (all little-endian; docs/gpubin.md is the user-facing copy). A section
 * is: XSecHeader (16 bytes), fixed-size records, then a pool of bytes that string and
 * data fields point into (offsets relative to the pool's start). Strings are
 * NUL-terminated inside the pool. Pools are canonical: each reference is stored once,
 * in record order, back to back, and nothing else is in the pool (the reader checks
 * this, which also catches damaged record counts). Reserved fields are zero.
 *   .xgpu.info     count = 1:     INFO record; its checksum field is the CRC-32 (zlib's)
 *                                  of the whole ELF image with that field read as zero
 *   .xgpu.kernels  count = kernels: KERNEL records, then all PARAM records in kernel
 *                                  order (sum of nparams of them), then the pool
 *   .xgpu.text     count = insns:  32-byte XInsn encodings, no pool
 *   .xgpu.globals  count = globals: GLOBAL records, then the pool (names, init bytes)
 *   .xgpu.lines    count = records: u32 nfiles, u32 zero, nfiles u32 name offsets,
 *                                  LINE records, then the pool (file names)
 *   .xgpu.reuse    count = insns:  u32 rthld (1..255), u32 source (0 static, 1 profile),
 *                                  then one byte per instruction (optional section)
 *   .xgpu.phases   count = records: u32 delta (1..1000), u32 gap (1..100000), then
 *                                  PHASE records sorted by (kernel, pc) (optional section)
 *   .xgpu.assist   count = routines: ASSIST records, then every routine's instructions
 *                                  (32 bytes each) in record order, then the pool
 *                                  (names) (optional section, count >= 1)
 */
#ifndef XGPU_GPUBIN_INT_H
#define XGPU_GPUBIN_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xgpu/gpubin.h"

/* Section versions written and accepted. */
enum { GB_VER_INFO = 2, GB_VER_KERNELS = 2, GB_VER_TEXT = 1, GB_VER_GLOBALS = 1,
       GB_VER_LINES = 1, GB_VER_REUSE = 1, GB_VER_PHASES = 1, GB_VER_ASSIST = 1 };

/* Record sizes in bytes; field offsets are given where each record is encoded. */
enum {
    GB_SECHDR_SIZE = 16,
    GB_INFO_SIZE = 16,   /* u32 format version, u32 producer, u32 options, u32 checksum */
    GB_KERNEL_SIZE = 40, /* u32 name, signature, code_start, code_count, nregs,
                            shared_bytes, local_bytes, param_bytes, nparams,
                            u16 max_threads, u16 min_blocks (launch bounds) */
    GB_PARAM_SIZE = 12,  /* u32 offset, size, align */
    GB_INSN_SIZE = 32,   /* XInsn field by field, in declaration order */
    GB_GLOBAL_SIZE = 32, /* u32 name, space, align, flags (bit 0: has init, 1: managed),
                            u64 size, u64 init offset */
    GB_LINE_SIZE = 12,   /* u32 pc, file, line */
    GB_PHASE_SIZE = 20,  /* u32 kernel, pc, regs, shared, flags */
    GB_ASSIST_SIZE = 24, /* u32 name, algo, dir, nregs, param_bytes, ntext */
};

#define GB_GLOBAL_HAS_INIT 1u
#define GB_GLOBAL_MANAGED 2u

/* Section names, in the order the writer emits them. */
#define GB_SEC_INFO ".xgpu.info"
#define GB_SEC_KERNELS ".xgpu.kernels"
#define GB_SEC_TEXT ".xgpu.text"
#define GB_SEC_GLOBALS ".xgpu.globals"
#define GB_SEC_LINES ".xgpu.lines"
#define GB_SEC_REUSE ".xgpu.reuse"
#define GB_SEC_PHASES ".xgpu.phases"
#define GB_SEC_ASSIST ".xgpu.assist"

static inline uint16_t gb_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t gb_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t gb_get64(const uint8_t *p)
{
    return (uint64_t)gb_get32(p) | (uint64_t)gb_get32(p + 4) << 32;
}
static inline void gb_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void gb_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void gb_put64(uint8_t *p, uint64_t v)
{
    gb_put32(p, (uint32_t)v);
    gb_put32(p + 4, (uint32_t)(v >> 32));
}

/* Byte offset of the INFO record's checksum field inside its section. */
#define GB_INFO_CHECKSUM_AT (GB_SECHDR_SIZE + 12)

/* The image's checksum: CRC-32 of img[0, len) with the 4 bytes at field read as zero. */
uint32_t gb_image_crc(const uint8_t *img, size_t len, size_t field);

/* XInsn <-> 32 bytes. */
void gb_encode_insn(uint8_t *p, const XInsn *in);
void gb_decode_insn(XInsn *in, const uint8_t *p);

/* Arena: a chain of blocks freed together; allocations are zeroed and 16-aligned. */
typedef struct GbArena GbArena;
GbArena *gb_arena_new(void);
void *gb_arena_alloc(GbArena *a, size_t size); /* NULL when out of memory */
char *gb_arena_strdup(GbArena *a, const char *s);
void gb_arena_free(GbArena *a);

/* Deep copy of g into a fresh module that owns its storage (arena). NULL on no memory. */
XGpubin *gb_clone(const XGpubin *g);

/* Checks a module's cross-field invariants: kernel code ranges and resources,
 * parameter tables, every instruction (xisa_validate with its kernel's code_count,
 * registers below nregs, gaddr symbols), globals, line records, phase records, assist
 * routines (fields in range, one per (algo, dir), each instruction as a kernel's).
 * 0 or -1 + message. */
int gb_check(const XGpubin *g, char *err, size_t errlen);

/* Name table of the opcode's sub-operation (XInsn.sub), valid indices [*lo, *hi); NULL
 * (and *hi = 0) for opcodes without one. Defined in isa.c. */
const char *const *xisa_sub_names(unsigned op, unsigned *lo, unsigned *hi);

/* printf into err (if any); returns -1. */
int gb_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
