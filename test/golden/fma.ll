; Multiply-add contraction (fma.c): `contract` fmul+fadd/fsub pairs become ffma (also
; c - a*b, with the negation folded into an operand); without the flag, or when the
; product has another use, they stay separate.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @fma(ptr %out, float %a, float %b, float %c, double %x, double %y) {
  %m1 = fmul contract float %a, %b
  %s1 = fadd contract float %m1, %c
  store float %s1, ptr %out, align 4
  %m2 = fmul contract float %a, %c
  %s2 = fsub contract float %b, %m2
  %p2 = getelementptr inbounds float, ptr %out, i64 1
  store float %s2, ptr %p2, align 4
  %m3 = fmul float %b, %c
  %s3 = fadd float %m3, %a
  %p3 = getelementptr inbounds float, ptr %out, i64 2
  store float %s3, ptr %p3, align 4
  %m4 = fmul contract float %c, %c
  %s4 = fadd contract float %m4, %a
  %t4 = fadd contract float %s4, %m4
  %p4 = getelementptr inbounds float, ptr %out, i64 3
  store float %t4, ptr %p4, align 4
  %md = fmul contract double %x, %y
  %sd = fsub contract double %md, %x
  %pd = getelementptr inbounds double, ptr %out, i64 4
  store double %sd, ptr %pd, align 8
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @fma, !"kernel", i32 1}
