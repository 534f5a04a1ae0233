/*
 * log.h - each timing launch's counters and observer report, kept on the device
 * (log.c). The printers reach them through stats.h's weak declarations, so the stats
 * code links without the timing model.
 */
#ifndef EMU_STATS_LOG_H
#define EMU_STATS_LOG_H

#include "device.h"
#include "timing/timing.h"

void tm_report_free(TmReport *r);
/* Keeps ctr as the counters of launch i (after emu_stats_record) and takes rep over. */
void tm_record(EmuDevice *d, size_t i, const TmCounters *ctr, TmReport *rep);
/* Launch i's report (observer figures, per-unit counters), or NULL when it has none. */
const TmReport *emu_launch_report(const EmuDevice *d, size_t i);
/* The counters of launch i, or NULL (functional launch). */
const TmCounters *emu_launch_counters(const EmuDevice *d, size_t i);
/* Frees what tm_record kept and the device's memory system (emu_destroy). */
void tm_device_free(EmuDevice *d);

#endif
