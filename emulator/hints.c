/*
 * hints.c - the device's hint table (hints.h).
 */
#include "hints.h"

#include <stdlib.h>
#include <string.h>
#include "device.h"

void emu_hints_free(EmuHintTable *t)
{
    free(t->atoms);
    free(t->descs);
    memset(t, 0, sizeof *t);
}

EmuStatus emu_set_hints(EmuDevice *d, const EmuHints *h)
{
    if (!d)
        return EMU_ERR_INVALID_VALUE;
    EmuHintTable t = {0};
    if (h) {
        if ((h->natoms && !h->atoms) || (h->ndescs && !h->descs) || h->ndescs > UINT16_MAX - 1)
            return EMU_ERR_INVALID_VALUE;
        for (size_t i = 0; i < h->natoms; i++)
            if (h->atoms[i].lo >= h->atoms[i].hi || h->atoms[i].atom == TM_NO_ATOM ||
                (i && h->atoms[i].lo < h->atoms[i - 1].hi))
                return EMU_ERR_INVALID_VALUE; /* empty, no atom, unsorted or overlapping */
        t.atoms = h->natoms ? malloc(h->natoms * sizeof *t.atoms) : NULL;
        t.descs = h->ndescs ? malloc(h->ndescs * sizeof *t.descs) : NULL;
        if ((h->natoms && !t.atoms) || (h->ndescs && !t.descs)) {
            emu_hints_free(&t);
            return EMU_ERR_OUT_OF_MEMORY;
        }
        if (h->natoms)
            memcpy(t.atoms, h->atoms, h->natoms * sizeof *t.atoms);
        if (h->ndescs)
            memcpy(t.descs, h->descs, h->ndescs * sizeof *t.descs);
        t.natoms = h->natoms, t.ndescs = h->ndescs;
        memcpy(t.active, h->active, sizeof t.active);
    }
    emu_hints_free(&d->hints);
    d->hints = t;
    return EMU_OK;
}

uint8_t emu_hint_atom(const EmuHintTable *t, uint64_t addr)
{
    size_t lo = 0, hi = t->natoms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (addr < t->atoms[mid].lo)
            hi = mid;
        else if (addr >= t->atoms[mid].hi)
            lo = mid + 1;
        else
            return t->atoms[mid].atom;
    }
    return TM_NO_ATOM;
}

uint16_t emu_hint_desc(const EmuHintTable *t, uint64_t addr)
{
    for (size_t i = 0; i < t->ndescs; i++)
        if (addr - t->descs[i].base < t->descs[i].bytes)
            return (uint16_t)(i + 1);
    return 0;
}
