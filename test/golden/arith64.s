# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel arith64
.regs 12
.param 8 8
.param 8 8
.param 8 8
.param 1 1
.param 1 1
    .phase 12 0 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    ld.param.u64 r4, [16]
    ld.param.u8 r6, [24]
    ld.param.u8 r7, [25]
    mul.u64 r8, r2, r4
    div.s64 r8, r8, r4
    rem.u64 r10, r2, 1000
    cvt.u32.u64 r10, r10
    shr.s64 r8, r8, r10
    .phase 10 0
    shl.u64 r8, r8, 3
    xor.u64 r8, r8, -1
    st.global.u64 [r0], r8
    cvt.s32.s8 r6, r6
    cvt.s32.s8 r7, r7
    div.s32 r6, r6, r7
    and.u32 r6, r6, 255
    cvt.s32.s8 r6, r6
    cvt.s64.s32 r6, r6
    st.global.u64 [r0+8], r6
    .phase 6 0
    max.s64 r2, r2, r4
    st.global.u64 [r0+16], r2
    exit
