/*
 * insn_info.c - the timing facts of an instruction as the SM uses them (TmInsn, gpu.h):
 * its unit class, latency, fence, constant-bank operand, the registers it reads and
 * writes (each once, RZ dropped) with the compiler's reuse hints on them, and the
 * register mask the scoreboard checks. The launch computes them once per pc of its
 * kernel (gpu_setup.c); a mechanism with code of its own (an assist warp) does for its
 * code.
 */
#include <string.h>
#include "timing/gpu.h"

static unsigned insn_class(const XInsn *in)
{
    int f64 = 0;
    XUnit u = xisa_insn_unit(in, &f64);
    switch (u) {
    case XU_INT: return TC_INT;
    case XU_FP: return f64 ? TC_DP : TC_FP;
    case XU_SFU: return TC_SFU;
    case XU_TENSOR: return TC_TENSOR;
    case XU_LDST: return (xisa_ops[in->op].flags & XI_MEM) ? TC_LDST : TC_CTRL;
    default: return TC_CTRL;
    }
}

/* Registers of slot i (dst or src) appended to out: RZ dropped, each register once (an
 * instruction reads a register once however many operands name it). */
static unsigned operand_regs(const XInsn *in, int dst, unsigned i, uint8_t *out, unsigned n,
                             unsigned max)
{
    unsigned r = dst ? in->dst[i] : in->src[i], k = xisa_operand_regs(in, dst, i);
    for (unsigned j = 0; j < k && r != XREG_RZ && n < max; j++) {
        unsigned seen = 0;
        for (unsigned m = 0; m < n; m++)
            seen |= out[m] == r + j;
        if (!seen)
            out[n++] = (uint8_t)(r + j);
    }
    return n;
}

/* Sets bit k of *near for every register of operand slot i (dst or src) in list
 * out[0..n): a register named by several operands is near if any of them is. */
static void mark_near(const XInsn *in, int dst, unsigned i, const uint8_t *out, unsigned n,
                      uint16_t *near)
{
    unsigned r = dst ? in->dst[i] : in->src[i], k = xisa_operand_regs(in, dst, i);
    for (unsigned j = 0; j < k && r != XREG_RZ; j++)
        for (unsigned m = 0; m < n; m++)
            if (out[m] == r + j)
                *near |= (uint16_t)(1u << m);
}

/* reuse: the instruction's reuse byte from the compiler's hints (.xgpu.reuse, XREUSE_*;
 * docs/hints.md; 0 without the section: all far).
 * A 64-bit operand's bit covers both registers of the pair. */
void tm_insn_info(const EmuConfig *c, const XInsn *in, uint8_t reuse, TmInsn *t)
{
    memset(t, 0, sizeof *t);
    t->cls = (uint8_t)insn_class(in);
    t->fence = in->op == XOP_membar ? (uint8_t)(in->mod + 1) : 0;
    t->konst = in->flags & XF_CONST ? in->target + 1 : 0;
    t->latency = (uint32_t)tm_insn_latency(c, in, t->cls);
    for (unsigned i = 0; i < 2; i++)
        t->ndst = (uint8_t)operand_regs(in, 1, i, t->dst, t->ndst, TM_MAXDST);
    for (unsigned i = 0; i < 6; i++)
        t->nsrc = (uint8_t)operand_regs(in, 0, i, t->src, t->nsrc, TM_MAXSRC);
    uint16_t dn = 0;
    for (unsigned i = 0; i < 2; i++)
        if (reuse & XREUSE_DST(i))
            mark_near(in, 1, i, t->dst, t->ndst, &dn);
    for (unsigned i = 0; i < 6; i++)
        if (reuse & XREUSE_SRC(i))
            mark_near(in, 0, i, t->src, t->nsrc, &t->src_near);
    t->dst_near = (uint8_t)dn;
    if (t->cls == TC_CTRL)
        t->ndst = 0; /* control results (barred, vprintf) are written at issue */
    for (unsigned i = 0; i < t->nsrc; i++)
        t->regs[t->src[i] >> 6] |= 1ull << (t->src[i] & 63);
    for (unsigned i = 0; i < t->ndst; i++)
        t->regs[t->dst[i] >> 6] |= 1ull << (t->dst[i] & 63);
}
