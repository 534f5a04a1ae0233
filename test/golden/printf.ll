; Device printf as clang emits it: the arguments packed into a local buffer with CUDA's
; promotions and alignment (int, double, string pointer), then vprintf(format, buffer).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%printf_args = type { i32, double, ptr }

@.str = private unnamed_addr constant [17 x i8] c"tid %d: %f (%s)\0A\00", align 1
@.name = private unnamed_addr constant [3 x i8] c"ok\00", align 1

define void @hello(float %x) {
entry:
  %buf = alloca %printf_args, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %xd = fpext float %x to double
  store i32 %tid, ptr %buf, align 8
  %f1 = getelementptr inbounds i8, ptr %buf, i64 8
  store double %xd, ptr %f1, align 8
  %f2 = getelementptr inbounds i8, ptr %buf, i64 16
  store ptr @.name, ptr %f2, align 8
  %n = call i32 @vprintf(ptr @.str, ptr %buf)
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @vprintf(ptr, ptr)

!nvvm.annotations = !{!0}
!0 = !{ptr @hello, !"kernel", i32 1}
