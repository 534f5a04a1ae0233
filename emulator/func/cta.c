/*
 * cta.c - a CTA's execution state and its barriers, shared by the functional loop
 * (launch.c) and the timing model (timing/gpu.c), which keeps several CTAs resident.
 *
 * A CTA owns its warps, registers, shared and local memory; emu_cta_start zeroes all of
 * them, so results never depend on the CTA that ran before in the same buffers. Local
 * memory (up to 512 KiB per thread, launch.c) is cleared only up to the high-water mark
 * of the offsets the previous CTA touched (exec_mem.c raises it): the rest of each
 * frame is still zero.
 *
 * Barriers: a warp that reaches bar/barred records its arrival (emu_bar_arrive) and
 * waits (EW_BARRIER). Once no warp of the CTA can run, the barrier is released if every
 * unfinished warp waits at the same barrier id with the same kind of barrier (bar, or
 * barred with the same reduction; warps that exited do not count); otherwise nothing can
 * ever progress and the launch ends with EMU_ERR_DEADLOCK, whose message lists the warps
 * (ids, pc, what they wait for). Releasing a barred barrier writes the reduction of the
 * predicates of every thread that arrived into each of them. The grid barrier (gsync,
 * id EMU_GRID_BAR) is not released by its CTA: a CTA whose unfinished warps all wait at
 * it is counted as waiting, and the launch (functional: launch.c; timing: timing/sm.c)
 * releases every such CTA once no CTA of the grid that has not finished is elsewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "func/exec.h"

EmuStatus emu_cta_alloc(EmuCta *c, const EmuExec *x, uint32_t nrows)
{
    memset(c, 0, sizeof *c);
    c->nrows = nrows;
    c->nthreads = x->block.x * x->block.y * x->block.z;
    c->reg_bytes = (size_t)x->nwarps * nrows * sizeof *c->regs;
    c->warps = calloc(x->nwarps, sizeof *c->warps);
    c->regs = malloc(c->reg_bytes);
    c->shared = malloc(x->shared_size ? x->shared_size : 1);
    /* zeroed here, then only the part below the high-water mark is cleared per CTA; a
     * large frame is mapped lazily by the host and costs only what is touched */
    c->local = calloc(x->local_size ? (size_t)x->local_size * c->nthreads : 1, 1);
    if (!c->warps || !c->regs || !c->shared || !c->local)
        return EMU_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < x->nwarps; i++)
        if (emu_simt_push(&c->warps[i], 0, 0, 0))
            return EMU_ERR_OUT_OF_MEMORY;
    return EMU_OK;
}

void emu_cta_free(EmuCta *c, const EmuExec *x)
{
    for (uint32_t i = 0; c->warps && i < x->nwarps; i++)
        free(c->warps[i].stack);
    free(c->warps);
    free(c->regs);
    free(c->shared);
    free(c->local);
    memset(c, 0, sizeof *c);
}

/* Warp w's constant rows: the parameter words XF_CONST operands read, in every lane. */
static void fill_konst(const EmuExec *x, EmuWarp *w)
{
    for (uint32_t k = 0; k < x->nkonst; k++) {
        uint32_t v;
        memcpy(&v, x->param + x->konst[k], sizeof v);
        for (unsigned l = 0; l < XGPU_WARP_SIZE; l++)
            w->r[x->krow + k][l] = v;
    }
}

void emu_cta_start(EmuExec *x, EmuCta *c, EmuDim3 ctaid)
{
    memset(c->regs, 0, c->reg_bytes);
    if (x->shared_size)
        memset(c->shared, 0, x->shared_size);
    if (c->local_hwm == x->local_size)
        memset(c->local, 0, (size_t)x->local_size * c->nthreads);
    else
        for (uint32_t t = 0; c->local_hwm && t < c->nthreads; t++)
            memset(c->local + (size_t)t * x->local_size, 0, c->local_hwm);
    c->local_hwm = 0;
    c->ctaid = ctaid;
    c->grid_wait = 0;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        EmuWarp *w = &c->warps[i];
        uint32_t left = c->nthreads - i * XGPU_WARP_SIZE;
        w->r = c->regs + (size_t)i * c->nrows;
        fill_konst(x, w);
        w->id = i;
        w->state = EW_RUN;
        w->clock = 0;
        w->prof = x->reuse ? emu_reuse_track(x, ctaid, i) : NULL;
        w->depth = 0;
        w->stack[w->depth++] = (EmuSimt){0, UINT32_MAX, left >= 32 ? ~0u : (1u << left) - 1, 0, 0};
    }
    emu_exec_bind(x, c);
}

void emu_bar_arrive(EmuWarp *w, const EmuInsn *in, uint32_t pc, uint32_t mask)
{
    w->bar_id = (uint32_t)in->imm;
    w->bar_pc = pc;
    w->bar_red = in->kind == EK_BARRED ? 1u + in->sub : 0;
    w->bar_mask = mask;
    w->bar_dst = in->d;
    w->bar_count = 0;
    if (w->bar_red)
        for (uint32_t m = mask; m; m &= m - 1)
            w->bar_count += w->r[in->s0][__builtin_ctz(m)] != 0;
}

/* Whether the waiting warps disagree on the barrier (id, or bar vs barred and its
 * reduction): nothing can progress then. */
static int barrier_conflict(const EmuExec *x, const EmuCta *c)
{
    const EmuWarp *a = NULL;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        const EmuWarp *w = &c->warps[i];
        if (w->state != EW_BARRIER)
            continue;
        if (!a)
            a = w;
        else if (w->bar_id != a->bar_id || w->bar_red != a->bar_red)
            return 1;
    }
    return 0;
}

/* Releases the waiting warps; for barred, first writes the reduction to every thread
 * that arrived. */
static void barrier_release(const EmuExec *x, EmuCta *c)
{
    uint32_t total = 0, count = 0, red = 0;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        const EmuWarp *w = &c->warps[i];
        if (w->state == EW_BARRIER && w->bar_red) {
            red = w->bar_red;
            total += (uint32_t)__builtin_popcount(w->bar_mask);
            count += w->bar_count;
        }
    }
    uint32_t result = red == 1 + XRED_POPC ? count
                      : red == 1 + XRED_AND ? count == total : count != 0;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        EmuWarp *w = &c->warps[i];
        if (w->state != EW_BARRIER)
            continue;
        for (uint32_t m = w->bar_red ? w->bar_mask : 0; m; m &= m - 1)
            w->r[w->bar_dst][__builtin_ctz(m)] = result;
        w->state = EW_RUN;
    }
}

static unsigned low_lane(uint32_t mask)
{
    return mask ? (unsigned)__builtin_ctz(mask) : 0;
}

EmuStatus emu_cta_sync(EmuExec *x, EmuCta *c, EmuWarp **fw, int *released)
{
    EmuWarp *last = NULL;
    *released = 0;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        if (c->warps[i].state == EW_RUN)
            return EMU_OK;
        if (c->warps[i].state == EW_BARRIER)
            last = &c->warps[i];
    }
    if (!last)
        return EMU_OK;
    if (!barrier_conflict(x, c) && last->bar_id == EMU_GRID_BAR) {
        if (!c->grid_wait) /* released with the whole grid (emu_grid_release) */
            c->grid_wait = 1, x->grid_waiting++;
        return EMU_OK;
    }
    if (barrier_conflict(x, c)) {
        *fw = last;
        emu_exec_bind(x, c);
        emu_exec_fault(x, EMU_ERR_DEADLOCK, low_lane(last->bar_mask), 0,
                       "barrier deadlock: warps wait at different barriers");
        emu_cta_describe(x, c, NULL, x->fmsg, sizeof x->fmsg);
        return x->fstatus;
    }
    barrier_release(x, c);
    *released = 1;
    return EMU_OK;
}

void emu_grid_release(EmuExec *x, EmuCta *c)
{
    if (!c->grid_wait)
        return;
    barrier_release(x, c);
    c->grid_wait = 0;
    x->grid_waiting--;
}

/* What warp w is doing, for deadlock and budget messages. */
static void warp_doing(const EmuWarp *w, const EmuWarp *running, char *buf, size_t n)
{
    if (w->state == EW_BARRIER && w->bar_red)
        snprintf(buf, n, "wait at barred.%s %u", xisa_red_names[(w->bar_red - 1) % XRED_COUNT],
                 w->bar_id);
    else if (w->state == EW_BARRIER && w->bar_id == EMU_GRID_BAR)
        snprintf(buf, n, "wait at the grid barrier");
    else if (w->state == EW_BARRIER)
        snprintf(buf, n, "wait at bar %u", w->bar_id);
    else
        snprintf(buf, n, "%s", w == running ? "ran out of budget" : "ready");
}

static uint32_t warp_pc(const EmuWarp *w)
{
    return w->state == EW_BARRIER ? w->bar_pc : w->depth ? w->stack[w->depth - 1].pc : 0;
}

/* Whether warps a and b are at the same pc doing the same thing. */
static int same_doing(const EmuWarp *a, const EmuWarp *b, const EmuWarp *running)
{
    char wa[64], wb[64];
    if (a->state == EW_DONE || b->state == EW_DONE || warp_pc(a) != warp_pc(b))
        return 0;
    warp_doing(a, running, wa, sizeof wa);
    warp_doing(b, running, wb, sizeof wb);
    return strcmp(wa, wb) == 0;
}

/* Formats the ids of the warps from i on that do what warp i does: "0-2,5". */
static uint32_t group_ids(const EmuExec *x, const EmuCta *c, uint32_t i,
                          const EmuWarp *running, char *ids, size_t n)
{
    uint32_t nids = 0, run_start = UINT32_MAX;
    ids[0] = 0;
    for (uint32_t j = i; j <= x->nwarps; j++) {
        int same = j < x->nwarps && same_doing(&c->warps[j], &c->warps[i], running);
        if (same) {
            nids++;
            if (run_start == UINT32_MAX)
                run_start = j;
        } else if (run_start != UINT32_MAX) {
            size_t k = strlen(ids);
            if (j - 1 > run_start)
                snprintf(ids + k, n - k, "%s%u-%u", k ? "," : "", run_start, j - 1);
            else
                snprintf(ids + k, n - k, "%s%u", k ? "," : "", run_start);
            run_start = UINT32_MAX;
        }
    }
    return nids;
}

/* Appends "; warps 0-2,5 at pc 7 wait at bar 0; warp 3 at pc 9 wait at bar 1". */
void emu_cta_describe(const EmuExec *x, const EmuCta *c, const EmuWarp *running, char *out,
                      size_t n)
{
    size_t len = strlen(out);
    for (uint32_t i = 0; i < x->nwarps && len + 1 < n; i++) {
        const EmuWarp *w = &c->warps[i];
        int seen = 0;
        if (w->state == EW_DONE)
            continue;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = same_doing(&c->warps[j], w, running);
        if (seen)
            continue;
        char ids[160], what[64];
        uint32_t nids = group_ids(x, c, i, running, ids, sizeof ids);
        warp_doing(w, running, what, sizeof what);
        snprintf(out + len, n - len, "; warp%s %s at pc %u %s", nids > 1 ? "s" : "", ids,
                 warp_pc(w), what);
        len = strlen(out);
    }
}
