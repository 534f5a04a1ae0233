/*
 * dram.c - a DRAM channel at command level (dram.h), as GPGPU-Sim and DRAMsim3 model
 * one: every bank is a state machine (closed, or open at a row) with its own timers, and
 * at most one command issues per command-bus cycle, chosen by the scheduler policy
 * (dram_sched.c). While one request's data moves, other banks precharge and activate,
 * so a row conflict delays only its own bank.
 *
 * Commands and the constraints they obey (DRAM cycles; a request in bank b of bank
 * group g = b / (banks / groups)):
 *   PRE  b open, t >= b.pre_ready;                 then b closed, b.act_ready >= t + tRP
 *   ACT  b closed, t >= b.act_ready, t >= last ACT + tRRD, t >= the fourth-last ACT
 *        + tFAW;                                   then b.col_ready = t + tRCD,
 *        b.pre_ready >= t + tRAS, b.act_ready = t + tRC
 *   COL  b open at the request's row, t >= b.col_ready, t >= last column + tCCD,
 *        t >= last column in g + tCCDL, data bus free by t + L (L = tCL for reads, WL
 *        for writes), reads t >= last write data + tWTR, writes t >= last read + tRTW.
 *        Each column command moves one burst of dram.burst_bytes (data on the bus for
 *        dram.burst cycles, from t + L); a request moves the bursts that cover its
 *        sectors, or what the memory-side transform says, so its column commands are
 *        separate choices and another bank group's can go between them (with tCCDL >
 *        tCCD that is what keeps the bus full). After a read burst b.pre_ready >= t +
 *        tRTP; after a write burst b.pre_ready >= end of its data + tWR.
 * A request is done when its last burst's data has moved.
 *
 * Queues: reads and writes wait in separate bounded queues (dram.queue,
 * dram.write_queue; dram_full tells the L2 to wait). The write queue becomes the active
 * one when it holds dram.write_high writes, or when no read waits, and stays so until
 * it is down to dram.write_low with reads waiting, or empty (GPGPU-Sim's separate write
 * queue; Stuecheli et al., "The virtual write queue", ISCA 2010). The policy only sees
 * the active queue's requests that have arrived.
 *
 * Refresh (dram.trefi > 0): all banks refresh together for tRFC cycles at every
 * multiple of tREFI since the launch began; no command issues then, and every row is
 * closed. It is applied when the channel next decides, so an idle channel costs nothing.
 *
 * Time: the channel decides at DRAM cycle `when` (ch->next is its core cycle); a
 * decision issues one command or none, and the next is at least one cycle later. A read
 * completes at core cycle ceil(data end * core/dram) + dram.latency; a write when its
 * last column command issues. DRAM cycle of core cycle t: ceil(t * dram/core).
 */
#include "timing/dram.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

int dram_check(const EmuConfig *cfg, char *err, size_t n)
{
    const char *bad = NULL;
    if (!cfg->dram_banks || !cfg->dram_queue || !cfg->dram_write_queue ||
        !cfg->dram_clock_khz || !cfg->gpu_clock_khz || !cfg->dram_burst_cycles ||
        !cfg->dram_burst_bytes)
        bad = "dram.banks, dram.queue, dram.write_queue, dram.clock_khz, dram.burst_cycles "
              "and dram.burst_bytes must be positive";
    else if (cfg->dram_queue > 4096 || cfg->dram_write_queue > 4096)
        bad = "dram.queue and dram.write_queue must be at most 4096 requests";
    else if (!cfg->dram_bank_groups || cfg->dram_banks % cfg->dram_bank_groups)
        bad = "dram.bank_groups must be positive and divide dram.banks";
    else if (cfg->dram_write_low > cfg->dram_write_high ||
             cfg->dram_write_high > cfg->dram_write_queue || !cfg->dram_write_high)
        bad = "dram.write_low <= dram.write_high <= dram.write_queue, with dram.write_high "
              "positive";
    else if (cfg->dram_trefi && cfg->dram_trefi <= (uint64_t)cfg->dram_trfc + cfg->dram_trc +
             cfg->dram_tfaw + cfg->dram_trcd + cfg->dram_tcl + 16ull *
             (cfg->dram_tccdl > cfg->dram_burst_cycles ? cfg->dram_tccdl : cfg->dram_burst_cycles))
        /* so that between two refreshes a row can open and a line's columns issue */
        bad = "dram.trefi must exceed dram.trfc + dram.trc + dram.tfaw + dram.trcd + "
              "dram.tcl + 16 column slots (max(dram.tccdl, dram.burst_cycles))";
    else if (cfg->l1_sector % cfg->dram_burst_bytes && cfg->dram_burst_bytes % cfg->l1_sector)
        bad = "dram.burst_bytes must divide the sector (l1.sector) or be a multiple of it";
    if (bad)
        snprintf(err, n, "%s", bad);
    return bad ? -1 : 0;
}

int dram_init(DramChan *ch, const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n)
{
    memset(ch, 0, sizeof *ch);
    for (unsigned i = 0; i < dram_nscheds; i++)
        if (strcmp(dram_scheds[i].name, cfg->dram_scheduler) == 0)
            ch->sched = &dram_scheds[i];
    if (!ch->sched) {
        snprintf(err, n, "dram.scheduler: unknown scheduler '%s' (fr-fcfs, fcfs)",
                 cfg->dram_scheduler);
        return -1;
    }
    if (dram_check(cfg, err, n) < 0)
        return -1;
    ch->trcd = cfg->dram_trcd, ch->tcl = cfg->dram_tcl, ch->wl = cfg->dram_wl;
    ch->trp = cfg->dram_trp, ch->tras = cfg->dram_tras, ch->trc = cfg->dram_trc;
    ch->trrd = cfg->dram_trrd, ch->tfaw = cfg->dram_tfaw, ch->twr = cfg->dram_twr;
    ch->tccd = cfg->dram_tccd, ch->tccdl = cfg->dram_tccdl ? cfg->dram_tccdl : cfg->dram_tccd;
    ch->trtp = cfg->dram_trtp, ch->twtr = cfg->dram_twtr, ch->trtw = cfg->dram_trtw;
    ch->trefi = cfg->dram_trefi, ch->trfc = cfg->dram_trfc;
    ch->burst = cfg->dram_burst_cycles, ch->burst_bytes = cfg->dram_burst_bytes;
    ch->sector = cfg->l1_sector;
    ch->latency = cfg->dram_latency;
    ch->groups = cfg->dram_bank_groups, ch->banks_per_group = cfg->dram_banks / ch->groups;
    ch->write_high = cfg->dram_write_high, ch->write_low = cfg->dram_write_low;
    ch->core_khz = cfg->gpu_clock_khz, ch->dram_khz = cfg->dram_clock_khz;
    ch->nbanks = cfg->dram_banks, ch->ctr = ctr;
    ch->next = TM_NEVER;
    ch->rq.cap = cfg->dram_queue, ch->wq.cap = cfg->dram_write_queue;
    ch->bank = calloc(ch->nbanks, sizeof *ch->bank);
    ch->grp_ready = calloc(ch->groups, sizeof *ch->grp_ready);
    ch->rq.agg = malloc(ch->nbanks * sizeof *ch->rq.agg);
    ch->wq.agg = malloc(ch->nbanks * sizeof *ch->wq.agg);
    ch->rq.v = malloc(ch->rq.cap * sizeof *ch->rq.v);
    ch->wq.v = malloc(ch->wq.cap * sizeof *ch->wq.v);
    if (!ch->bank || !ch->grp_ready || !ch->rq.v || !ch->wq.v || !ch->rq.agg || !ch->wq.agg) {
        dram_free(ch);
        snprintf(err, n, "out of memory");
        return -1;
    }
    for (unsigned b = 0; b < ch->nbanks; b++)
        ch->rq.agg[b] = ch->wq.agg[b] = (DramBankAgg){UINT64_MAX, 0, UINT64_MAX, 0};
    return 0;
}

void dram_free(DramChan *ch)
{
    free(ch->bank);
    free(ch->grp_ready);
    free(ch->rq.agg);
    free(ch->wq.agg);
    ch->rq.agg = ch->wq.agg = NULL;
    free(ch->rq.v);
    free(ch->wq.v);
    ch->bank = NULL, ch->grp_ready = NULL, ch->rq.v = ch->wq.v = NULL;
}

void dram_next_launch(DramChan *ch)
{
    for (unsigned b = 0; b < ch->nbanks; b++)
        ch->bank[b].act_ready = ch->bank[b].col_ready = ch->bank[b].pre_ready = 0;
    for (unsigned g = 0; g < ch->groups; g++)
        ch->grp_ready[g] = 0;
    memset(ch->act_hist, 0, sizeof ch->act_hist);
    ch->act_i = 0, ch->nacts = 0;
    ch->floor = ch->rrd_ready = ch->ccd_ready = ch->rd_ready = ch->wr_ready = 0;
    ch->bus_free = 0;
    ch->refreshed = 0, ch->draining = 0, ch->when = 0;
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

unsigned dram_sector_bursts(const DramChan *ch, uint8_t sectors)
{
    if (ch->burst_bytes <= ch->sector)
        return tm_nsectors(sectors) * (ch->sector / ch->burst_bytes);
    unsigned per = ch->burst_bytes / ch->sector, n = 0;
    uint8_t mask = (uint8_t)((1u << per) - 1);
    for (unsigned s = 0; s < 8; s += per)
        n += (sectors >> s & mask) != 0;
    return n;
}

/* The bursts a request moves: the transform's count, or those covering its sectors. */
static unsigned dram_bursts(const DramChan *ch, const DramReq *r)
{
    return r->bursts ? r->bursts : dram_sector_bursts(ch, r->sectors);
}

/* The first cycle at or after t that is not in a refresh window. */
static uint64_t after_refresh(const DramChan *ch, uint64_t t)
{
    if (!ch->trefi)
        return t;
    uint64_t k = t / ch->trefi;
    return k && t < k * ch->trefi + ch->trfc ? k * ch->trefi + ch->trfc : t;
}

static unsigned same_group_ccd(const DramChan *ch)
{
    return ch->groups > 1 ? ch->tccdl : ch->tccd;
}

uint64_t dram_bank_ready(const DramChan *ch, unsigned bank, int hit, int write, int *cmd)
{
    const DramBank *b = &ch->bank[bank];
    uint64_t t;
    if (hit) {
        unsigned lat = write ? ch->wl : ch->tcl;
        *cmd = DRAM_COL;
        t = max64(b->col_ready, max64(ch->ccd_ready, ch->grp_ready[bank / ch->banks_per_group]));
        t = max64(t, max64(ch->bus_free > lat ? ch->bus_free - lat : 0,
                           write ? ch->wr_ready : ch->rd_ready));
    } else if (b->open) {
        *cmd = DRAM_PRE;
        t = b->pre_ready;
    } else {
        *cmd = DRAM_ACT;
        t = max64(b->act_ready, ch->rrd_ready);
        if (ch->tfaw && ch->nacts >= 4)
            t = max64(t, ch->act_hist[ch->act_i] + ch->tfaw);
    }
    return t;
}

uint64_t dram_settle(const DramChan *ch, uint64_t t)
{
    return after_refresh(ch, max64(t, ch->floor));
}

uint64_t dram_ready(const DramChan *ch, const DramReq *r, int *cmd)
{
    return dram_settle(ch, dram_bank_ready(ch, r->bank, dram_hits(ch, r), r->write, cmd));
}

/* Requests of q that have arrived by t (arrivals never decrease along a queue). */
static unsigned arrived(const DramQueue *q, uint64_t t)
{
    unsigned lo = 0, hi = q->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (q->v[mid].arrival <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a decision at t drains the write queue: it does between the watermarks (see
 * the top of the file). Only decisions change the mode, so requests that arrive in one
 * cycle count together whatever order they were pushed in. */
static int drain_at(const DramChan *ch, uint64_t t)
{
    unsigned r = arrived(&ch->rq, t), w = arrived(&ch->wq, t);
    if (ch->draining)
        return !(w == 0 || (w <= ch->write_low && r > 0));
    return w >= ch->write_high || (r == 0 && w > 0);
}

/* The first arrival after t in q, or UINT64_MAX. */
static uint64_t next_arrival(const DramQueue *q, uint64_t t)
{
    unsigned i = arrived(q, t);
    return i < q->n ? q->v[i].arrival : UINT64_MAX;
}

/* Bank b's entry of q's per-bank view, from its requests (oldest first). */
static void agg_bank(const DramChan *ch, DramQueue *q, unsigned b)
{
    DramBankAgg a = {UINT64_MAX, 0, UINT64_MAX, 0};
    for (unsigned i = 0; i < q->n && (a.hit_seq == UINT64_MAX || a.other_seq == UINT64_MAX);
         i++) {
        const DramReq *r = &q->v[i];
        if (r->bank != b)
            continue;
        int hit = dram_hits(ch, r);
        if (hit && a.hit_seq == UINT64_MAX)
            a.hit_seq = r->seq, a.hit_arrival = r->arrival;
        else if (!hit && a.other_seq == UINT64_MAX)
            a.other_seq = r->seq, a.other_arrival = r->arrival;
    }
    q->agg[b] = a;
}

/* Bank b's row opened or closed: its requests hit or not anew. */
static void agg_row_changed(DramChan *ch, unsigned b)
{
    agg_bank(ch, &ch->rq, b);
    agg_bank(ch, &ch->wq, b);
}

unsigned dram_find(const DramQueue *q, uint64_t seq)
{
    unsigned lo = 0, hi = q->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (q->v[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Refresh windows that began by t: every row closes, no bank activates inside one. */
static void catch_up_refresh(DramChan *ch, uint64_t t)
{
    if (!ch->trefi || t / ch->trefi <= ch->refreshed)
        return;
    uint64_t k = t / ch->trefi, end = k * ch->trefi + ch->trfc;
    for (unsigned b = 0; b < ch->nbanks; b++) {
        ch->bank[b].open = 0;
        ch->bank[b].act_ready = max64(ch->bank[b].act_ready, end);
    }
    ch->ctr->dram_refreshes += k - ch->refreshed;
    ch->refreshed = k;
    for (unsigned b = 0; b < ch->nbanks; b++)
        agg_row_changed(ch, b);
}

static void refresh_next(DramChan *ch)
{
    if (!ch->rq.n && !ch->wq.n) {
        ch->next = TM_NEVER;
        return;
    }
    int drain = drain_at(ch, ch->floor);
    uint64_t t = ch->sched->next(ch, drain ? &ch->wq : &ch->rq, ch->floor);
    t = t < ch->floor ? ch->floor : t;
    /* an arrival in the other queue may change the mode; the policy saw the active one's */
    uint64_t a = next_arrival(drain ? &ch->rq : &ch->wq, ch->floor);
    t = a < t ? a : t;
    if (t == UINT64_MAX) /* cannot happen with requests queued; decide again next cycle */
        t = ch->floor;
    ch->when = t;
    ch->next = dram_core(ch, t);
}

Cycle dram_next(const DramChan *ch)
{
    return ch->next;
}

int dram_full(const DramChan *ch, int write)
{
    const DramQueue *q = write ? &ch->wq : &ch->rq;
    return q->n >= q->cap;
}

int dram_push(DramChan *ch, const DramReq *r, Cycle now)
{
    DramQueue *q = r->write ? &ch->wq : &ch->rq;
    if (q->n >= q->cap)
        return -1;
    DramReq *e = &q->v[q->n];
    *e = *r;
    e->activated = e->precharged = e->col_issued = 0;
    unsigned nb = dram_bursts(ch, e);
    e->left = (uint8_t)(nb ? nb : 1);
    e->seq = ch->seq++;
    e->arrival = max64(dram_cycle(ch, now), q->n ? q->v[q->n - 1].arrival : 0);
    q->n++;
    DramBankAgg *a = &q->agg[e->bank]; /* the youngest: the bank's oldest only if alone */
    int hit = dram_hits(ch, e);
    if (hit && a->hit_seq == UINT64_MAX)
        a->hit_seq = e->seq, a->hit_arrival = e->arrival;
    else if (!hit && a->other_seq == UINT64_MAX)
        a->other_seq = e->seq, a->other_arrival = e->arrival;
    refresh_next(ch);
    return 0;
}

static void count_done(DramChan *ch, const DramDone *d, unsigned bursts)
{
    TmCounters *k = ch->ctr;
    if (d->req.write)
        k->dram_writes++;
    else
        k->dram_reads++;
    k->dram_row_hits += d->row_hit != 0;
    k->dram_row_misses += d->row_hit == 0;
    k->dram_row_conflicts += d->row_conflict != 0;
    k->dram_bytes += (uint64_t)bursts * ch->burst_bytes;
    k->dram_bursts += bursts;
    k->dram_meta_accesses += d->req.meta;
}

/* One column command of request r at cycle t: it moves the next of r's bursts. */
static void issue_column(DramChan *ch, DramReq *r, uint64_t t)
{
    DramBank *b = &ch->bank[r->bank];
    unsigned lat = r->write ? ch->wl : ch->tcl;
    uint64_t end = t + lat + ch->burst;
    if (!r->col_issued)
        r->col = t, r->col_issued = 1;
    r->left--;
    ch->bus_free = end;
    ch->ccd_ready = t + ch->tccd;
    ch->grp_ready[r->bank / ch->banks_per_group] = t + same_group_ccd(ch);
    if (r->write) {
        b->pre_ready = max64(b->pre_ready, end + ch->twr);
        ch->rd_ready = max64(ch->rd_ready, end + ch->twtr);
    } else {
        b->pre_ready = max64(b->pre_ready, t + ch->trtp);
        ch->wr_ready = max64(ch->wr_ready, t + ch->trtw);
    }
}

/* Request r's last burst moved at cycle t: d describes it. */
static void complete(DramChan *ch, const DramReq *r, uint64_t t, DramDone *d)
{
    uint64_t end = t + (r->write ? ch->wl : ch->tcl) + ch->burst;
    memset(d, 0, sizeof *d);
    d->req = *r;
    d->col = r->col;
    d->row_hit = !r->activated;
    d->row_conflict = r->precharged;
    d->at = dram_core(ch, end) + (r->write ? 0 : ch->latency);
    count_done(ch, d, dram_bursts(ch, r));
    if (!r->write)
        ch->ctr->dram_read_queue_cycles += dram_core(ch, end) - dram_core(ch, r->arrival);
}

int dram_pick(DramChan *ch, DramDone *d)
{
    if (!ch->rq.n && !ch->wq.n)
        return 0;
    uint64_t t = ch->when;
    catch_up_refresh(ch, t);
    ch->draining = drain_at(ch, t);
    DramQueue *q = ch->draining ? &ch->wq : &ch->rq;
    int i = ch->sched->pick(ch, q, t), cmd = -1, done = 0;
    if (i >= 0 && dram_ready(ch, &q->v[i], &cmd) > t)
        i = -1; /* a policy may only choose a command that can issue now */
    if (i >= 0) {
        DramReq *r = &q->v[i];
        DramBank *b = &ch->bank[r->bank];
        if (cmd == DRAM_PRE) {
            b->open = 0;
            b->act_ready = max64(b->act_ready, t + ch->trp);
            agg_row_changed(ch, r->bank);
            r->precharged = 1;
            ch->ctr->dram_precharges++;
        } else if (cmd == DRAM_ACT) {
            b->open = 1, b->row = r->row;
            agg_row_changed(ch, r->bank);
            b->col_ready = t + ch->trcd;
            b->pre_ready = max64(b->pre_ready, t + ch->tras);
            b->act_ready = t + ch->trc;
            ch->rrd_ready = t + ch->trrd;
            ch->act_hist[ch->act_i] = t;
            ch->act_i = (ch->act_i + 1) % 4;
            ch->nacts += ch->nacts < 4;
            r->activated = 1;
            ch->ctr->dram_activates++;
        } else {
            issue_column(ch, r, t);
            if (!r->left) {
                complete(ch, r, t, d);
                unsigned bank = r->bank;
                memmove(r, r + 1, (q->n - (unsigned)i - 1) * sizeof *r);
                q->n--;
                agg_bank(ch, q, bank);
                done = 1;
            }
        }
    }
    ch->floor = t + 1;
    refresh_next(ch);
    return done;
}

int dram_idle(const DramChan *ch)
{
    return ch->rq.n == 0 && ch->wq.n == 0;
}

void dram_dump(const DramChan *ch, unsigned id, FILE *f)
{
    fprintf(f, "dram channel %u (%s): %u reads and %u writes queued (%s), next decision at "
            "dram cycle %llu, bus free at %llu\n", id, ch->sched->name, ch->rq.n, ch->wq.n,
            ch->draining ? "draining writes" : "serving reads",
            (unsigned long long)ch->when, (unsigned long long)ch->bus_free);
    for (unsigned b = 0; b < ch->nbanks; b++)
        if (ch->bank[b].open)
            fprintf(f, "  bank %u: row %llu open\n", b, (unsigned long long)ch->bank[b].row);
}
