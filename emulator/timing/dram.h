/*
 * dram.h - one DRAM channel: banks with open rows, a request queue and a scheduler
 * policy (fr-fcfs | fcfs) chosen by name. Times inside are DRAM clock cycles; the
 * interface speaks core cycles and converts (ceil) in both directions.
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
    uint8_t sectors;    /* sectors moved: one burst each ... */
    uint8_t bursts;     /* ... unless this is not 0: a transformed (compressed) line */
    uint8_t write;
    uint8_t meta;       /* the memory-side transform's metadata, not a data line */
    uint16_t delay;     /* core cycles between a read's data and its fill (the transform's) */
    uint64_t arrival;   /* DRAM cycle it entered the queue (set by dram_push) */
} DramReq;

typedef struct DramDone {
    DramReq req;
    Cycle at;           /* core cycle the data is back at L2 (reads: + dram.latency) */
    int row_hit, row_conflict;
    uint64_t col;       /* DRAM cycle of the column command (tests) */
} DramDone;

typedef struct DramBank {
    uint64_t row;
    int open;
    uint64_t act_ready;  /* earliest next activate: last activate + tRC */
    uint64_t pre_ready;  /* earliest precharge: tRAS, end of read data, write recovery */
} DramBank;

typedef struct DramChan DramChan;

/* Scheduler policy: which queued request to serve at DRAM cycle t (index into the
 * window; entry 0 is the oldest and has always arrived). */
typedef struct DramSched {
    const char *name;
    unsigned (*pick)(const DramChan *ch, uint64_t t);
} DramSched;

struct DramChan {
    unsigned trcd, tcl, wl, trp, tras, trc, trrd, tccd, twr, burst, window, latency;
    uint64_t core_khz, dram_khz;
    unsigned nbanks;
    DramBank *bank;
    DramReq *q;          /* [qcap] arrival order */
    unsigned qn, qcap;
    uint64_t pick_ready; /* next scheduling decision no earlier than this */
    uint64_t col_ready;  /* tCCD */
    uint64_t rrd_ready;  /* tRRD */
    uint64_t bus_free;   /* data bus */
    Cycle next;          /* dram_next, kept current by dram_push and dram_pick */
    const DramSched *sched;
    TmCounters *ctr;
    unsigned burst_bytes;
};

int dram_init(DramChan *ch, const EmuConfig *cfg, TmCounters *ctr, char *err, size_t n);
void dram_free(DramChan *ch);
/* A new launch (memsys_next_launch): the channel is idle; its timing restarts at cycle 0,
 * the banks' open rows stay (memsys_count_into says where it counts). */
void dram_next_launch(DramChan *ch);
uint64_t dram_cycle(const DramChan *ch, Cycle core);  /* first DRAM cycle at/after core */
Cycle dram_core(const DramChan *ch, uint64_t dram);   /* first core cycle at/after dram */
/* Queues r, arrived at core cycle now. Returns -1 when out of memory. */
int dram_push(DramChan *ch, const DramReq *r, Cycle now);
/* Core cycle of the next scheduling decision, or TM_NEVER with nothing queued. */
Cycle dram_next(const DramChan *ch);
/* Makes that decision: serves one request and describes it. Returns 0 when empty. */
int dram_pick(DramChan *ch, DramDone *d);
int dram_idle(const DramChan *ch);
void dram_dump(const DramChan *ch, unsigned id, FILE *f);

#endif
