# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel select_ptr
.regs 7
.param 8 8
.param 8 8
.param 8 8
.param 4 4
    .phase 7 0 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    ld.param.u64 r4, [16]
    ld.param.u32 r6, [24]
    set.eq.u32 r6, r6, 0
    sel.u64 r0, r0, r2, r6
    ld.global.f64 r0, [r0]
    mov.f64 r2, 0d4000000000000000
    fmul.f64 r0, r0, r2
    st.global.f64 [r4], r0
    .phase 0 0
    exit
