/*
 * units.c - a sub-core's execution units: one per class (int, fp32, fp64, sfu, tensor,
 * and the sub-core's port into the SM's LD/ST unit), each with a latency and an
 * initiation interval from the config (unit.CLASS.latency / .ii), or for the int, fp32,
 * fp64 and sfu units a width in lanes (unit.CLASS.lanes) instead of the interval.
 *
 * A unit accepts one instruction every `ii` cycles. A unit of L lanes takes a warp
 * instruction in 32 / L cycles, exactly: it keeps its lane-cycles in integers
 * (tm_unit_start), so 16 lanes take one every 2 cycles (ii 2), 48 lanes three every two
 * cycles (two starting in one cycle, one in the next: Kepler's 192 fp32 lanes over 4
 * schedulers) and 64 lanes two every cycle. Either way the unit's state is the first
 * cycle it accepts an instruction (unit_next), which the issue checks and idle skipping
 * read, and it changes only when an instruction starts. Latency is counted from issue with
 * conflict-free operand reads: issued at t, operands read and dispatched at t + 1, result
 * written back at t + latency, when a dependent instruction may issue. So the unit
 * itself holds the instruction latency - 1 cycles after dispatch (at least 1); operand
 * waits (bank conflicts, a busy unit) add to it, and so do the operand pipeline's
 * stages (core.*_stages). With core.issue_waits_unit (the default) issue does not take an
 * instruction whose unit cannot accept it by the time it could start (the "unit busy"
 * stall), so collectors do not fill up behind a slow unit; without it, collectors wait
 * for their units, as in Accel-Sim's sub-core model.
 */
#include "timing/core.h"

Cycle tm_unit_latency(const EmuConfig *cfg, unsigned cls)
{
    switch (cls) {
    case TC_INT: return cfg->unit_int_latency;
    case TC_FP: return cfg->unit_fp_latency;
    case TC_DP: return cfg->unit_dp_latency;
    case TC_SFU: return cfg->unit_sfu_latency;
    case TC_TENSOR: return cfg->unit_tensor_latency;
    case TC_LDST: return cfg->core_mem_latency;
    default: return 1;
    }
}

int tm_unit_ready(const TmSubcore *sc, unsigned cls, Cycle now)
{
    return sc->unit_next[cls] <= now;
}

/* The k (at least 1) instructions issued this cycle start, by the plain pipeline,
 * core.collect_stages + core.exec_stages after the next cycle (memory instructions the
 * next cycle), or when the unit is free if that is later; the one more must start in that
 * same cycle. An initiation interval is at least a cycle: only a unit of more than 32
 * lanes takes it. */
int tm_unit_takes(const TmSm *sm, const TmSubcore *sc, unsigned cls, unsigned k, Cycle now)
{
    uint32_t lanes = sm->unit_lanes[cls];
    if (!lanes)
        return 0;
    Cycle at = now + 1 + (cls == TC_LDST ? 0 : sm->collect_stages + sm->exec_stages);
    at = sc->unit_next[cls] > at ? sc->unit_next[cls] : at;
    uint64_t lc = sc->unit_lc[cls] > at * lanes ? sc->unit_lc[cls] : at * lanes;
    return lc + (uint64_t)k * XGPU_WARP_SIZE < (at + 1) * lanes;
}

Cycle tm_insn_latency(const EmuConfig *cfg, const XInsn *in, unsigned cls)
{
    if (cls == TC_INT) {
        switch (in->op) {
        case XOP_min: case XOP_max: return cfg->unit_int_max_latency;
        case XOP_mul: case XOP_mulhi: case XOP_mad: return cfg->unit_int_mul_latency;
        case XOP_div: case XOP_rem: return cfg->unit_int_div_latency;
        case XOP_shfl: return cfg->unit_int_shfl_latency;
        default: break;
        }
    } else if (cls == TC_FP || cls == TC_DP) {
        int dp = cls == TC_DP;
        switch (in->op) {
        case XOP_fmin: case XOP_fmax:
            return dp ? cfg->unit_dp_max_latency : cfg->unit_fp_max_latency;
        case XOP_fmul: return dp ? cfg->unit_dp_mul_latency : cfg->unit_fp_mul_latency;
        case XOP_ffma: return dp ? cfg->unit_dp_mad_latency : cfg->unit_fp_mad_latency;
        case XOP_fdiv: return dp ? cfg->unit_dp_div_latency : cfg->unit_fp_div_latency;
        default: break;
        }
    }
    return tm_unit_latency(cfg, cls);
}
