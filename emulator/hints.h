/*
 * hints.h - the hints a device holds for its launches (emu_set_hints, hints.c): the
 * atoms' address ranges and status, the Locality Descriptors in force. The timing model
 * looks each memory request's address up once, when the LD/ST unit splits an access
 * (TmReq.atom, TmReq.desc), so every unit below sees who the data belongs to.
 */
#ifndef EMU_HINTS_H
#define EMU_HINTS_H

#include <stddef.h>
#include <stdint.h>
#include "timing/timing.h"
#include "xgpu/emu.h"

typedef struct EmuHintTable {
    EmuAtomRange *atoms;  /* sorted, disjoint */
    size_t natoms;
    uint8_t active[32];
    EmuAtomAttr *attrs;   /* [nattrs], by atom id */
    size_t nattrs;
    EmuDescRange *descs;  /* in the order given (the first containing an address wins) */
    size_t ndescs;
} EmuHintTable;

void emu_hints_free(EmuHintTable *t);
/* A table of its own holding h (emu_set_hints, emu.h): EMU_OK, or EMU_ERR_INVALID_VALUE for
 * hints out of order or out of range, EMU_ERR_OUT_OF_MEMORY. */
EmuStatus emu_hints_copy(EmuHintTable *out, const EmuHints *h);
/* Whether the table holds anything to look up. */
static inline int emu_hints_any(const EmuHintTable *t)
{
    return t && (t->natoms || t->ndescs);
}
/* Whether atom a is active (its bit in the Atom Status Table). */
static inline int emu_hint_active(const EmuHintTable *t, uint8_t a)
{
    return a < TM_NO_ATOM && (t->active[a / 8] >> (a % 8) & 1);
}
/* Atom a's attributes, or NULL when the table has none for it. */
static inline const EmuAtomAttr *emu_hint_attr(const EmuHintTable *t, uint8_t a)
{
    return a < t->nattrs ? &t->attrs[a] : NULL;
}
/* The atom holding addr, or TM_NO_ATOM. */
uint8_t emu_hint_atom(const EmuHintTable *t, uint64_t addr);
/* The index of the range holding addr, or -1. */
long emu_hint_range(const EmuHintTable *t, uint64_t addr);
/* The atom of the first range that overlaps [lo, hi), or TM_NO_ATOM. */
uint8_t emu_hint_block_atom(const EmuHintTable *t, uint64_t lo, uint64_t hi);
/* 1 + the index of the first descriptor whose range holds addr, or 0. */
uint16_t emu_hint_desc(const EmuHintTable *t, uint64_t addr);

#endif
