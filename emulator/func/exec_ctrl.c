/*
 * exec_ctrl.c - control flow: the per-warp IPDOM reconvergence (SIMT) stack, and the
 * decoding and execution of bra, brc, exit, bar, barred and trap (emu_exec_ctrl, called
 * by the functional loop in launch.c and by the timing model's step in step.c).
 *
 * Stack model. Each entry is (pc, rpc, mask): lanes `mask` run from pc until pc reaches
 * rpc, then the entry is popped and the entry below resumes. The bottom entry has rpc =
 * UINT32_MAX (never reached). A divergent brc turns the running entry into the
 * reconvergence entry (its pc becomes the branch's reconv pc, its rpc and mask stay) and
 * pushes the taken path, then the fall-through path: THE FALL-THROUGH PATH RUNS FIRST.
 * When the running entry already reconverges at the branch's reconv pc (a loop's exit
 * branch, an else-if chain), it is replaced by the two paths instead, which keeps the
 * stack bounded by the nesting depth. A reconv pc equal to the kernel's length is never
 * reached: such paths only meet at exit. exit removes the lanes from every entry; empty
 * entries are popped; the warp is finished when the stack is empty.
 *
 * brc with XF_UNIFORM never splits the warp: all active lanes follow the decision of the
 * lowest active lane (as hardware with a uniform predicate would). Without the flag a
 * branch on which all active lanes agree does not push either.
 */
#include <stdlib.h>
#include <string.h>
#include "func/exec.h"

#define SIMT_MAX_DEPTH (1u << 20)

int emu_simt_push(EmuWarp *w, uint32_t pc, uint32_t rpc, uint32_t mask)
{
    if (w->depth == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 16;
        if (cap > SIMT_MAX_DEPTH)
            return -1;
        EmuSimt *s = realloc(w->stack, cap * sizeof *s);
        if (!s)
            return -1;
        w->stack = s;
        w->cap = cap;
    }
    w->stack[w->depth++] = (EmuSimt){pc, rpc, mask, 0, 0};
    return 0;
}

void emu_simt_settle(EmuWarp *w)
{
    while (w->depth) {
        const EmuSimt *t = &w->stack[w->depth - 1];
        if (t->mask && t->pc != t->rpc)
            break;
        w->depth--;
    }
}

void emu_simt_exit(EmuWarp *w, uint32_t lanes)
{
    for (uint32_t i = 0; i < w->depth; i++)
        w->stack[i].mask &= ~lanes;
    emu_simt_settle(w);
}

/* Every lane's condition is read (a branch-free loop the compiler vectorizes), the
 * inactive ones masked out after. */
EMU_HOT int emu_simt_brc(EmuWarp *w, const EmuInsn *in)
{
    EmuSimt *top = &w->stack[w->depth - 1];
    uint32_t mask = top->mask, pc = top->pc, taken = 0;
    const uint32_t *cond = w->r[in->s0];
    const uint32_t want = (in->flags & XF_NEG) ? 0 : 1;
    for (unsigned l = 0; l < XGPU_WARP_SIZE; l++)
        taken |= (uint32_t)((cond[l] != 0) == want) << l;
    taken &= mask;
    if (in->flags & XF_UNIFORM)
        taken = (taken & (mask & -mask)) ? mask : 0;
    if (taken == 0 || taken == mask) {
        top->pc = taken ? in->target : pc + 1;
        emu_simt_settle(w);
        return 0;
    }
    uint32_t fall = mask & ~taken;
    if (top->rpc == in->reconv) {
        *top = (EmuSimt){in->target, in->reconv, taken, 0, 0};
    } else {
        top->pc = in->reconv;
        if (emu_simt_push(w, in->target, in->reconv, taken))
            return -1;
    }
    if (emu_simt_push(w, pc + 1, in->reconv, fall))
        return -1;
    emu_simt_settle(w);
    return 0;
}

/* --- decoding of control instructions ------------------------------------------------- */

static int pick_kind(EmuInsn *o, EmuKind k)
{
    o->fn = NULL;
    o->kind = (uint8_t)k;
    return 0;
}

int emu_pick_bra(const XInsn *xi, EmuInsn *o) { (void)xi; return pick_kind(o, EK_BRA); }
int emu_pick_brc(const XInsn *xi, EmuInsn *o) { (void)xi; return pick_kind(o, EK_BRC); }
int emu_pick_exit(const XInsn *xi, EmuInsn *o) { (void)xi; return pick_kind(o, EK_EXIT); }
int emu_pick_trap(const XInsn *xi, EmuInsn *o) { (void)xi; return pick_kind(o, EK_TRAP); }
int emu_pick_wsync(const XInsn *xi, EmuInsn *o) { (void)xi; return pick_kind(o, EK_WSYNC); }

int emu_pick_bar(const XInsn *xi, EmuInsn *o)
{
    if (xi->imm < 0 || xi->imm >= EMU_BARRIERS)
        return -1;
    return pick_kind(o, EK_BAR);
}

/* The grid barrier is a barrier of its own id, EMU_GRID_BAR, that no CTA releases alone. */
int emu_pick_gsync(const XInsn *xi, EmuInsn *o)
{
    if (xi->imm)
        return -1;
    o->imm = EMU_GRID_BAR;
    return pick_kind(o, EK_BAR);
}

int emu_pick_barred(const XInsn *xi, EmuInsn *o)
{
    if (xi->imm < 0 || xi->imm >= EMU_BARRIERS || xi->sub >= XRED_COUNT)
        return -1;
    return pick_kind(o, EK_BARRED);
}

/* Independent thread scheduling (emu.simt = its). Threads are not guaranteed to
 * reconverge, and none may starve another: a lane spinning on a lock that another lane of
 * its warp holds must let the holder run to its release. Paths reconverge as with ipdom
 * until the running path has branched backward emu.its_spin times in a row (a loop that
 * has not ended); then it yields:
 *   - to its sibling, the other side of the same divergent branch (the entry below with
 *     the same reconvergence pc): the two trade places;
 *   - else, when lanes of the reconvergence entry below already wait at the
 *     reconvergence pc, those lanes run on from there as a path of their own, and the
 *     running paths give up that reconvergence point for the next one (the reconvergence
 *     entry's own): they meet again there, or at exit.
 * The counter restarts whenever the path is created or yields. Below the threshold
 * nothing differs from ipdom (same order, same statistics); above it the order changes,
 * and after a release the separated lanes issue the code between the two reconvergence
 * points as separate paths (docs/emulator.md). */
/* The running path and its siblings are w->stack[base..top]: the entries below the top
 * that reconverge where it does and still have lanes to run. */
static uint32_t sibling_base(const EmuWarp *w)
{
    const EmuSimt *s = w->stack;
    uint32_t top = w->depth - 1, r = s[top].rpc, base = top;
    while (base > 0 && s[base - 1].rpc == r && s[base - 1].mask && s[base - 1].pc != r)
        base--;
    return base;
}

static void simt_yield(EmuWarp *w)
{
    EmuSimt *s = w->stack;
    uint32_t top = w->depth - 1, r = s[top].rpc, base = sibling_base(w);
    s[top].spins = 0;
    if (base < top) { /* the sibling below runs next */
        EmuSimt t = s[top];
        s[top] = s[top - 1];
        s[top - 1] = t;
        return;
    }
    if (base == 0 || s[base - 1].pc != r)
        return;
    EmuSimt *b = &s[base - 1]; /* the reconvergence entry: its other lanes wait at r */
    uint32_t running = 0;
    for (uint32_t i = base; i <= top; i++)
        running |= s[i].mask;
    uint32_t waiting = b->mask & ~running, outer = b->rpc;
    for (uint32_t i = base; i <= top; i++)
        s[i].rpc = outer;
    memmove(b, b + 1, (size_t)(top - base + 1) * sizeof *b);
    if (waiting)
        s[top] = (EmuSimt){r, outer, waiting, 0, 0};
    else
        w->depth--;
    emu_simt_settle(w);
}

/* __syncwarp(mask) under its: the lanes of mask that are live wait for one another.
 * The running path goes on when every such lane is in it or in a sibling path already
 * waiting at a wsync (those are released with it); otherwise it waits (its pc is already
 * past the wsync) and a sibling holding some of the missing lanes runs. Lanes that are in
 * no sibling path (waiting at the reconvergence point, or exited) are not waited for: the
 * stack reconverges them anyway before the code that follows. Under ipdom it is a fence. */
static void simt_wsync(const EmuExec *x, EmuWarp *w, const EmuInsn *in, uint32_t mask)
{
    if (!x->its_spin)
        return;
    EmuSimt *s = w->stack;
    uint32_t top = w->depth - 1, base = sibling_base(w);
    uint32_t want = (in->flags & XF_IMM) ? (uint32_t)in->imm : w->r[in->s0][__builtin_ctz(mask)];
    uint32_t have = mask, waiting = 0;
    int wake = -1;
    for (uint32_t i = base; i < top; i++) {
        if (s[i].synced)
            have |= s[i].mask & want;
        else if ((s[i].mask & want) && wake < 0)
            wake = (int)i;
    }
    waiting = want & ~have;
    if (!waiting || wake < 0) { /* everyone is here (or cannot come): all go on */
        for (uint32_t i = base; i < top; i++)
            s[i].synced = 0;
        return;
    }
    s[top].synced = 1;
    EmuSimt t = s[top];
    s[top] = s[wake];
    s[wake] = t;
}

EmuStatus emu_exec_ctrl(EmuExec *x, EmuWarp *w, const EmuInsn *in, uint32_t pc, uint32_t mask)
{
    EmuSimt *top = &w->stack[w->depth - 1];
    uint32_t depth = w->depth;
    switch (in->kind) {
    case EK_BRA:
        top->pc = in->target;
        emu_simt_settle(w);
        break;
    case EK_BRC:
        if (emu_simt_brc(w, in))
            return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, (mask ? (unsigned)__builtin_ctz(mask) : 0), 0,
                                  "SIMT stack overflow"), x->fstatus;
        break;
    case EK_EXIT:
        emu_simt_exit(w, mask);
        break;
    case EK_WSYNC:
        top->pc = pc + 1;
        simt_wsync(x, w, in, mask);
        emu_simt_settle(w);
        return EMU_OK;
    case EK_BAR:
    case EK_BARRED:
        emu_bar_arrive(w, in, pc, mask);
        top->pc = pc + 1;
        emu_simt_settle(w);
        w->state = w->depth ? EW_BARRIER : EW_DONE;
        return EMU_OK;
    default: /* EK_TRAP */
        return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, (mask ? (unsigned)__builtin_ctz(mask) : 0), 0, "trap executed"),
               x->fstatus;
    }
    /* its: the same path (no split, no pop) went backward */
    EmuSimt *now = w->depth == depth ? &w->stack[depth - 1] : NULL;
    if (x->its_spin && now && now->mask == mask && now->pc <= pc && ++now->spins >= x->its_spin)
        simt_yield(w);
    return EMU_OK;
}
