/*
 * fields.c - the counter table (generated from core_stats.def and mem_stats.def) and the
 * derived figures computed from it by name.
 *
 * Invariant: emu_stat_fields[i] describes the i-th uint64_t of TmCounters (the struct
 * holds nothing else), so a TmCounters pointer is read as a counter vector. Derived
 * figures name their counters as text, so a figure whose counters a .def does not (yet)
 * declare is simply null; the register-file energies multiply event counters by the
 * energy.* keys the view carries; every stall.* counter also gets a "_fraction" figure: its share
 * of the issue slots (core.subcore_cycles), or of all stall.* counters without that.
 */
#include <json-c/json.h>
#include <stddef.h>
#include <string.h>
#include "stats/jsonw.h"
#include "stats/printer.h"
#include "timing/timing.h"

typedef struct StatField {
    const char *name, *desc, *fraction; /* fraction: name "_fraction" (stall counters) */
    size_t offset;
} StatField;

static const StatField emu_stat_fields[] = {
#define TSTAT(field, name, desc) {name, desc, name "_fraction", offsetof(TmCounters, field)},
#include "timing/core_stats.def"
#include "timing/mem_stats.def"
#undef TSTAT
    {NULL, NULL, NULL, 0}, /* sentinel: the .def files may still be empty */
};
#define NFIELDS (sizeof emu_stat_fields / sizeof emu_stat_fields[0] - 1)

_Static_assert(sizeof(TmCounters) % sizeof(uint64_t) == 0, "TmCounters holds only uint64_t");

size_t emu_stat_nfields(void)
{
    return NFIELDS;
}

const char *emu_stat_field_name(size_t i)
{
    return i < NFIELDS ? emu_stat_fields[i].name : NULL;
}

int emu_stat_field_index(const char *name)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(emu_stat_fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

uint64_t emu_stat_get(const EmuStatView *v, const char *name)
{
    int i = emu_stat_field_index(name);
    return i >= 0 && v->ctr ? v->ctr[emu_stat_fields[i].offset / sizeof(uint64_t)] : 0;
}

static int is_stall(size_t i)
{
    return strncmp(emu_stat_fields[i].name, EMU_STAT_STALL_PREFIX,
                   sizeof EMU_STAT_STALL_PREFIX - 1) == 0;
}

#define ISSUE_SLOTS "core.subcore_cycles" /* stall shares are of these when declared */

/* A ratio of counter sums: num / (den[0] + den[1]); every name must be declared. */
typedef struct StatRatio {
    const char *name, *num, *den[2], *desc;
} StatRatio;

static const StatRatio stat_ratios[] = {
    {"l1.hit_rate", "l1.hits", {"l1.hits", "l1.misses"}, "L1 hits / (hits + misses)"},
    {"tex.hit_rate", "tex.hits", {"tex.hits", "tex.misses"},
     "texture cache hits / (hits + misses)"},
    {"l2.hit_rate", "l2.hits", {"l2.hits", "l2.misses"}, "L2 hits / (hits + misses)"},
    {"dram.row_hit_rate", "dram.row_hits", {"dram.row_hits", "dram.row_misses"},
     "DRAM row hits / (row hits + row misses)"},
    {"rf.conflict_rate", "rf.bank_conflicts", {"rf.bank_reads", NULL},
     "register reads that waited for their bank / register reads"},
    {"smem.conflicts_per_access", "smem.bank_conflicts", {"smem.accesses", NULL},
     "shared-memory bank-conflict cycles per shared-memory access"},
    {"core.issued_fraction", "core.issued", {ISSUE_SLOTS, NULL},
     "issue slots that issued / all issue slots"},
    {"rf.ct_hit_rate", "rf.ct_hits", {"rf.ct_hits", "rf.ct_misses"},
     "register caches (rf.collector or core.sched): source registers found / all looked up"},
    {"twolevel.pending_ready_fraction", "twolevel.pending_ready", {ISSUE_SLOTS, NULL},
     "two-level policies: issue slots lost while a pending warp was ready / all issue slots"},
    /* the mechanisms' (emulator/mech/NAME/core_stats.def, mem_stats.def) */
#define TSTAT(field, name, desc)
#define TRATIO(name, num, den0, den1, desc) {name, num, {den0, den1}, desc},
#include "mech_core_stats.def"
#include "mech_mem_stats.def"
#undef TSTAT
#undef TRATIO
};
#define NRATIOS (sizeof stat_ratios / sizeof stat_ratios[0])

/* Register-file dynamic energy (docs/stats.md): events x energy.* per event. Each class
 * sums up to two counters; `energy` indexes EmuStatView.energy. */
typedef struct StatEnergy {
    const char *name, *ctr[2];
    int energy;
    const char *desc;
} StatEnergy;

static const StatEnergy stat_energy[] = {
    {"energy.bank_read", {"rf.bank_reads", NULL}, 0, "rf.bank_reads x energy.bank_read"},
    {"energy.bank_write", {"rf.bank_writes", NULL}, 1, "rf.bank_writes x energy.bank_write"},
    {"energy.xbar", {"rf.xbar_transfers", NULL}, 2, "rf.xbar_transfers x energy.xbar"},
    {"energy.ct_read", {"rf.ct_reads", NULL}, 3, "rf.ct_reads x energy.ct_read"},
    {"energy.ct_write", {"rf.ct_fills", "rf.ct_writes"}, 4,
     "(rf.ct_fills + rf.ct_writes) x energy.ct_write"},
    {"energy.arbiter", {"rf.arbiter_grants", NULL}, 5, "rf.arbiter_grants x energy.arbiter"},
    /* the memory system's (docs/stats.md) */
    {"energy.dram_activate", {"dram.row_misses", NULL}, 6,
     "dram.row_misses x energy.dram_activate"},
    {"energy.dram_burst", {"dram.bursts", NULL}, 7, "dram.bursts x energy.dram_burst"},
    {"energy.icnt_flit", {"icnt.request_flits", "icnt.response_flits"}, 8,
     "(icnt.request_flits + icnt.response_flits) x energy.icnt_flit"},
};
#define NENERGY (sizeof stat_energy / sizeof stat_energy[0])
#define NRF_ENERGY 6 /* the first six classes are the register file's */

/* Fixed figures after the ratios: IPC, occupancy, the energies and their totals (the
 * register file's, the memory system's). */
enum { DERIVED_IPC = NRATIOS, DERIVED_OCCUPANCY, DERIVED_SCHEDULABLE, DERIVED_ENERGY,
       DERIVED_ENERGY_TOTAL = DERIVED_ENERGY + NENERGY, DERIVED_MEM_ENERGY_TOTAL, NFIXED };
#define OCCUPANCY_COUNTER "core.active_warp_cycles"
#define SCHEDULABLE_COUNTER "core.schedulable_warp_cycles"

static size_t nstalls(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NFIELDS; i++)
        n += (size_t)is_stall(i);
    return n;
}

/* The field of the j-th stall counter. */
static size_t stall_field(size_t j)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (is_stall(i) && j-- == 0)
            return i;
    return NFIELDS;
}

size_t emu_stat_nderived(void)
{
    return NFIXED + nstalls();
}

const char *emu_stat_derived_name(size_t i)
{
    if (i < NRATIOS)
        return stat_ratios[i].name;
    if (i == DERIVED_IPC)
        return "ipc";
    if (i == DERIVED_OCCUPANCY)
        return "occupancy";
    if (i == DERIVED_SCHEDULABLE)
        return "core.schedulable_warps";
    if (i >= DERIVED_ENERGY && i < DERIVED_ENERGY_TOTAL)
        return stat_energy[i - DERIVED_ENERGY].name;
    if (i == DERIVED_ENERGY_TOTAL)
        return "energy.rf_dynamic";
    if (i == DERIVED_MEM_ENERGY_TOTAL)
        return "energy.memory_dynamic";
    size_t f = stall_field(i - NFIXED);
    return f < NFIELDS ? emu_stat_fields[f].fraction : NULL;
}

static int ratio(double num, double den, double *out)
{
    if (den == 0)
        return -1;
    *out = num / den;
    return 0;
}

int emu_stat_ipc(const EmuStatView *v, double *out)
{
    return ratio((double)v->warp_insns, (double)v->cycles, out);
}

static int ratio_value(const StatRatio *r, const EmuStatView *v, double *out)
{
    if (emu_stat_field_index(r->num) < 0 || emu_stat_field_index(r->den[0]) < 0 ||
        (r->den[1] && emu_stat_field_index(r->den[1]) < 0))
        return -1;
    double den = (double)emu_stat_get(v, r->den[0]);
    if (r->den[1])
        den += (double)emu_stat_get(v, r->den[1]);
    return ratio((double)emu_stat_get(v, r->num), den, out);
}

static int stall_fraction(size_t j, const EmuStatView *v, double *out)
{
    size_t f = stall_field(j);
    if (f >= NFIELDS || !v->ctr)
        return -1;
    double sum = 0;
    if (emu_stat_field_index(ISSUE_SLOTS) >= 0)
        sum = (double)emu_stat_get(v, ISSUE_SLOTS);
    else
        for (size_t i = 0; i < NFIELDS; i++)
            if (is_stall(i))
                sum += (double)v->ctr[emu_stat_fields[i].offset / sizeof(uint64_t)];
    return ratio((double)v->ctr[emu_stat_fields[f].offset / sizeof(uint64_t)], sum, out);
}

/* Energy class k: its events x its per-event energy; -1 without counters. */
static int energy_value(size_t k, const EmuStatView *v, double *out)
{
    const StatEnergy *e = &stat_energy[k];
    if (!v->ctr || emu_stat_field_index(e->ctr[0]) < 0 ||
        (e->ctr[1] && emu_stat_field_index(e->ctr[1]) < 0))
        return -1;
    double n = (double)emu_stat_get(v, e->ctr[0]);
    if (e->ctr[1])
        n += (double)emu_stat_get(v, e->ctr[1]);
    *out = n * v->energy[e->energy];
    return 0;
}

int emu_stat_derived(size_t i, const EmuStatView *v, double *out)
{
    if (i < NRATIOS)
        return ratio_value(&stat_ratios[i], v, out);
    if (i == DERIVED_IPC)
        return emu_stat_ipc(v, out);
    if (i == DERIVED_OCCUPANCY) {
        if (emu_stat_field_index(OCCUPANCY_COUNTER) < 0)
            return -1;
        double slots = (double)v->cycles * v->sm_count * v->max_warps_per_sm;
        return ratio((double)emu_stat_get(v, OCCUPANCY_COUNTER), slots, out);
    }
    if (i == DERIVED_SCHEDULABLE) { /* mean per SM and cycle */
        if (emu_stat_field_index(SCHEDULABLE_COUNTER) < 0)
            return -1;
        return ratio((double)emu_stat_get(v, SCHEDULABLE_COUNTER),
                     (double)v->cycles * v->sm_count, out);
    }
    if (i >= DERIVED_ENERGY && i < DERIVED_ENERGY_TOTAL)
        return energy_value(i - DERIVED_ENERGY, v, out);
    if (i == DERIVED_ENERGY_TOTAL || i == DERIVED_MEM_ENERGY_TOTAL) {
        size_t lo = i == DERIVED_ENERGY_TOTAL ? 0 : NRF_ENERGY;
        size_t hi = i == DERIVED_ENERGY_TOTAL ? NRF_ENERGY : NENERGY;
        double sum = 0, x;
        for (size_t k = lo; k < hi; k++) {
            if (energy_value(k, v, &x))
                return -1;
            sum += x;
        }
        *out = sum;
        return 0;
    }
    return stall_fraction(i - NFIXED, v, out);
}

struct json_object *emu_stats_timing_json(const EmuStatView *v)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < NFIELDS; i++) {
        uint64_t x = v->ctr ? v->ctr[emu_stat_fields[i].offset / sizeof(uint64_t)] : 0;
        json_object_object_add(o, emu_stat_fields[i].name, json_object_new_uint64(x));
    }
    size_t nd = emu_stat_nderived();
    for (size_t i = 0; i < nd; i++) {
        double x;
        if (i == DERIVED_IPC)
            continue; /* "ipc" is a field of the launch itself */
        json_object_object_add(o, emu_stat_derived_name(i),
                               emu_stat_derived(i, v, &x) ? NULL : json_object_new_double(x));
    }
    json_object_object_add(o, "energy.placeholder",
                           json_object_new_boolean(v->energy_placeholder));
    return o;
}

void emu_stats_timing_write(JsonW *w, const char *key, const EmuStatView *v)
{
    jw_object(w, key);
    for (size_t i = 0; i < NFIELDS; i++)
        jw_u64(w, emu_stat_fields[i].name,
               v->ctr ? v->ctr[emu_stat_fields[i].offset / sizeof(uint64_t)] : 0);
    size_t nd = emu_stat_nderived();
    for (size_t i = 0; i < nd; i++) {
        double x;
        if (i == DERIVED_IPC)
            continue; /* "ipc" is a field of the launch itself */
        if (emu_stat_derived(i, v, &x))
            jw_null(w, emu_stat_derived_name(i));
        else
            jw_real(w, emu_stat_derived_name(i), x);
    }
    jw_bool(w, "energy.placeholder", v->energy_placeholder);
    jw_end(w);
}
