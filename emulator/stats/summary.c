/*
 * summary.c - the compact text summary (stderr at exit with XGPU_SUMMARY=1 / --summary).
 *
 * One line per kernel (launches of the same kernel summed) and a total line. The ratio
 * columns are a table of derived-figure names (fields.c), so the summary shows exactly
 * what the JSON shows; a figure without a value prints "-". The last column lists the
 * three largest stall.* causes with their share.
 */
#include <string.h>
#include "stats/printer.h"

typedef struct SumCol {
    const char *head;    /* column title */
    const char *derived; /* derived-figure name */
    int percent;         /* 1: print as a percentage; 2: as a large number */
} SumCol;

static const SumCol sum_cols[] = {
    {"IPC", "ipc", 0},
    {"occup", "occupancy", 1},
    {"L1 hit", "l1.hit_rate", 1},
    {"L2 hit", "l2.hit_rate", 1},
    {"row hit", "dram.row_hit_rate", 1},
    {"CT hit", "rf.ct_hit_rate", 1},
    {"RF E", "energy.rf_dynamic", 2},
};
#define NCOLS (sizeof sum_cols / sizeof sum_cols[0])

static int derived_index(const char *name)
{
    size_t n = emu_stat_nderived();
    for (size_t i = 0; i < n; i++)
        if (strcmp(emu_stat_derived_name(i), name) == 0)
            return (int)i;
    return -1;
}

static void print_cell(FILE *f, const SumCol *c, const EmuStatView *v)
{
    int i = derived_index(c->derived);
    double x;
    if (i < 0 || emu_stat_derived((size_t)i, v, &x))
        fprintf(f, " %8s", "-");
    else if (c->percent == 2)
        fprintf(f, " %8.3g", x);
    else if (c->percent)
        fprintf(f, " %7.1f%%", 100 * x);
    else
        fprintf(f, " %8.3f", x);
}

/* The three largest stall fractions, as "cause 12%". */
static void print_stalls(FILE *f, const EmuStatView *v)
{
    size_t n = emu_stat_nderived(), pre = sizeof EMU_STAT_STALL_PREFIX - 1;
    int used[3] = {-1, -1, -1};
    for (int k = 0; k < 3; k++) {
        double best = 0, x;
        for (size_t i = 0; i < n; i++) {
            const char *name = emu_stat_derived_name(i);
            if (strncmp(name, EMU_STAT_STALL_PREFIX, pre) != 0 || (int)i == used[0] ||
                (int)i == used[1] || emu_stat_derived(i, v, &x) || x <= best)
                continue;
            best = x;
            used[k] = (int)i;
        }
        if (used[k] < 0)
            break;
        const char *name = emu_stat_derived_name((size_t)used[k]) + pre;
        int len = (int)(strlen(name) - strlen("_fraction"));
        fprintf(f, "%s%.*s %.0f%%", k ? ", " : " ", len, name, 100 * best);
    }
    if (used[0] < 0)
        fputs(" -", f);
}

void emu_stats_summary(FILE *f, const EmuSummaryRow *rows, size_t n)
{
    fprintf(f, "xgpu summary:\n%-24s %5s %12s %12s", "kernel", "runs", "cycles", "warp insns");
    for (size_t c = 0; c < NCOLS; c++)
        fprintf(f, " %8s", sum_cols[c].head);
    fputs("  top stalls\n", f);
    for (size_t r = 0; r < n; r++) {
        const EmuStatView *v = &rows[r].view;
        fprintf(f, "%-24.24s %5llu %12llu %12llu", rows[r].name,
                (unsigned long long)rows[r].launches, (unsigned long long)v->cycles,
                (unsigned long long)v->warp_insns);
        for (size_t c = 0; c < NCOLS; c++)
            print_cell(f, &sum_cols[c], v);
        print_stalls(f, v);
        fputc('\n', f);
    }
}
