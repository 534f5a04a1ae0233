/*
 * dram_sched.c - the DRAM channel's scheduler policies (dram.h, DramSched), chosen by
 * dram.scheduler. A policy sees the channel's active queue (reads, or writes while the
 * write queue drains) and decides whose next command issues this command-bus cycle;
 * the channel (dram.c) says what each request needs next and when it could issue.
 *
 *   fr-fcfs  first ready, first come first served (Rixner et al., "Memory access
 *            scheduling", ISCA 2000; GPGPU-Sim's default): among the requests whose
 *            command can issue now, the oldest column command (a row hit) goes first,
 *            else the oldest precharge or activate. A bank's open row is not closed
 *            while a queued request still hits it, so a conflict waits for the hits.
 *   fcfs     in order: only the oldest request's commands issue.
 */
#include "timing/dram.h"

#include <stdint.h>

static uint64_t later(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static int frfcfs_pick(const DramChan *ch, const DramQueue *q, uint64_t t)
{
    int other = -1;
    for (unsigned i = 0; i < q->n && q->v[i].arrival <= t; i++) {
        int cmd;
        if (dram_ready(ch, &q->v[i], &cmd) > t)
            continue;
        if (cmd == DRAM_COL)
            return (int)i;
        if (other < 0 &&
            (cmd != DRAM_PRE || !dram_row_wanted(ch, q, q->v[i].bank, t)))
            other = (int)i;
    }
    return other;
}

static uint64_t frfcfs_next(const DramChan *ch, const DramQueue *q, uint64_t from)
{
    uint64_t best = UINT64_MAX;
    for (unsigned i = 0; i < q->n; i++) {
        int cmd;
        uint64_t at = later(dram_ready(ch, &q->v[i], &cmd), later(q->v[i].arrival, from));
        /* a precharge held back by a row hit waits for that hit, whose time counts */
        if (at < best && (cmd != DRAM_PRE || !dram_row_wanted(ch, q, q->v[i].bank, UINT64_MAX)))
            best = at;
    }
    return best;
}

static int fcfs_pick(const DramChan *ch, const DramQueue *q, uint64_t t)
{
    int cmd;
    return q->n && q->v[0].arrival <= t && dram_ready(ch, &q->v[0], &cmd) <= t ? 0 : -1;
}

static uint64_t fcfs_next(const DramChan *ch, const DramQueue *q, uint64_t from)
{
    int cmd;
    return q->n ? later(dram_ready(ch, &q->v[0], &cmd), later(q->v[0].arrival, from))
                : UINT64_MAX;
}

const DramSched dram_scheds[] = {
    /* name       pick         next */
    {"fr-fcfs",   frfcfs_pick, frfcfs_next},
    {"fcfs",      fcfs_pick,   fcfs_next},
};
const unsigned dram_nscheds = sizeof dram_scheds / sizeof dram_scheds[0];
