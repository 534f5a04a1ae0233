/*
 * progress.c - the progress line of long launches, in both modes.
 *
 * emu.progress decides whether there is one: auto when stderr is a terminal, always
 * (XGPU_PROGRESS=1), never. It appears once a launch has run emu.progress_after seconds
 * of host time (2 by default; 0 prints at the first call). On a
 * terminal it is one line rewritten in place (\r) at most five times a second and
 * erased when the launch ends; otherwise (a log file, a pipe) a new line every 5 s.
 * It reads the host clock only to decide when to print and never changes results or
 * statistics. The timing loop calls emu_progress every few thousand cycles, the
 * functional warp loop every EMU_PROGRESS_STEP warp instructions (emu_exec_checkpoint).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "stats/stats.h"

#define PROGRESS_EVERY_TTY_S 0.2
#define PROGRESS_EVERY_LOG_S 5.0

struct EmuProgress {
    int on, tty, shown;   /* allowed this launch, stderr is a terminal, line on screen */
    int printed;          /* a line was printed this launch */
    int timing;           /* cycles are meaningful */
    double t0, tlast;     /* host seconds: launch start, last print */
    double after;         /* emu.progress_after */
    char kernel[64];
};

static double host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int emu_progress_wanted(const EmuDevice *d)
{
    return strcmp(d->cfg.emu_progress, "always") == 0 ||
           (strcmp(d->cfg.emu_progress, "auto") == 0 && isatty(STDERR_FILENO));
}

void emu_progress_begin(EmuDevice *d, const char *kernel, int timing)
{
    if (!emu_progress_wanted(d) ||
        (!d->progress && !(d->progress = calloc(1, sizeof *d->progress)))) {
        if (d->progress)
            d->progress->on = 0;
        return;
    }
    EmuProgress *p = d->progress;
    p->on = 1;
    p->tty = isatty(STDERR_FILENO);
    p->shown = p->printed = 0;
    p->timing = timing;
    p->t0 = p->tlast = host_now();
    p->after = d->cfg.emu_progress_after;
    snprintf(p->kernel, sizeof p->kernel, "%s", kernel ? kernel : "?");
}

void emu_progress(EmuDevice *d, Cycle cycle, uint64_t warp_insns, uint64_t ctas_done,
                  uint64_t ctas)
{
    EmuProgress *p = d->progress;
    if (!p || !p->on)
        return;
    double t = host_now();
    if (t - p->t0 < p->after ||
        (p->printed && t - p->tlast < (p->tty ? PROGRESS_EVERY_TTY_S : PROGRESS_EVERY_LOG_S)))
        return;
    p->tlast = t;
    p->printed = 1;
    p->shown = p->tty;
    char cyc[40] = "";
    if (p->timing)
        snprintf(cyc, sizeof cyc, "%" PRIu64 " cycles, ", cycle);
    fprintf(stderr, "%sxgpu: %s: %s%" PRIu64 " warp insns, %" PRIu64 " of %" PRIu64
            " CTAs done, %.0f s, %.2f M warp insns/s%s", p->tty ? "\r" : "", p->kernel, cyc,
            warp_insns, ctas_done, ctas, t - p->t0, warp_insns / (t - p->t0) * 1e-6,
            p->tty ? " " : "\n");
    fflush(stderr);
}

void emu_progress_end(EmuDevice *d)
{
    EmuProgress *p = d->progress;
    if (!p || !p->on)
        return;
    if (p->shown) {
        fputs("\r\033[K", stderr); /* erase the progress line */
        fflush(stderr);
    }
    p->on = p->shown = 0;
}

void emu_progress_free(EmuDevice *d)
{
    free(d->progress);
    d->progress = NULL;
}
