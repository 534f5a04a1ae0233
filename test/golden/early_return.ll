; if/else with an early return inside a loop: two exits, so reconvergence needs the
; virtual exit node.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @early_return(ptr %data, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %odd = and i32 %tid, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %then, label %else

then:
  %x = mul i32 %tid, 3
  br label %loop

else:
  %y = sub i32 %n, %tid
  br label %loop

loop:
  %v = phi i32 [ %x, %then ], [ %y, %else ], [ %v1, %cont ]
  %k = phi i32 [ 0, %then ], [ 0, %else ], [ %k1, %cont ]
  %neg = icmp slt i32 %v, 0
  br i1 %neg, label %bail, label %cont

bail:
  ret void

cont:
  %v1 = sub i32 %v, 7
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %done

done:
  %t64 = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr %data, i64 %t64
  store i32 %v1, ptr %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @early_return, !"kernel", i32 1}
