/*
 * 215-isel-wmma.c - lowering of the warp matrix intrinsics (llvm.nvvm.wmma.m16n16k16.*):
 * loads and stores become per-lane ld/st addressed from %laneid (32-bit accesses for A, B
 * and row-major f16 accumulators, 16-bit ones for column-major f16 accumulators, constant
 * offsets without a run-time ldm), mma becomes four hmma steps with the layouts and
 * formats in their suffixes, phis of whole fragments are split, and every unsupported
 * shape, type, modifier or address space is a located error.
 */
#include "200-isel-util.h"

#define H2 "<2 x half>"
#define WM "@llvm.nvvm.wmma.m16n16k16."
#define P1 "ptr addrspace(1)"
#define P3 "ptr addrspace(3)"
#define P5 "ptr addrspace(5)"
#define AB "{" H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 "}"
#define F8 "{float, float, float, float, float, float, float, float}"
#define C16 "{" H2 ", " H2 ", " H2 ", " H2 "}"

/* Operand lists of mma: the fields of %a and %b (all 8), then of %c. */
#define EXTRACT8(v, ty, agg)                                                                \
    "  %" v "0 = extractvalue " ty " %" agg ", 0\n  %" v "1 = extractvalue " ty " %" agg   \
    ", 1\n  %" v "2 = extractvalue " ty " %" agg ", 2\n  %" v "3 = extractvalue " ty " %"   \
    agg ", 3\n  %" v "4 = extractvalue " ty " %" agg ", 4\n  %" v "5 = extractvalue " ty   \
    " %" agg ", 5\n  %" v "6 = extractvalue " ty " %" agg ", 6\n  %" v "7 = extractvalue "  \
    ty " %" agg ", 7\n"
#define EXTRACT4(v, ty, agg)                                                                \
    "  %" v "0 = extractvalue " ty " %" agg ", 0\n  %" v "1 = extractvalue " ty " %" agg   \
    ", 1\n  %" v "2 = extractvalue " ty " %" agg ", 2\n  %" v "3 = extractvalue " ty " %"   \
    agg ", 3\n"
#define ARGS8(t, v) t " %" v "0, " t " %" v "1, " t " %" v "2, " t " %" v "3, " t " %" v "4, " \
    t " %" v "5, " t " %" v "6, " t " %" v "7"
#define U4 H2 " undef, " H2 " undef, " H2 " undef, " H2 " undef"
#define ARGS4(t, v) t " %" v "0, " t " %" v "1, " t " %" v "2, " t " %" v "3"

static unsigned count(const char *text, const char *what)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

/* A row-major, B column-major, f32 C and D, run-time ldm, global memory. */
static const char f32_kernel[] = HDR
    "define void @k(" P1 " %pa, " P1 " %pb, " P1 " %pc, i32 %ld) {\n"
    "  %a = call " AB " " WM "load.a.row.stride.f16.p1(" P1 " %pa, i32 %ld)\n"
    EXTRACT8("a", AB, "a")
    "  %b = call " AB " " WM "load.b.col.stride.f16.p1(" P1 " %pb, i32 %ld)\n"
    EXTRACT8("b", AB, "b")
    "  %c = call " F8 " " WM "load.c.row.stride.f32.p1(" P1 " %pc, i32 %ld)\n"
    EXTRACT8("c", F8, "c")
    "  %d = call " F8 " " WM "mma.row.col.f32.f32(" ARGS8(H2, "a") ", "
    ARGS8(H2, "b") ", " ARGS8("float", "c") ")\n"
    EXTRACT8("d", F8, "d")
    "  call void " WM "store.d.row.stride.f32.p1(" P1 " %pc, "
    ARGS8("float", "d") ", i32 %ld)\n"
    "  ret void\n}\n"
    "declare " AB " " WM "load.a.row.stride.f16.p1(" P1 ", i32)\n"
    "declare " AB " " WM "load.b.col.stride.f16.p1(" P1 ", i32)\n"
    "declare " F8 " " WM "load.c.row.stride.f32.p1(" P1 ", i32)\n"
    "declare " F8 " " WM "mma.row.col.f32.f32(" H2 ", " H2 ", " H2 ", "
    H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", "
    H2 ", " H2 ", float, float, float, float, float, float, float, float)\n"
    "declare void " WM "store.d.row.stride.f32.p1(" P1 ", "
    "float, float, float, float, float, float, float, float, i32)\n" KERNEL("k");

Test(isel_wmma, f32_accumulate_global)
{
    Result r = lower(f32_kernel, 0, 2);
    expect_ok(r);
    cr_expect_eq(count(r.text, "hmma."), 4, "four tensor steps:\n%s", r.text);
    expect_has(&r, "hmma.q0.row.col.f32.f32");
    expect_has(&r, "hmma.q3.row.col.f32.f32");
    expect_has(&r, "%laneid");
    cr_expect_eq(count(r.text, "ld.global.u32"), 8, "A and B: 4 words each:\n%s", r.text);
    cr_expect_eq(count(r.text, "ld.global.f32"), 8, "C: 8 floats:\n%s", r.text);
    cr_expect_eq(count(r.text, "st.global.f32"), 8, "D: 8 floats:\n%s", r.text);
    cr_expect_geq(count(r.text, "mul.u32"), 3, "run-time ldm multiplies:\n%s", r.text);
    done(r);
}

/* f16 C and D: one register per step, d1 and s5 unused; column-major C in shared memory
 * takes 16-bit accesses; no .stride: ldm 16 folded into the offsets. */
Test(isel_wmma, f16_accumulate_shared_constant_ldm)
{
    Result r = lower(HDR
        "define void @k(" P3 " %pa, " P3 " %pc) {\n"
        "  %a = call " AB " " WM "load.a.col.f16.p3(" P3 " %pa)\n"
        EXTRACT8("a", AB, "a")
        "  %c = call " C16 " " WM "load.c.col.f16.p3(" P3 " %pc)\n"
        EXTRACT4("c", C16, "c")
        "  %d = call " C16 " " WM "mma.col.row.f16.f16(" ARGS8(H2, "a") ", "
        ARGS8(H2, "a") ", " ARGS4(H2, "c") ")\n"
        EXTRACT4("d", C16, "d")
        "  call void " WM "store.d.row.f16.p3(" P3 " %pc, "
        ARGS4(H2, "d") ")\n"
        "  ret void\n}\n"
        "declare " AB " " WM "load.a.col.f16.p3(" P3 ")\n"
        "declare " C16 " " WM "load.c.col.f16.p3(" P3 ")\n"
        "declare " C16 " " WM "mma.col.row.f16.f16(" H2 ", " H2 ", " H2
        ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", "
        H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ")\n"
        "declare void " WM "store.d.row.f16.p3(" P3 ", " H2
        ", " H2 ", " H2 ", " H2 ")\n" KERNEL("k"), 0, 2);
    expect_ok(r);
    cr_expect_eq(count(r.text, "hmma."), 4, "four tensor steps:\n%s", r.text);
    expect_has(&r, "hmma.q2.col.row.f16.f16");
    cr_expect_eq(count(r.text, ", rz, r"), 4, "d1 unused in every step:\n%s", r.text);
    cr_expect_eq(count(r.text, "ld.shared.u16"), 8, "column-major f16 C:\n%s", r.text);
    cr_expect_eq(count(r.text, "ld.shared.u32"), 4, "A: 4 words:\n%s", r.text);
    cr_expect_eq(count(r.text, "st.shared.u32"), 4, "row-major f16 D:\n%s", r.text);
    expect_has(&r, "+16]"); /* A column-major: panel 1 is 8 halves further */
    expect_has(&r, "+256]"); /* D row-major: rows 8.. are 8 * 16 halves further */
    /* row * ldm + column: a mul and an add, which mir_fold makes one mad, or one lea
     * when ldm is a power of two (16 here) */
    cr_expect_eq(count(r.text, "mul.u32") + count(r.text, "mad.u32") + count(r.text, "lea.u32"),
                 3, "one per lane base (a, c, d):\n%s", r.text);
    done(r);
}

/* The same load on two paths (a run-time layout) leaves a phi of the whole fragment. */
Test(isel_wmma, fragment_phi_is_split)
{
    Result r = lower(HDR
        "define void @k(" P1 " %p, i1 %col) {\n"
        "entry:\n  br i1 %col, label %l, label %r\n"
        "l:\n  %x = call " F8 " " WM "load.c.col.stride.f32.p1(" P1 " %p, i32 32)\n"
        "  br label %j\n"
        "r:\n  %y = call " F8 " " WM "load.c.row.stride.f32.p1(" P1 " %p, i32 32)\n"
        "  br label %j\n"
        "j:\n  %c = phi " F8 " [ %x, %l ], [ %y, %r ]\n"
        EXTRACT8("c", F8, "c")
        "  call void " WM "store.d.row.stride.f32.p1(" P1 " %p, "
        ARGS8("float", "c") ", i32 32)\n"
        "  ret void\n}\n"
        "declare " F8 " " WM "load.c.col.stride.f32.p1(" P1 ", i32)\n"
        "declare " F8 " " WM "load.c.row.stride.f32.p1(" P1 ", i32)\n"
        "declare void " WM "store.d.row.stride.f32.p1(" P1 ", "
        "float, float, float, float, float, float, float, float, i32)\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    cr_expect_eq(count(r.text, "ld.global.f32"), 16, "two loads of 8:\n%s", r.text);
    cr_expect_eq(count(r.text, "st.global.f32"), 8, "one store of 8:\n%s", r.text);
    done(r);
}

static void expect_unsupported(const char *decl_and_call)
{
    char ir[4096];
    snprintf(ir, sizeof ir, "%sdefine void @k(ptr %%p) {\n%s  ret void\n}\n%s", HDR,
             decl_and_call, KERNEL("k"));
    expect_error(lower(ir, 0, 0), "unsupported warp matrix intrinsic");
}

Test(isel_wmma, other_shapes_types_and_satfinite_are_errors)
{
    /* the rest of a function that hides the declarations inside the snippet */
    const char *tail = "  ret void\n}\n";
    char ir[1024];
    snprintf(ir, sizeof ir, "  %%a = call %s @llvm.nvvm.wmma.m32n8k16.load.a.row.stride.f16.p0("
             "ptr %%p, i32 16)\n%sdeclare %s @llvm.nvvm.wmma.m32n8k16.load.a.row.stride.f16.p0("
             "ptr, i32)\ndefine void @unused() {\n", AB, tail, AB);
    expect_unsupported(ir);
    snprintf(ir, sizeof ir, "  %%a = call {i32, i32, i32, i32} %sload.a.row.stride.bf16.p0("
             "ptr %%p, i32 16)\n%sdeclare {i32, i32, i32, i32} %sload.a.row.stride.bf16.p0("
             "ptr, i32)\ndefine void @unused() {\n", WM, tail, WM);
    expect_unsupported(ir);
    expect_unsupported("  %c = call " F8 " " WM "load.c.row.stride.f32.p0(ptr %p, i32 16)\n"
                       EXTRACT8("c", F8, "c")
                       "  %d = call " F8 " " WM "mma.row.row.f32.f32.satfinite("
                       U4 ", " U4 ", " U4 ", " U4 ", " ARGS8("float", "c") ")\n"
                       "  ret void\n}\n"
                       "declare " F8 " " WM "load.c.row.stride.f32.p0(ptr, i32)\n"
                       "declare " F8 " " WM "mma.row.row.f32.f32.satfinite(" H2 ", " H2 ", " H2
                       ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2
                       ", " H2 ", " H2 ", " H2 ", " H2 ", float, float, float, float, float, "
                       "float, float, float)\n"
                       "define void @unused() {\n");
}

Test(isel_wmma, local_memory_is_an_error)
{
    expect_error(lower(HDR
        "define void @k(" P5 " %p) {\n"
        "  %c = call " F8 " " WM "load.c.row.stride.f32.p5(" P5 " %p, i32 16)\n"
        EXTRACT8("c", F8, "c")
        "  call void " WM "store.d.row.stride.f32.p5(" P5 " %p, "
        ARGS8("float", "c") ", i32 16)\n"
        "  ret void\n}\n"
        "declare " F8 " " WM "load.c.row.stride.f32.p5(" P5 ", i32)\n"
        "declare void " WM "store.d.row.stride.f32.p5(" P5 ", "
        "float, float, float, float, float, float, float, float, i32)\n" KERNEL("k"), 0, 0),
        "in the local space is not supported");
}

/* hmma results differ per lane even when every input is uniform: a branch on one is
 * divergent (never .uni). The inputs here are constants (a packed <2 x half> pair). */
Test(isel_wmma, branch_on_mma_result_is_divergent)
{
    Result r = lower(HDR
        "define void @k(" P1 " %o) {\n"
        "entry:\n"
        "  %d = call " F8 " " WM "mma.col.col.f32.f32("
        H2 " <half 1.0, half 2.0>, " H2 " <half 3.0, half 4.0>, " U4 ", " U4 ", "
        H2 " <half 1.0, half -1.0>, " H2 " zeroinitializer, " U4 ", " U4 ", "
        "float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, "
        "float 0.0)\n"
        "  %d0 = extractvalue " F8 " %d, 0\n"
        "  %c = fcmp ogt float %d0, 0.0\n"
        "  br i1 %c, label %t, label %e\n"
        "t:\n  store float %d0, " P1 " %o\n  br label %e\n"
        "e:\n  ret void\n}\n"
        "declare " F8 " " WM "mma.col.col.f32.f32(" H2 ", " H2 ", " H2 ", " H2 ", " H2 ", "
        H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2 ", " H2
        ", float, float, float, float, float, float, float, float)\n" KERNEL("k"), 0, 2);
    expect_ok(r);
    expect_has(&r, "hmma.q0.col.col.f32.f32");
    expect_has(&r, ", 1073757184"); /* <half 1.0, half 2.0> = 0x40003C00, low first */
    expect_has(&r, ", 3154131968"); /* <half 1.0, half -1.0> = 0xBC003C00 */
    expect_has(&r, "brc");
    cr_expect(strstr(r.text, ".uni") == NULL, "branch marked uniform:\n%s", r.text);
    done(r);
}

/* A <2 x half> value in memory (a fragment in a local array at -O0) moves as 32 bits. */
Test(isel_wmma, half2_loads_and_stores_move_bits)
{
    Result r = lower(HDR
        "define void @k(" P1 " %p, " P1 " %q) {\n"
        "  %v = load " H2 ", " P1 " %p\n"
        "  %i = bitcast " H2 " %v to i32\n"
        "  %w = bitcast i32 %i to " H2 "\n"
        "  store " H2 " %w, " P1 " %q\n"
        "  ret void\n}\n" KERNEL("k"), 0, 0);
    expect_ok(r);
    expect_has(&r, "ld.global.u32");
    expect_has(&r, "st.global.u32");
    done(r);
}
