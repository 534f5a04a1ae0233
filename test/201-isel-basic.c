/*
 * 201-isel-basic.c - instruction selection and the lowering pipeline on small IR
 * snippets: each is written to a temporary .ll file and lowered with xgpu_lower_file
 * (disassembly checked for the expected instructions) or xgpu_lower_to_mir (MIR checked
 * before the backend). Unsupported constructs must give "file:line:col: error:" (no col
 * where the IR has none, "file: error:" without debug info) and a non-zero return, never
 * a crash.
 */

#include "200-isel-util.h"

Test(isel, vector_add_end_to_end)
{
    Result r = lower(HDR
        "define void @k(ptr %a, ptr %c) {\n"
        "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %i = zext i32 %t to i64\n"
        "  %p = getelementptr float, ptr %a, i64 %i\n"
        "  %v = load float, ptr %p\n"
        "  %w = fadd float %v, 1.0\n"
        "  %q = getelementptr float, ptr %c, i64 %i\n"
        "  store float %w, ptr %q\n"
        "  ret void\n}\n"
        "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, ".kernel k");
    expect_has(&r, "ld.param.u64");
    expect_has(&r, "s2r r");
    expect_has(&r, "%tid.x");
    expect_has(&r, "ld.global.f32"); /* kernel pointer parameters are global */
    expect_has(&r, "fadd.f32");
    expect_has(&r, "0f3F800000");
    expect_has(&r, "st.global.f32");
    expect_has(&r, "exit");
    done(r);
}

Test(isel, narrow_signed_division_sign_extends)
{
    Result r = lower(HDR
        "define void @k(ptr %o, i8 %a, i8 %b) {\n"
        "  %d = sdiv i8 %a, %b\n  store i8 %d, ptr %o\n  ret void\n}\n" KERNEL("k"), 1, 0);
    expect_ok(r);
    expect_has(&r, "ld.u8 mod=5"); /* i8 parameter loaded zero-extended */
    expect_has(&r, "cvt.s32.s8");  /* sign-extended before the signed divide */
    expect_has(&r, "div.s32");
    expect_has(&r, "and.u32");     /* result masked back to 8 bits */
    expect_has(&r, "st.u8");
    done(r);
}

Test(isel, float_compares_and_conversions)
{
    Result r = lower(HDR
        "define void @k(ptr %o, float %x, double %y) {\n"
        "  %u = fcmp uno float %x, %x\n"
        "  %e = fpext float %x to double\n"
        "  %l = fcmp ult double %e, %y\n"
        "  %b = and i1 %u, %l\n"
        "  %z = zext i1 %b to i32\n"
        "  %c = fptoui double %y to i32\n"
        "  %s = add i32 %z, %c\n"
        "  store i32 %s, ptr %o\n  ret void\n}\n" KERNEL("k"), 1, 0);
    expect_ok(r);
    expect_has(&r, "set.f32 mod=13"); /* XCMP_NAN */
    expect_has(&r, "cvt.f64.f32");
    expect_has(&r, "set.f64 mod=7");  /* XCMP_LTU */
    expect_has(&r, "cvt.u32.f64");
    done(r);
}

Test(isel, phi_constants_materialized_in_predecessor)
{
    Result r = lower(HDR
        "define void @k(ptr %o, i32 %n) {\n"
        "entry:\n  br label %loop\n"
        "loop:\n  %i = phi i32 [ 5, %entry ], [ %j, %loop ]\n"
        "  %j = add i32 %i, 1\n  %c = icmp ult i32 %j, %n\n"
        "  br i1 %c, label %loop, label %out\n"
        "out:\n  store i32 %j, ptr %o\n  ret void\n}\n" KERNEL("k"), 1, 0);
    expect_ok(r);
    /* entry block: the constant 5 is moved in before the branch to the loop */
    expect_has(&r, "mov.u32 mod=0 %");
    expect_has(&r, "imm=5\n    bra");
    expect_has(&r, "= phi [bb0: %");
    done(r);
}

Test(isel, switch_is_lowered_and_select_on_pointers)
{
    Result r = lower(HDR
        "define void @k(ptr %a, ptr %b, ptr %o, i32 %x) {\n"
        "entry:\n  switch i32 %x, label %d [ i32 1, label %one\n i32 7, label %seven ]\n"
        "one:\n  store i32 1, ptr %o\n  br label %d\n"
        "seven:\n  %c = icmp eq i32 %x, 7\n  %p = select i1 %c, ptr %a, ptr %b\n"
        "  store ptr %p, ptr %o\n  br label %d\n"
        "d:\n  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, "brc");
    expect_has(&r, "st.global.u64");
    done(r);
}

Test(isel, memset_variable_length_is_a_loop)
{
    Result r = lower(HDR
        "define void @k(ptr %o, i64 %n, i8 %v) {\n"
        "  call void @llvm.memset.p0.i64(ptr %o, i8 %v, i64 %n, i1 false)\n"
        "  call void @llvm.memset.p0.i64(ptr align 8 %o, i8 0, i64 16, i1 false)\n"
        "  ret void\n}\n"
        "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, "set.lt.u64");
    expect_has(&r, "st.global.u8");
    expect_has(&r, "st.global.u64 [r");
    done(r);
}

Test(isel, shared_static_and_dynamic_layout)
{
    Result r = lower(HDR
        "@s1 = internal addrspace(3) global [3 x i32] undef, align 4\n"
        "@s2 = internal addrspace(3) global double undef, align 8\n"
        "@dyn = external addrspace(3) global [0 x float], align 4\n"
        "define void @k(i32 %x) {\n"
        "  store i32 %x, ptr addrspace(3) getelementptr ([3 x i32], ptr addrspace(3) @s1, i64 0, i64 2)\n"
        "  store double 1.0, ptr addrspace(3) @s2\n"
        "  store float 2.0, ptr addrspace(3) @dyn\n"
        "  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, ".shared 32"); /* the static part ends where the dynamic array starts */
    expect_has(&r, "st.shared.u32 [8]");
    expect_has(&r, "st.shared.f64 [16]");
    expect_has(&r, "st.shared.f32 [32]"); /* dynamic array: 24 rounded up to 16 */
    done(r);
}

Test(isel, byval_parameter_layout)
{
    Result r = lower(HDR
        "%S = type { i8, double }\n"
        "define void @k(i8 %c, ptr byval(%S) align 8 %s, ptr %o) {\n"
        "  %p = getelementptr %S, ptr %s, i64 0, i32 1\n  %d = load double, ptr %p\n"
        "  store double %d, ptr %o\n  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, ".param 1 1\n.param 16 8\n.param 8 8");
    expect_has(&r, "ld.param.f64 r");
    expect_has(&r, "[16]");
    expect_has(&r, "[24]");
    done(r);
}

Test(isel, globals_get_symbols_and_initializers)
{
    Result r = lower(HDR
        "@tab = addrspace(1) global [2 x i16] [i16 1, i16 258], align 2\n"
        "@k1 = addrspace(4) global float 1.0, align 4\n"
        "define void @k(ptr %o) {\n"
        "  %a = load i16, ptr addrspace(1) getelementptr ([2 x i16], ptr addrspace(1) @tab, i64 0, i64 1)\n"
        "  %b = load float, ptr addrspace(4) @k1\n"
        "  %z = zext i16 %a to i32\n  %f = uitofp i32 %z to float\n"
        "  %s = fadd float %f, %b\n  store float %s, ptr %o\n  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, ".global tab 4 2 = 1 0 2 1");
    expect_has(&r, ".global k1 4 4 const = 0 0 128 63");
    expect_has(&r, "gaddr r");
    expect_has(&r, "ld.global.u16");
    expect_has(&r, "ld.const.f32");
    done(r);
}

Test(isel, intrinsics)
{
    Result r = lower(HDR
        "define void @k(ptr %o, i32 %x, i32 %n, i64 %y, float %f) {\n"
        "  %a = call i32 @llvm.umin.i32(i32 %x, i32 %n)\n"
        "  store volatile i32 %a, ptr %o\n"
        "  %b = call i32 @llvm.ctpop.i32(i32 %x)\n"
        "  store volatile i32 %b, ptr %o\n"
        "  %c = call i64 @llvm.ctlz.i64(i64 %y, i1 false)\n"
        "  store volatile i64 %c, ptr %o\n"
        "  %d = call i32 @llvm.fshl.i32(i32 %x, i32 %n, i32 %x)\n"
        "  store volatile i32 %d, ptr %o\n"
        "  %e = call float @llvm.fma.f32(float %f, float %f, float %f)\n"
        "  %g = call float @llvm.sqrt.f32(float %e)\n"
        "  store volatile float %g, ptr %o\n"
        "  %h = call i32 @llvm.bitreverse.i32(i32 %n)\n"
        "  store volatile i32 %h, ptr %o\n"
        "  call void @llvm.nvvm.barrier0()\n  call void @llvm.nvvm.membar.gl()\n"
        "  ret void\n}\n"
        "declare i32 @llvm.umin.i32(i32, i32)\ndeclare i32 @llvm.ctpop.i32(i32)\n"
        "declare i64 @llvm.ctlz.i64(i64, i1)\ndeclare i32 @llvm.fshl.i32(i32, i32, i32)\n"
        "declare float @llvm.fma.f32(float, float, float)\ndeclare float @llvm.sqrt.f32(float)\n"
        "declare i32 @llvm.bitreverse.i32(i32)\ndeclare void @llvm.nvvm.barrier0()\n"
        "declare void @llvm.nvvm.membar.gl()\n" KERNEL("k"), 1, 0);
    expect_ok(r);
    const char *ops[] = {"min.u32", "popc.u32", "clz.u64", "shl.u32", "shr.u32", "ffma.f32",
                         "fsqrt.f32", "brev.u32", "bar mod=0", "membar mod=1"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        expect_has(&r, ops[i]);
    done(r);
}

Test(isel, device_function_inlined_at_O0)
{
    Result r = lower(HDR
        "define internal i32 @twice(i32 %x) noinline optnone {\n"
        "  %y = add i32 %x, %x\n  ret i32 %y\n}\n"
        "define void @k(ptr %o, i32 %x) noinline optnone {\n"
        "  %y = call i32 @twice(i32 %x)\n  store i32 %y, ptr %o\n  ret void\n}\n" KERNEL("k"),
        0, 0);
    expect_ok(r);
    expect_has(&r, "shl.u32"); /* x + x after inlining and instcombine */
    cr_expect(strstr(r.text, ".kernel twice") == NULL, "device function left in the module");
    done(r);
}

Test(isel, alloca_in_local_frame)
{
    Result r = lower(HDR
        "define void @k(ptr %o, i32 %i) {\n"
        "  %a = alloca [4 x i32], align 4\n"
        "  %p = getelementptr [4 x i32], ptr %a, i64 0, i32 %i\n"
        "  store volatile i32 3, ptr %p\n"
        "  %q = getelementptr [4 x i32], ptr %a, i64 0, i64 1\n"
        "  %v = load volatile i32, ptr %q\n"
        "  store i32 %v, ptr %o\n  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, ".local 16");
    expect_has(&r, "cvta.local");
    expect_has(&r, "ld.local.u32");
    done(r);
}

Test(isel_errors, recursion)
{
    expect_error(lower(HDR
        "define i32 @f(i32 %x) {\n  %y = call i32 @g(i32 %x)\n  ret i32 %y\n}\n"
        "define i32 @g(i32 %x) {\n  %y = call i32 @f(i32 %x)\n  ret i32 %y\n}\n"
        "define void @k(ptr %o) {\n  %v = call i32 @f(i32 1)\n  store i32 %v, ptr %o\n"
        "  ret void\n}\n" KERNEL("k"), 0, 0),
        "recursion is not supported (f -> g -> f)");
}

Test(isel_errors, indirect_call)
{
    expect_error(lower(HDR
        "define void @k(ptr %fp) {\n  call void %fp()\n  ret void\n}\n" KERNEL("k"), 0, 0),
        "indirect calls are not supported");
}

Test(isel_errors, unsupported_intrinsic_with_location)
{
    expect_error(lower(HDR
        "define void @k(ptr %o, float %x) !dbg !5 {\n"
        "  %y = call float @llvm.nvvm.rsqrt.approx.f(float %x), !dbg !8\n"
        "  store float %y, ptr %o\n  ret void\n}\n"
        "declare float @llvm.nvvm.rsqrt.approx.f(float)\n"
        "!llvm.dbg.cu = !{!1}\n!llvm.module.flags = !{!4}\n"
        "!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !\"kernel\", i32 1}\n"
        "!1 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !2, "
        "emissionKind: FullDebug)\n"
        "!2 = !DIFile(filename: \"k.cu\", directory: \"/src\")\n"
        "!4 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
        "!5 = distinct !DISubprogram(name: \"k\", scope: !2, file: !2, line: 3, type: !6, "
        "unit: !1, spFlags: DISPFlagDefinition)\n"
        "!6 = !DISubroutineType(types: !7)\n!7 = !{null}\n"
        "!8 = !DILocation(line: 7, column: 3, scope: !5)\n", 0, 0),
        "k.cu:7:3: error: in kernel 'k': unsupported intrinsic 'llvm.nvvm.rsqrt.approx.f'");
}

Test(isel_errors, atomics_and_external_calls)
{
    expect_error(lower(HDR
        "define void @k(ptr %o) {\n  %v = atomicrmw nand ptr %o, i32 1 seq_cst\n  ret void\n}\n"
        KERNEL("k"), 0, 0), "unsupported atomicrmw operation");
    expect_error(lower(HDR
        "declare ptr @malloc(i64)\n"
        "define void @k(ptr %o) {\n  %v = call ptr @malloc(i64 8)\n  store ptr %v, ptr %o\n"
        "  ret void\n}\n"
        KERNEL("k"), 0, 0), "call to external function 'malloc' is not supported");
}

Test(isel_errors, bad_input_files)
{
    expect_error(lower("this is not IR", 0, 0), "invalid IR");
    expect_error(lower(HDR
        "define void @k(ptr %o, <4 x float> %v) {\n  store <4 x float> %v, ptr %o\n"
        "  ret void\n}\n" KERNEL("k"), 0, 0), "not supported");
}
