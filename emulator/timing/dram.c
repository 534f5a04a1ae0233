/*
 * dram.c - a DRAM channel (dram.h): open-row banks, one shared data bus, FR-FCFS.
 *
 * The channel makes one scheduling decision at a time, at DRAM cycle
 * T = max(pick_ready, arrival of the oldest request). Among the first dram.queue
 * requests that have arrived by T, fr-fcfs serves the oldest one to an open row, else
 * the oldest; fcfs the oldest. The chosen request r (bank b, L = tCL for reads, WL for
 * writes, n = sectors, one burst each) then gets its commands:
 *   row hit   (b open at r's row):  c = T
 *   row miss  (b closed):           a = max(T, b.act_ready, rrd_ready);      c = a + tRCD
 *   conflict  (b open, other row):  p = max(T, b.pre_ready);
 *                                   a = max(p + tRP, b.act_ready, rrd_ready); c = a + tRCD
 *   then c = max(c, col_ready, bus_free - L); data on the bus [c + L, c + L + n*burst).
 * Bookkeeping: bus_free = c + L + n*burst; col_ready = c + tCCD; on an activate
 * b.act_ready = a + tRC, rrd_ready = a + tRRD, b.pre_ready >= a + tRAS; reads push
 * b.pre_ready to the end of their data, writes to the end of their data + tWR.
 * The next decision is allowed at max(T + 1, c): one request between activate and column
 * command at a time, so the next request's activate overlaps this one's data transfer.
 * A read completes at core cycle ceil((c + L + n*burst) * core/dram) + dram.latency.
 * DRAM cycle of core cycle t: ceil(t * dram/core).
 */
#include "timing/dram.h"

#include <stdlib.h>
#include <string.h>

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static unsigned pick_fcfs(const DramChan *ch, uint64_t t)
{
    return 0;
}

static unsigned pick_frfcfs(const DramChan *ch, uint64_t t)
{
    unsigned n = ch->qn < ch->window ? ch->qn : ch->window;
    for (unsigned i = 0; i < n && ch->q[i].arrival <= t; i++) {
        const DramBank *b = &ch->bank[ch->q[i].bank];
        if (b->open && b->row == ch->q[i].row)
            return i;
    }
    return 0;
}

static const DramSched dram_scheds[] = {
    /* name       pick */
    {"fr-fcfs",   pick_frfcfs},
    {"fcfs",      pick_fcfs},
};

int dram_init(DramChan *ch, const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n)
{
    memset(ch, 0, sizeof *ch);
    for (size_t i = 0; i < sizeof dram_scheds / sizeof dram_scheds[0]; i++)
        if (strcmp(dram_scheds[i].name, cfg->dram_scheduler) == 0)
            ch->sched = &dram_scheds[i];
    if (!ch->sched) {
        snprintf(err, n, "dram.scheduler: unknown scheduler '%s' (fr-fcfs, fcfs)",
                 cfg->dram_scheduler);
        return -1;
    }
    if (!cfg->dram_banks || !cfg->dram_queue || !cfg->dram_clock_khz || !cfg->gpu_clock_khz ||
        !cfg->dram_burst_cycles || !cfg->dram_burst_bytes) {
        snprintf(err, n, "dram.banks, dram.queue, dram.clock_khz, dram.burst_cycles and "
                 "dram.burst_bytes must be positive");
        return -1;
    }
    ch->trcd = cfg->dram_trcd, ch->tcl = cfg->dram_tcl, ch->wl = cfg->dram_wl;
    ch->trp = cfg->dram_trp, ch->tras = cfg->dram_tras, ch->trc = cfg->dram_trc;
    ch->trrd = cfg->dram_trrd, ch->tccd = cfg->dram_tccd, ch->twr = cfg->dram_twr;
    ch->burst = cfg->dram_burst_cycles, ch->burst_bytes = cfg->dram_burst_bytes;
    ch->window = cfg->dram_queue, ch->latency = cfg->dram_latency;
    ch->core_khz = cfg->gpu_clock_khz, ch->dram_khz = cfg->dram_clock_khz;
    ch->nbanks = cfg->dram_banks, ch->ctr = ctr;
    ch->next = TM_NEVER;
    ch->bank = calloc(ch->nbanks, sizeof *ch->bank);
    if (!ch->bank) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    return 0;
}

void dram_free(DramChan *ch)
{
    free(ch->bank);
    free(ch->q);
    ch->bank = NULL, ch->q = NULL;
}

void dram_next_launch(DramChan *ch)
{
    ch->pick_ready = ch->col_ready = ch->rrd_ready = ch->bus_free = 0;
    for (unsigned b = 0; b < ch->nbanks; b++)
        ch->bank[b].act_ready = ch->bank[b].pre_ready = 0;
    ch->next = TM_NEVER;
}

uint64_t dram_cycle(const DramChan *ch, Cycle core)
{
    unsigned __int128 x = (unsigned __int128)core * ch->dram_khz;
    return (uint64_t)((x + ch->core_khz - 1) / ch->core_khz);
}

Cycle dram_core(const DramChan *ch, uint64_t dram)
{
    unsigned __int128 x = (unsigned __int128)dram * ch->core_khz;
    return (Cycle)((x + ch->dram_khz - 1) / ch->dram_khz);
}

static uint64_t pick_time(const DramChan *ch)
{
    return max64(ch->pick_ready, ch->q[0].arrival);
}

Cycle dram_next(const DramChan *ch)
{
    return ch->next;
}

static void refresh_next(DramChan *ch)
{
    ch->next = ch->qn ? dram_core(ch, pick_time(ch)) : TM_NEVER;
}

int dram_push(DramChan *ch, const DramReq *r, Cycle now)
{
    if (ch->qn == ch->qcap) {
        unsigned cap = ch->qcap ? 2 * ch->qcap : 64;
        DramReq *q = realloc(ch->q, cap * sizeof *q);
        if (!q)
            return -1;
        ch->q = q, ch->qcap = cap;
    }
    ch->q[ch->qn] = *r;
    ch->q[ch->qn].arrival = max64(dram_cycle(ch, now), ch->qn ? ch->q[ch->qn - 1].arrival : 0);
    ch->qn++;
    refresh_next(ch);
    return 0;
}

/* Activate for a row miss or conflict at or after t; returns the activate cycle. */
static uint64_t dram_activate(DramChan *ch, DramBank *b, uint64_t t, uint64_t row)
{
    if (b->open && b->row != row)
        t = max64(t, b->pre_ready) + ch->trp;
    uint64_t a = max64(t, max64(b->act_ready, ch->rrd_ready));
    b->open = 1, b->row = row;
    b->act_ready = a + ch->trc;
    b->pre_ready = max64(b->pre_ready, a + ch->tras);
    ch->rrd_ready = a + ch->trrd;
    return a;
}

/* The bursts a request moves: one per sector, or what the memory-side transform said. */
static unsigned dram_bursts(const DramReq *r)
{
    return r->bursts ? r->bursts : tm_nsectors(r->sectors);
}

static void dram_count(DramChan *ch, const DramDone *d)
{
    TmCounters *k = ch->ctr;
    if (d->req.write)
        k->dram_writes++;
    else
        k->dram_reads++;
    k->dram_row_hits += d->row_hit != 0;
    k->dram_row_misses += d->row_hit == 0;
    k->dram_row_conflicts += d->row_conflict != 0;
    k->dram_bytes += (uint64_t)dram_bursts(&d->req) * ch->burst_bytes;
    k->dram_bursts += dram_bursts(&d->req);
    k->dram_meta_accesses += d->req.meta;
}

int dram_pick(DramChan *ch, DramDone *d)
{
    if (!ch->qn)
        return 0;
    uint64_t t = pick_time(ch);
    unsigned i = ch->sched->pick(ch, t);
    memset(d, 0, sizeof *d);
    d->req = ch->q[i];
    memmove(&ch->q[i], &ch->q[i + 1], (ch->qn - i - 1) * sizeof *ch->q);
    ch->qn--;
    DramBank *b = &ch->bank[d->req.bank];
    unsigned lat = d->req.write ? ch->wl : ch->tcl;
    unsigned nb = dram_bursts(&d->req);
    uint64_t c = t;
    d->row_hit = b->open && b->row == d->req.row;
    d->row_conflict = b->open && !d->row_hit;
    if (!d->row_hit)
        c = dram_activate(ch, b, t, d->req.row) + ch->trcd;
    c = max64(c, max64(ch->col_ready, ch->bus_free > lat ? ch->bus_free - lat : 0));
    uint64_t end = c + lat + (uint64_t)nb * ch->burst;
    ch->bus_free = end;
    ch->col_ready = c + ch->tccd;
    b->pre_ready = max64(b->pre_ready, d->req.write ? end + ch->twr : end);
    ch->pick_ready = max64(t + 1, c);
    d->col = c;
    d->at = dram_core(ch, end) + (d->req.write ? 0 : ch->latency);
    dram_count(ch, d);
    if (!d->req.write)
        ch->ctr->dram_read_queue_cycles += dram_core(ch, end) - dram_core(ch, d->req.arrival);
    refresh_next(ch);
    return 1;
}

int dram_idle(const DramChan *ch)
{
    return ch->qn == 0;
}

void dram_dump(const DramChan *ch, unsigned id, FILE *f)
{
    fprintf(f, "dram channel %u (%s): %u queued, next decision at dram cycle %llu, bus free "
            "at %llu\n", id, ch->sched->name, ch->qn, (unsigned long long)ch->pick_ready,
            (unsigned long long)ch->bus_free);
    for (unsigned b = 0; b < ch->nbanks; b++)
        if (ch->bank[b].open)
            fprintf(f, "  bank %u: row %llu open\n", b, (unsigned long long)ch->bank[b].row);
}
