/*
 * l2.h - one L2 slice: a sectored, write-back, write-allocate cache with MSHRs. It only
 * decides; the memory system (memsys_loop.c) turns its actions into timed events.
 */
#ifndef EMU_L2_H
#define EMU_L2_H

#include "config/config.h"
#include "timing/cache.h"
#include "timing/timing.h"

typedef enum L2ActKind {
    L2_RESPOND,    /* send r back to its SM */
    L2_DRAM_READ,  /* fetch r.sectors of r.line */
    L2_DRAM_WRITE, /* write back r.sectors of r.line (or write them through) */
} L2ActKind;

typedef struct L2Act {
    uint8_t kind;  /* L2ActKind */
    Cycle at;
    TmReq r;
} L2Act;

typedef struct L2Slice {
    Cache c;
    unsigned id, latency;
    int tried;          /* the waiting head request already counted as a stall */
    /* the atomic unit: l2.atomic_latency, l2.atomic_per_cycle, the cycle it is free, the
     * last cycle it was asked for (a launch restarts the clock), and the cycle each
     * request of the last fill is answered at (l2_fill_at) */
    unsigned atom_latency, atom_per_cycle;
    Cycle atom_free, atom_last;
    Cycle *fill_at;
    TmCounters *ctr;
    const struct TmInsertionOps *ins; /* l2.insertion */
    void *ins_state;
    const struct TmObserverOps *obs;  /* the launch's observer of outcomes, or NULL */
    void *obs_state;
    const struct TmCoherenceOps *coh; /* the coherence slot's memory side, or NULL */
    void *coh_state;
    /* told when the slice's bytes of line stop being what they were (a fill, a
     * replacement, a coherence refusal; UINT64_MAX: every line, a flush), or NULL */
    void (*gone)(void *ctx, unsigned slice, uint64_t line);
    void *gone_ctx;
} L2Slice;

int l2_init(L2Slice *s, const EmuConfig *cfg, unsigned id, TmCounters *ctr, char *err,
            size_t n);
void l2_free(L2Slice *s);
/* A prefetch's request carries this tag: looked up, fetched, never answered. */
#define L2_PREFETCH_TAG (1ull << 60)
/* A write the slice writes through for an SM carries this tag to memory, whose answer
 * comes back to the slice (l2_answer) and on to the SM. */
#define L2_ANSWER_TAG (1ull << 59)

/* Looks up r at cycle t. Returns the number of actions written to act (at most 3), or
 * -1 when r must wait (no MSHR, merge slot or way; retry after a fill). */
int l2_access(L2Slice *s, const TmReq *r, Cycle t, L2Act *act);
/* DRAM returned sectors of line at cycle now: copies the requests this completes (at
 * most l2.mshr_merge) to out, to be answered now, except atomics: the i-th is answered
 * at l2_fill_at(s, i), once the atomic unit has performed its operations. */
unsigned l2_fill(L2Slice *s, uint64_t line, uint8_t sectors, TmReq *out, Cycle now);
/* With the coherence slot: the fill's TmReq (its meta from memory) as l2_fill takes it,
 * the answered requests carrying the meta the line keeps. */
unsigned l2_fill_req(L2Slice *s, const TmReq *r, TmReq *out, Cycle now);
/* The cycle the i-th request of the last fill is answered at. */
Cycle l2_fill_at(const L2Slice *s, unsigned i);
/* A new launch restarts the clock at 0: the atomic unit is free. */
void l2_next_launch(L2Slice *s);
/* Memory answered a write the slice wrote through (r: the write, its meta from memory):
 * the line keeps the coherence slot's meta; *resp is the answer for the SM. */
void l2_answer(L2Slice *s, const TmReq *r, TmReq *resp, Cycle now);
/* Writes back every dirty line (*wb: the write-backs, at most sets x ways, their number
 * returned) and drops every line: the flush at a kernel boundary (coherence = flush). */
unsigned l2_flush(L2Slice *s, TmReq *wb);
void l2_dump(const L2Slice *s, FILE *f);

#endif
