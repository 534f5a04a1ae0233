# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel histogram
.regs 14
.shared 64
.param 8 8
.param 8 8
.param 8 8
.param 8 8
    .phase 13 0 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    ld.param.u64 r4, [16]
    ld.param.u64 r6, [24]
    s2r r8, %tid.x
    cvt.u64.u32 r10, r8
    shl.u64 r12, r10, 2
    add.u64 r0, r0, r12
    ld.global.u32 r0, [r0]
    and.u32 r1, r0, 15
    .phase 13 64
    cvt.u64.u32 r12, r1
    shl.u64 r12, r12, 2
    mov.u32 r1, 1
    atom.shared.add.u32 r1, [r12], r1
    .phase 12 64 barrier
    bar 0
    set.lt.u32 r1, r8, 16
    brc.not r1, L22, L22
    shl.u64 r8, r10, 2
    ld.shared.u32 r1, [r8]
    shl.u64 r8, r10, 2
    add.u64 r2, r2, r8
    atom.global.add.u32 r1, [r2], r1
L22:
    cvt.f32.s32 r1, r0
    atom.global.add.f32 r1, [r4], r1
    .phase 6 0
    ld.global.u32 r1, [r6]
L25:
    max.s32 r2, r0, r1
    atomcas.global.u32 r2, [r6], r1, r2
    set.eq.u32 r3, r2, r1
    brc r3, L31, L31
    mov.u32 r1, r2
    bra L25
L31:
    exit
