/*
 * zerosector.c - the `zero` memory-side transform (mem.transform; timing/slots.h): a
 * sector (l1.sector bytes) that is all zero moves no DRAM burst, as if the memory controller
 * kept a zero bit per sector beside the data and read or wrote it instead. It is the
 * zero case that every GPU line compressor has (BDI's all-zero encoding, for one), and
 * an upper bound for a zero-value scheme: the bits themselves are taken to cost nothing.
 * A request moves at least one burst. The bytes are the line's current ones in device
 * memory (the functional model runs ahead at issue, so a write-back sees the line as it
 * is when the write-back happens); a line that cannot be read moves uncompressed.
 */
#include <stdlib.h>
#include "mech/mech.h"
#include "mech/registry.h"

/* The state: the sector size (l1.sector). */
static void *zero_init(const EmuConfig *cfg)
{
    unsigned *sector = malloc(sizeof *sector);
    if (sector)
        *sector = cfg->l1_sector;
    return sector;
}

static unsigned zero_bursts(void *state, const TmReq *r, const uint8_t *line, unsigned plain)
{
    if (!line)
        return plain;
    unsigned b = 0, sector = *(const unsigned *)state;
    for (unsigned s = 0; s < 8; s++) {
        if (!(r->sectors & (1u << s)))
            continue;
        const uint8_t *p = line + s * sector;
        unsigned k = 0;
        while (k < sector && p[k] == 0)
            k++;
        b += k < sector;
    }
    return b;
}

const TmTransformOps tm_xf_zero = {.name = "zero", .init = zero_init, .free = free,
                                   .bursts = zero_bursts};

const EmuMech emu_mech_zero = {.name = "zero"};
