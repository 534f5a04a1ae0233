/*
 * 202-isel-device.c - instruction selection of the CUDA device features: atomics
 * (atomicrmw, cmpxchg, NVVM inc/dec) on every space, shuffles, votes, active mask,
 * barrier reductions, byte permute, math intrinsics and the __xgpu_ math library, device
 * printf, and the divergence of atomic results. Each snippet is lowered to disassembly
 * and checked for the expected instructions; misuse gives located errors.
 */

#include "200-isel-util.h"


/* Lowers a kernel @k whose body is `body` (parameters %p: ptr, %x: i32, %f: float,
 * %d: double) plus the declarations in decls; opt level 0. */
static Result kernel(const char *body, const char *decls)
{
    char ir[8192];
    snprintf(ir, sizeof ir,
             HDR "@sh = internal addrspace(3) global [64 x i32] undef, align 4\n"
             "define void @k(ptr %%p, i32 %%x, float %%f, double %%d) {\n%s  ret void\n}\n"
             "%s\n" KERNEL("k"), body, decls);
    return lower(ir, 0, 0);
}

Test(isel_device, atomicrmw_every_operation_and_space)
{
    Result r = kernel(
        "  %s = getelementptr [64 x i32], ptr addrspace(3) @sh, i32 0, i32 %x\n"
        "  %g = addrspacecast ptr %p to ptr addrspace(1)\n"
        "  %a0 = atomicrmw add ptr %p, i32 %x monotonic\n"
        "  %a1 = atomicrmw sub ptr addrspace(1) %g, i32 %a0 seq_cst\n"
        "  %a2 = atomicrmw max ptr addrspace(3) %s, i32 %a1 monotonic\n"
        "  %a3 = atomicrmw umin ptr %p, i32 %a2 syncscope(\"block\") monotonic\n"
        "  %a4 = atomicrmw xchg ptr %p, float %f monotonic\n"
        "  %a5 = atomicrmw fadd ptr addrspace(1) %g, double %d monotonic\n"
        "  %a6 = atomicrmw fsub ptr %p, float %a4 monotonic\n"
        "  %a7 = atomicrmw uinc_wrap ptr %p, i32 %a3 monotonic\n"
        "  %a8 = atomicrmw udec_wrap ptr %p, i32 %a7 monotonic\n"
        "  %a9 = atomicrmw and ptr %p, i64 7 monotonic\n"
        "  %b0 = atomicrmw or ptr addrspace(3) %s, i32 %a8 monotonic\n"
        "  %b1 = atomicrmw xor ptr %p, i32 %b0 monotonic\n"
        "  %b2 = atomicrmw min ptr %p, i64 %a9 monotonic\n"
        "  %b3 = call i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr %p, i32 %b1)\n"
        "  %b4 = call i32 @llvm.nvvm.atomic.load.dec.32.p0(ptr %p, i32 %b3)\n"
        "  store volatile i32 %b4, ptr %p\n  store volatile i64 %b2, ptr %p\n"
        "  store volatile double %a5, ptr %p\n  store volatile float %a6, ptr %p\n",
        "declare i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr, i32)\n"
        "declare i32 @llvm.nvvm.atomic.load.dec.32.p0(ptr, i32)\n");
    expect_ok(r);
    const char *ops[] = {"atom.global.add.u32", "atom.global.sub.u32", "atom.shared.max.s32",
                         "atom.global.min.u32", "atom.global.exch.f32", "atom.global.add.f64",
                         "fneg.f32", "atom.global.add.f32", "atom.global.inc.u32",
                         "atom.global.dec.u32", "atom.global.and.u64", "atom.shared.or.u32",
                         "atom.global.xor.u32", "atom.global.min.s64"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        expect_has(&r, ops[i]);
    done(r);
}

Test(isel_device, atomics_rejected_with_located_errors)
{
    expect_error(kernel("  %a = atomicrmw add ptr %p, i8 1 monotonic\n", ""),
                 "atomic operations on 8-bit integers are not supported");
    expect_error(kernel("  %a = atomicrmw nand ptr %p, i32 1 monotonic\n", ""),
                 "unsupported atomicrmw operation");
}

Test(isel_device, cmpxchg_old_and_success)
{
    Result r = kernel(
        "  %c = cmpxchg ptr %p, i64 1, i64 2 seq_cst seq_cst\n"
        "  %o = extractvalue { i64, i1 } %c, 0\n"
        "  %k = extractvalue { i64, i1 } %c, 1\n"
        "  %z = zext i1 %k to i64\n  %s = add i64 %o, %z\n"
        "  store i64 %s, ptr %p\n"
        "  %c2 = cmpxchg ptr addrspace(3) @sh, i32 %x, i32 5 monotonic monotonic\n"
        "  %o2 = extractvalue { i32, i1 } %c2, 0\n  store i32 %o2, ptr %p\n",
        "");
    expect_ok(r);
    expect_has(&r, "atomcas.global.u64");
    expect_has(&r, "set.eq.u64");
    expect_has(&r, "atomcas.shared.u32");
    done(r);
}

Test(isel_device, shuffles_votes_barriers_prmt)
{
    Result r = kernel(
        "  %a = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %x, i32 3, i32 31)\n"
        "  %b = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %a, i32 %a, i32 1, i32 0)\n"
        "  %c = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 2, i32 7967)\n"
        "  %sh = call { i32, i1 } @llvm.nvvm.shfl.sync.bfly.i32p(i32 65535, i32 %b, i32 4, i32 31)\n"
        "  %e = extractvalue { i32, i1 } %sh, 0\n  %g = extractvalue { i32, i1 } %sh, 1\n"
        "  %h = icmp sgt i32 %x, 2\n"
        "  %v0 = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %h)\n"
        "  %v1 = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %h)\n"
        "  %v2 = call i1 @llvm.nvvm.vote.all.sync(i32 %x, i1 %h)\n"
        "  %v3 = call i1 @llvm.nvvm.vote.uni.sync(i32 -1, i1 %v2)\n"
        "  %m = call i32 @llvm.nvvm.activemask()\n"
        "  %r0 = call i32 @llvm.nvvm.barrier0.popc(i32 %x)\n"
        "  %r1 = call i32 @llvm.nvvm.barrier0.and(i32 %r0)\n"
        "  %r2 = call i32 @llvm.nvvm.barrier0.or(i32 %r1)\n"
        "  %q = call i32 @llvm.nvvm.prmt(i32 %x, i32 %r2, i32 12816)\n"
        "  store volatile i32 %e, ptr %p\n  store volatile i1 %g, ptr %p\n"
        "  store volatile float %c, ptr %p\n  store volatile i32 %v0, ptr %p\n"
        "  store volatile i1 %v1, ptr %p\n  store volatile i1 %v3, ptr %p\n"
        "  store volatile i32 %m, ptr %p\n  store volatile i32 %q, ptr %p\n",
        "declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)\n"
        "declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)\n"
        "declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)\n"
        "declare { i32, i1 } @llvm.nvvm.shfl.sync.bfly.i32p(i32, i32, i32, i32)\n"
        "declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)\n"
        "declare i1 @llvm.nvvm.vote.any.sync(i32, i1)\n"
        "declare i1 @llvm.nvvm.vote.all.sync(i32, i1)\n"
        "declare i1 @llvm.nvvm.vote.uni.sync(i32, i1)\n"
        "declare i32 @llvm.nvvm.activemask()\n"
        "declare i32 @llvm.nvvm.barrier0.popc(i32)\ndeclare i32 @llvm.nvvm.barrier0.and(i32)\n"
        "declare i32 @llvm.nvvm.barrier0.or(i32)\ndeclare i32 @llvm.nvvm.prmt(i32, i32, i32)\n");
    expect_ok(r);
    const char *ops[] = {"shfl.idx r", ", 0xffffffff", "shfl.up r", "shfl.down r",
                         "shfl.bfly r", ", 0xffff\n", "vote.ballot r", "vote.any r",
                         "vote.all r", "vote.uni r", "actmask r", "barred.popc r",
                         "barred.and r", "barred.or r", "prmt r", ", 0x3210"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        expect_has(&r, ops[i]);
    /* the in-range flag of the .p variant is a real register, the others write rz */
    cr_expect(strstr(r.text, "shfl.bfly rz") == NULL, "%s", r.text);
    done(r);
}

Test(isel_device, math_intrinsics_and_library_calls)
{
    Result r = kernel(
        "  %a = call float @llvm.sin.f32(float %f)\n"
        "  %b = call double @llvm.pow.f64(double %d, double %d)\n"
        "  %c = call float @llvm.floor.f32(float %a)\n"
        "  %e = call double @llvm.rint.f64(double %b)\n"
        "  %g = call float @__xgpu_erff(float %c)\n"
        "  %h = call double @__xgpu_atan2(double %e, double %d)\n"
        "  %i = call float @llvm.powi.f32.i32(float %g, i32 %x)\n"
        "  %j = call i64 @llvm.lround.i64.f64(double %h)\n"
        "  %k = call i1 @llvm.is.fpclass.f32(float %i, i32 3)\n"
        "  store volatile i64 %j, ptr %p\n  store volatile i1 %k, ptr %p\n"
        "  store volatile float %i, ptr %p\n",
        "declare float @llvm.sin.f32(float)\ndeclare double @llvm.pow.f64(double, double)\n"
        "declare float @llvm.floor.f32(float)\ndeclare double @llvm.rint.f64(double)\n"
        "declare float @__xgpu_erff(float)\ndeclare double @__xgpu_atan2(double, double)\n"
        "declare float @llvm.powi.f32.i32(float, i32)\n"
        "declare i64 @llvm.lround.i64.f64(double)\ndeclare i1 @llvm.is.fpclass.f32(float, i32)\n");
    expect_ok(r);
    const char *ops[] = {"math1.sin.f32", "math2.pow.f64", "math1.floor.f32", "math1.rint.f64",
                         "math1.erf.f32", "math2.atan2.f64", "cvt.f32.s32", "math2.pow.f32",
                         "math1.round.f64", "cvt.s64.f64"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        expect_has(&r, ops[i]);
    done(r);
}

Test(isel_device, math_library_misuse_is_an_error)
{
    expect_error(kernel("  %a = call double @__xgpu_sinf(double %d)\n"
                        "  store double %a, ptr %p\n",
                        "declare double @__xgpu_sinf(double)\n"),
                 "called with the wrong signature");
    expect_error(kernel("  %a = call double @sin(double %d)\n  store double %a, ptr %p\n",
                        "declare double @sin(double)\n"),
                 "call to external function 'sin' is not supported");
}

Test(isel_device, vprintf_takes_generic_addresses)
{
    Result r = lower(HDR
        "@.str = private unnamed_addr constant [6 x i8] c\"x=%d\\0A\\00\", align 1\n"
        "define void @k(i32 %x) {\n"
        "  %b = alloca i32, align 8\n  store i32 %x, ptr %b\n"
        "  %r = call i32 @vprintf(ptr @.str, ptr %b)\n"
        "  %n = call i32 @vprintf(ptr @.str, ptr null)\n  ret void\n}\n"
        "declare i32 @vprintf(ptr, ptr)\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, "gaddr r");
    expect_has(&r, ".str");
    expect_has(&r, "cvta.local r");
    expect_has(&r, "vprintf r");
    done(r);
}

Test(isel_device, atomic_result_is_divergent)
{
    /* every lane gets its own old value: a branch on it must not be uniform */
    Result r = lower(HDR
        "define void @k(ptr %p) {\n"
        "  %o = atomicrmw add ptr %p, i32 1 monotonic\n"
        "  %c = icmp eq i32 %o, 0\n  br i1 %c, label %t, label %e\n"
        "t:\n  store i32 7, ptr %p\n  br label %e\n"
        "e:\n  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, "brc");
    cr_expect(strstr(r.text, ".uni") == NULL, "branch on an atomic marked uniform:\n%s", r.text);
    done(r);
}

/* Vector loads and stores the optimizer forms from component accesses (a ushort4 copied
 * into a uchar4: one <4 x i16> load, one <4 x i8> store) are split into element accesses
 * before the scalarizer; the element alignment follows the vector's. */
Test(isel_device, vector_loads_and_stores_split_per_element)
{
    Result r = kernel(
        "  %g = addrspacecast ptr %p to ptr addrspace(1)\n"
        "  %v = load <4 x i16>, ptr addrspace(1) %g, align 8\n"
        "  %t = trunc <4 x i16> %v to <4 x i8>\n"
        "  %q = getelementptr i8, ptr addrspace(1) %g, i64 64\n"
        "  store <4 x i8> %t, ptr addrspace(1) %q, align 4\n"
        "  %w = load volatile <2 x float>, ptr addrspace(1) %g, align 8\n"
        "  store volatile <2 x float> %w, ptr addrspace(1) %q, align 8\n",
        "");
    expect_ok(r);
    const char *each[][2] = {{"ld.global.u16", "4"}, {"st.global.u8", "4"},
                             {"ld.global.f32", "2"}, {"st.global.f32", "2"}};
    for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
        int n = 0;
        for (const char *t = r.text; (t = strstr(t, each[i][0])); t++)
            n++;
        cr_expect_eq(n, atoi(each[i][1]), "%s: %d, expected %s in:\n%s", each[i][0], n,
                     each[i][1], r.text);
    }
    done(r);
}
