/*
 * stats_int.h - the statistics component's private header: the document's parts and the
 * running sums behind its totals, shared by stats.c (the launch log,
 * emu_write_stats_json, the summary), doc.c (the document's JSON), log.c and stream.c
 * (XGPU_STATS: launches written as they finish). Nothing outside stats/ includes it.
 *
 * A launch is written from an EmuLaunchRec: its figures and what the timing model left
 * of it, wherever they are kept (the device's log, or the stream's one held launch).
 * EmuStatsAcc sums launches for "totals" and, per kernel, for the summary; it grows only
 * with the number of distinct kernel and observer names, never with the launches.
 */
#ifndef EMU_STATS_STATS_INT_H
#define EMU_STATS_STATS_INT_H

#include <sys/types.h>
#include "device.h"
#include "stats/jsonw.h"
#include "stats/stats.h"

#define EMU_NCTR (sizeof(TmCounters) / sizeof(uint64_t))

typedef struct EmuLaunchRec {
    const EmuLaunchStats *s;
    const TmCounters *ctr; /* NULL: functional (all zero) */
    const TmReport *rep;   /* NULL: no observer figures, units or GPUs */
    const EmuInterval *iv; /* its intervals */
    size_t niv;
} EmuLaunchRec;

/* Figures by name, summed, in the order first seen (the observer's "observed"). */
typedef struct EmuNameSums {
    char (*name)[64];
    uint64_t *value;
    size_t n, cap;
    uint32_t *slot; /* hash table of indices + 1 (0: empty), nslot a power of two */
    size_t nslot;
} EmuNameSums;
int emu_sums_add(EmuNameSums *m, const char *name, uint64_t v); /* -1: out of memory */
void emu_sums_free(EmuNameSums *m);

/* One kernel's launches summed (the summary's row). */
typedef struct EmuKernelSum {
    char name[128];
    uint64_t launches, cycles, warp_insns;
    uint64_t ctr[EMU_NCTR];
} EmuKernelSum;

typedef struct EmuStatsAcc {
    uint64_t launches, winsns, tinsns, ns, pbytes, pdropped, bad, cycles;
    double secs, cpu;
    uint64_t ctr[EMU_NCTR];
    EmuNameSums observed;
    int per_kernel;         /* keep `kernel` too */
    EmuKernelSum *kernel;   /* per kernel name, in order of first launch */
    size_t nkernel, capkernel;
    int oom;                /* an allocation failed: some names were not summed */
} EmuStatsAcc;

void emu_acc_add(EmuStatsAcc *a, const EmuLaunchRec *r);
void emu_acc_free(EmuStatsAcc *a);

/* stats.c: the device's figures in a view (no counters yet); launch i of the log. */
void emu_stats_view_init(const EmuDevice *d, EmuStatView *v);
void emu_stats_rec(const EmuDevice *d, size_t i, EmuLaunchRec *r);

/* doc.c: the document. head opens it and its "launches" array; tail closes the array and
 * writes "totals" from a's sums. */
void emu_doc_head(JsonW *w, const EmuDevice *d);
void emu_doc_launch(JsonW *w, const EmuDevice *d, const EmuLaunchRec *r);
void emu_doc_tail(JsonW *w, const EmuDevice *d, const EmuStatsAcc *a);

/* The stream (stream.c). It holds the latest launch until the timing model has added its
 * counters (tm_record; a functional launch is written at once), writes it, and keeps
 * only its figures (EmuLaunchStats, counters) for the lookups. */
typedef struct EmuStatsStream {
    FILE *f;
    JsonW w;
    char *path, *tmp;    /* the statistics file, and the file written until the end */
    pid_t pid;           /* the process that opened it (a fork's child leaves it alone) */
    EmuStatsAcc acc;
    size_t index;        /* the held launch's index */
    int held;            /* a launch is held, not yet written */
    int have;            /* st (and ctr when has_ctr) hold launch `index` */
    EmuLaunchStats st;
    TmCounters ctr;
    int has_ctr;
    TmReport rep;
    EmuInterval *iv;
    size_t niv;
    char buf[1 << 16];   /* the FILE's buffer: writing allocates nothing */
} EmuStatsStream;

/* log.c keeps the device's stream (NULL: none). */
EmuStatsStream *emu_log_stream(const EmuDevice *d);
int emu_log_set_stream(EmuDevice *d, EmuStatsStream *s);

/* stream.c: a launch recorded (emu_stats_record), its timing figures (tm_record). */
void emu_stream_launch(EmuDevice *d, EmuStatsStream *s, const EmuLaunchStats *st);
void emu_stream_timing(EmuDevice *d, EmuStatsStream *s, size_t i, const TmCounters *ctr,
                       TmReport *rep);
/* Frees a stream (closed or never opened; tm_device_free). */
void emu_stream_free(EmuStatsStream *s);

#endif
