# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel early_return
.regs 10
.param 8 8
.param 4 4
    .phase 7 0 entry
    ld.param.u64 r0, [0]
    ld.param.u32 r2, [8]
    s2r r3, %tid.x
    and.u32 r4, r3, 1
    set.eq.u32 r4, r4, 0
    brc r4, L9, L13
    mul.u32 r4, r3, 3
    mov.u32 r5, 0
    bra L13
L9:
    sub.u32 r6, r2, r3
    mov.u32 r7, 0
    mov.u32 r4, r6
    mov.u32 r5, r7
L13:
    set.lt.s32 r6, r4, 0
    brc r6, L27, L27
    add.u32 r6, r4, -7
    add.u32 r7, r5, 1
    set.lt.s32 r8, r7, r2
    brc r8, L24, L27
    cvt.u64.u32 r8, r3
    shl.u64 r8, r8, 2
    add.u64 r8, r0, r8
    st.global.u32 [r8], r6
    bra L27
L24:
    mov.u32 r4, r6
    mov.u32 r5, r7
    bra L13
L27:
    .phase 0 0
    exit
