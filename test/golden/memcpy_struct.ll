; Struct copies: a constant-length memcpy (unrolled, 4-byte units from the alignment)
; and a variable-length one (a byte loop).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.S = type { i32, float, [3 x i32] }

define void @memcpy_struct(ptr %dst, ptr %src, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %src, i64 20, i1 false)
  %d2 = getelementptr inbounds %struct.S, ptr %dst, i64 1
  %s2 = getelementptr inbounds %struct.S, ptr %src, i64 1
  call void @llvm.memcpy.p0.p0.i64(ptr align 1 %d2, ptr align 1 %s2, i64 %n, i1 false)
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

!nvvm.annotations = !{!0}
!0 = !{ptr @memcpy_struct, !"kernel", i32 1}
