; Block-wide sum in shared memory: a loop with a barrier in its body and a shared
; array addressed through a generic pointer (infer-address-spaces makes it ld.shared).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@buf = internal addrspace(3) global [256 x float] undef, align 4

define void @reduce(ptr %in, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %src = getelementptr inbounds float, ptr %in, i64 %t64
  %v = load float, ptr %src, align 4
  %slot = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @buf to ptr), i64 0, i64 %t64
  store float %v, ptr %slot, align 4
  call void @llvm.nvvm.barrier0()
  br label %loop

loop:
  %s = phi i32 [ 128, %entry ], [ %s1, %next ]
  %active = icmp ult i32 %tid, %s
  br i1 %active, label %add, label %next

add:
  %j = add i32 %tid, %s
  %j64 = zext i32 %j to i64
  %other = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @buf to ptr), i64 0, i64 %j64
  %a = load float, ptr %slot, align 4
  %b = load float, ptr %other, align 4
  %sum = fadd float %a, %b
  store float %sum, ptr %slot, align 4
  br label %next

next:
  call void @llvm.nvvm.barrier0()
  %s1 = lshr i32 %s, 1
  %again = icmp ne i32 %s1, 0
  br i1 %again, label %loop, label %done

done:
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %write, label %exit

write:
  %r = load float, ptr addrspacecast (ptr addrspace(3) @buf to ptr), align 4
  store float %r, ptr %out, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0}
!0 = !{ptr @reduce, !"kernel", i32 1}
