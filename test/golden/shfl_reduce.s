# gpubin version 2
.producer "xgpu-cc"
.options "--phase-delta=25 --phase-gap=10"
.phases 25 10

.kernel warp_sum
.regs 10
.param 8 8
.param 8 8
.param 8 8
    .phase 9 0 entry
    ld.param.u64 r0, [0]
    ld.param.u64 r2, [8]
    ld.param.u64 r4, [16]
    s2r r6, %tid.x
    cvt.u64.u32 r8, r6
    shl.u64 r8, r8, 2
    add.u64 r0, r0, r8
    ld.global.f32 r0, [r0]
    mov.f32 r1, 0f00000000
    set.gt.f32 r1, r0, r1
    .phase 9 0
    vote.ballot r1, r1, 0xffffffff
    mov.u32 r7, 16
    mov.u32 r8, 31
    shfl.down r7, rz, r0, r7, r8, 0xffffffff
    fadd.f32 r0, r0, r7
    mov.u32 r7, 8
    mov.u32 r8, 31
    shfl.down r7, rz, r0, r7, r8, 0xffffffff
    fadd.f32 r0, r0, r7
    mov.u32 r7, 4
    .phase 9 0
    mov.u32 r8, 31
    shfl.down r7, rz, r0, r7, r8, 0xffffffff
    fadd.f32 r0, r0, r7
    mov.u32 r7, 2
    mov.u32 r8, 31
    shfl.down r7, rz, r0, r7, r8, 0xffffffff
    fadd.f32 r0, r0, r7
    mov.u32 r7, 1
    mov.u32 r8, 31
    shfl.down r7, rz, r0, r7, r8, 0xffffffff
    and.u32 r6, r6, 31
    set.eq.u32 r6, r6, 0
    brc.not r6, L37, L37
    fadd.f32 r0, r0, r7
    atom.global.add.f32 r0, [r2], r0
    popc.u32 r0, r1
    atom.global.add.u32 r0, [r4], r0
L37:
    .phase 0 0
    exit
