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

/* What the L2 slice must do for an atomic's line request (l2.c): lanes, the active lanes
 * whose operation falls in the line; addrs, the distinct addresses among them; serial,
 * the most lanes on one address (operations on one address are performed one after the
 * other). The coalescer packs them into the request's TmReq.meta, which carries the
 * coherence slot's word only on the way back; a request that carries none (0) stands for
 * one operation. */
typedef struct CoalAtomic {
    unsigned lanes, addrs, serial;
} CoalAtomic;

static inline uint64_t coal_atomic_pack(CoalAtomic c)
{
    return (uint64_t)c.lanes | (uint64_t)c.addrs << 8 | (uint64_t)c.serial << 16;
}

static inline CoalAtomic coal_atomic_ops(const TmReq *r)
{
    CoalAtomic c = {(unsigned)(r->meta & 0xFF), (unsigned)(r->meta >> 8 & 0xFF),
                    (unsigned)(r->meta >> 16 & 0xFF)};
    if (!c.lanes || !c.addrs || !c.serial)
        c = (CoalAtomic){1, 1, 1};
    return c;
}

/* Device-side address of lane's local offset off, for warp slot warp of SM sm. */
uint64_t coal_local_addr(unsigned sm, unsigned warp, unsigned lane, uint64_t off);
/* Fills out[] (in order of the first lane touching each line; sm, kind and line/sectors
 * set, tag and issued zero; an atomic's meta its CoalAtomic) and returns the number of
 * requests. line and sector are the
 * line and sector sizes (powers of two, at most 8 sectors per line). */
unsigned coal_split(const TmAccess *a, unsigned sm, unsigned line, unsigned sector, TmReq *out);

#endif
