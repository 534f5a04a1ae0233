; A loop whose phis permute each other (a, b) = (b, a): out-of-SSA must sequence the
; parallel copy through a temporary (the swap problem).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @swap(ptr %out, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a = phi i32 [ 1, %entry ], [ %b, %loop ]
  %b = phi i32 [ 2, %entry ], [ %a, %loop ]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done

done:
  store i32 %a, ptr %out, align 4
  %p1 = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %b, ptr %p1, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @swap, !"kernel", i32 1}
