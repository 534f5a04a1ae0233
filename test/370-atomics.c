/*
 * 370-atomics.c - atom and atomcas: every operation on every data type it is defined
 * for, in global, shared, generic-to-global and generic-to-shared memory, checked
 * against a reference written here; contention (many warps adding to one word gives
 * the exact total and distinct old values); a compare-and-swap loop; the atomicInc /
 * atomicDec wrap rules; float adds; and the memory checks (misaligned, out of bounds,
 * freed, local and param memory).
 */
#include <math.h>
#include <stdint.h>
#include "300-emu-util.h"

/* Expected new value of op on old with operand v, in type t (raw bits). */
static uint64_t ref_atom(unsigned op, XType t, uint64_t old, uint64_t v)
{
    int wide = xisa_type_size(t) == 8;
    uint64_t m = wide ? UINT64_MAX : UINT32_MAX;
    if (t == XT_F32 || t == XT_F64) {
        double a = t == XT_F32 ? t_bitsf(old) : t_bitsd(old);
        double b = t == XT_F32 ? t_bitsf(v) : t_bitsd(v);
        double r = op == XATOM_ADD ? a + b : op == XATOM_MIN ? fmin(a, b)
                 : op == XATOM_MAX ? fmax(a, b) : b;
        return t == XT_F32 ? t_fbits((float)r) : t_dbits(r);
    }
    int64_t sa = wide ? (int64_t)old : (int32_t)(uint32_t)old;
    int64_t sb = wide ? (int64_t)v : (int32_t)(uint32_t)v;
    int sgn = xisa_type_is_signed(t);
    switch (op) {
    case XATOM_ADD: return (old + v) & m;
    case XATOM_SUB: return (old - v) & m;
    case XATOM_MIN: return sgn ? (sa < sb ? old : v) : (old < v ? old : v);
    case XATOM_MAX: return sgn ? (sa > sb ? old : v) : (old > v ? old : v);
    case XATOM_INC: return old >= v ? 0 : old + 1;
    case XATOM_DEC: return old == 0 || old > v ? v : old - 1;
    case XATOM_AND: return old & v;
    case XATOM_OR: return old | v;
    case XATOM_XOR: return old ^ v;
    default: return v;
    }
}

static int defined_on(unsigned op, XType t)
{
    int fl = t == XT_F32 || t == XT_F64;
    if (op == XATOM_ADD || op == XATOM_MIN || op == XATOM_MAX || op == XATOM_EXCH)
        return 1;
    if (op == XATOM_INC || op == XATOM_DEC)
        return t == XT_U32 || t == XT_U64;
    return !fl;
}

/* Kernel: buf[0] = initial value, buf[8] = operand; the atomic runs in `space`, then
 * buf[0] = the memory's new value and buf[16] = the old value the atomic returned. */
static const char *const space_body[] = {
    /* global */
    "  atom.global.%s.%s r8, [r2], r6\n"
    "  ld.global.%s r10, [r2]\n",
    /* shared */
    "  st.shared.%s [8], r4\n"
    "  atom.shared.%s.%s r8, [8], r6\n"
    "  ld.shared.%s r10, [8]\n",
    /* generic -> global */
    "  atom.generic.%s.%s r8, [r2], r6\n"
    "  ld.global.%s r10, [r2]\n",
    /* generic -> shared */
    "  st.shared.%s [8], r4\n"
    "  mov.u64 r12, 8\n  cvta.shared r14, r12\n"
    "  atom.generic.%s.%s r8, [r14], r6\n"
    "  ld.shared.%s r10, [8]\n",
};

static void check_one(EmuDevice *d, unsigned space, unsigned op, XType t, uint64_t init,
                      uint64_t v)
{
    const char *ts = xisa_type_names[t], *os = xisa_atom_names[op];
    char body[512], src[1024];
    if (space == 0 || space == 2)
        snprintf(body, sizeof body, space_body[space], os, ts, ts);
    else
        snprintf(body, sizeof body, space_body[space], ts, os, ts, ts);
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n.shared 16\n  ld.param.u64 r2, [0]\n"
             "  ld.global.%s r4, [r2]\n  ld.global.%s r6, [r2+8]\n%s"
             "  st.global.%s [r2], r10\n  st.global.%s [r2+16], r8\n  exit\n",
             ts, ts, body, ts, ts);
    EmuModule *m = t_load(d, src);
    uint64_t buf, host[3] = {init, v, 0xabababab};
    cr_assert_eq(emu_malloc(d, 24, &buf), EMU_OK);
    emu_copy_to_device(d, buf, host, 24);
    EmuFault f;
    EmuStatus s = t_launch(d, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), &buf, 8, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s\n%s", emu_status_name(s), f.message, src);
    emu_copy_from_device(d, host, buf, 24);
    uint64_t mask = xisa_type_size(t) == 8 ? UINT64_MAX : UINT32_MAX;
    uint64_t want = ref_atom(op, t, init & mask, v & mask) & mask;
    cr_expect_eq(host[0] & mask, want, "atom %s.%s space %u: new 0x%llx, want 0x%llx", os, ts,
                 space, (unsigned long long)host[0], (unsigned long long)want);
    cr_expect_eq(host[2] & mask, init & mask, "atom %s.%s space %u: old 0x%llx", os, ts, space,
                 (unsigned long long)host[2]);
    emu_free(d, buf);
}

Test(atomics, every_operation_type_and_space)
{
    static const XType types[] = {XT_U32, XT_S32, XT_U64, XT_S64, XT_F32, XT_F64};
    EmuDevice *d = t_dev();
    for (unsigned space = 0; space < 4; space++)
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
            XType t = types[ti];
            uint64_t a, b;
            if (t == XT_F32)
                a = t_fbits(-2.5f), b = t_fbits(1.25f);
            else if (t == XT_F64)
                a = t_dbits(3.75), b = t_dbits(-0.5);
            else if (t == XT_S32)
                a = (uint32_t)-7, b = 5;
            else if (t == XT_S64)
                a = (uint64_t)-70000000000ll, b = 9;
            else if (t == XT_U64)
                a = 0x1234567890ull, b = 0x0f0f0f0f0full;
            else
                a = 7, b = 0x8000000fu;
            for (unsigned op = 0; op < XATOM_COUNT; op++)
                if (defined_on(op, t)) {
                    check_one(d, space, op, t, a, b);
                    check_one(d, space, op, t, b, a); /* both orders for min/max/inc/dec */
                }
        }
    emu_destroy(d);
}

/* Runs src over grid x block with buf (n words, zeroed) as the only parameter. */
static EmuStatus run_buf(const char *src, EmuDim3 grid, EmuDim3 block, uint32_t *out, size_t n,
                         EmuFault *f)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t buf;
    cr_assert_eq(emu_malloc(d, n * 4, &buf), EMU_OK);
    EmuStatus s = t_launch(d, m, "k", grid, block, &buf, 8, f);
    emu_copy_from_device(d, out, buf, n * 4);
    emu_destroy(d);
    return s;
}

Test(atomics, contention_gives_the_exact_total)
{
    /* 8 CTAs x 256 threads: buf[0] += 1 (old value to buf[2 + gtid]), buf[1] += gtid, and
     * a shared counter per CTA that thread 0 adds to buf[1 + 2 + 2048] after a barrier */
    enum { N = 8 * 256 };
    static uint32_t out[N + 4];
    EmuFault f;
    EmuStatus s = run_buf(
        ".kernel k\n.param 8\n.shared 4\n"
        "  s2r r0, %tid.x\n  s2r r1, %ctaid.x\n  mul.u32 r1, r1, 256\n  add.u32 r1, r1, r0\n"
        "  ld.param.u64 r2, [0]\n  mov.u32 r5, 1\n"
        "  atom.global.add.u32 r6, [r2], r5\n"
        "  atom.generic.add.u32 r7, [r2+4], r1\n"
        "  cvt.u64.u32 r8, r1\n  shl.u64 r8, r8, 2\n  add.u64 r8, r8, r2\n"
        "  st.global.u32 [r8+8], r6\n"
        "  atom.shared.add.u32 r9, [0], r5\n"
        "  bar 0\n"
        "  set.ne.u32 r10, r0, 0\n  brc r10, out, out\n"
        "  ld.shared.u32 r11, [0]\n  atom.global.add.u32 r12, [r2+8200], r11\n"
        "out:\n  exit\n",
        DIM(8, 1, 1), DIM(256, 1, 1), out, N + 4, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    cr_expect_eq(out[0], N);
    cr_expect_eq(out[1], (uint32_t)N * (N - 1) / 2);
    cr_expect_eq(out[N + 2], N, "shared counters summed: %u", out[N + 2]);
    static uint8_t seen[N];
    for (uint32_t i = 0; i < N; i++) {
        cr_assert_lt(out[2 + i], N, "thread %u old %u", i, out[2 + i]);
        cr_assert_eq(seen[out[2 + i]], 0, "old value %u twice", out[2 + i]);
        seen[out[2 + i]] = 1;
    }
    /* lanes apply in lane order, warps in order: thread i of CTA 0 saw i */
    for (uint32_t i = 0; i < 256; i++)
        cr_expect_eq(out[2 + i], i);
}

Test(atomics, compare_and_swap_loop)
{
    /* every thread adds 3 to buf[0] with a CAS retry loop; buf[1 + tid] = attempts */
    uint32_t out[1 + 64];
    EmuFault f;
    EmuStatus s = run_buf(
        ".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  ld.param.u64 r2, [0]\n  mov.u32 r12, 0\n"
        "loop:\n  add.u32 r12, r12, 1\n  ld.global.u32 r4, [r2]\n  add.u32 r6, r4, 3\n"
        "  atomcas.global.u32 r8, [r2], r4, r6\n  set.ne.u32 r9, r8, r4\n  brc r9, loop, done\n"
        "done:\n  cvt.u64.u32 r10, r0\n  shl.u64 r10, r10, 2\n  add.u64 r10, r10, r2\n"
        "  st.global.u32 [r10+4], r12\n  exit\n",
        DIM(1, 1, 1), DIM(64, 1, 1), out, 65, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    cr_expect_eq(out[0], 3 * 64);
    /* the lanes of a warp try in lane order: at most one of them wins a round, so within
     * each warp a higher lane needs more attempts (exactly l + 1 for lane l when the other
     * warp does not interleave, as with emu.quantum = 0); lane 0 of the first warp to try
     * wins at once */
    for (uint32_t w = 0; w < 2; w++)
        for (uint32_t l = 1; l < 32; l++)
            cr_expect_gt(out[1 + 32 * w + l], out[32 * w + l], "warp %u lane %u: %u attempts, "
                         "lane %u: %u", w, l, out[1 + 32 * w + l], l - 1, out[32 * w + l]);
    cr_expect(out[1] == 1 || out[33] == 1, "no warp's lane 0 won its first attempt");
}

Test(atomics, cas_64_bit_swaps_only_on_match)
{
    EmuDevice *d = t_dev();
    /* memory 5: cas(5 -> 9) swaps and returns 5; cas(5 -> 11) then fails and returns 9 */
    uint64_t v = t_eval(d,
        "  .shared 16\n  mov.u64 r2, 5\n  st.shared.u64 [0], r2\n  mov.u64 r4, 9\n"
        "  atomcas.shared.u64 r6, [0], r2, r4\n  mov.u64 r4, 11\n"
        "  atomcas.shared.s64 r8, [0], r2, r4\n  ld.shared.u64 r12, [0]\n"
        "  shl.u64 r6, r6, 16\n  shl.u64 r8, r8, 8\n  or.u64 r10, r6, r8\n  or.u64 r10, r10, r12\n");
    cr_expect_eq(v, (5ull << 16) | (9ull << 8) | 9ull, "0x%llx", (unsigned long long)v);
    /* float CAS compares bits: -0.0 does not match 0.0 */
    v = t_eval(d,
        "  .shared 16\n  mov.f32 r2, 0f80000000\n  st.shared.f32 [0], r2\n"
        "  mov.f32 r3, 0f00000000\n  mov.f32 r4, 0f3F800000\n"
        "  atomcas.shared.f32 r6, [0], r3, r4\n  ld.shared.u32 r10, [0]\n  mov.u32 r11, 0\n");
    cr_expect_eq(v, 0x80000000u);
    emu_destroy(d);
}

Test(atomics, inc_and_dec_wrap)
{
    /* 10 lanes: atomicInc(limit 3) from 0, atomicDec(limit 3) from 1; olds per lane */
    uint32_t out[2 + 20];
    EmuFault f;
    EmuStatus s = run_buf(
        ".kernel k\n.param 8\n"
        "  s2r r0, %tid.x\n  ld.param.u64 r2, [0]\n  mov.u32 r4, 1\n  st.global.u32 [r2+4], r4\n"
        "  mov.u32 r5, 3\n"
        "  atom.global.inc.u32 r6, [r2], r5\n  atom.global.dec.u32 r7, [r2+4], r5\n"
        "  cvt.u64.u32 r8, r0\n  shl.u64 r8, r8, 3\n  add.u64 r8, r8, r2\n"
        "  st.global.u32 [r8+8], r6\n  st.global.u32 [r8+12], r7\n  exit\n",
        DIM(1, 1, 1), DIM(10, 1, 1), out, 22, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    static const uint32_t inc_old[10] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
    static const uint32_t dec_old[10] = {1, 0, 3, 2, 1, 0, 3, 2, 1, 0};
    for (int l = 0; l < 10; l++) {
        cr_expect_eq(out[2 + 2 * l], inc_old[l], "inc lane %d: %u", l, out[2 + 2 * l]);
        cr_expect_eq(out[3 + 2 * l], dec_old[l], "dec lane %d: %u", l, out[3 + 2 * l]);
    }
    cr_expect_eq(out[0], 2);
    cr_expect_eq(out[1], 3);
    /* dec of a value above the limit resets it to the limit; inc at the limit to 0 */
    EmuDevice *d = t_dev();
    uint64_t v = t_eval(d,
        "  .shared 8\n  mov.u32 r2, 10\n  st.shared.u32 [0], r2\n  mov.u32 r3, 3\n"
        "  atom.shared.dec.u32 r4, [0], r3\n  ld.shared.u32 r10, [0]\n  mov.u32 r11, r4\n");
    cr_expect_eq(v, (10ull << 32) | 3);
    v = t_eval(d,
        "  .shared 8\n  mov.u64 r2, 0xffffffffff\n  st.shared.u64 [0], r2\n"
        "  atom.shared.inc.u64 r4, [0], r2\n  ld.shared.u64 r10, [0]\n");
    cr_expect_eq(v, 0);
    emu_destroy(d);
}

Test(atomics, float_adds)
{
    uint32_t out[4];
    EmuFault f;
    /* 200 threads add 0.5f (exact) and 0.25 (f64) */
    EmuStatus s = run_buf(
        ".kernel k\n.param 8\n  ld.param.u64 r2, [0]\n  mov.f32 r4, 0f3F000000\n"
        "  atom.global.add.f32 r5, [r2], r4\n  mov.f64 r6, 0d3FD0000000000000\n"
        "  atom.global.add.f64 r8, [r2+8], r6\n  exit\n",
        DIM(1, 1, 1), DIM(200, 1, 1), out, 4, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    cr_expect_eq(t_bitsf(out[0]), 100.0f);
    cr_expect_eq(t_bitsd(out[2] | (uint64_t)out[3] << 32), 50.0);
    /* 1e8f + 1 rounds in f32: adds happen in the type's precision */
    EmuDevice *d = t_dev();
    uint64_t v = t_eval(d,
        "  .shared 8\n  mov.f32 r2, 0f4CBEBC20\n  st.shared.f32 [0], r2\n"
        "  mov.f32 r3, 0f3F800000\n  atom.shared.add.f32 r4, [0], r3\n"
        "  ld.shared.u32 r10, [0]\n  mov.u32 r11, 0\n");
    cr_expect_eq(t_bitsf(v), 1e8f + 1.0f);
    emu_destroy(d);
}

/* One thread runs `code` with r2 = the generic address formed as asked. */
static EmuStatus run_fault(const char *addr_code, const char *atomic, EmuFault *f)
{
    char src[1024];
    snprintf(src, sizeof src,
             ".kernel k\n.param 8\n.shared 16\n.local 16\n  ld.param.u64 r2, [0]\n%s\n"
             "  mov.u32 r6, 1\n  mov.u64 r6, 1\n  %s\n  exit\n", addr_code, atomic);
    setenv("XGPU_SET", "emu.memcheck=on", 1); /* every invalid access a fault */
    EmuDevice *d = t_dev();
    unsetenv("XGPU_SET");
    EmuModule *m = t_load(d, src);
    uint64_t buf, freed;
    cr_assert_eq(emu_malloc(d, 64, &buf), EMU_OK);
    cr_assert_eq(emu_malloc(d, 64, &freed), EMU_OK);
    cr_assert_eq(emu_free(d, freed), EMU_OK);
    uint64_t param = strstr(addr_code, "freed") ? freed : buf;
    EmuStatus s = t_launch(d, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), &param, 8, f);
    /* the device stays usable after a guest fault */
    uint32_t one = 1;
    cr_expect_eq(emu_copy_to_device(d, buf, &one, 4), EMU_OK);
    emu_destroy(d);
    return s;
}

Test(atomics, memory_checks)
{
    EmuFault f;
    cr_expect_eq(run_fault("", "atom.global.add.u32 r4, [r2+2], r6", &f), EMU_ERR_MISALIGNED);
    cr_expect(strstr(f.message, "misaligned atomic") != NULL, "%s", f.message);
    cr_expect_eq(run_fault("", "atom.global.add.u64 r4, [r2+4], r6", &f), EMU_ERR_MISALIGNED);
    cr_expect_eq(run_fault("", "atomcas.global.u32 r4, [r2+64], r6, r6", &f),
                 EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "allocation") != NULL, "%s", f.message);
    cr_expect_eq(f.pc, 3);
    cr_expect_eq(run_fault("# freed", "atom.global.exch.u32 r4, [r2], r6", &f),
                 EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "freed") != NULL, "%s", f.message);
    cr_expect_eq(run_fault("", "atom.shared.add.u32 r4, [16], r6", &f), EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "shared") != NULL, "%s", f.message);
    cr_expect_eq(run_fault("  mov.u64 r2, 0xfd0000000000",
                           "atom.generic.add.u32 r4, [r2], r6", &f), EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "local") != NULL, "%s", f.message);
    cr_expect_eq(run_fault("  mov.u64 r2, 0xfc0000000000",
                           "atom.generic.add.u32 r4, [r2], r6", &f), EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "param") != NULL, "%s", f.message);
    cr_expect_eq(f.address, XGPU_PARAM_BASE);
}
