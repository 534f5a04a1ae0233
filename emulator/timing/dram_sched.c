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

/* Every request to one bank that hits its open row needs the same command at the same
 * earliest cycle, and so does every one that does not: the policy looks at banks, not
 * requests. One pass over q (up to `upto` requests) records per bank the oldest arrival
 * of each kind in the channel's scratch space; returns the banks touched. */
static unsigned by_bank(const DramChan *ch, const DramQueue *q, unsigned upto)
{
    const DramScratch *s = &ch->scratch;
    unsigned n = 0;
    for (unsigned i = 0; i < upto; i++) {
        const DramReq *r = &q->v[i];
        uint64_t *slot = dram_hits(ch, r) ? &s->hit[r->bank] : &s->other[r->bank];
        if (s->hit[r->bank] == UINT64_MAX && s->other[r->bank] == UINT64_MAX)
            s->touched[n++] = r->bank;
        if (r->arrival < *slot)
            *slot = r->arrival;
    }
    return n;
}

static void by_bank_clear(const DramChan *ch, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        ch->scratch.hit[ch->scratch.touched[k]] = ch->scratch.other[ch->scratch.touched[k]] =
            UINT64_MAX;
}

/* Whether a request to bank b that hits (or not) may issue its command at t. */
static int bank_ready_at(const DramChan *ch, unsigned b, int hit, int write, uint64_t t)
{
    int cmd;
    return dram_settle(ch, dram_bank_ready(ch, b, hit, write, &cmd)) <= t;
}

static int frfcfs_pick(const DramChan *ch, const DramQueue *q, uint64_t t)
{
    unsigned upto = 0;
    while (upto < q->n && q->v[upto].arrival <= t)
        upto++;
    const DramScratch *s = &ch->scratch;
    unsigned nb = by_bank(ch, q, upto);
    /* hit[b] / other[b] now say which kinds bank b has; reuse them as "ready at t" marks:
     * 0 not ready, 1 ready, UINT64_MAX none of that kind */
    for (unsigned k = 0; k < nb; k++) {
        unsigned b = s->touched[k];
        int write = q == &ch->wq;
        if (s->hit[b] != UINT64_MAX)
            s->hit[b] = (uint64_t)bank_ready_at(ch, b, 1, write, t);
        if (s->other[b] != UINT64_MAX) /* no precharge while a queued request hits */
            s->other[b] = s->hit[b] == UINT64_MAX && bank_ready_at(ch, b, 0, write, t);
    }
    int col = -1, other = -1;
    for (unsigned i = 0; i < upto && col < 0; i++) {
        unsigned b = q->v[i].bank;
        if (dram_hits(ch, &q->v[i]) ? s->hit[b] == 1 : other < 0 && s->other[b] == 1)
            *(dram_hits(ch, &q->v[i]) ? &col : &other) = (int)i;
    }
    by_bank_clear(ch, nb);
    return col >= 0 ? col : other;
}

static uint64_t frfcfs_next(const DramChan *ch, const DramQueue *q, uint64_t from)
{
    const DramScratch *s = &ch->scratch;
    unsigned nb = by_bank(ch, q, q->n);
    uint64_t best = UINT64_MAX;
    int cmd, write = q == &ch->wq;
    for (unsigned k = 0; k < nb; k++) {
        unsigned b = s->touched[k];
        uint64_t at;
        if (s->hit[b] != UINT64_MAX) {
            at = later(dram_bank_ready(ch, b, 1, write, &cmd), later(s->hit[b], from));
            at = dram_settle(ch, at);
            best = at < best ? at : best;
        }
        /* a precharge held back by a row hit waits for that hit, whose time counts */
        if (s->other[b] != UINT64_MAX && s->hit[b] == UINT64_MAX) {
            at = later(dram_bank_ready(ch, b, 0, write, &cmd), later(s->other[b], from));
            at = dram_settle(ch, at);
            best = at < best ? at : best;
        }
    }
    by_bank_clear(ch, nb);
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
