; Histogram with atomics: a shared-memory histogram built with atomicrmw add, merged into
; global memory; a float sum with atomicrmw fadd and a CAS-based maximum (cmpxchg and its
; {old, success} fields) on a global counter.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@hist = internal addrspace(3) global [16 x i32] undef, align 4

define void @histogram(ptr %in, ptr %out, ptr %sum, ptr %maxp) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %src = getelementptr inbounds i32, ptr %in, i64 %t64
  %v = load i32, ptr %src, align 4
  %bin = and i32 %v, 15
  %b64 = zext i32 %bin to i64
  %slot = getelementptr inbounds [16 x i32], ptr addrspacecast (ptr addrspace(3) @hist to ptr), i64 0, i64 %b64
  %old = atomicrmw add ptr %slot, i32 1 monotonic, align 4
  call void @llvm.nvvm.barrier0()
  %first = icmp ult i32 %tid, 16
  br i1 %first, label %merge, label %rest

merge:
  %mine = getelementptr inbounds [16 x i32], ptr addrspacecast (ptr addrspace(3) @hist to ptr), i64 0, i64 %t64
  %count = load i32, ptr %mine, align 4
  %dst = getelementptr inbounds i32, ptr %out, i64 %t64
  %prev = atomicrmw add ptr %dst, i32 %count seq_cst, align 4
  br label %rest

rest:
  %f = sitofp i32 %v to float
  %s = atomicrmw fadd ptr %sum, float %f monotonic, align 4
  %cur0 = load i32, ptr %maxp, align 4
  br label %cas

cas:
  %cur = phi i32 [ %cur0, %rest ], [ %seen, %cas ]
  %bigger = icmp sgt i32 %v, %cur
  %new = select i1 %bigger, i32 %v, i32 %cur
  %pair = cmpxchg ptr %maxp, i32 %cur, i32 %new monotonic monotonic, align 4
  %seen = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  br i1 %ok, label %done, label %cas

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0}
!0 = !{ptr @histogram, !"kernel", i32 1}
