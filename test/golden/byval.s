# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel byval
.regs 6
.local 16
.param 16 8
.param 16 8
.param 8 8
    .phase 6 0 entry
    ld.param.u64 r0, [16]
    st.local.u64 [0], r0
    ld.param.u64 r0, [24]
    st.local.u64 [8], r0
    ld.param.u64 r0, [32]
    ld.param.u32.a8 r2, [0]
    ld.param.f64 r4, [8]
    mov.u32 r3, 7
    st.local.u32.a8 [0], r3
    add.u32 r2, r2, 7
    .phase 6 0
    cvt.f64.s32 r2, r2
    fadd.f64 r2, r4, r2
    st.global.f64 [r0], r2
    exit
