/*
 * dram.h - one DRAM channel at command level: banks with their own state and timers, a
 * bounded read queue and a bounded write queue, and a scheduler policy (dram_sched.c)
 * that chooses, each command-bus cycle, which request's next command (precharge,
 * activate, column) issues. Times inside are DRAM command-clock cycles; the interface
 * speaks core cycles and converts (ceil) in both directions.
 */
#ifndef EMU_DRAM_H
#define EMU_DRAM_H

#include "config/config.h"
#include "timing/timing.h"

typedef struct DramReq {
    uint64_t line;      /* line address (returned with the completion) */
    uint64_t row;
    unsigned bank;
    uint16_t slice;     /* requesting L2 slice */
    uint8_t sectors;    /* sectors moved: the bursts that cover them ... */
    uint8_t bursts;     /* ... unless this is not 0: a transformed (compressed) line */
    uint8_t write;
    uint8_t meta;       /* the memory-side transform's metadata, not a data line */
    uint8_t activated;  /* the channel activated a row for it (set by the channel) */
    uint8_t precharged; /* the channel closed another row for it (set by the channel) */
    uint8_t left;       /* bursts still to move (set by the channel) */
    uint8_t col_issued; /* its first column command has issued, at col */
    uint16_t delay;     /* core cycles between a read's data and its fill (the transform's) */
    uint64_t arrival;   /* DRAM cycle it entered the queue (set by dram_push) */
    uint64_t col;       /* DRAM cycle of its first column command */
    uint64_t seq;       /* push order within the channel (set by dram_push) */
} DramReq;

typedef struct DramDone {
    DramReq req;
    Cycle at;           /* core cycle the data is back at L2 (reads: + dram.latency) */
    int row_hit, row_conflict;
    uint64_t col;       /* DRAM cycle of its first column command (tests) */
} DramDone;

typedef struct DramBank {
    uint64_t row;
    int open;
    uint64_t act_ready;  /* earliest activate: tRC after the last, tRP after a precharge */
    uint64_t col_ready;  /* earliest column command: tRCD after the activate */
    uint64_t pre_ready;  /* earliest precharge: tRAS, tRTP after reads, write recovery */
} DramBank;

/* The commands a request may need next. */
enum { DRAM_PRE, DRAM_ACT, DRAM_COL };

/* Per bank of one queue: its oldest request that hits the bank's open row and its
 * oldest one that does not (push order, UINT64_MAX: none), with their arrivals. Every
 * request to one bank that hits (or does not) needs the same command at the same
 * earliest cycle, so a policy can decide bank by bank. Kept current by the channel:
 * on a push, and for a bank whose request leaves or whose row changes. */
typedef struct DramBankAgg {
    uint64_t hit_seq, hit_arrival, other_seq, other_arrival;
} DramBankAgg;

/* One queue of the channel (reads or writes), in arrival order. */
typedef struct DramQueue {
    DramReq *v;
    unsigned n, cap;
    DramBankAgg *agg;   /* [banks] */
} DramQueue;

typedef struct DramChan DramChan;


/* Scheduler policy: which request of the active queue issues its next command at DRAM
 * cycle t (an index into q, or -1 for none), and the earliest cycle at or after `from`
 * at which it could choose one (UINT64_MAX: none without a new request). Both see only
 * requests that have arrived by then; dram_bank_ready() says what each needs and when. */
typedef struct DramSched {
    const char *name;
    int (*pick)(const DramChan *ch, const DramQueue *q, uint64_t t);
    uint64_t (*next)(const DramChan *ch, const DramQueue *q, uint64_t from);
} DramSched;

struct DramChan {
    unsigned trcd, tcl, wl, trp, tras, trc, trrd, tfaw, tccd, tccdl, trtp, twtr, trtw, twr;
    unsigned burst, burst_bytes, sector, latency, groups, banks_per_group;
    unsigned trefi, trfc;
    unsigned write_high, write_low;
    uint64_t core_khz, dram_khz;
    unsigned nbanks;
    DramBank *bank;
    DramQueue rq, wq;       /* bounded: dram.queue reads, dram.write_queue writes */
    int draining;           /* the write queue is the active one */
    uint64_t floor;         /* no decision before this cycle (one command per cycle) */
    uint64_t when;          /* DRAM cycle of the next decision (next is its core cycle) */
    uint64_t act_hist[4];   /* the last four activates (tFAW), a ring; act_i the oldest */
    unsigned act_i, nacts;
    uint64_t rrd_ready;     /* tRRD */
    uint64_t ccd_ready;     /* last column command + tCCD */
    uint64_t *grp_ready;    /* [groups] last column command in the group + tCCDL */
    uint64_t rd_ready;      /* earliest read column command (tWTR after write data) */
    uint64_t wr_ready;      /* earliest write column command (tRTW after a read) */
    uint64_t bus_free;      /* data bus */
    uint64_t refreshed;     /* refresh windows taken into account (trefi > 0) */
    uint64_t seq;           /* requests pushed */
    Cycle next;             /* dram_next, kept current */
    const DramSched *sched;
    TmCounters *ctr;
};

/* The DRAM keys are consistent (emu_config_check calls it): -1 with the keys in err. */
int dram_check(const EmuConfig *cfg, char *err, size_t n);
int dram_init(DramChan *ch, const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n);
void dram_free(DramChan *ch);
/* A new launch (memsys_next_launch): the channel is idle; its timing restarts at cycle 0,
 * the banks' open rows stay (memsys_count_into says where it counts). */
void dram_next_launch(DramChan *ch);
uint64_t dram_cycle(const DramChan *ch, Cycle core);  /* first DRAM cycle at/after core */
Cycle dram_core(const DramChan *ch, uint64_t dram);   /* first core cycle at/after dram */
/* The bursts (column commands) that move these sectors of a line: one per sector, or
 * one per group of sectors a burst covers (dram.burst_bytes > l1.sector). */
unsigned dram_sector_bursts(const DramChan *ch, uint8_t sectors);
/* The queue r would join is full: dram_push would refuse it. */
int dram_full(const DramChan *ch, int write);
/* Queues r, arrived at core cycle now. Returns -1 when its queue is full. */
int dram_push(DramChan *ch, const DramReq *r, Cycle now);
/* Core cycle of the next scheduling decision, or TM_NEVER with nothing queued. */
Cycle dram_next(const DramChan *ch);
/* Makes that decision: issues at most one command. Returns 1 when that command was the
 * last column command of a request (d describes it), else 0. */
int dram_pick(DramChan *ch, DramDone *d);
int dram_idle(const DramChan *ch);
void dram_dump(const DramChan *ch, unsigned id, FILE *f);

/* For the policies: r hits its bank's open row. */
static inline int dram_hits(const DramChan *ch, const DramReq *r)
{
    return ch->bank[r->bank].open && ch->bank[r->bank].row == r->row;
}
/* The command a request to bank needs next (a column command when it hits the open
 * row, else a precharge or an activate) and the earliest cycle the bank and the channel
 * allow it, before the decision floor and refresh (dram_settle). All requests of a
 * queue to one bank that hit (or do not) get the same answer. */
uint64_t dram_bank_ready(const DramChan *ch, unsigned bank, int hit, int write, int *cmd);
/* t moved past the decision floor and out of any refresh window. */
uint64_t dram_settle(const DramChan *ch, uint64_t t);
/* The index in q of the request pushed as seq (it is queued). */
unsigned dram_find(const DramQueue *q, uint64_t seq);
/* The command r needs next and the earliest cycle it could issue, as the channel stands
 * now (other commands issued first only make it later). */
uint64_t dram_ready(const DramChan *ch, const DramReq *r, int *cmd);

extern const DramSched dram_scheds[];
extern const unsigned dram_nscheds;

#endif
