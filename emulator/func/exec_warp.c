/*
 * exec_warp.c - warp-wide instructions: shfl, vote, actmask, and the byte permute prmt.
 *
 * shfl follows PTX shfl.sync: for lane l, b = s1 & 31, c = s2 & 31, seg = (s2 >> 8) & 31,
 * maxLane = (l & seg) | (c & ~seg), minLane = l & seg; the source lane j is
 *   idx:  minLane | (b & ~seg), valid when j <= maxLane
 *   up:   l - b,                valid when j >= maxLane
 *   down: l + b,                valid when j <= maxLane
 *   bfly: l ^ b,                valid when j <= maxLane
 * and an invalid j is replaced by l itself. d0 = lane j's s0, d1 = validity. Every source
 * value is read before any destination is written (d0 may be s0). A source lane that is
 * not active contributes its register value as it stands (undefined in CUDA). The member
 * mask s3 is not checked: the active lanes are the ones that take part.
 *
 * vote counts the active lanes that are also in the lane's member mask s1; every active
 * lane receives the result. actmask is the mask of active lanes. prmt is PTX prmt's
 * default mode (see prmt_value).
 */
#include <string.h>
#include "func/exec.h"

/* Lane l's source lane j and whether it is in range (see the file comment), for every
 * lane (the inactive ones too: a branch-free loop over hoisted rows); the caller writes
 * the active lanes. An out-of-range j is replaced by l, so the index is always 0..31. */
#define SHFL_LANES(J, OK)                                                                   \
    for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {                                         \
        const unsigned b = R[s1][l] & 31, c = R[s2][l] & 31, seg = (R[s2][l] >> 8) & 31;    \
        const int max_lane = (int)((l & seg) | (c & ~seg)), min_lane = (int)(l & seg);      \
        const int j = (J), ok = (OK);                                                       \
        (void)min_lane;                                                                     \
        val[l] = src[ok ? (unsigned)j : l];                                                 \
        okv[l] = (uint32_t)ok;                                                              \
    }                                                                                       \
    break

EMU_HOT static int shfl_run(EXEC_ARGS)
{
    OPERANDS;
    (void)x;
    const unsigned d1 = in->d1;
    uint32_t val[32], src[32], okv[32]; /* the member mask (s3 or imm) is not used */
    memcpy(src, R[s0], sizeof src);
    switch (in->sub) {
    case XSHFL_IDX: SHFL_LANES(min_lane | (int)(b & ~seg), j <= max_lane);
    case XSHFL_UP: SHFL_LANES((int)l - (int)b, j >= max_lane);
    case XSHFL_DOWN: SHFL_LANES((int)(l + b), j <= max_lane);
    default: SHFL_LANES((int)(l ^ b), j <= max_lane);
    }
    if (mask == EMU_FULL_MASK) {
        memcpy(R[d], val, sizeof val);
        memcpy(R[d1], okv, sizeof okv);
        return EXEC_NEXT;
    }
    LANES {
        R[d][l] = val[l];
        R[d1][l] = okv[l];
    }
    return EXEC_NEXT;
}

int emu_pick_shfl(const XInsn *xi, EmuInsn *o)
{
    if (xi->sub >= XSHFL_COUNT)
        return -1;
    o->fn = shfl_run;
    o->kind = EK_PLAIN;
    return 0;
}

static int vote_run(EXEC_ARGS)
{
    (void)x;
    uint32_t pred = 0, res[32];
    LANES pred |= (uint32_t)(R32(in->s0) != 0) << l;
    LANES {
        uint32_t members = mask & ((in->flags & XF_IMM) ? (uint32_t)in->imm : R32(in->s1));
        uint32_t ballot = pred & members;
        switch (in->sub) {
        case XVOTE_BALLOT: res[l] = ballot; break;
        case XVOTE_ANY: res[l] = ballot != 0; break;
        case XVOTE_ALL: res[l] = ballot == members; break;
        default: res[l] = ballot == 0 || ballot == members; break;
        }
    }
    LANES R32(in->d) = res[l];
    return EXEC_NEXT;
}

int emu_pick_vote(const XInsn *xi, EmuInsn *o)
{
    if (xi->sub >= XVOTE_COUNT)
        return -1;
    o->fn = vote_run;
    o->kind = EK_PLAIN;
    return 0;
}

static int actmask_run(EXEC_ARGS)
{
    (void)x;
    LANES R32(in->d) = mask;
    return EXEC_NEXT;
}

int emu_pick_actmask(const XInsn *xi, EmuInsn *o)
{
    (void)xi;
    o->fn = actmask_run;
    o->kind = EK_PLAIN;
    return 0;
}

/* PTX prmt, default mode: the eight bytes {b, a} (a the low word) are b7..b0; result
 * byte i is the byte picked by the low 3 bits of selector nibble i, or, when the nibble's
 * bit 3 is set, that byte's sign (0x00 or 0xff). */
static uint32_t prmt_value(uint32_t a, uint32_t b, uint32_t sel)
{
    uint64_t bytes = (uint64_t)b << 32 | a;
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned nib = (sel >> (4 * i)) & 0xf;
        uint32_t byte = (uint32_t)(bytes >> (8 * (nib & 7))) & 0xff;
        if (nib & 8)
            byte = (byte & 0x80) ? 0xff : 0;
        d |= byte << (8 * i);
    }
    return d;
}

static int prmt_run(EXEC_ARGS)
{
    (void)x;
    LANES {
        uint32_t sel = (in->flags & XF_IMM) ? (uint32_t)in->imm : R32(in->s2);
        R32(in->d) = prmt_value(R32(in->s0), R32(in->s1), sel);
    }
    return EXEC_NEXT;
}

int emu_pick_prmt(const XInsn *xi, EmuInsn *o)
{
    (void)xi;
    o->fn = prmt_run;
    o->kind = EK_PLAIN;
    return 0;
}
