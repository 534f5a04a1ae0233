/*
 * units.c - a sub-core's execution units: one per class (int, fp32, fp64, sfu, tensor,
 * and the sub-core's port into the SM's LD/ST unit), each with a latency and an
 * initiation interval from the config (unit.CLASS.latency / .ii).
 *
 * A unit accepts one instruction every `ii` cycles. Latency is counted from issue with
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

Cycle tm_insn_latency(const EmuConfig *cfg, const XInsn *in, unsigned cls)
{
    if (cls == TC_INT) {
        switch (in->op) {
        case XOP_min: case XOP_max: return cfg->unit_int_max_latency;
        case XOP_mul: case XOP_mulhi: return cfg->unit_int_mul_latency;
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
