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

/* Whether a request to bank b that hits (or not) may issue its command at t. */
static int bank_ready_at(const DramChan *ch, unsigned b, int hit, int write, uint64_t t)
{
    int cmd;
    return dram_settle(ch, dram_bank_ready(ch, b, hit, write, &cmd)) <= t;
}

/* The oldest arrived request whose bank lets its command issue at t: a row hit's column
 * command first; a precharge only when no arrived request hits the bank. Bank by bank
 * (DramBankAgg): a bank's oldest hit (or other) is the one that would go. */
static int frfcfs_pick(const DramChan *ch, const DramQueue *q, uint64_t t)
{
    uint64_t col = UINT64_MAX, other = UINT64_MAX;
    int write = q == &ch->wq;
    for (unsigned b = 0; b < ch->nbanks; b++) {
        const DramBankAgg *a = &q->agg[b];
        int hit_here = a->hit_seq != UINT64_MAX && a->hit_arrival <= t;
        if (hit_here && a->hit_seq < col && bank_ready_at(ch, b, 1, write, t))
            col = a->hit_seq;
        if (!hit_here && a->other_seq != UINT64_MAX && a->other_arrival <= t &&
            a->other_seq < other && bank_ready_at(ch, b, 0, write, t))
            other = a->other_seq;
    }
    uint64_t seq = col != UINT64_MAX ? col : other;
    return seq == UINT64_MAX ? -1 : (int)dram_find(q, seq);
}

static uint64_t frfcfs_next(const DramChan *ch, const DramQueue *q, uint64_t from)
{
    uint64_t best = UINT64_MAX;
    int cmd, write = q == &ch->wq;
    for (unsigned b = 0; b < ch->nbanks; b++) {
        const DramBankAgg *a = &q->agg[b];
        uint64_t at;
        if (a->hit_seq != UINT64_MAX) {
            at = later(dram_bank_ready(ch, b, 1, write, &cmd), later(a->hit_arrival, from));
            at = dram_settle(ch, at);
            best = at < best ? at : best;
        } else if (a->other_seq != UINT64_MAX) {
            /* (a precharge held back by a row hit waits for that hit, whose time counts) */
            at = later(dram_bank_ready(ch, b, 0, write, &cmd), later(a->other_arrival, from));
            at = dram_settle(ch, at);
            best = at < best ? at : best;
        }
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
