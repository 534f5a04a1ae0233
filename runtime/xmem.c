/*
 * xmem.c - XMem atoms at run time (docs/annotations.md): the Global Attribute Table, the
 * address-to-atom mapping, the Atom Status Table, and the query API.
 *
 * GAT. Each registered xgpu_atoms section is parsed (hostsec.c) and its records appended;
 * an atom's ID is its record's index, so every execution of one CreateAtom call site
 * returns the same ID and IDs are unique across translation units. IDs stop at 254
 * (0xFF is "no atom"): a record beyond that is reported once and its CreateAtom returns
 * XMEM_NO_ATOM. A call site whose record is in no registered table (the file was not
 * compiled by xgpu-cc's host pass) is named by its own file:line and gets XMEM_NO_ATOM.
 *
 * Mapping. What the AAM would hold is kept as a sorted list of disjoint maximal ranges,
 * each owned by one atom: a VA maps to at most one atom. Mapping a range takes it from
 * whatever atom held it (a remap), unmapping removes only what the named atom holds.
 * 2D and 3D maps are linearised into one range per row. There is no hardware model yet:
 * the state is kept for queries (and later for the emulator's mechanisms).
 *
 * AST. One bit per atom, 32 bytes, set by AtomActivate, cleared by AtomDeactivate. The
 * state is the process's, not the device's: cudaDeviceReset keeps it.
 *
 * Every entry point returns cudaSuccess or cudaErrorInvalidValue with one line on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

void rt_xmem_register(RtContext *c, const void *begin, const void *end)
{
    RtXmem *x = &c->xmem;
    if (rt_hostsec_known(x->secs, x->nsecs, begin))
        return;
    XHostAtoms a;
    char err[256];
    size_t len = (size_t)((const uint8_t *)end - (const uint8_t *)begin);
    if (x->nsecs == RT_MAX_HOST_SECS) {
        fprintf(stderr, "xgpu: too many atom tables (at most %d images)\n", RT_MAX_HOST_SECS);
        return;
    }
    if (xhost_atoms_read(begin, len, &a, err, sizeof err)) {
        fprintf(stderr, "xgpu: cannot load the atom table: %s\n", err);
        return;
    }
    XHostAtom *gat = realloc(x->gat, (x->ngat + a.n + 1) * sizeof *gat);
    if (!gat) {
        fprintf(stderr, "xgpu: cannot load the atom table: out of memory\n");
        xhost_atoms_free(&a);
        return;
    }
    if (a.n)
        memcpy(gat + x->ngat, a.v, a.n * sizeof *gat);
    x->gat = gat;
    x->secs[x->nsecs++] = (RtHostSec){begin, end, x->ngat, a.n};
    if (x->ngat < XMEM_MAX_ATOMS && x->ngat + a.n > XMEM_MAX_ATOMS)
        fprintf(stderr, "xgpu: the program has more than %d atoms; CreateAtom returns "
                "XMEM_NO_ATOM for %s:%u and later call sites\n", XMEM_MAX_ATOMS,
                gat[XMEM_MAX_ATOMS].file, gat[XMEM_MAX_ATOMS].line);
    x->ngat += a.n;
    xhost_atoms_free(&a);
}

/* The GAT index of a record address, or -1. */
static long rx_ordinal(const RtXmem *x, const void *rec)
{
    int s = rt_hostsec_of(x->secs, x->nsecs, rec);
    if (s < 0)
        return -1;
    size_t off = (size_t)((const uint8_t *)rec - x->secs[s].begin);
    size_t lo = x->secs[s].first, hi = lo + x->secs[s].count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->gat[mid].offset == off)
            return (long)mid;
        if (x->gat[mid].offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int rx_bit(const uint8_t *bits, unsigned i) { return bits[i / 8] >> (i % 8) & 1; }
static void rx_set(uint8_t *bits, unsigned i, int on)
{
    bits[i / 8] = (uint8_t)(on ? bits[i / 8] | 1u << (i % 8) : bits[i / 8] & ~(1u << (i % 8)));
}

AtomID __xgpu_create_atom(const void *record)
{
    RT_ENTER(c);
    RtXmem *x = &c->xmem;
    long id = record ? rx_ordinal(x, record) : -1;
    if (id < 0) {
        const XAtomSite *s = record;
        if (s && s->magic == XMEM_SITE_MAGIC && s->file)
            fprintf(stderr, "xgpu: %s:%u: CreateAtom: the call site is in no atom table "
                    "(compile the file with xgpu-cc); no atom\n", s->file, s->line);
        else
            fprintf(stderr, "xgpu: CreateAtom: not a call-site record; no atom\n");
        return XMEM_NO_ATOM;
    }
    if (id >= XMEM_MAX_ATOMS) {
        fprintf(stderr, "xgpu: %s:%u: CreateAtom: more than %d atoms; no atom\n",
                x->gat[id].file, x->gat[id].line, XMEM_MAX_ATOMS);
        return XMEM_NO_ATOM;
    }
    rx_set(x->created, (unsigned)id, 1);
    return (AtomID)id;
}

/* ---- the range list ---------------------------------------------------------------- */

/* First range whose end is past lo. */
static size_t rx_first(const RtXmem *x, uint64_t lo)
{
    size_t a = 0, b = x->nranges;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (x->ranges[m].hi <= lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

static int rx_insert_at(RtXmem *x, size_t i, RtAtomRange r)
{
    if (x->nranges == x->capranges) {
        size_t cap = x->capranges ? x->capranges * 2 : 64;
        RtAtomRange *nr = realloc(x->ranges, cap * sizeof *nr);
        if (!nr)
            return -1;
        x->ranges = nr;
        x->capranges = cap;
    }
    memmove(x->ranges + i + 1, x->ranges + i, (x->nranges - i) * sizeof *x->ranges);
    x->ranges[i] = r;
    x->nranges++;
    return 0;
}

static void rx_remove_at(RtXmem *x, size_t i)
{
    memmove(x->ranges + i, x->ranges + i + 1, (x->nranges - i - 1) * sizeof *x->ranges);
    x->nranges--;
}

/* Removes [lo, hi) from the ranges of atom (any atom when atom < 0). */
static int rx_cut(RtXmem *x, uint64_t lo, uint64_t hi, int atom)
{
    for (size_t i = rx_first(x, lo); i < x->nranges && x->ranges[i].lo < hi;) {
        RtAtomRange *r = &x->ranges[i];
        if (atom >= 0 && r->atom != atom) {
            i++;
        } else if (r->lo < lo && r->hi > hi) { /* split in two */
            RtAtomRange tail = {hi, r->hi, r->atom};
            r->hi = lo;
            return rx_insert_at(x, i + 1, tail);
        } else if (r->lo < lo) {
            r->hi = lo;
            i++;
        } else if (r->hi > hi) {
            r->lo = hi;
            return 0;
        } else
            rx_remove_at(x, i);
    }
    return 0;
}

/* Maps [lo, hi) to atom, merging with adjacent ranges of the same atom. */
static int rx_map(RtXmem *x, uint64_t lo, uint64_t hi, uint8_t atom)
{
    if (rx_cut(x, lo, hi, -1))
        return -1;
    size_t i = rx_first(x, lo);
    if (i > 0 && x->ranges[i - 1].hi == lo && x->ranges[i - 1].atom == atom) {
        x->ranges[i - 1].hi = hi;
        if (i < x->nranges && x->ranges[i].lo == hi && x->ranges[i].atom == atom) {
            x->ranges[i - 1].hi = x->ranges[i].hi;
            rx_remove_at(x, i);
        }
        return 0;
    }
    if (i < x->nranges && x->ranges[i].lo == hi && x->ranges[i].atom == atom) {
        x->ranges[i].lo = lo;
        return 0;
    }
    return rx_insert_at(x, i, (RtAtomRange){lo, hi, atom});
}

/* ---- the API ----------------------------------------------------------------------- */

static cudaError_t rx_bad(const char *api, const char *what)
{
    fprintf(stderr, "xgpu: %s: %s\n", api, what);
    return cudaErrorInvalidValue;
}

static cudaError_t rx_check_id(const RtXmem *x, const char *api, AtomID id)
{
    if (id == XMEM_NO_ATOM || id >= x->ngat) {
        fprintf(stderr, "xgpu: %s: no atom %u (the program has %zu)\n", api, id,
                x->ngat < XMEM_MAX_ATOMS ? x->ngat : (size_t)XMEM_MAX_ATOMS);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* One row: [base, base + bytes). */
static cudaError_t rx_row(RtXmem *x, AtomID id, uint64_t base, uint64_t bytes, int map)
{
    if (!bytes)
        return cudaSuccess;
    int bad = map ? rx_map(x, base, base + bytes, id) : rx_cut(x, base, base + bytes, id);
    return bad ? rx_bad("AtomMap", "out of memory") : cudaSuccess;
}

/* The general case: sizeZ planes of sizeY rows of sizeX bytes. */
static cudaError_t rx_block(const char *api, AtomID id, const void *base, uint64_t lenX,
                            uint64_t lenY, uint64_t sx, uint64_t sy, uint64_t sz, int map)
{
    RT_ENTER(c);
    RtXmem *x = &c->xmem;
    cudaError_t e = rx_check_id(x, api, id);
    if (e != cudaSuccess)
        return e;
    if (!sx || !sy || !sz)
        return cudaSuccess;
    if (!base)
        return rx_bad(api, "null base address");
    if ((sy > 1 && sx > lenX) || (sz > 1 && sy > lenY))
        return rx_bad(api, "a row (plane) is longer than the distance between rows (planes)");
    uint64_t b = rt_addr(base), plane, zspan, yspan, last; /* last: bytes spanned */
    if (__builtin_mul_overflow(lenX, lenY, &plane) ||
        __builtin_mul_overflow(sz - 1, plane, &zspan) ||
        __builtin_mul_overflow(sy - 1, lenX, &yspan) ||
        __builtin_add_overflow(zspan, yspan, &last) || __builtin_add_overflow(last, sx, &last) ||
        b + last < b)
        return rx_bad(api, "the block wraps around the address space");
    if (lenX == sx && (sz == 1 || plane == sx * sy)) /* contiguous: one range */
        return rx_row(x, id, b, sz == 1 ? sx * sy : plane * sz, map);
    for (uint64_t z = 0; z < sz; z++)
        for (uint64_t y = 0; y < sy; y++)
            if ((e = rx_row(x, id, b + z * plane + y * lenX, sx, map)) != cudaSuccess)
                return e;
    return cudaSuccess;
}

cudaError_t AtomMap(AtomID id, const void *base, size_t bytes, int map)
{
    return rx_block(map ? "AtomMap" : "AtomUnmap", id, base, bytes, 1, bytes, 1, 1, map);
}

cudaError_t AtomUnmap(AtomID id, const void *base, size_t bytes)
{
    return AtomMap(id, base, bytes, 0);
}

cudaError_t Atom2DMap(AtomID id, const void *base, size_t lenX, size_t sizeX, size_t sizeY,
                      int map)
{
    return rx_block("Atom2DMap", id, base, lenX, sizeY, sizeX, sizeY, 1, map);
}

cudaError_t Atom3DMap(AtomID id, const void *base, size_t lenX, size_t lenY, size_t sizeX,
                      size_t sizeY, size_t sizeZ, int map)
{
    return rx_block("Atom3DMap", id, base, lenX, lenY, sizeX, sizeY, sizeZ, map);
}

static cudaError_t rx_activate(const char *api, AtomID id, int on)
{
    RT_ENTER(c);
    RtXmem *x = &c->xmem;
    cudaError_t e = rx_check_id(x, api, id);
    if (e == cudaSuccess)
        rx_set(x->ast, id, on);
    return e;
}

cudaError_t AtomActivate(AtomID id) { return rx_activate("AtomActivate", id, 1); }
cudaError_t AtomDeactivate(AtomID id) { return rx_activate("AtomDeactivate", id, 0); }

/* ---- queries ----------------------------------------------------------------------- */

int xgpuAtomCount(void)
{
    RT_ENTER(c);
    size_t n = c->xmem.ngat;
    return (int)(n < XMEM_MAX_ATOMS ? n : XMEM_MAX_ATOMS);
}

cudaError_t xgpuAtomQuery(AtomID id, XAtomInfo *info)
{
    RT_ENTER(c);
    RtXmem *x = &c->xmem;
    cudaError_t e = rx_check_id(x, "xgpuAtomQuery", id);
    if (e != cudaSuccess || !info)
        return e != cudaSuccess ? e : rx_bad("xgpuAtomQuery", "null info");
    const XHostAtom *a = &x->gat[id];
    memset(info, 0, sizeof *info);
    info->attrs = a->attrs;
    info->file = a->file;
    info->line = a->line;
    info->column = a->column;
    info->created = rx_bit(x->created, id);
    info->active = rx_bit(x->ast, id);
    for (size_t i = 0; i < x->nranges; i++)
        if (x->ranges[i].atom == id) {
            info->nranges++;
            info->mapped_bytes += x->ranges[i].hi - x->ranges[i].lo;
        }
    return cudaSuccess;
}

int xgpuAtomRanges(AtomID id, XAtomRange *out, int max)
{
    RT_ENTER(c);
    RtXmem *x = &c->xmem;
    if (rx_check_id(x, "xgpuAtomRanges", id) != cudaSuccess)
        return -1;
    int n = 0;
    for (size_t i = 0; i < x->nranges; i++)
        if (x->ranges[i].atom == id) {
            if (out && n < max)
                out[n] = (XAtomRange){x->ranges[i].lo, x->ranges[i].hi - x->ranges[i].lo};
            n++;
        }
    return n;
}

AtomID xgpuAtomLookup(const void *addr)
{
    RT_ENTER(c);
    RtXmem *x = &c->xmem;
    uint64_t a = rt_addr(addr);
    size_t i = rx_first(x, a);
    return i < x->nranges && x->ranges[i].lo <= a ? x->ranges[i].atom : XMEM_NO_ATOM;
}

void xgpuAtomStatus(uint8_t ast[32])
{
    RT_ENTER(c);
    memcpy(ast, c->xmem.ast, 32);
}
