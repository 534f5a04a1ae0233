/*
 * timing.h - types shared by the timing model's units.
 *
 * The timing model is execute-at-issue (docs/timing.md): when a warp scheduler issues an
 * instruction, the functional core executes it at once (results, addresses); the timing
 * units only decide when things happen. Every unit is a struct with
 * x_init(x, cfg, ...), x_connect(x, ...), int x_tick(x, now) (returns work done this
 * cycle), x_next(x) (earliest cycle with something to do, for skipping idle time) and
 * x_dump(x, FILE *). Counters are plain uint64_t fields of one TmCounters per device,
 * declared in core_stats.def and mem_stats.def.
 */
#ifndef EMU_TIMING_H
#define EMU_TIMING_H

#include <stdint.h>
#include <stdio.h>

typedef uint64_t Cycle;
#define TM_NEVER UINT64_MAX

typedef struct TmCounters {
#define TSTAT(field, name, desc) uint64_t field;
#include "timing/core_stats.def"
#include "timing/mem_stats.def"
#undef TSTAT
} TmCounters;

/* A warp-level memory instruction as the functional core executed it: what the LD/ST
 * unit needs to time it (coalescing, bank conflicts). */
typedef enum TmSpace {
    TM_GLOBAL, TM_SHARED, TM_LOCAL, TM_CONST, TM_PARAM, TM_TEX, TM_SPACE_COUNT
} TmSpace;
typedef enum TmKind { TM_READ, TM_WRITE, TM_ATOMIC } TmKind;
#define TM_NO_ATOM 0xFF /* TmReq.atom of an address in no atom */

typedef struct TmAccess {
    uint8_t space;     /* TmSpace, resolved (generic accesses are classified per lane by
                        * the functional core; a warp whose lanes hit several spaces is
                        * split into one TmAccess per space) */
    uint8_t kind;      /* TmKind */
    uint8_t size;      /* bytes per lane: 1, 2, 4, 8 (16 for vector accesses) */
    uint32_t mask;     /* lanes that access memory */
    uint64_t addr[32]; /* per lane: device address (global/const), byte offset in the
                        * CTA's shared window, or the thread's local offset */
    uint32_t warp;     /* the warp's slot in its SM: selects the warp's private
                        * local-memory region (added by the memory side) */
    uint32_t pc;       /* the instruction that made it (who made a request: pc, SM, warp) */
} TmAccess;

/* Where a line a read miss installs goes (the insertion slot, slots.h): MRU, LRU, no
 * line at all, or MRU with a priority (TmPin). */
typedef enum TmInsert {
    TM_INSERT_MRU, TM_INSERT_LRU, TM_INSERT_BYPASS, TM_INSERT_SOFT_PIN, TM_INSERT_HARD_PIN
} TmInsert;
/* A cached line's priority (pinning): a victim is chosen among the lines of the lowest
 * priority present in its set. */
typedef enum TmPin { TM_PIN_NONE, TM_PIN_SOFT, TM_PIN_HARD } TmPin;

/* What one launch reports besides its counters: the named figures of the observer
 * slot's report, and with stats.per_unit every unit's own counters: unit[0 .. nsm) the
 * SMs (with their L1s and LD/ST units), then nslice L2 slices, then nchan DRAM channels
 * (NULL when off). The launch's counters are the sum of the units' and the GPU-wide
 * ones (the crossbar, the mechanisms' launch-wide figures). */
typedef struct TmReport {
    char (*name)[64];
    uint64_t *value;
    size_t n, cap;
    TmCounters *unit;
    uint32_t nsm, nslice, nchan;
    /* a device of several GPUs (docs/multi-gpu.md): each GPU's counters (its SMs', its
     * slices', its own channels' in a NUMA device, its link's) and the cycle its last CTA
     * finished */
    TmCounters *gpu;
    uint64_t *gpu_cycles;
    uint32_t ngpu;
} TmReport;

/* A request between an SM's L1 and the memory system: one 128-byte line with the 32-byte
 * sectors it touches. */
typedef struct TmReq {
    uint64_t line;     /* line-aligned device address */
    uint8_t sectors;   /* bit i: sector i (32 bytes) of the line */
    uint8_t kind;      /* TmKind */
    uint16_t sm;       /* requesting SM */
    uint16_t warp;     /* requesting warp slot (TmAccess.warp) */
    uint16_t xbytes;   /* a response's data bytes on the crossbar, when a memory-side
                        * transform sends the line compressed, or a write's that an
                        * assist mechanism compressed (0: its sectors') */
    uint32_t pc;       /* requesting instruction (TmAccess.pc) */
    uint8_t assist;    /* the assist slot's mark (slots.h): on a read response, a line that
                        * crosses compressed for the SM to decode (tm_assist_mark: its
                        * codec and encoding; 0: none); on a write, TM_WR_* */
    uint8_t atom;      /* the atom its line starts in (0xFF: none; hints.h) */
    uint16_t desc;     /* 1 + the descriptor it falls in (0: none; hints.h) */
    uint64_t tag;      /* requester's id, returned with the response */
    Cycle issued;      /* cycle the L1 sent it (latency statistics) */
    uint64_t meta;     /* the coherence slot's word a response (or a write's answer)
                        * carries to the cache it fills (slots.h; e.g. the block's
                        * timestamps); on an atomic's request, which carries no such
                        * word, its operation counts for the L2 (coalescer.h) */
} TmReq;

/* A line of another device's memory (peer access; docs/multi-device.md): the LD/ST unit
 * marks it so (a device address is below 2^48; local memory's lines have bit 63 set,
 * coalescer.c, and a resource manager's swap space bit 62), the L1 keeps it
 * apart from the device's own lines, and the memory system sends it over the device's
 * link. */
#define TM_REMOTE_LINE (1ull << 61)

/* Requests are copied through every queue of the memory system: keep them small. */
_Static_assert(sizeof(TmReq) <= 48, "TmReq grew past 48 bytes");

/* What the SM's assist slot did with a line it writes (TmReq.assist): nothing, kept it
 * uncompressed (the line is stored as it is), or sends it compressed (xbytes). */
enum { TM_WR_NONE, TM_WR_PLAIN, TM_WR_PACKED };

/* A read response's TmReq.assist: codec (0..2) + 1 in bits 0-1, encoding in bits 4-7, so
 * the request stays 40 bytes. */
static inline uint8_t tm_assist_mark(unsigned codec, unsigned enc)
{
    return (uint8_t)((codec + 1) | enc << 4);
}
static inline unsigned tm_assist_codec(uint8_t mark)
{
    return (mark & 3u) - 1;
}
static inline unsigned tm_assist_enc(uint8_t mark)
{
    return mark >> 4;
}

/* The number of sectors in a sector mask, inline: the build targets baseline x86-64,
 * where __builtin_popcount is a library call. */
static inline unsigned tm_nsectors(uint8_t m)
{
    unsigned v = m - ((m >> 1) & 0x55u);
    v = (v & 0x33u) + ((v >> 2) & 0x33u);
    return (v + (v >> 4)) & 0x0fu;
}

#endif
