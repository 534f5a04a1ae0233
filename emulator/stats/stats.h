/*
 * stats.h - what the rest of libxgpuemu calls in stats/ (beyond emu_stats_record in
 * device.h): the timing model's hooks for the interval series and the progress line, the
 * per-launch counters, and the summary printed when the device is destroyed.
 *
 * A timing launch calls, in order: emu_series_begin (cycle 0), emu_interval_record every
 * emu.interval_cycles cycles (when that key is > 0) and once at its last cycle, then
 * emu_stats_record, which attaches the recorded intervals to the launch. All of them are
 * optional: a launch without them simply has no intervals. Launches of both modes call
 * the progress hooks (emu_progress_begin, emu_progress now and then, emu_progress_end).
 */
#ifndef EMU_STATS_H
#define EMU_STATS_H

#include "device.h"
#include "stats/printer.h"
#include "timing/timing.h"

typedef struct EmuSeries EmuSeries;
typedef struct EmuProgress EmuProgress;

/* One interval: counters accumulated over (cycle - cycles, cycle]. */
typedef struct EmuInterval {
    Cycle cycle;         /* launch-relative cycle at its end */
    Cycle cycles;        /* its length */
    uint64_t warp_insns; /* warp instructions issued in it */
    TmCounters ctr;      /* counter increments in it */
} EmuInterval;

/* now: the launch's counters so far (copied). */
void emu_series_begin(EmuDevice *d, const TmCounters *now);
/* cycle: launch-relative; warp_insns: warp instructions issued by the launch so far. */
void emu_interval_record(EmuDevice *d, Cycle cycle, uint64_t warp_insns, const TmCounters *now);

/* progress.c: the progress line (emu.progress) of a launch, in either mode. wanted: the
 * configuration and stderr allow one; begin/end bracket a launch (end erases the line
 * on a terminal); emu_progress is cheap and decides itself whether to print. */
#define EMU_PROGRESS_STEP (1u << 22) /* functional mode: warp instructions between calls */
int emu_progress_wanted(const EmuDevice *d);
void emu_progress_begin(EmuDevice *d, const char *kernel, int timing);
void emu_progress(EmuDevice *d, Cycle cycle, uint64_t warp_insns, uint64_t ctas_done,
                  uint64_t ctas);
void emu_progress_end(EmuDevice *d);
void emu_progress_free(EmuDevice *d);

/* series.c: called by emu_stats_record (moves the pending intervals to launch i), and the
 * intervals of launch i. */
void emu_series_launch_done(EmuDevice *d, size_t i);
const EmuInterval *emu_launch_intervals(const EmuDevice *d, size_t i, size_t *n);
/* The running launch's intervals, handed over (free them; NULL when none). */
EmuInterval *emu_series_take(EmuDevice *d, size_t *n);
/* Frees the series state (emu_destroy). */
void emu_series_free(EmuDevice *d);

/* The timing core's per-launch counter difference (NULL: none, e.g. functional mode).
 * Defined by the core (timing/); weak here so the printers build and run before it is. */
const TmCounters *emu_launch_counters(const EmuDevice *d, size_t i) __attribute__((weak));
const TmReport *emu_launch_report(const EmuDevice *d, size_t i) __attribute__((weak));

/* stats.c: the counter view of launch i, and the summary at emu_destroy. */
void emu_stats_view(const EmuDevice *d, size_t i, EmuStatView *v);
void emu_stats_print_summary(const EmuDevice *d, FILE *f);

#endif
