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
    EmuDescRange *descs;  /* in the order given (the first containing an address wins) */
    size_t ndescs;
} EmuHintTable;

void emu_hints_free(EmuHintTable *t);
/* Whether the table holds anything to look up. */
static inline int emu_hints_any(const EmuHintTable *t)
{
    return t && (t->natoms || t->ndescs);
}
/* The atom holding addr, or TM_NO_ATOM. */
uint8_t emu_hint_atom(const EmuHintTable *t, uint64_t addr);
/* 1 + the index of the first descriptor whose range holds addr, or 0. */
uint16_t emu_hint_desc(const EmuHintTable *t, uint64_t addr);

#endif
