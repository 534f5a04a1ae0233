# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel fma
.regs 10
.param 8 8
.param 4 4
.param 4 4
.param 4 4
.param 8 8
.param 8 8
    .phase 10 0 entry
    ld.param.u64 r0, [0]
    ld.param.f32 r2, [8]
    ld.param.f32 r3, [12]
    ld.param.f32 r4, [16]
    ld.param.f64 r6, [24]
    ld.param.f64 r8, [32]
    ffma.f32 r5, r2, r3, r4
    st.global.f32 [r0], r5
    fneg.f32 r5, r2
    ffma.f32 r5, r5, r4, r3
    .phase 10 0
    st.global.f32 [r0+4], r5
    fmul.f32 r3, r3, r4
    fadd.f32 r3, r3, r2
    st.global.f32 [r0+8], r3
    fmul.f32 r3, r4, r4
    fadd.f32 r2, r3, r2
    fadd.f32 r2, r2, r3
    st.global.f32 [r0+12], r2
    fneg.f64 r2, r6
    ffma.f64 r2, r6, r8, r2
    .phase 4 0
    st.global.f64 [r0+32], r2
    exit
