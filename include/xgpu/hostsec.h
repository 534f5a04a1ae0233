/*
 * hostsec.h - the host-side tables xgpu-cc puts into host objects: the XMem atom table
 * (section `xgpu_atoms`) and the Locality Descriptor table (section `xgpu_ldesc`).
 *
 * Each translation unit contributes one table; the linker concatenates them, each
 * aligned to 8 bytes with zero padding between. A table is a versioned XSecHeader (the
 * gpubin's section header, with a table-specific magic), `count` fixed-size records, and
 * a string pool of NUL-terminated strings; strings are named by offsets into the pool, so
 * tables hold no pointers and need no relocations. `size` covers header, records, pool
 * and the padding to 8 bytes. All integers little-endian.
 *
 * Atom record (XHOST_ATOM_REC = 32 bytes):
 *   0..18  the 19-byte record of XMem's atom attributes (value_props u32, pattern u8,
 *          stride i64, rw u8, intensity u8, reuse u8, elem_size u16, version u8)
 *   19     reserved (0)
 *   20..23 file (pool offset)   24..27 line   28..31 column (0 = unknown)
 * Descriptor record (XHOST_LDESC_REC = 32 bytes):
 *   0 locality  1 sharing  2 pattern  3 priority  4..6 compute-data map  7 reserved (0)
 *   8..11 elem_size   12..15 kernel (pool offset, XHOST_NO_STRING when not static)
 *   16..19 file (pool offset)   20..23 line   24..27 column   28..31 reserved (0)
 *
 * The reader is bounds-checked and versioned: malformed bytes give a non-zero return and
 * a one-line message naming the section and offset, never a crash. Parsed strings point
 * into the caller's bytes, which must outlive the result. The runtime (Global Attribute
 * Table, descriptor records) and xgpu-objdump share this module; the writer is the host
 * pass's (and tests').
 */
#ifndef XGPU_HOSTSEC_H
#define XGPU_HOSTSEC_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xgpu/ldesc.h"
#include "xgpu/xmem.h"

struct json_object;

#define XHOST_ATOMS_MAGIC 0x4D544158u /* "XATM" */
#define XHOST_LDESC_MAGIC 0x43444C58u /* "XLDC" */
#define XHOST_ATOMS_VERSION 1u
#define XHOST_LDESC_VERSION 1u
#define XHOST_ATOM_REC 32u
#define XHOST_LDESC_REC 32u
#define XHOST_HEADER 16u
#define XHOST_NO_STRING 0xFFFFFFFFu
#define XHOST_ATOMS_SECTION "xgpu_atoms"
#define XHOST_LDESC_SECTION "xgpu_ldesc"

typedef struct XHostAtom {
    XMemAttrs attrs;
    uint8_t version;  /* attribute record version (XMEM_ATTR_VERSION) */
    const char *file; /* call site */
    uint32_t line, column;
    size_t offset;    /* of its record in the bytes read (the writer ignores it) */
} XHostAtom;

typedef struct XHostLDesc {
    XLDStatic s;
    const char *kernel; /* device name of the kernel when static, else "" */
    const char *file;
    uint32_t line, column;
    size_t offset;
} XHostLDesc;

typedef struct XHostAtoms {
    XHostAtom *v;   /* every record of every table, in section order */
    size_t n;
    size_t ntables;
} XHostAtoms;

typedef struct XHostLDescs {
    XHostLDesc *v;
    size_t n;
    size_t ntables;
} XHostLDescs;

/* Validation shared by the host pass and the reader: 0 when valid, else non-zero with a
 * message ("REGULAR access pattern needs a non-zero stride"). */
int xhost_atom_check(const XMemAttrs *a, char *msg, size_t n);
int xhost_ldesc_check(const XLDStatic *s, char *msg, size_t n);

/* Parse a whole section (one or more tables). 0 on success; on error out is empty. */
int xhost_atoms_read(const void *buf, size_t len, XHostAtoms *out, char *err, size_t errlen);
int xhost_ldesc_read(const void *buf, size_t len, XHostLDescs *out, char *err, size_t errlen);
void xhost_atoms_free(XHostAtoms *a);
void xhost_ldesc_free(XHostLDescs *d);

/* Write one table (malloc'd, size a multiple of 8). Record i starts at
 * XHOST_HEADER + i * record size. 0 on success, -1 when out of memory or too large. */
int xhost_atoms_write(const XHostAtom *v, size_t n, uint8_t **buf, size_t *len);
int xhost_ldesc_write(const XHostLDesc *v, size_t n, uint8_t **buf, size_t *len);

/* Names: "F32|INDEX", "REGULAR", "READ_ONLY", "INTER_THREAD", "COACCESSED". */
const char *xhost_props_name(uint32_t props, char *buf, size_t n);
const char *xhost_pattern_name(unsigned pattern);
const char *xhost_rw_name(unsigned rw);
const char *xhost_locality_name(unsigned locality);
const char *xhost_sharing_name(unsigned sharing);
const char *xhost_ldpattern_name(unsigned pattern);

/* Text: one line per record, after a column-header line. */
void xhost_atoms_print(FILE *f, const XHostAtoms *a);
void xhost_ldesc_print(FILE *f, const XHostLDescs *d);
/* JSON: an array of objects, one per record (the caller owns the result). */
struct json_object *xhost_atoms_json(const XHostAtoms *a);
struct json_object *xhost_ldesc_json(const XHostLDescs *d);

#pragma GCC visibility pop

#endif
