/*
 * reuse.c - Memento's static reuse-distance estimate (docs/hints.md) on allocated code.
 *
 * The reuse distance of an operand (a source read or a destination written at pc p) is
 * the number of dynamic instructions of the warp from p to the next instruction that
 * reads the same register: 1 when it is the very next one. A write of the register
 * before any read ends the value's life: no reuse. The bit of the operand is set (near)
 * when the distance is at most RTHLD.
 *
 * The static estimate is the shortest such distance over the control-flow paths from p
 * (a breadth-first walk of at most RTHLD instructions): both sides of a conditional
 * branch count, since a divergent warp runs both, and a loop's back edge is followed, so
 * a register read again in the next iteration is near when the loop body is short.
 * A source that the instruction itself overwrites is dead after it: far. Operands are
 * registers: RZ and immediates stay far. A 64-bit operand (a register pair)
 * is tracked by its first register and gets one bit. Bit layout (XREUSE_*): bits 0-5
 * sources 0-5, bits 6-7 destinations 0-1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpubin_int.h"

/* Whether an operand of in on the given side (dst: destinations, else sources) covers
 * register r. */
static int touches(const XInsn *in, int dst, unsigned r)
{
    for (unsigned i = 0; i < (dst ? 2u : 6u); i++) {
        unsigned k = xisa_operand_regs(in, dst, i), reg = dst ? in->dst[i] : in->src[i];
        if (k && reg != XREG_RZ && r >= reg && r < reg + k)
            return 1;
    }
    return 0;
}

/* Successors of pc (at most 2); returns how many. */
static unsigned succs(const XInsn *code, uint32_t n, uint32_t pc, uint32_t out[2])
{
    const XInsn *in = &code[pc];
    unsigned flags = xisa_ops[in->op].flags, k = 0;
    if (flags & XI_EXIT)
        return 0;
    if (flags & XI_BRANCH) {
        if (in->target < n)
            out[k++] = in->target;
        if (!(flags & XI_COND))
            return k;
    }
    if (pc + 1 < n && (k == 0 || out[0] != pc + 1))
        out[k++] = pc + 1;
    return k;
}

/* Shortest distance (<= limit) from p to a read of r before a write of it, or 0. */
static unsigned next_use(const XInsn *code, uint32_t n, uint32_t p, unsigned r, unsigned limit,
                         uint32_t *seen, uint32_t stamp, uint32_t *queue)
{
    uint32_t head = 0, tail = 0, s[2];
    unsigned ns = succs(code, n, p, s);
    for (unsigned i = 0; i < ns; i++)
        if (seen[s[i]] != stamp)
            seen[s[i]] = stamp, queue[tail++] = s[i];
    for (unsigned dist = 1; dist <= limit && head < tail; dist++) {
        uint32_t end = tail; /* the instructions at this distance */
        for (; head < end; head++) {
            uint32_t q = queue[head];
            if (touches(&code[q], 0, r))
                return dist;
            if (touches(&code[q], 1, r))
                continue; /* the value is dead along this path */
            ns = succs(code, n, q, s);
            for (unsigned i = 0; i < ns; i++)
                if (seen[s[i]] != stamp)
                    seen[s[i]] = stamp, queue[tail++] = s[i];
        }
    }
    return 0;
}

int xisa_reuse_static(const XInsn *code, uint32_t n, unsigned rthld, uint8_t *bits)
{
    uint32_t *seen = calloc(n ? n : 1, sizeof *seen), *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!seen || !queue) {
        free(seen);
        free(queue);
        return -1;
    }
    uint32_t stamp = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        const XInsn *in = &code[pc];
        bits[pc] = 0;
        if (in->op >= XOP_COUNT)
            continue;
        for (unsigned slot = 0; slot < 8; slot++) {
            int dst = slot >= 6;
            unsigned i = dst ? slot - 6 : slot, r = dst ? in->dst[i] : in->src[i];
            if (!xisa_operand_regs(in, dst, i) || r == XREG_RZ)
                continue;
            if (!dst && touches(in, 1, r))
                continue; /* read, then overwritten by the same instruction: dead */
            if (next_use(code, n, pc, r, rthld, seen, ++stamp, queue))
                bits[pc] |= (uint8_t)(1u << slot);
        }
    }
    free(seen);
    free(queue);
    return 0;
}

/* ---- reuse profiles ------------------------------------------------------------------ */

uint64_t xisa_code_hash(const XInsn *code, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    uint8_t enc[GB_INSN_SIZE];
    for (uint32_t i = 0; i < n; i++) {
        gb_encode_insn(enc, &code[i]);
        for (unsigned b = 0; b < GB_INSN_SIZE; b++)
            h = (h ^ enc[b]) * 0x100000001b3ull;
    }
    return h;
}

int xisa_reuse_apply_profile(const char *path, const char *name, const XInsn *code, uint32_t n,
                             unsigned rthld, uint8_t *bits, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the reuse profile", path);
        return -1;
    }
    char line[1024], kname[512];
    unsigned lineno = 0, version = 0, prof_rthld = 0;
    int in_kernel = 0, applied = 0, rc = 0;
    uint64_t hash = xisa_code_hash(code, n);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        unsigned long long h, a, b, c, d;
        if (lineno == 1) {
            if (sscanf(line, "xgpu-reuse-profile %u", &version) != 1 || version != 1) {
                snprintf(err, errlen, "%s:1: not a version-1 xgpu reuse profile", path);
                rc = -1;
                break;
            }
        } else if (sscanf(line, "rthld %u", &prof_rthld) == 1) {
            if (prof_rthld != rthld) {
                snprintf(err, errlen, "%s:%u: profile recorded with RTHLD %u, compiling with %u",
                         path, lineno, prof_rthld, rthld);
                rc = -1;
                break;
            }
        } else if (sscanf(line, "kernel %511s %llx %llu %llu", kname, &h, &a, &b) == 4) {
            in_kernel = !strcmp(kname, name) && h == hash && a == n;
        } else if (sscanf(line, "%llu %llu %llu %llu", &a, &b, &c, &d) == 4) {
            if (!in_kernel)
                continue;
            if (a >= n || b > 7) {
                snprintf(err, errlen, "%s:%u: operand %llu/%llu outside the kernel", path,
                         lineno, a, b);
                rc = -1;
                break;
            }
            if (c != d) {
                bits[a] = (uint8_t)(c > d ? bits[a] | 1u << b : bits[a] & ~(1u << b));
                applied++;
            }
        } else if (line[0] != '\n') {
            snprintf(err, errlen, "%s:%u: cannot parse '%.40s'", path, lineno, line);
            rc = -1;
            break;
        }
    }
    if (!rc && lineno == 0) {
        snprintf(err, errlen, "%s: empty reuse profile", path);
        rc = -1;
    }
    fclose(f);
    return rc ? rc : applied;
}
