; 64-bit integer arithmetic in register pairs, and 8-bit signed division (sign-extend,
; divide in 32 bits, mask).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @arith64(ptr %out, i64 %x, i64 %y, i8 %p, i8 %q) {
entry:
  %m = mul i64 %x, %y
  %d = sdiv i64 %m, %y
  %r = urem i64 %x, 1000
  %s = ashr i64 %d, %r
  %t = shl i64 %s, 3
  %u = xor i64 %t, -1
  store i64 %u, ptr %out, align 8
  %dq = sdiv i8 %p, %q
  %dq64 = sext i8 %dq to i64
  %o1 = getelementptr inbounds i64, ptr %out, i64 1
  store i64 %dq64, ptr %o1, align 8
  %lt = icmp slt i64 %x, %y
  %mx = select i1 %lt, i64 %y, i64 %x
  %o2 = getelementptr inbounds i64, ptr %out, i64 2
  store i64 %mx, ptr %o2, align 8
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @arith64, !"kernel", i32 1}
