/*
 * 791-xmem-runtime: the runtime's XMem state driven directly, as the host pass's code
 * would: atom tables written with the shared writer are registered like a program's
 * xgpu_atoms section, and records are passed to __xgpu_create_atom. Checks the Global
 * Attribute Table (IDs = record positions, across tables, at most 255), maps (1D, 2D,
 * 3D, overlapping maps that take ranges from another atom, unmap of one atom's part only,
 * merging), the Atom Status Table, and one-line errors for bad input. Each test runs in
 * its own process, so each starts with an empty runtime.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/hostsec.h"
#include "xgpu/xmem.h"

static XHostAtom atom(uint32_t props, uint8_t pattern, int64_t stride, unsigned line)
{
    XHostAtom a = {.attrs = {props, pattern, stride, XMEM_READ_WRITE, 7, 9, 4},
                   .file = "prog.cu", .line = line, .column = 5};
    return a;
}

/* A section holding one table of n atoms (registered; the caller keeps it alive). */
static uint8_t *register_atoms(size_t n, size_t *len)
{
    XHostAtom *v = calloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = atom(i % 2 ? XMEM_I32 | XMEM_INDEX : XMEM_F32, i % 2 ? XMEM_IRREGULAR : XMEM_REGULAR,
                    i % 2 ? 0 : 4 * (int64_t)(i + 1), (unsigned)(10 + i));
    uint8_t *buf;
    cr_assert_eq(xhost_atoms_write(v, n, &buf, len), 0);
    free(v);
    __xgpu_register_host(buf, buf + *len, NULL, NULL);
    return buf;
}

static const void *rec(const uint8_t *table, size_t i)
{
    return table + XHOST_HEADER + i * XHOST_ATOM_REC;
}

static void *va(uint64_t a) { return (void *)(uintptr_t)a; }

Test(xmem, ids_are_record_positions_and_stable)
{
    size_t len;
    uint8_t *t = register_atoms(3, &len);
    cr_assert_eq(xgpuAtomCount(), 3);
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < 3; i++)
            cr_assert_eq(__xgpu_create_atom(rec(t, i)), i);
    XAtomInfo in;
    cr_assert_eq(xgpuAtomQuery(1, &in), cudaSuccess);
    cr_assert_eq(in.attrs.value_props, XMEM_I32 | XMEM_INDEX);
    cr_assert_eq(in.attrs.pattern, XMEM_IRREGULAR);
    cr_assert_eq(in.attrs.intensity, 7);
    cr_assert_eq(in.attrs.reuse, 9);
    cr_assert_str_eq(in.file, "prog.cu");
    cr_assert_eq(in.line, 11);
    cr_assert_eq(in.column, 5);
    cr_assert(in.created);
    cr_assert_not(in.active);
    cr_assert_eq(in.nranges, 0);
}

Test(xmem, tables_of_several_units_number_on)
{
    XHostAtom a[3] = {atom(XMEM_F32, XMEM_REGULAR, 4, 1), atom(XMEM_I8, 0, 0, 2),
                      atom(XMEM_F64, XMEM_NON_DET, 0, 3)};
    uint8_t *t1, *t2;
    size_t l1, l2;
    cr_assert_eq(xhost_atoms_write(a, 2, &t1, &l1), 0);
    cr_assert_eq(xhost_atoms_write(a + 2, 1, &t2, &l2), 0);
    /* as the linker lays them out: 8-aligned, 16 zero bytes of padding between */
    uint8_t *sec = calloc(1, l1 + 16 + l2);
    memcpy(sec, t1, l1);
    memcpy(sec + l1 + 16, t2, l2);
    __xgpu_register_host(sec, sec + l1 + 16 + l2, NULL, NULL);
    __xgpu_register_host(sec, sec + l1 + 16 + l2, NULL, NULL); /* a second unit: ignored */
    cr_assert_eq(xgpuAtomCount(), 3);
    cr_assert_eq(__xgpu_create_atom(sec + l1 + 16 + XHOST_HEADER), 2);
    cr_assert_eq(__xgpu_create_atom(sec + XHOST_HEADER + XHOST_ATOM_REC), 1);
    XAtomInfo in;
    cr_assert_eq(xgpuAtomQuery(2, &in), cudaSuccess);
    cr_assert_eq(in.attrs.value_props, XMEM_F64);
    cr_assert_eq(in.line, 3);
    free(t1);
    free(t2);
}

Test(xmem, more_than_255_atoms, .init = cr_redirect_stderr)
{
    size_t len;
    uint8_t *t = register_atoms(300, &len);
    cr_assert_eq(xgpuAtomCount(), XMEM_MAX_ATOMS);
    cr_assert_eq(__xgpu_create_atom(rec(t, 254)), 254);
    cr_assert_eq(__xgpu_create_atom(rec(t, 255)), XMEM_NO_ATOM);
    cr_assert_eq(__xgpu_create_atom(rec(t, 299)), XMEM_NO_ATOM);
    cr_assert_eq(AtomActivate(XMEM_NO_ATOM), cudaErrorInvalidValue);
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

Test(xmem, map_unmap_and_lookup)
{
    size_t len;
    register_atoms(2, &len);
    cr_assert_eq(AtomMap(0, va(0x10000), 0x1000, 1), cudaSuccess);
    cr_assert_eq(xgpuAtomLookup(va(0x10000)), 0);
    cr_assert_eq(xgpuAtomLookup(va(0x10fff)), 0);
    cr_assert_eq(xgpuAtomLookup(va(0x11000)), XMEM_NO_ATOM);
    cr_assert_eq(xgpuAtomLookup(va(0xffff)), XMEM_NO_ATOM);
    /* unmapping the middle splits the range */
    cr_assert_eq(AtomUnmap(0, va(0x10400), 0x100), cudaSuccess);
    XAtomRange r[4];
    cr_assert_eq(xgpuAtomRanges(0, r, 4), 2);
    cr_assert_eq(r[0].base, 0x10000);
    cr_assert_eq(r[0].bytes, 0x400);
    cr_assert_eq(r[1].base, 0x10500);
    cr_assert_eq(r[1].bytes, 0xb00);
    /* mapping the hole again merges everything back into one range */
    cr_assert_eq(AtomMap(0, va(0x10400), 0x100, 1), cudaSuccess);
    cr_assert_eq(xgpuAtomRanges(0, r, 4), 1);
    cr_assert_eq(r[0].bytes, 0x1000);
    /* map=0 through AtomMap unmaps */
    cr_assert_eq(AtomMap(0, va(0x10000), 0x1000, 0), cudaSuccess);
    cr_assert_eq(xgpuAtomRanges(0, r, 4), 0);
}

Test(xmem, overlapping_map_takes_the_range_from_another_atom)
{
    size_t len;
    register_atoms(2, &len);
    cr_assert_eq(AtomMap(0, va(0x1000), 0x1000, 1), cudaSuccess);
    cr_assert_eq(AtomMap(1, va(0x1800), 0x1000, 1), cudaSuccess);
    cr_assert_eq(xgpuAtomLookup(va(0x17ff)), 0);
    cr_assert_eq(xgpuAtomLookup(va(0x1800)), 1);
    cr_assert_eq(xgpuAtomLookup(va(0x27ff)), 1);
    XAtomInfo in;
    cr_assert_eq(xgpuAtomQuery(0, &in), cudaSuccess);
    cr_assert_eq(in.mapped_bytes, 0x800);
    /* atom 0 unmapping its old extent leaves atom 1's part alone */
    cr_assert_eq(AtomUnmap(0, va(0x1000), 0x1000), cudaSuccess);
    cr_assert_eq(xgpuAtomLookup(va(0x1800)), 1);
    cr_assert_eq(xgpuAtomQuery(1, &in), cudaSuccess);
    cr_assert_eq(in.mapped_bytes, 0x1000);
    /* a map inside another atom's range splits it in three */
    cr_assert_eq(AtomMap(0, va(0x1900), 0x10, 1), cudaSuccess);
    cr_assert_eq(xgpuAtomRanges(1, NULL, 0), 2);
    cr_assert_eq(xgpuAtomLookup(va(0x1905)), 0);
}

Test(xmem, maps_2d_and_3d_are_linearised_by_rows)
{
    size_t len;
    register_atoms(1, &len);
    /* 4 rows of 16 bytes, 64 bytes apart */
    cr_assert_eq(Atom2DMap(0, va(0x4000), 64, 16, 4, 1), cudaSuccess);
    XAtomRange r[16];
    cr_assert_eq(xgpuAtomRanges(0, r, 16), 4);
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(r[i].base, 0x4000 + 64u * i);
        cr_assert_eq(r[i].bytes, 16);
    }
    cr_assert_eq(xgpuAtomLookup(va(0x4010)), XMEM_NO_ATOM);
    cr_assert_eq(Atom2DMap(0, va(0x4000), 64, 16, 4, 0), cudaSuccess);
    cr_assert_eq(xgpuAtomRanges(0, r, 16), 0);
    /* full rows are one range */
    cr_assert_eq(Atom2DMap(0, va(0x4000), 64, 64, 4, 1), cudaSuccess);
    cr_assert_eq(xgpuAtomRanges(0, r, 16), 1);
    cr_assert_eq(r[0].bytes, 256);
    /* 3D: 2 planes of 3 rows of 8 bytes in a 32 x 4 x .. array */
    cr_assert_eq(Atom3DMap(0, va(0x8000), 32, 4, 8, 3, 2, 1), cudaSuccess);
    cr_assert_eq(xgpuAtomRanges(0, r, 16), 7);
    cr_assert_eq(r[4].base, 0x8000 + 128);
    cr_assert_eq(r[6].base, 0x8000 + 128 + 64);
    XAtomInfo in;
    cr_assert_eq(xgpuAtomQuery(0, &in), cudaSuccess);
    cr_assert_eq(in.mapped_bytes, 256 + 6 * 8);
}

Test(xmem, activate_sets_the_status_bitmap)
{
    size_t len;
    register_atoms(12, &len);
    uint8_t ast[32];
    cr_assert_eq(AtomActivate(0), cudaSuccess);
    cr_assert_eq(AtomActivate(9), cudaSuccess);
    xgpuAtomStatus(ast);
    cr_assert_eq(ast[0], 0x01);
    cr_assert_eq(ast[1], 0x02);
    cr_assert_eq(AtomDeactivate(0), cudaSuccess);
    xgpuAtomStatus(ast);
    cr_assert_eq(ast[0], 0);
    XAtomInfo in;
    cr_assert_eq(xgpuAtomQuery(9, &in), cudaSuccess);
    cr_assert(in.active);
}

Test(xmem, bad_input_is_an_error_not_a_crash, .init = cr_redirect_stderr)
{
    size_t len;
    register_atoms(2, &len);
    cr_assert_eq(AtomMap(2, va(0x1000), 16, 1), cudaErrorInvalidValue);
    cr_assert_eq(AtomMap(0, NULL, 16, 1), cudaErrorInvalidValue);
    cr_assert_eq(AtomMap(0, va(UINT64_MAX - 8), 16, 1), cudaErrorInvalidValue);
    cr_assert_eq(Atom2DMap(0, va(0x1000), 8, 16, 2, 1), cudaErrorInvalidValue);
    cr_assert_eq(AtomActivate(7), cudaErrorInvalidValue);
    cr_assert_eq(xgpuAtomQuery(0, NULL), cudaErrorInvalidValue);
    cr_assert_eq(xgpuAtomRanges(5, NULL, 0), -1);
    cr_assert_eq(AtomMap(0, va(0x1000), 0, 1), cudaSuccess); /* empty: nothing to do */
    cr_assert_eq(xgpuAtomRanges(0, NULL, 0), 0);
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

/* A program compiled without the host pass passes its own call-site record. */
Test(xmem, site_not_in_a_table_is_named, .init = cr_redirect_stderr)
{
    static const XAtomSite site = {XMEM_SITE_MAGIC, {XMEM_F32, 0, 0, 0, 0, 0, 4},
                                   "plain.c", 42, 9};
    cr_assert_eq(__xgpu_create_atom(&site), XMEM_NO_ATOM);
    cr_assert_eq(xgpuAtomCount(), 0);
    fflush(stderr);
    cr_assert_stderr_eq_str("xgpu: plain.c:42: CreateAtom: the call site is in no atom table "
                            "(compile the file with xgpu-cc); no atom\n");
}

Test(xmem, malformed_section_is_rejected_at_registration, .init = cr_redirect_stderr)
{
    size_t len;
    XHostAtom a = atom(XMEM_F32, XMEM_REGULAR, 4, 1);
    uint8_t *t;
    cr_assert_eq(xhost_atoms_write(&a, 1, &t, &len), 0);
    t[4] = 9; /* version */
    __xgpu_register_host(t, t + len, NULL, NULL);
    cr_assert_eq(xgpuAtomCount(), 0);
    cr_assert_eq(__xgpu_create_atom(rec(t, 0)), XMEM_NO_ATOM);
    fflush(stderr);
    cr_assert_stderr_neq_str("");
    free(t);
}
