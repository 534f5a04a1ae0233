# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel vadd
.regs 10
.param 8 8
.param 8 8
.param 8 8
.param 4 4
    .phase 10 0 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    ld.param.u64 r4, [16]
    ld.param.u32 r6, [24]
    s2r r7, %ctaid.x
    s2r r8, %ntid.x
    s2r r9, %tid.x
    mul.u32 r7, r7, r8
    add.u32 r7, r7, r9
    set.lt.s32 r6, r7, r6
    .phase 10 0
    brc.not r6, L22, L22
    cvt.s64.s32 r6, r7
    shl.u64 r8, r6, 2
    add.u64 r0, r0, r8
    shl.u64 r8, r6, 2
    add.u64 r2, r2, r8
    shl.u64 r6, r6, 2
    add.u64 r4, r4, r6
    ld.global.f32 r0, [r0]
    ld.global.f32 r1, [r2]
    fadd.f32 r0, r0, r1
    st.global.f32 [r4], r0
L22:
    .phase 0 0
    exit
