; select between two pointers (a 64-bit sel), then a load through the result.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @select_ptr(ptr %a, ptr %b, ptr %out, i32 %which) {
entry:
  %c = icmp eq i32 %which, 0
  %p = select i1 %c, ptr %a, ptr %b
  %v = load double, ptr %p, align 8
  %w = fmul double %v, 2.0
  store double %w, ptr %out, align 8
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @select_ptr, !"kernel", i32 1}
