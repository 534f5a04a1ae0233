/*
 * step.c - emu_warp_step: one warp instruction at a time, for the timing model.
 *
 * The step executes the instruction at the warp's pc with the same handlers, SIMT stack
 * rules, barrier arrival, counters, budget and fault messages as warp_run in launch.c
 * (which stays the functional mode's loop, so its speed is untouched). The one thing it
 * adds is the capture of memory accesses: with `capture` set, a ld, st, atom or atomcas
 * reports, before it executes, each active lane's address, classified by space the way
 * the handlers classify it (generic addresses by window), one TmAccess per space the
 * warp touches. Addresses are taken before execution because a load may overwrite its
 * own address register. Shared addresses are offsets in the CTA's window, local ones
 * offsets in the thread's local memory, param ones offsets in the parameter buffer,
 * global and const ones device addresses.
 */
#include <string.h>
#include "func/exec.h"

static unsigned low_lane(uint32_t mask)
{
    return mask ? (unsigned)__builtin_ctz(mask) : 0;
}

/* Space and space-relative address of one lane's access (as mem_at in exec_mem.c). */
static TmSpace lane_space(unsigned mod, uint64_t *a)
{
    switch (mod) {
    case XS_SHARED: return TM_SHARED;
    case XS_LOCAL: return TM_LOCAL;
    case XS_PARAM: return TM_PARAM;
    case XS_CONST: return TM_CONST;
    case XS_GLOBAL: return TM_GLOBAL;
    case XS_TEX: return TM_TEX;
    default: break;
    }
    if (*a - XGPU_SHARED_BASE < XGPU_WINDOW_SIZE)
        return *a -= XGPU_SHARED_BASE, TM_SHARED;
    if (*a - XGPU_LOCAL_BASE < XGPU_WINDOW_SIZE)
        return *a -= XGPU_LOCAL_BASE, TM_LOCAL;
    if (*a - XGPU_PARAM_BASE < XGPU_WINDOW_SIZE)
        return *a -= XGPU_PARAM_BASE, TM_PARAM;
    return TM_GLOBAL;
}

/* The usual case of capture: every active lane's address in the space of the lowest one
 * (an instruction of one space, or generic addresses all in one window). Every lane's
 * address is computed (a loop the compiler vectorizes); the access keeps the active
 * ones. Returns 0, having written nothing, when the lanes are in several spaces. */
EMU_HOT static int capture_one(const EmuWarp *w, const EmuInsn *in, uint32_t mask,
                               TmAccess *acc)
{
    EmuRows const R = w->r;
    const unsigned s0 = in->s0;
    const uint64_t imm = (uint64_t)in->imm;
    uint64_t a0 = rr64(R, s0, (unsigned)__builtin_ctz(mask)) + imm, bias = a0;
    TmSpace sp = lane_space(in->mod, &bias);
    bias = a0 - bias; /* what lane_space subtracted */
    uint64_t out = 0;
    for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {
        const uint64_t a = rr64(R, s0, l) + imm;
        acc->addr[l] = a - bias;
        if (in->mod == XS_GENERIC) /* the same window as lane a0's, or global memory */
            out |= (uint64_t)((sp == TM_GLOBAL ? (a - XGPU_SHARED_BASE < XGPU_WINDOW_SIZE) |
                                                     (a - XGPU_LOCAL_BASE < XGPU_WINDOW_SIZE) |
                                                     (a - XGPU_PARAM_BASE < XGPU_WINDOW_SIZE)
                                               : a - bias >= XGPU_WINDOW_SIZE) &
                              (mask >> l & 1));
    }
    if (out)
        return 0;
    acc->space = (uint8_t)sp;
    acc->mask = mask;
    return 1;
}

static void capture(const EmuWarp *w, const EmuInsn *in, uint32_t mask, EmuStep *st)
{
    uint8_t kind = in->op == XOP_ld ? TM_READ : in->op == XOP_st ? TM_WRITE : TM_ATOMIC;
    uint8_t size = (uint8_t)xisa_type_size((XType)in->type);
    if (mask && capture_one(w, in, mask, &st->acc[0])) {
        st->acc[0].kind = kind;
        st->acc[0].size = size;
        st->nacc = 1;
        return;
    }
    int slot[TM_SPACE_COUNT];
    memset(slot, 0xff, sizeof slot); /* -1: no access of that space yet */
    for (uint32_t m = mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t a = r64(w, in->s0, l) + (uint64_t)in->imm;
        TmSpace sp = lane_space(in->mod, &a);
        if (slot[sp] < 0) {
            TmAccess *acc = &st->acc[st->nacc];
            slot[sp] = (int)st->nacc++;
            acc->space = (uint8_t)sp;
            acc->kind = kind;
            acc->size = size;
            acc->mask = 0;
        }
        TmAccess *acc = &st->acc[slot[sp]];
        acc->mask |= 1u << l;
        acc->addr[l] = a;
    }
}

static int is_mem(const EmuInsn *in)
{
    return in->op == XOP_ld || in->op == XOP_st || in->op == XOP_atom || in->op == XOP_atomcas;
}

EMU_HOT EmuStatus emu_warp_step(EmuExec *x, EmuCta *c, EmuWarp *w, int capture_on,
                                 EmuStep *st)
{
    if (x->cta != c)
        emu_exec_bind(x, c);
    EmuSimt *top = &w->stack[w->depth - 1];
    const uint32_t pc = top->pc, mask = top->mask;
    st->pc = pc;
    st->mask = mask;
    st->nacc = 0;
    st->in = NULL;
    if (pc >= x->code_count)
        return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, low_lane(mask), 0,
                              "execution ran past the end of the kernel"), x->fstatus;
    if (x->winsns == x->stop && emu_exec_checkpoint(x)) {
        emu_exec_timeout(x, low_lane(mask));
        emu_cta_describe(x, c, w, x->fmsg, sizeof x->fmsg);
        return x->fstatus;
    }
    const EmuInsn *in = &x->code[pc];
    st->in = in;
    if (w->prof)
        emu_reuse_note(x, w, pc);
    x->winsns++;
    w->clock++;
    x->tinsns += (uint32_t)__builtin_popcount(mask);
    if (in->kind != EK_PLAIN) {
        EmuStatus s = emu_exec_ctrl(x, w, in, pc, mask);
        if (!s && w->prof && w->state == EW_DONE)
            emu_reuse_warp_done(x, w);
        if (s || w->state != EW_RUN)
            return s;
    } else {
        if (capture_on && is_mem(in))
            capture(w, in, mask, st);
        if (in->fn(x, w, in, mask))
            return x->fstatus;
        top->pc = pc + 1;
        if (top->pc == top->rpc)
            emu_simt_settle(w);
    }
    if (!w->depth)
        w->state = EW_DONE;
    if (w->prof && w->state == EW_DONE)
        emu_reuse_warp_done(x, w);
    return EMU_OK;
}
