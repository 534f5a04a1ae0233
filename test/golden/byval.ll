; A struct passed by value: %s is only read (ld.param at its offsets), %t is written,
; so it is copied into the local frame at entry.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.P = type { i32, double }

define void @byval(ptr byval(%struct.P) align 8 %s, ptr byval(%struct.P) align 8 %t, ptr %out) {
entry:
  %a = load i32, ptr %s, align 8
  %bp = getelementptr inbounds %struct.P, ptr %s, i64 0, i32 1
  %b = load double, ptr %bp, align 8
  store i32 7, ptr %t, align 8
  %c = load i32, ptr %t, align 8
  %sum = add i32 %a, %c
  %f = sitofp i32 %sum to double
  %g = fadd double %f, %b
  store double %g, ptr %out, align 8
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @byval, !"kernel", i32 1}
