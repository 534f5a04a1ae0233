# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel reduce
.regs 10
.shared 1024
.param 8 8
.param 8 8
    .phase 9 1024 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    s2r r4, %tid.x
    cvt.u64.u32 r6, r4
    shl.u64 r8, r6, 2
    add.u64 r0, r0, r8
    ld.global.f32 r0, [r0]
    shl.u64 r6, r6, 2
    st.shared.f32 [r6], r0
    .phase 10 1024 barrier
    bar 0
    mov.u32 r0, 128
L11:
    set.lt.u32 r1, r4, r0
    brc.not r1, L20, L20
    add.u32 r1, r4, r0
    cvt.u64.u32 r8, r1
    shl.u64 r8, r8, 2
    ld.shared.f32 r1, [r6]
    ld.shared.f32 r5, [r8]
    fadd.f32 r1, r1, r5
    st.shared.f32 [r6], r1
L20:
    .phase 10 1024 barrier
    bar 0
    shr.u32 r1, r0, 1
    set.lt.u32 r5, r0, 2
    brc.uni r5, L26, L26
    mov.u32 r0, r1
    bra L11
L26:
    set.eq.u32 r0, r4, 0
    brc.not r0, L30, L30
    ld.shared.f32 r0, [0]
    st.global.f32 [r2], r0
L30:
    .phase 0 0
    exit
