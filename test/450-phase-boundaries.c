/*
 * 450-phase-boundaries.c - the compiler's phase specifiers (.xgpu.phases) reach the
 * timing model: each is attached to the instruction it starts at, and every warp that
 * issues such an instruction counts once in core.phase_boundaries; without the section
 * nothing counts.
 */
#include "400-timing-util.h"

static const char with_phases[] =
    ".phases 25 10\n"
    ".kernel k\n.param 8\n.regs 8\n"
    "    .phase 2 0 entry\n"
    "    mov.u32 r1, 5\n"
    "    add.u32 r2, r1, 1\n"
    "    .phase 4 0\n"
    "    add.u32 r3, r2, r1\n"
    "    exit\n";

static const char without[] =
    ".kernel k\n.param 8\n.regs 8\n"
    "    mov.u32 r1, 5\n"
    "    add.u32 r2, r1, 1\n"
    "    add.u32 r3, r2, r1\n"
    "    exit\n";

Test(phases, each_warp_counts_each_specifier_it_passes)
{
    TmRun r;
    tm_run(&r, TM_BASE, with_phases, DIM(3, 1, 1), DIM(64, 1, 1), 1); /* 6 warps */
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(tm_ctr(&r, "core.phase_boundaries"), 6 * 2);
    tm_done(&r);
    tm_run(&r, TM_BASE, without, DIM(3, 1, 1), DIM(64, 1, 1), 1);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(tm_ctr(&r, "core.phase_boundaries"), 0);
    tm_done(&r);
}
