/*
 * caba_assist.c - CABA's assist warps (core.assist = caba; Vijaykumar et al., "A Case for
 * Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 3 and 4; docs/caba.md):
 * the SM decompresses the compressed lines the memory side sends it, and compresses the
 * lines it stores, by running the routines of the module's .xgpu.assist section as warps
 * of their own in its issue slots (the assist slot, timing/slots.h).
 *
 * The structures of the paper, as kept here:
 *   AWS  the routines: the launch's module's .xgpu.assist section (emu_module_assist),
 *        with each instruction's timing facts (tm_insn_info), loaded at the launch.
 *   AWC  the triggers: a read response marked by the compressed memory (TmReq.assist: a
 *        line that crossed compressed) starts a decompression; a store the L1 sends
 *        starts a compression. The assist-warp table (Aw below) tracks each one's
 *        progress: its functional warp, its registers' ready cycles, its result.
 *        Compressions neither start nor issue while the program used more than
 *        caba.throttle of the SM's issue slots in the last caba.throttle_window cycles.
 *   AWB  a decompression is high priority: it issues ahead of every warp of its parent's
 *        sub-core, in its parent's instruction-buffer partition, so its parent (the warp
 *        whose load brought the line) issues nothing until it ends (tm_sm_hold: the
 *        parent stalls as stall.ibuffer), and the parent's load stays in the LD/ST unit
 *        until then. A parent runs one at a time, in
 *        arrival order. A compression is low priority: at most two per sub-core (the
 *        2-entry partition) issue, only in slots the program left idle.
 * An assist warp shares its parent's warp slot and registers: its registers are added to
 * the kernel's (caba.assist_regs), and it issues on its parent's sub-core, into the
 * sub-core's execution units (so the program finds them busy). What is not modelled
 * [our choice]: it reads its operands without taking an operand collector or register
 * bank cycles (one cycle between issue and dispatch); its loads and stores reach the
 * line buffer the LD/ST unit holds in l1.hit_latency cycles, taking the LD/ST unit's
 * initiation interval but no L1 port.
 *
 * Execution. The routines run on the functional core (emu_warp_step) against the real
 * compressed bytes, in a memory of the mechanism's own (each table entry has an input,
 * an output and a result buffer there), never the program's: the program's results stay
 * functional mode's. The bytes: those the memory side would send now (the C codec's
 * encoding of the line's current bytes, which the functional model has already written).
 * A routine's output is checked against the C codec: a mismatch is counted
 * (caba.assist_mismatches) and, with caba.assist_check = true, fails the launch.
 *
 * Stores. A store to a line of device memory is held at the SM while its line is pending
 * compression (at most caba.pending lines per SM, the paper's reserved L1 sets; a store
 * to a pending line whose compression has not started joins it). When the compression
 * ends, the line crosses to the L2 compressed (xbytes, TM_WR_PACKED) or, if it did not
 * compress, as the sectors stored (TM_WR_PLAIN). A store that finds every pending line
 * taken crosses at once, uncompressed (TM_WR_PLAIN: the L2 and DRAM keep that line as
 * it is until it is compressed again). The SM compresses the whole line, as the copy the
 * paper's L1 keeps would hold it [our choice: that copy's fetch is not modelled].
 *
 * Timing. An assist instruction issues when its sub-core's slot is its (high priority:
 * any cycle; low: an idle one), its registers have no write in flight and its unit
 * accepts it; its result is ready as for a program instruction of the same opcode. The
 * routine ends at its last result: a decompression hands its line to the L1 then
 * (tm_sm_fill), and the parent's load completes the cycle after; a compression sends
 * its line.
 * next() names every cycle this can happen, so idle skipping stays exact.
 */
#include <stdlib.h>
#include <string.h>

#include "func/exec.h"
#include "func/memory.h"
#include "mech/common/compress.h"
#include "mech/mech.h"
#include "timing/gpu.h"
#include "xgpu/gpubin.h"

enum { AW_DECOMP, AW_COMP };
enum { AW_FREE, AW_QUEUED, AW_RUN, AW_DONE, AW_SEND };
#define AW_LOW_SLOTS 2 /* the low-priority partition of each sub-core [S] */
#define AW_BUF 512     /* an entry's buffers: in at 0, out at 128, res at 256 */

/* One routine of the AWS: its code and each instruction's timing facts. */
typedef struct AwRoutine {
    const EmuAssistCode *c;
    TmInsn *info;
} AwRoutine;

/* The launch's routines (TmLaunchHooks.begin). */
typedef struct AwLaunch {
    AwRoutine r[2][3]; /* [AW_DECOMP / AW_COMP][XcAlgo]; c NULL where caba.algo needs none */
    int algo;          /* XcAlgo, or -1: best (every codec's compression, the smallest) */
    unsigned line;     /* l1.line */
    uint32_t regs;     /* registers per thread for the assist warps */
} AwLaunch;

/* An entry of the assist-warp table. */
typedef struct Aw {
    uint8_t state, kind, algo, stage; /* stage: best's codec being tried */
    uint16_t parent;                  /* warp slot */
    uint32_t sc;
    uint64_t seq;                     /* trigger order */
    TmReq req;                        /* the parked response, or the held write */
    EmuWarp *pw;                      /* the parent's functional warp and CTA (faults) */
    EmuCta *pc;
    Cycle since, ready, done;         /* triggered; next issue; last result so far */
    Cycle rdy[XREG_MAX];              /* each register's pending write's ready cycle */
    EmuCta cta;                       /* the routine's functional warp */
    uint32_t cta_rows;
    uint64_t buf;                     /* its buffers in the private memory */
    uint8_t *host;
    uint8_t param[32];
    uint8_t line[XC_LINE_MAX];        /* the line it decodes to or encodes */
    XcInfo best;                      /* best: the smallest encoding so far */
    uint8_t best_bytes[XC_LINE_MAX];
} Aw;

typedef struct AwSm {
    const AwLaunch *l;
    Aw *aw;
    unsigned naw, cap;
    uint64_t seq;
    unsigned pending;                 /* compression entries (queued to sent) */
    EmuMem mem;                       /* the routines' memory */
    EmuExec x;                        /* their execution context */
    Cycle roll;                       /* the next throttle-window boundary */
    uint64_t issued_mark;             /* core.issued at the last one */
    int throttled;
    uint8_t *busy;                    /* [max_warps] a decompression of the warp runs:
                                       * 1, or 2 when it holds the warp's buffer */
} AwSm;

/* --- the launch ------------------------------------------------------------------------- */

static int aw_begin(TmGpu *g, void **state, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
    AwLaunch *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    *state = l;
    static const char *const algos[] = {"bdi", "fpc", "cpack"};
    l->algo = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(c->caba_algo, algos[i]) == 0)
            l->algo = i;
    l->line = c->l1_line;
    for (unsigned dir = 0; dir < 2; dir++)
        for (int a = 0; a < 3; a++) {
            if (l->algo >= 0 && a != l->algo)
                continue;
            AwRoutine *r = &l->r[dir][a];
            r->c = emu_module_assist(g->x->mod, (unsigned)a, dir);
            if (!r->c) {
                snprintf(err, n, "core.assist = caba: kernel %s's module has no %s %s "
                         "routine in its .xgpu.assist section (xgpu-cc embeds them unless "
                         "--no-assist)", g->x->kern->name, algos[a],
                         dir == AW_DECOMP ? "decompression" : "compression");
                return -1;
            }
            r->info = calloc(r->c->code.count ? r->c->code.count : 1, sizeof *r->info);
            if (!r->info) {
                snprintf(err, n, "out of host memory");
                return -1;
            }
            for (uint32_t pc = 0; pc < r->c->code.count; pc++)
                tm_insn_info(c, &r->c->a->text[pc], 0, &r->info[pc]);
            if (r->c->a->nregs > l->regs)
                l->regs = r->c->a->nregs;
        }
    if (c->caba_assist_regs != EMU_CFG_AUTO)
        l->regs = (uint32_t)c->caba_assist_regs;
    return 0;
}

static void aw_end(TmGpu *g, void *state)
{
    AwLaunch *l = state;
    (void)g;
    for (unsigned dir = 0; dir < 2; dir++)
        for (unsigned a = 0; a < 3; a++)
            free(l->r[dir][a].info);
    free(l);
}

static uint32_t aw_regs(const TmGpu *g)
{
    const AwLaunch *l = g->mech[TM_SLOT_ASSIST].state;
    return l ? l->regs : 0;
}

/* --- the SM ----------------------------------------------------------------------------- */

static int aw_sm_init(TmSm *sm)
{
    AwSm *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    sm->assist_state = s;
    s->l = sm->gpu->mech[TM_SLOT_ASSIST].state;
    s->busy = calloc(sm->max_warps, 1);
    if (!s->busy)
        return -1;
    emu_mem_init(&s->mem, 1ull << 30, XGPU_GLOBAL_BASE, XGPU_GLOBAL_BASE + XGPU_WINDOW_SIZE);
    /* the routines' context: the SM's, with a memory, one warp and counters of their own */
    s->x = sm->x;
    s->x.nkonst = 0; /* assist routines read no constant bank (module.c) */
    s->x.mem = &s->mem;
    s->x.wlog = NULL; /* their stores happen at once, in their own memory */
    s->x.grid = (EmuDim3){1, 1, 1};
    s->x.block = (EmuDim3){XGPU_WARP_SIZE, 1, 1};
    s->x.nwarps = 1;
    s->x.shared_size = s->x.local_size = 0;
    s->x.reuse = NULL;
    s->x.memcheck = EMU_MEMCHECK_ON;
    s->x.bad_seen = NULL;
    s->x.grid_sync = 0;
    s->x.cta = NULL;
    s->x.gbase = s->x.gsize = 0;
    s->x.ghost = NULL;
    memset(s->x.gprev, 0, sizeof s->x.gprev);
    s->x.winsns = s->x.tinsns = 0;
    s->x.budget = UINT64_MAX;
    s->x.progress = 0;
    emu_exec_init_stop(&s->x);
    s->roll = sm->cfg->caba_throttle_window;
    return 0;
}

static void aw_sm_free(TmSm *sm)
{
    AwSm *s = sm->assist_state;
    if (!s)
        return;
    for (unsigned i = 0; i < s->cap; i++)
        if (s->aw[i].cta.warps)
            emu_cta_free(&s->aw[i].cta, &s->x);
    free(s->aw);
    free(s->busy);
    emu_mem_fini(&s->mem);
    free(s);
    sm->assist_state = NULL;
}

/* A free table entry with its buffers, or NULL (host memory). */
static Aw *aw_new(AwSm *s)
{
    for (unsigned i = 0; i < s->cap; i++)
        if (s->aw[i].state == AW_FREE)
            return &s->aw[i];
    unsigned cap = s->cap ? 2 * s->cap : 16;
    Aw *v = realloc(s->aw, cap * sizeof *v);
    if (!v)
        return NULL;
    memset(v + s->cap, 0, (cap - s->cap) * sizeof *v);
    s->aw = v;
    for (unsigned i = s->cap; i < cap; i++) {
        const EmuAlloc *a;
        if (emu_mem_alloc(&s->mem, AW_BUF, &v[i].buf) || !(a = emu_mem_find(&s->mem, v[i].buf, 1)))
            return NULL;
        v[i].host = a->host + (v[i].buf - a->base);
    }
    Aw *e = &s->aw[s->cap];
    s->cap = cap;
    return e;
}

/* The line's current bytes in device memory, into buf: 0, or -1 when it is not device
 * memory. */
static int aw_read(const TmSm *sm, uint64_t line, uint8_t *buf, unsigned n)
{
    return tm_read_line(sm->gpu->d, line, buf, n);
}

/* The parent's functional warp and CTA, or (the warp has left: a prefetched line, a store
 * whose warp exited) the SM's first CTA's first warp, for a fault's place. */
static void aw_parent(const TmSm *sm, Aw *e)
{
    const TmWarp *w = &sm->warp[e->parent];
    e->pw = w->fw, e->pc = w->fw ? &w->cta->c : NULL;
    for (uint32_t i = 0; !e->pw && i < sm->cfg->core_max_ctas_per_sm; i++)
        if (sm->cta[i].c.warps)
            e->pc = &sm->cta[i].c, e->pw = &sm->cta[i].c.warps[0];
}

/* Fails the launch: the assist warp of e's parent, with message msg. */
static void aw_fail(TmSm *sm, Aw *e, const char *msg)
{
    if (!e->pw || sm->status)
        return;
    sm->x.fstatus = EMU_ERR_LAUNCH_FAILURE;
    sm->x.flane = 0, sm->x.faddr = e->req.line, sm->x.fsize = 0;
    snprintf(sm->x.fmsg, sizeof sm->x.fmsg, "%s", msg);
    tm_sm_fault(sm, EMU_ERR_LAUNCH_FAILURE, e->pw, e->pc);
}

/* Starts e's routine (dir, codec a) on its functional warp: parameters, buffers. */
static int aw_start(TmSm *sm, AwSm *s, Aw *e, unsigned dir, unsigned a, Cycle now)
{
    const AwRoutine *r = &s->l->r[dir][a];
    uint32_t L = s->l->line;
    if (e->cta_rows != r->c->code.nrows) {
        if (e->cta.warps)
            emu_cta_free(&e->cta, &s->x);
        if (emu_cta_alloc(&e->cta, &s->x, r->c->code.nrows))
            return -1;
        e->cta_rows = r->c->code.nrows;
    }
    emu_cta_start(&s->x, &e->cta, (EmuDim3){0, 0, 0});
    memset(e->param, 0, sizeof e->param);
    uint64_t in = e->buf, out = e->buf + 128, res = e->buf + 256;
    memset(e->host + 128, 0, AW_BUF - 128);
    if (dir == AW_DECOMP) { /* in, enc, L, out */
        XcInfo i = xc_compress((XcAlgo)a, e->line, L, e->host);
        uint32_t enc = i.encoding;
        memcpy(e->param, &in, 8), memcpy(e->param + 8, &enc, 4);
        memcpy(e->param + 12, &L, 4), memcpy(e->param + 16, &out, 8);
    } else { /* in, L, out, res */
        memcpy(e->host, e->line, L);
        memcpy(e->param, &in, 8), memcpy(e->param + 8, &L, 4);
        memcpy(e->param + 16, &out, 8), memcpy(e->param + 24, &res, 8);
    }
    e->algo = (uint8_t)a;
    e->state = AW_RUN;
    e->ready = now;
    memset(e->rdy, 0, sizeof e->rdy);
    return 0;
}

/* --- triggers (AWC) ---------------------------------------------------------------------- */

/* A compressed line reached the SM: its decompression, high priority, for the warp whose
 * request brought it. */
static void aw_fill(TmSm *sm, const TmReq *r, Cycle now)
{
    AwSm *s = sm->assist_state;
    Aw *e = aw_new(s);
    if (!e) {
        tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
        return;
    }
    e->kind = AW_DECOMP, e->req = *r, e->since = now, e->seq = s->seq++;
    e->parent = (uint16_t)(r->warp % sm->max_warps);
    e->sc = e->parent % sm->nsc;
    e->done = now;
    aw_parent(sm, e);
    if (aw_read(sm, r->line, e->line, s->l->line)) /* not device memory: nothing to decode */
        memset(e->line, 0, sizeof e->line);
    e->algo = (uint8_t)tm_assist_codec(r->assist);
    e->state = AW_QUEUED;
    sm->ctr->caba_aw_decomp++;
}

/* A store leaves the L1: held for compression when its line is (or can be) pending. */
static int aw_store(TmSm *sm, TmReq *r, Cycle now)
{
    AwSm *s = sm->assist_state;
    uint8_t probe[XC_LINE_MAX];
    if (r->kind != TM_WRITE || aw_read(sm, r->line, probe, s->l->line))
        return 0; /* not device memory: as it is */
    for (unsigned i = 0; i < s->cap; i++) {
        Aw *e = &s->aw[i];
        if (e->state == AW_QUEUED && e->kind == AW_COMP && e->req.line == r->line) {
            e->req.sectors |= r->sectors; /* joins the pending line */
            sm->ctr->caba_aw_held++;
            return 1;
        }
    }
    if (s->pending >= sm->cfg->caba_pending) {
        r->assist = TM_WR_PLAIN; /* no room: crosses, and is kept, as it is */
        sm->ctr->caba_aw_overflows++;
        return 0;
    }
    Aw *e = aw_new(s);
    if (!e) {
        r->assist = TM_WR_PLAIN;
        return 0;
    }
    e->kind = AW_COMP, e->req = *r, e->since = now, e->seq = s->seq++;
    e->parent = (uint16_t)(r->warp % sm->max_warps);
    e->sc = e->parent % sm->nsc;
    e->stage = 0;
    e->state = AW_QUEUED;
    aw_parent(sm, e);
    s->pending++;
    sm->ctr->caba_aw_held++;
    return 1;
}

/* --- issue (AWB) ------------------------------------------------------------------------- */

/* Whether e's next instruction may issue at cycle now (*ti: its facts). */
static int aw_can_issue(const TmSm *sm, const AwSm *s, const Aw *e, const TmSubcore *sc,
                        const TmInsn **ti, Cycle now)
{
    if (e->state != AW_RUN || e->ready > now)
        return 0;
    const AwRoutine *r = &s->l->r[e->kind][e->algo];
    const EmuWarp *w = &e->cta.warps[0];
    uint32_t pc = w->depth ? w->stack[w->depth - 1].pc : 0;
    if (pc >= r->c->code.count)
        return 1; /* the step reports it */
    *ti = &r->info[pc];
    for (unsigned i = 0; i < (*ti)->nsrc; i++)
        if (e->rdy[(*ti)->src[i]] > now)
            return 0;
    for (unsigned i = 0; i < (*ti)->ndst; i++)
        if (e->rdy[(*ti)->dst[i]] > now)
            return 0;
    (void)sm;
    return (*ti)->cls == TC_CTRL || tm_unit_ready(sc, (*ti)->cls, now + 1);
}

/* The routine of e ended: its check against the C codec, then what follows. */
static void aw_finish_routine(TmSm *sm, AwSm *s, Aw *e, Cycle now)
{
    unsigned L = s->l->line;
    char msg[200];
    const char *name = s->l->r[e->kind][e->algo].c->a->name;
    if (e->kind == AW_DECOMP) {
        if (memcmp(e->host + 128, e->line, L) != 0) {
            sm->ctr->caba_aw_mismatches++;
            snprintf(msg, sizeof msg, "caba.assist_check: assist routine %s decoded line "
                     "0x%llx differently from the C decoder", name,
                     (unsigned long long)e->req.line);
            if (sm->cfg->caba_assist_check)
                aw_fail(sm, e, msg);
        }
        e->state = AW_DONE;
        return;
    }
    uint8_t want[XC_LINE_MAX];
    XcInfo i = xc_compress((XcAlgo)e->algo, e->line, L, want);
    uint32_t resw;
    memcpy(&resw, e->host + 256, 4);
    if ((resw & 0xffff) != i.encoding || resw >> 16 != i.bytes ||
        (i.encoding != XC_ENC_RAW && memcmp(e->host + 128, want, i.bytes) != 0)) {
        sm->ctr->caba_aw_mismatches++;
        snprintf(msg, sizeof msg, "caba.assist_check: assist routine %s encoded line 0x%llx "
                 "differently from the C encoder", name, (unsigned long long)e->req.line);
        if (sm->cfg->caba_assist_check)
            aw_fail(sm, e, msg);
    }
    if (i.encoding != XC_ENC_RAW && (e->best.bytes == 0 || i.bytes < e->best.bytes))
        e->best = i;
    if (s->l->algo < 0 && e->stage < 2) { /* best: the next codec */
        e->stage++;
        if (aw_start(sm, s, e, AW_COMP, e->stage, now + 1))
            tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
        return;
    }
    e->state = AW_DONE;
}

/* Issues e's next instruction at cycle now. */
static void aw_issue(TmSm *sm, AwSm *s, Aw *e, TmSubcore *sc, const TmInsn *ti, Cycle now)
{
    const AwRoutine *r = &s->l->r[e->kind][e->algo];
    EmuStep st;
    s->x.code = r->c->code.code;
    s->x.code_count = r->c->code.count;
    s->x.kern = &r->c->k;
    s->x.param = e->param;
    s->x.param_size = r->c->a->param_bytes;
    s->x.now = sm->x.now;
    EmuStatus st_ = emu_warp_step(&s->x, &e->cta, &e->cta.warps[0], 0, &st);
    if (e->kind == AW_DECOMP)
        sm->ctr->caba_aw_insns_high++;
    else
        sm->ctr->caba_aw_insns_low++;
    if (st_) {
        char msg[sizeof s->x.fmsg + 64];
        snprintf(msg, sizeof msg, "assist routine %s faulted at its pc %u: %.150s",
                 r->c->a->name, st.pc, s->x.fmsg);
        aw_fail(sm, e, msg);
        e->state = AW_DONE;
        return;
    }
    e->ready = now + 1;
    if (ti->cls != TC_CTRL) {
        Cycle lat = ti->cls == TC_LDST ? sm->cfg->l1_hit_latency : ti->latency;
        Cycle at = tm_unit_start(sm, sc, ti->cls, lat, now + 1);
        for (unsigned i = 0; i < ti->ndst; i++)
            e->rdy[ti->dst[i]] = at;
        if (at > e->done)
            e->done = at;
    }
    if (e->cta.warps[0].state == EW_DONE) {
        if (e->done < now + 1)
            e->done = now + 1;
        aw_finish_routine(sm, s, e, e->done);
    }
}

/* The oldest entry of sub-core sc of kind that may issue now, or NULL. */
static Aw *aw_pick(TmSm *sm, AwSm *s, TmSubcore *sc, unsigned kind, const TmInsn **ti,
                   Cycle now)
{
    Aw *best = NULL;
    for (unsigned i = 0; i < s->cap; i++) {
        Aw *e = &s->aw[i];
        const TmInsn *t = NULL;
        if (e->kind == kind && e->sc == sc->id && (!best || e->seq < best->seq) &&
            aw_can_issue(sm, s, e, sc, &t, now))
            best = e, *ti = t;
    }
    return best;
}

/* The throttle's window: at each boundary, whether the program used more than
 * caba.throttle of the issue slots in the window that ended. */
static void aw_roll(TmSm *sm, AwSm *s, Cycle now)
{
    if (now < s->roll)
        return;
    uint64_t w = sm->cfg->caba_throttle_window;
    uint64_t used = sm->ctr->issued - s->issued_mark;
    s->throttled = used * 100 > (uint64_t)sm->cfg->caba_throttle * w * sm->nsc;
    sm->ctr->caba_aw_throttled += s->throttled && s->pending;
    s->issued_mark = sm->ctr->issued;
    s->roll = (now / w + 1) * w;
}

/* Completions due by cycle now on sub-core sc, and the queued entries that may start. */
static void aw_progress(TmSm *sm, AwSm *s, TmSubcore *sc, Cycle now)
{
    unsigned low = 0;
    for (unsigned i = 0; i < s->cap; i++) {
        Aw *e = &s->aw[i];
        if (e->state == AW_FREE || e->sc != sc->id)
            continue;
        if (e->state == AW_DONE && e->done <= now) {
            if (e->kind == AW_DECOMP) {
                tm_sm_fill(sm, &e->req, now);
                sm->ctr->caba_aw_wait_cycles += now - e->since;
                if (s->busy[e->parent] == 2)
                    tm_sm_hold(sm, e->parent, 0, now);
                s->busy[e->parent] = 0;
                e->state = AW_FREE;
                continue;
            }
            e->state = AW_SEND;
            if (e->best.bytes) { /* crosses compressed: the whole line */
                e->req.sectors = (uint8_t)((1u << (s->l->line / sm->cfg->l1_sector)) - 1);
                e->req.xbytes = e->best.bytes;
                e->req.assist = TM_WR_PACKED;
                sm->ctr->caba_aw_packed++;
            } else {
                e->req.assist = TM_WR_PLAIN;
            }
        }
        if (e->state == AW_SEND && tm_sm_send(sm, &e->req, now) == 0) {
            e->state = AW_FREE;
            s->pending--;
            continue;
        }
        low += e->kind == AW_COMP && (e->state == AW_RUN || e->state == AW_DONE);
    }
    /* decompressions start in arrival order, one per parent at a time */
    for (;;) {
        Aw *next = NULL;
        for (unsigned i = 0; i < s->cap; i++) {
            Aw *e = &s->aw[i];
            if (e->state == AW_QUEUED && e->kind == AW_DECOMP && e->sc == sc->id &&
                !s->busy[e->parent] && (!next || e->seq < next->seq))
                next = e;
        }
        if (!next)
            break;
        if (aw_start(sm, s, next, AW_DECOMP, next->algo, now)) {
            tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
            return;
        }
        s->busy[next->parent] = (uint8_t)(1 + tm_sm_hold(sm, next->parent, 1, now));
    }
    /* compressions, oldest first, while the partition has room and the SM is not busy */
    while (low < AW_LOW_SLOTS && !s->throttled) {
        Aw *next = NULL;
        for (unsigned i = 0; i < s->cap; i++) {
            Aw *e = &s->aw[i];
            if (e->state == AW_QUEUED && e->kind == AW_COMP && e->sc == sc->id &&
                (!next || e->seq < next->seq))
                next = e;
        }
        if (!next)
            break;
        if (aw_read(sm, next->req.line, next->line, s->l->line))
            memset(next->line, 0, sizeof next->line);
        next->best = (XcInfo){0};
        unsigned a = s->l->algo < 0 ? 0 : (unsigned)s->l->algo;
        if (aw_start(sm, s, next, AW_COMP, a, now)) {
            tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
            return;
        }
        sm->ctr->caba_aw_comp++;
        low++;
    }
}

/* Issues the next instruction of the oldest entry of kind on sub-core sc that may issue
 * now: 1, or 0 when none may. */
static int aw_issue_oldest(TmSm *sm, AwSm *s, TmSubcore *sc, unsigned kind, Cycle now)
{
    const TmInsn *ti = NULL;
    Aw *e = aw_pick(sm, s, sc, kind, &ti, now);
    if (!e)
        return 0;
    aw_issue(sm, s, e, sc, ti, now);
    return 1;
}

static int aw_first(TmSm *sm, TmSubcore *sc, Cycle now)
{
    AwSm *s = sm->assist_state;
    if (sc->id == 0)
        aw_roll(sm, s, now);
    aw_progress(sm, s, sc, now);
    return aw_issue_oldest(sm, s, sc, AW_DECOMP, now);
}

static int aw_idle(TmSm *sm, TmSubcore *sc, Cycle now)
{
    AwSm *s = sm->assist_state;
    return !s->throttled && aw_issue_oldest(sm, s, sc, AW_COMP, now);
}

/* The first cycle > now at which an entry may issue, end, start or send. */
static Cycle aw_next(const TmSm *sm, Cycle now)
{
    const AwSm *s = sm->assist_state;
    Cycle next = sm->ncta_live ? s->roll : TM_NEVER;
    unsigned low[64] = {0}; /* per sub-core, compressions that hold a low-priority slot */
    for (unsigned i = 0; i < s->cap; i++) {
        const Aw *e = &s->aw[i];
        low[e->sc % 64] += e->kind == AW_COMP && (e->state == AW_RUN || e->state == AW_DONE);
    }
    for (unsigned i = 0; i < s->cap; i++) {
        const Aw *e = &s->aw[i];
        Cycle t = TM_NEVER;
        switch (e->state) {
        case AW_QUEUED: /* starts next cycle, or once what it waits for ends or rolls */
            if (e->kind == AW_DECOMP)
                t = s->busy[e->parent] ? TM_NEVER : now + 1;
            else
                t = low[e->sc % 64] >= AW_LOW_SLOTS ? TM_NEVER : s->throttled ? s->roll : now + 1;
            break;
        case AW_SEND: t = now + 1; break;
        case AW_DONE: t = e->done; break;
        case AW_RUN: {
            t = e->kind == AW_COMP && s->throttled && e->ready < s->roll ? s->roll : e->ready;
            const AwRoutine *r = &s->l->r[e->kind][e->algo];
            const EmuWarp *w = &e->cta.warps[0];
            uint32_t pc = w->depth ? w->stack[w->depth - 1].pc : 0;
            if (pc < r->c->code.count) {
                const TmInsn *ti = &r->info[pc];
                for (unsigned k = 0; k < ti->nsrc; k++)
                    t = e->rdy[ti->src[k]] > t ? e->rdy[ti->src[k]] : t;
                for (unsigned k = 0; k < ti->ndst; k++)
                    t = e->rdy[ti->dst[k]] > t ? e->rdy[ti->dst[k]] : t;
                if (ti->cls != TC_CTRL) {
                    Cycle u = sm->sc[e->sc].unit_next[ti->cls];
                    t = u > 0 && u - 1 > t ? u - 1 : t;
                }
            }
            break;
        }
        default: break;
        }
        if (t <= now)
            t = now + 1;
        if (t < next)
            next = t;
    }
    return next;
}

static int aw_busy(const TmSm *sm)
{
    const AwSm *s = sm->assist_state;
    for (unsigned i = 0; i < s->cap; i++)
        if (s->aw[i].state != AW_FREE)
            return 1;
    return 0;
}

const TmAssistOps tm_assist_caba = {
    .name = "caba",
    .launch = {.begin = aw_begin, .end = aw_end},
    .sm_init = aw_sm_init,
    .sm_free = aw_sm_free,
    .regs = aw_regs,
    .first = aw_first,
    .idle = aw_idle,
    .fill = aw_fill,
    .store = aw_store,
    .next = aw_next,
    .busy = aw_busy,
};
