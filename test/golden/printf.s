# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10
.global .str 17 1 = 116 105 100 32 37 100 58 32 37 102 32 40 37 115 41 10 0
.global .name 3 1 = 111 107 0

.kernel hello
.regs 4
.local 24
.param 4 4
    .phase 4 0 entry
    ld.param.f32 r0, [0]
    s2r r1, %tid.x
    cvt.f64.f32 r2, r0
    st.local.u32.a8 [0], r1
    st.local.f64 [8], r2
    gaddr r0, .name
    st.local.u64 [16], r0
    gaddr r0, .str
    mov.u64 r2, 0
    cvta.local r2, r2
    .phase 4 0
    vprintf r0, r0, r2
    exit
