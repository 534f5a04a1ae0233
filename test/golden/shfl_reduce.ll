; Warp sum with shfl.sync.down (unrolled offsets 16..1), then lane 0 of each warp adds
; its result into global memory; a ballot counts the lanes with a positive value.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @warp_sum(ptr %in, ptr %out, ptr %positive) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %src = getelementptr inbounds float, ptr %in, i64 %t64
  %v0 = load float, ptr %src, align 4
  %p = fcmp ogt float %v0, 0.0
  %mask = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %p)
  %s16 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v0, i32 16, i32 31)
  %v1 = fadd float %v0, %s16
  %s8 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v1, i32 8, i32 31)
  %v2 = fadd float %v1, %s8
  %s4 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v2, i32 4, i32 31)
  %v3 = fadd float %v2, %s4
  %s2 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v3, i32 2, i32 31)
  %v4 = fadd float %v3, %s2
  %s1 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v4, i32 1, i32 31)
  %v5 = fadd float %v4, %s1
  %lane = and i32 %tid, 31
  %lead = icmp eq i32 %lane, 0
  br i1 %lead, label %write, label %done

write:
  %o = atomicrmw fadd ptr %out, float %v5 monotonic, align 4
  %n = call i32 @llvm.ctpop.i32(i32 %mask)
  %c = atomicrmw add ptr %positive, i32 %n monotonic, align 4
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
declare i32 @llvm.ctpop.i32(i32)

!nvvm.annotations = !{!0}
!0 = !{ptr @warp_sum, !"kernel", i32 1}
