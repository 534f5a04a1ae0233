/*
 * hints.c - the device's hint table (hints.h).
 */
#include "hints.h"

#include <stdlib.h>
#include <string.h>

void emu_hints_free(EmuHintTable *t)
{
    free(t->atoms);
    free(t->attrs);
    free(t->descs);
    memset(t, 0, sizeof *t);
}

EmuStatus emu_hints_copy(EmuHintTable *out, const EmuHints *h)
{
    EmuHintTable t = {0};
    if (h) {
        if ((h->natoms && !h->atoms) || (h->ndescs && !h->descs) || h->ndescs > UINT16_MAX - 1 ||
            (h->nattrs && !h->attrs) || h->nattrs > TM_NO_ATOM)
            return EMU_ERR_INVALID_VALUE;
        for (size_t i = 0; i < h->natoms; i++)
            if (h->atoms[i].lo >= h->atoms[i].hi || h->atoms[i].atom == TM_NO_ATOM ||
                (i && h->atoms[i].lo < h->atoms[i - 1].hi))
                return EMU_ERR_INVALID_VALUE; /* empty, no atom, unsorted or overlapping */
        t.atoms = h->natoms ? malloc(h->natoms * sizeof *t.atoms) : NULL;
        t.descs = h->ndescs ? malloc(h->ndescs * sizeof *t.descs) : NULL;
        t.attrs = h->nattrs ? malloc(h->nattrs * sizeof *t.attrs) : NULL;
        if ((h->natoms && !t.atoms) || (h->ndescs && !t.descs) || (h->nattrs && !t.attrs)) {
            emu_hints_free(&t);
            return EMU_ERR_OUT_OF_MEMORY;
        }
        if (h->natoms)
            memcpy(t.atoms, h->atoms, h->natoms * sizeof *t.atoms);
        if (h->ndescs)
            memcpy(t.descs, h->descs, h->ndescs * sizeof *t.descs);
        if (h->nattrs)
            memcpy(t.attrs, h->attrs, h->nattrs * sizeof *t.attrs);
        t.natoms = h->natoms, t.ndescs = h->ndescs, t.nattrs = h->nattrs;
        memcpy(t.active, h->active, sizeof t.active);
    }
    *out = t;
    return EMU_OK;
}

/* The first range whose end lies above addr (t->natoms when none). */
static size_t first_above(const EmuHintTable *t, uint64_t addr)
{
    size_t lo = 0, hi = t->natoms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->atoms[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

long emu_hint_range(const EmuHintTable *t, uint64_t addr)
{
    size_t i = first_above(t, addr);
    return i < t->natoms && t->atoms[i].lo <= addr ? (long)i : -1;
}

uint8_t emu_hint_atom(const EmuHintTable *t, uint64_t addr)
{
    long i = emu_hint_range(t, addr);
    return i < 0 ? TM_NO_ATOM : t->atoms[i].atom;
}

uint8_t emu_hint_block_atom(const EmuHintTable *t, uint64_t lo, uint64_t hi)
{
    size_t i = first_above(t, lo);
    return i < t->natoms && t->atoms[i].lo < hi ? t->atoms[i].atom : TM_NO_ATOM;
}

uint16_t emu_hint_desc(const EmuHintTable *t, uint64_t addr)
{
    for (size_t i = 0; i < t->ndescs; i++)
        if (addr - t->descs[i].base < t->descs[i].bytes)
            return (uint16_t)(i + 1);
    return 0;
}
