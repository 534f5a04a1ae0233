/*
 * printer.h - the statistics printers' tables, over counters seen as a uint64_t vector.
 *
 * TmCounters (timing/timing.h) is nothing but the uint64_t fields of core_stats.def and
 * mem_stats.def in order, so the printers treat it as `const uint64_t *` indexed by the
 * field table below; this header needs no internal include, so tests can drive the
 * printers with synthetic vectors. Derived figures (hit rates, occupancy, stall
 * fractions, IPC, register-file energies) are computed here from counter names; a
 * derived figure whose denominator is 0, or whose counters are not declared, has no
 * value (JSON null, "-" in the summary).
 */
#ifndef EMU_STATS_PRINTER_H
#define EMU_STATS_PRINTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/* Counter fields, in TmCounters order. */
size_t emu_stat_nfields(void);
const char *emu_stat_field_name(size_t i); /* dotted JSON name, e.g. "l1.hits" */
int emu_stat_field_index(const char *name); /* -1 when not declared */

/* Everything a derived figure may use. */
typedef struct EmuStatView {
    const uint64_t *ctr;       /* emu_stat_nfields() counters, or NULL (all zero) */
    uint64_t cycles;           /* core cycles (0 in functional mode) */
    uint64_t warp_insns;       /* warp instructions issued */
    uint32_t sm_count;         /* gpu.sm_count */
    uint32_t max_warps_per_sm; /* gpu.max_threads_per_sm / 32 */
    double energy[9];          /* energy.* per event: bank_read, bank_write, xbar, ct_read,
                                * ct_write, arbiter, dram_activate, dram_burst, icnt_flit
                                * (0: no energy figures' inputs) */
    int energy_placeholder;    /* energy.placeholder */
} EmuStatView;

/* Derived figures: name (e.g. "l1.hit_rate"), and value: 0 and *out, or -1 (null). */
size_t emu_stat_nderived(void);
const char *emu_stat_derived_name(size_t i);
int emu_stat_derived(size_t i, const EmuStatView *v, double *out);
/* The value of a counter by name (0 when undeclared or v->ctr is NULL). */
uint64_t emu_stat_get(const EmuStatView *v, const char *name);
/* IPC: warp instructions per cycle; -1 when cycles is 0. */
int emu_stat_ipc(const EmuStatView *v, double *out);

/* Issue-stall causes: the counters whose names start with EMU_STAT_STALL_PREFIX. */
#define EMU_STAT_STALL_PREFIX "stall."

/* The JSON "timing" object: every counter by name, then every derived figure; as a
 * json-c tree, or written as member `key` of the object w is writing (jsonw.h). */
struct json_object *emu_stats_timing_json(const EmuStatView *v);
struct JsonW;
void emu_stats_timing_write(struct JsonW *w, const char *key, const EmuStatView *v);

/* One row of the text summary. */
typedef struct EmuSummaryRow {
    const char *name; /* kernel name, or "total" */
    uint64_t launches;
    EmuStatView view;
} EmuSummaryRow;
/* Writes the compact summary table (one line per row) with the top stall causes. */
void emu_stats_summary(FILE *f, const EmuSummaryRow *rows, size_t n);

#endif
