/*
 * coalescer.h - turns a warp-level access into line requests (TmReq): one per distinct
 * line, with the sectors its lanes touch. Local-memory offsets are first mapped to a
 * private per-warp region in which the threads' same word is interleaved, so that
 * consecutive lanes reading the same local variable fall into one line.
 */
#ifndef EMU_COALESCER_H
#define EMU_COALESCER_H

#include "timing/timing.h"

/* Most requests one access can make: 32 lanes x a 16-byte local access spread over 4
 * interleaved words, each in its own line. */
#define COAL_MAX 128

/* Device-side address of lane's local offset off, for warp slot warp of SM sm. */
uint64_t coal_local_addr(unsigned sm, unsigned warp, unsigned lane, uint64_t off);
/* Fills out[] (in order of the first lane touching each line; sm, kind and line/sectors
 * set, tag and issued zero) and returns the number of requests. line and sector are the
 * line and sector sizes (powers of two, at most 8 sectors per line). */
unsigned coal_split(const TmAccess *a, unsigned sm, unsigned line, unsigned sector, TmReq *out);

#endif
