/*
 * stale.h - what the GPUs of a shared-memory device see of memory (system.memory =
 * shared; docs/multi-gpu.md, "What a GPU reads"). Each GPU's L2 caches any line, and
 * nothing but the coherence slot keeps those copies current: when one GPU writes a line
 * another GPU's L2 holds, that GPU keeps seeing the bytes its L2 has until the copy goes
 * (replaced, refilled, refused by the coherence slot, flushed). The functional model
 * executes at issue against memory, so this unit keeps, per GPU and line, the bytes of
 * such a stale copy, taken when the write is applied; a GPU's loads read its stale
 * copies, and its own writes update them. Lines no other GPU wrote cost nothing.
 */
#ifndef EMU_STALE_H
#define EMU_STALE_H

#include <stddef.h>
#include <stdint.h>

typedef struct Stale Stale;

/* Reads n bytes of memory at line into buf: 0, or -1 when it is not device memory. */
typedef int (*StaleRead)(void *ctx, uint64_t line, uint8_t *buf, unsigned n);
/* Whether GPU gpu's L2 holds valid bytes of line. */
typedef int (*StaleHolds)(void *ctx, unsigned gpu, uint64_t line);

Stale *stale_new(unsigned gpus, unsigned line, StaleRead read, StaleHolds holds, void *ctx);
void stale_free(Stale *s);
/* GPU gpu is about to write n bytes at addr: every other GPU whose L2 holds one of the
 * lines and has no stale copy of it keeps the line's bytes as they are now. Returns the
 * copies kept; *lost counts those host memory ran out for. */
unsigned stale_write_before(Stale *s, unsigned gpu, uint64_t addr, unsigned n,
                            unsigned *lost);
/* GPU gpu wrote n bytes at addr: its own stale copies of those lines take them. */
void stale_write_after(Stale *s, unsigned gpu, uint64_t addr, unsigned n);
/* n bytes at addr (inside one line) as GPU gpu sees them, into out, when it has a stale
 * copy of the line: 1; else 0 (memory's bytes are what it sees). */
int stale_read(const Stale *s, unsigned gpu, uint64_t addr, unsigned n, void *out);
/* GPU gpu's L2 lost its copy of line (UINT64_MAX: of every line). */
void stale_drop(Stale *s, unsigned gpu, uint64_t line);
/* How many stale copies are kept (a load looks only when there are any). */
const size_t *stale_live(const Stale *s);

#endif
