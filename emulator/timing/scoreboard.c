/*
 * scoreboard.c - per-warp pending-write bits. An instruction is blocked while any of
 * its source or destination registers has a write in flight (RAW and WAW); 64-bit
 * operands were expanded into both registers of the pair when the TmInsn was built, so
 * a pair is covered by two bits. Bits are set at issue and cleared at write-back.
 */
#include "timing/core.h"

void tm_sb_set(TmWarp *w, const TmInsn *ti)
{
    for (unsigned i = 0; i < ti->ndst; i++)
        w->sb[ti->dst[i] >> 6] |= 1ull << (ti->dst[i] & 63);
}

void tm_sb_clear(TmWarp *w, const uint8_t *dst, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        w->sb[dst[i] >> 6] &= ~(1ull << (dst[i] & 63));
}
