/*
 * decode.c - turns a kernel's XInsn array into the flat EmuInsn array the warp loop runs.
 *
 * Done once per kernel at module load. Checks everything the executor relies on (opcode
 * and enum ranges, branch targets, reconvergence pcs, gaddr symbols, supported type
 * combinations), so that executing decoded code can never index out of bounds. Register
 * rows: the kernel's registers use rows 0..zrow-1 (enough for the highest register named
 * plus its pair partner), then two zero rows (reads of RZ), two sink rows (writes to
 * RZ) and the constant rows that XF_CONST operands read (EmuKernelCode). The handler
 * for each instruction comes from the emu_pick_<op> table generated from isa.def.
 */
#include <stdio.h>
#include <stdlib.h>
#include "device.h"

typedef int (*EmuPickFn)(const XInsn *xi, EmuInsn *o);

static const EmuPickFn picks[XOP_COUNT] = {
#define XOP(name, unit, ndst, nsrc, flags, desc) [XOP_##name] = emu_pick_##name,
#include "xgpu/isa.def"
};

static const char *const op_names[XOP_COUNT] = {
#define XOP(name, unit, ndst, nsrc, flags, desc) [XOP_##name] = #name,
#include "xgpu/isa.def"
};

static const uint16_t op_flags[XOP_COUNT] = {
#define XOP(name, unit, ndst, nsrc, flags, desc) [XOP_##name] = (flags),
#include "xgpu/isa.def"
};

/* Rows needed by the registers named in code (each may start a pair). */
static uint32_t count_rows(const XInsn *code, uint32_t n)
{
    uint32_t rows = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++)
            if (code[i].dst[j] != XREG_RZ && code[i].dst[j] + 2u > rows)
                rows = code[i].dst[j] + 2u;
        for (int j = 0; j < 6; j++)
            if (code[i].src[j] != XREG_RZ && code[i].src[j] + 2u > rows)
                rows = code[i].src[j] + 2u;
    }
    return (rows + 1) & ~1u;
}

/* The first of the constant rows holding the XF_CONST operand of xi (offset, width),
 * added to out's list (rows from krow) when no operand before had them. */
static int const_row(EmuKernelCode *out, const XInsn *xi, uint32_t krow, uint16_t *row)
{
    unsigned w = xisa_const_regs(xi);
    uint32_t k = 0;
    while (k + w <= out->nkonst &&
           (out->konst[k] != xi->target || (w == 2 && out->konst[k + 1] != xi->target + 4)))
        k++;
    if (k + w > out->nkonst) {
        uint32_t *more = realloc(out->konst, (out->nkonst + w) * sizeof *more);
        if (!more)
            return -1;
        out->konst = more;
        k = out->nkonst;
        for (unsigned j = 0; j < w; j++)
            out->konst[out->nkonst++] = xi->target + 4 * j;
    }
    *row = (uint16_t)(krow + k);
    return 0;
}

/* Source slot i's row field. */
static uint16_t *src_row(EmuInsn *o, unsigned i)
{
    uint16_t *const rows[6] = {&o->s0, &o->s1, &o->s2, &o->s3, &o->s4, &o->s5};
    return rows[i];
}

static int decode_one(const XGpubin *g, const XInsn *xi, uint32_t count, uint32_t zrow,
                      const uint64_t *gaddr, EmuInsn *o, char *err, size_t n)
{
    if (xi->op >= XOP_COUNT) {
        snprintf(err, n, "unknown opcode %u", xi->op);
        return -1;
    }
    const char *name = op_names[xi->op];
    *o = (EmuInsn){.op = (uint8_t)xi->op, .type = xi->type, .type2 = xi->type2,
                   .mod = xi->mod, .flags = xi->flags, .sub = xi->sub, .imm = xi->imm,
                   .target = xi->target, .reconv = xi->reconv};
    o->d = xi->dst[0] == XREG_RZ ? (uint16_t)(zrow + 2) : xi->dst[0];
    o->s0 = xi->src[0] == XREG_RZ ? (uint16_t)zrow : xi->src[0];
    o->s1 = xi->src[1] == XREG_RZ ? (uint16_t)zrow : xi->src[1];
    o->s2 = xi->src[2] == XREG_RZ ? (uint16_t)zrow : xi->src[2];
    o->d1 = xi->dst[1] == XREG_RZ ? (uint16_t)(zrow + 2) : xi->dst[1];
    o->s3 = xi->src[3] == XREG_RZ ? (uint16_t)zrow : xi->src[3];
    o->s4 = xi->src[4] == XREG_RZ ? (uint16_t)zrow : xi->src[4];
    o->s5 = xi->src[5] == XREG_RZ ? (uint16_t)zrow : xi->src[5];
    if ((op_flags[xi->op] & XI_BRANCH) && xi->target >= count) {
        snprintf(err, n, "%s: branch target %u outside the kernel", name, xi->target);
        return -1;
    }
    if ((op_flags[xi->op] & XI_COND) && xi->reconv > count) {
        snprintf(err, n, "%s: reconvergence pc %u outside the kernel", name, xi->reconv);
        return -1;
    }
    if (picks[xi->op](xi, o)) {
        snprintf(err, n, "%s: unsupported type/modifier combination (type %u, type2 %u, mod %u)",
                 name, xi->type, xi->type2, xi->mod);
        return -1;
    }
    if (xi->op == XOP_gaddr) {
        if (xi->target >= g->nglobals) {
            snprintf(err, n, "gaddr: symbol #%u does not exist", xi->target);
            return -1;
        }
        o->imm = (int64_t)(gaddr[xi->target] + (uint64_t)xi->imm);
    }
    return 0;
}

int emu_decode_kernel(const XGpubin *g, uint32_t k, const uint64_t *gaddr, EmuKernelCode *out,
                      char *err, size_t n)
{
    const XKernel *kn = &g->kernels[k];
    if (kn->code_count == 0 || kn->code_start > g->ntext ||
        kn->code_count > g->ntext - kn->code_start) {
        snprintf(err, n, "kernel %s: code range [%u, +%u) outside the text (%u instructions)",
                 kn->name, kn->code_start, kn->code_count, g->ntext);
        return -1;
    }
    const XInsn *code = g->text + kn->code_start;
    uint32_t zrow = count_rows(code, kn->code_count);
    *out = (EmuKernelCode){.count = kn->code_count};
    out->code = calloc(kn->code_count, sizeof *out->code);
    if (!out->code) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    for (uint32_t pc = 0; pc < kn->code_count; pc++) {
        char msg[200];
        const XInsn *xi = &code[pc];
        EmuInsn *o = &out->code[pc];
        int bad = decode_one(g, xi, kn->code_count, zrow, gaddr, o, msg, sizeof msg);
        if (!bad && (xi->flags & XF_CONST)) {
            unsigned bytes = 4 * xisa_const_regs(xi);
            if (xi->csrc >= 6 || !bytes || xi->target > kn->param_bytes ||
                bytes > kn->param_bytes - xi->target) {
                snprintf(msg, sizeof msg, "c[%u] reads past the kernel's %u parameter bytes",
                         xi->target, kn->param_bytes);
                bad = 1;
            } else if (const_row(out, xi, zrow + 4, src_row(o, xi->csrc))) {
                snprintf(msg, sizeof msg, "out of host memory");
                bad = 1;
            }
        }
        if (bad) {
            snprintf(err, n, "kernel %s: pc %u: %s", kn->name, pc, msg);
            emu_code_free(out);
            return -1;
        }
        out->grid_sync |= xi->op == XOP_gsync;
    }
    out->nrows = zrow + 4 + out->nkonst;
    return 0;
}

void emu_code_free(EmuKernelCode *c)
{
    free(c->code);
    free(c->konst);
    c->code = NULL;
    c->konst = NULL;
    c->nkonst = 0;
}
