# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel memcpy_struct
.regs 12
.param 8 8
.param 8 8
.param 8 8
    .phase 7 0 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    ld.param.u64 r4, [16]
    ld.global.u32 r6, [r2]
    st.global.u32 [r0], r6
    ld.global.u32 r6, [r2+4]
    st.global.u32 [r0+4], r6
    ld.global.u32 r6, [r2+8]
    st.global.u32 [r0+8], r6
    ld.global.u32 r6, [r2+12]
    .phase 11 0
    st.global.u32 [r0+12], r6
    ld.global.u32 r6, [r2+16]
    st.global.u32 [r0+16], r6
    mov.u64 r6, 0
L14:
    set.lt.u64 r8, r6, r4
    brc.uni r8, L17, L16
L16:
    exit
L17:
    add.u64 r8, r2, r6
    ld.global.u8 r8, [r8+20]
    add.u64 r10, r0, r6
    .phase 11 0
    st.global.u8 [r10+20], r8
    add.u64 r8, r6, 1
    mov.u64 r6, r8
    bra L14
