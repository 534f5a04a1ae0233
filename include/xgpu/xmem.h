/*
 * xmem.h - XMem atoms for host code (docs/annotations.md): CreateAtom, AtomMap, AtomUnmap,
 * Atom2DMap, Atom3DMap, AtomActivate, AtomDeactivate, and a small query API.
 *
 * An atom is a static description of a class of data (its value type, access pattern,
 * read/write character, intensity, reuse) that ranges of virtual addresses are mapped to
 * at run time and that is switched active or inactive around program phases.
 *
 * CreateAtom is static: its attributes must be compile-time constants, and every dynamic
 * execution of one call site returns the same atom ID. The macro keeps each call site's
 * attributes in a constant per-site record (clang rejects non-constant attributes with a
 * located error); xgpu-cc's host pass gathers the records of a translation unit into the
 * versioned `xgpu_atoms` section, assigns IDs, and rewrites each call to name its record
 * in that table. At start the runtime loads every table into the Global Attribute Table;
 * an atom's ID is its record's position among all tables of the program. A program built
 * without the host pass gets a one-line error and XMEM_NO_ATOM from CreateAtom.
 *
 * Attributes are written as a braced list in XMemAttrs field order (or, in C, with
 * designators), e.g.
 *     AtomID a = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 200, 255, 4});
 *     AtomID b = CreateAtom(XMEM_ATTRS(XMEM_I32 | XMEM_INDEX, XMEM_IRREGULAR, 0,
 *                                      XMEM_READ_WRITE, 10, 0, 4));
 * Lengths and sizes of maps are in bytes. The map, activate and query functions return
 * cudaSuccess or cudaErrorInvalidValue (with one line on stderr); they never abort.
 * docs/annotations.md describes the model, the table format and every choice made.
 */
#ifndef XGPU_XMEM_H
#define XGPU_XMEM_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#ifndef XGPU_CONSTEXPR
#define XGPU_CONSTEXPR constexpr
#endif
#else
#ifndef XGPU_CONSTEXPR
#define XGPU_CONSTEXPR const
#endif
#endif

typedef uint8_t AtomID;

#define XMEM_NO_ATOM ((AtomID)0xFF) /* "no atom": at most 255 atoms, IDs 0..254 */
#define XMEM_MAX_ATOMS 255
#define XMEM_ATTR_VERSION 1         /* byte 18 of the attribute record */

/* value_props bits: exactly one type bit (0-7), any of the property bits (8-11). */
enum XMemValueProp {
    XMEM_I8 = 1u << 0,
    XMEM_I16 = 1u << 1,
    XMEM_I32 = 1u << 2,
    XMEM_I64 = 1u << 3,
    XMEM_F16 = 1u << 4,
    XMEM_F32 = 1u << 5,
    XMEM_F64 = 1u << 6,
    XMEM_CHAR8 = 1u << 7,
    XMEM_SPARSE = 1u << 8,
    XMEM_APPROX = 1u << 9,
    XMEM_POINTER = 1u << 10,
    XMEM_INDEX = 1u << 11,
};
#define XMEM_TYPE_MASK 0xFFu
#define XMEM_PROPS_MASK 0xFFFu

enum XMemPattern {
    XMEM_PATTERN_NONE = 0, /* not stated */
    XMEM_REGULAR = 1,      /* constant stride (stride != 0) */
    XMEM_IRREGULAR = 2,
    XMEM_NON_DET = 3,      /* not determinable */
};

enum XMemRW {
    XMEM_READ_ONLY = 0,
    XMEM_READ_WRITE = 1,
    XMEM_WRITE_ONLY = 2,
};

/* XMem's atom attributes (ISCA 2018; docs/annotations.md) (the version byte is the table's, not the user's). */
typedef struct XMemAttrs {
    uint32_t value_props; /* XMemValueProp bits */
    uint8_t pattern;      /* XMemPattern */
    int64_t stride;       /* bytes, REGULAR only */
    uint8_t rw;           /* XMemRW */
    uint8_t intensity;    /* 0 = coldest */
    uint8_t reuse;
    uint16_t elem_size;   /* bytes per element, 0 = unknown */
} XMemAttrs;

#define XMEM_ATTRS(props, pattern, stride, rw, intensity, reuse, elem_size)                 \
    {(props), (pattern), (stride), (rw), (intensity), (reuse), (elem_size)}

/* One CreateAtom call site, as the macro leaves it for the host pass. */
#define XMEM_SITE_MAGIC 0x53544158u /* "XATS" */
typedef struct XAtomSite {
    uint32_t magic; /* XMEM_SITE_MAGIC */
    XMemAttrs attrs;
    const char *file;
    unsigned line;
    unsigned column; /* where the call's expansion ends (__builtin_COLUMN) */
} XAtomSite;

/* What the host pass's rewritten calls (and, unrewritten, the macro) pass. */
AtomID __xgpu_create_atom(const void *record);

#define CreateAtom(...)                                                                   \
    (__extension__({                                                                      \
        static XGPU_CONSTEXPR XAtomSite xgpu_atom_site_ = {                               \
            XMEM_SITE_MAGIC, __VA_ARGS__, __FILE__, __LINE__, __builtin_COLUMN()};        \
        __xgpu_create_atom(&xgpu_atom_site_);                                             \
    }))

/* map != 0 maps [base, base + bytes) to the atom (taking it from any atom it was mapped
 * to); map == 0 unmaps what of it is mapped to this atom. */
cudaError_t AtomMap(AtomID id, const void *base, size_t bytes, int map);
cudaError_t AtomUnmap(AtomID id, const void *base, size_t bytes);
/* A sizeX x sizeY block of rows that start lenX bytes apart. */
cudaError_t Atom2DMap(AtomID id, const void *base, size_t lenX, size_t sizeX, size_t sizeY,
                      int map);
/* sizeZ planes lenX * lenY bytes apart of sizeY rows lenX bytes apart of sizeX bytes. */
cudaError_t Atom3DMap(AtomID id, const void *base, size_t lenX, size_t lenY, size_t sizeX,
                      size_t sizeY, size_t sizeZ, int map);
cudaError_t AtomActivate(AtomID id);
cudaError_t AtomDeactivate(AtomID id);

/* Queries (tests and self-checking samples). */
typedef struct XAtomInfo {
    XMemAttrs attrs;
    const char *file; /* call site of CreateAtom */
    unsigned line, column;
    int created;      /* CreateAtom of its site has run */
    int active;       /* bit of the Atom Status Table */
    size_t nranges;   /* mapped ranges (maximal, sorted by address) */
    uint64_t mapped_bytes;
} XAtomInfo;

typedef struct XAtomRange {
    uint64_t base;
    uint64_t bytes;
} XAtomRange;

int xgpuAtomCount(void); /* atoms in the Global Attribute Table */
cudaError_t xgpuAtomQuery(AtomID id, XAtomInfo *info);
/* Copies up to max of the atom's ranges; returns how many it has, -1 for a bad ID. */
int xgpuAtomRanges(AtomID id, XAtomRange *out, int max);
AtomID xgpuAtomLookup(const void *addr); /* ATOM_LOOKUP: XMEM_NO_ATOM when unmapped */
/* The Atom Status Table: 32 bytes, bit i = atom i active. */
void xgpuAtomStatus(uint8_t ast[32]);

/* Called by the constructor the host pass adds to each translation unit. */
void __xgpu_register_host(const void *atoms_begin, const void *atoms_end,
                          const void *ldesc_begin, const void *ldesc_end);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif
