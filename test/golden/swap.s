# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel swap
.regs 8
.param 8 8
.param 4 4
    .phase 7 0 entry
    ld.param.u64 r0, [0]
    ld.param.u32 r2, [8]
    mov.u32 r3, 0
    mov.u32 r4, 1
    mov.u32 r5, 2
L5:
    add.u32 r6, r3, 1
    set.lt.s32 r7, r6, r2
    brc.uni r7, L11, L8
L8:
    st.global.u32 [r0], r4
    st.global.u32 [r0+4], r5
    .phase 0 0
    exit
L11:
    mov.u32 r3, r6
    mov.u32 r6, r5
    mov.u32 r5, r4
    mov.u32 r4, r6
    bra L5
