/*
 * 302-lane-paths.c - the functional core's three ways through a handler give the same
 * results: a full warp (the vectorized loops), a partial mask of more than a few lanes
 * (computed for every lane, then blended), and a sparse mask (lane by lane), for ALU
 * instructions of every template, 64-bit ops on register pairs, conversions, special
 * registers, shuffles, and loads and stores (contiguous, gathered, uniform, shared).
 *
 * Each case is one instruction run under a lane mask chosen by a branch on a parameter.
 * Its inputs differ per lane (hashes of the lane number, some of them edge values) and
 * its destination starts as a sentinel. The reference is the same instruction under
 * masks of at most four lanes (0x01010101 << k, the lane-by-lane path): under any mask,
 * an active lane must get the reference value and an inactive one keep the sentinel.
 */
#include <stdint.h>
#include "300-emu-util.h"

#define SENTINEL 0x5e5e5e5e5e5e5e5eull

/* Inputs: r0 tid.x; r4:r5, r6:r7, r8:r9 per-lane values (r4 is the lane number in every
 * fourth lane); r40 the output buffer, r44 a data buffer; shared word l holds lane l's
 * r6. The case's instructions write r10:r11 (or the data buffer, for stores). */
#define PROLOGUE                                                                            \
    ".kernel k\n.param 24\n.shared 512\n"                                                  \
    "  s2r r0, %%tid.x\n  ld.param.u64 r40, [0]\n  ld.param.u64 r44, [8]\n"                 \
    "  ld.param.u32 r2, [16]\n"                                                             \
    "  mul.u32 r4, r0, 0x9e3779b9\n  xor.u32 r5, r4, 0x7f4a7c15\n  shr.u32 r5, r5, r0\n"     \
    "  mul.u32 r6, r0, 0x85ebca6b\n  add.u32 r6, r6, 0xfffffff0\n  mul.u32 r7, r0, r0\n"    \
    "  mov.u32 r8, 7\n  sub.u32 r8, r8, r0\n  mul.u32 r9, r0, 0xc2b2ae35\n"                 \
    "  shl.u32 r14, r0, 2\n  mov.u32 r15, 0\n  st.shared.u32 [r14], r6\n"                   \
    "  and.u32 r12, r0, 3\n  set.eq.u32 r12, r12, 1\n  sel.u32 r4, r0, r4, r12\n"           \
    "  mov.u64 r10, 0x5e5e5e5e5e5e5e5e\n"                                                   \
    "  shr.u32 r3, r2, r0\n  and.u32 r3, r3, 1\n  brc.not r3, skip, skip\n"
#define EPILOGUE                                                                            \
    "skip:\n  cvt.u64.u32 r42, r0\n  shl.u64 r42, r42, 3\n  add.u64 r42, r40, r42\n"         \
    "  st.global.u64 [r42], r10\n  exit\n"

/* Data buffer: 64 words (the loads read from it; stores write 32 u64 slots of it). */
#define DATA_WORDS 64

typedef struct Run {
    uint64_t reg[32];
    uint64_t data[DATA_WORDS / 2];
} Run;

static Run run_case(EmuDevice *d, EmuModule *m, uint32_t mask)
{
    Run r;
    uint64_t out, data;
    uint32_t init[DATA_WORDS];
    for (unsigned i = 0; i < DATA_WORDS; i++)
        init[i] = 0x1000u * i + 0xa5u;
    cr_assert_eq(emu_malloc(d, sizeof r.reg, &out), EMU_OK);
    cr_assert_eq(emu_malloc(d, sizeof init, &data), EMU_OK);
    emu_copy_to_device(d, data, init, sizeof init);
    struct { uint64_t out, data; uint32_t mask, konst; } p = {out, data, mask, 0x12345678};
    EmuFault f;
    EmuStatus s = t_launch(d, m, "k", DIM(1, 1, 1), DIM(32, 1, 1), &p, sizeof p, &f);
    cr_assert_eq(s, EMU_OK, "mask 0x%08x: %s: %s", mask, emu_status_name(s), f.message);
    emu_copy_from_device(d, r.reg, out, sizeof r.reg);
    emu_copy_from_device(d, r.data, data, sizeof r.data);
    emu_free(d, out);
    emu_free(d, data);
    return r;
}

/* Runs `op` (the case's instruction lines) under the reference masks and the masks under
 * test. For stores (store = 1: lane l writes u64 slot l; 2: slot 31 - l) the data buffer
 * is compared instead of r10:r11. */
static void check_paths(const char *op, int store)
{
    static const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0xfffffffeu, 0x7fffffffu,
                                     0x00f0f00fu, 0xaaaaaaaau, 0x80000101u, 0x00000001u,
                                     0x80000000u, 0x0000003fu};
    char src[4096];
    snprintf(src, sizeof src, PROLOGUE "%s\n" EPILOGUE, op);
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t ref[32];
    Run base = run_case(d, m, 0); /* nothing executes the instruction */
    for (unsigned k = 0; k < 8; k++) {
        Run r = run_case(d, m, 0x01010101u << k);
        for (unsigned l = k; l < 32; l += 8)
            ref[store == 2 ? 31 - l : l] = store ? r.data[store == 2 ? 31 - l : l] : r.reg[l];
    }
    for (unsigned i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        Run r = run_case(d, m, masks[i]);
        for (unsigned l = 0; l < 32; l++) {
            int on = masks[i] >> (store == 2 ? 31 - l : l) & 1;
            uint64_t got = store ? r.data[l] : r.reg[l];
            uint64_t want = on ? ref[l] : store ? base.data[l] : SENTINEL;
            cr_expect_eq(got, want, "%s: mask 0x%08x lane %u: 0x%016llx, want 0x%016llx", op,
                         masks[i], l, (unsigned long long)got, (unsigned long long)want);
        }
    }
    emu_destroy(d);
}

#define CHECK_ALL(ops, store)                                                               \
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)                                 \
        check_paths(ops[i], store)

Test(lanes, integer_32)
{
    const char *ops[] = {"add.u32 r10, r4, r6", "add.u32 r10, r4, 0x80000001",
                         "sub.s32 r10, r4, r6", "mul.u32 r10, r4, r6",
                         "mulhi.s32 r10, r4, r6", "div.s32 r10, r4, r8", "rem.u32 r10, r4, r8",
                         "and.u32 r10, r4, r6", "xor.u32 r10, r4, 0xff00ff00",
                         "not.u32 r10, r4", "shl.u32 r10, r4, r8", "shr.s32 r10, r6, r0",
                         "shr.u32 r10, r6, 3", "min.s32 r10, r4, r6", "max.u32 r10, r4, r6",
                         "abs.s32 r10, r6", "neg.s32 r10, r4", "popc.u32 r10, r4",
                         "clz.u32 r10, r5", "brev.u32 r10, r4"};
    CHECK_ALL(ops, 0);
}

Test(lanes, integer_64_and_pairs)
{
    const char *ops[] = {"add.u64 r10, r4, r6", "add.s64 r10, r4, 0x1ffffffff",
                         "sub.u64 r10, r4, r6", "sub.s64 r10, r4, 0xffffffff00000001",
                         "mul.u64 r10, r4, r6", "mul.s64 r10, r4, 40", "shl.u64 r10, r4, 2",
                         "shl.u64 r10, r4, r8", "shr.s64 r10, r4, r0", "shr.u64 r10, r6, 33",
                         "and.u64 r10, r4, r6", "min.s64 r10, r4, r6", "mov.u64 r10, r6",
                         "mov.u64 r10, 0x123456789abcdef0", "cvta.to.local r10, r4",
                         "cvta.shared r10, r4", "div.u64 r10, r4, r8",
                         "popc.u64 r10, r4", "clz.s64 r10, r4"};
    CHECK_ALL(ops, 0);
}

Test(lanes, float_compare_select)
{
    const char *ops[] = {"fadd.f32 r10, r4, r6", "fmul.f32 r10, r4, r6", "fdiv.f32 r10, r6, r4",
                         "ffma.f32 r10, r4, r6, r9", "ffma.f32 r10, r4, r6, 0f3F800000",
                         "fmin.f32 r10, r4, r6", "fsqrt.f32 r10, r4", "fneg.f32 r10, r4",
                         "fadd.f64 r10, r4, r6", "ffma.f64 r10, r4, r6, r8",
                         "set.lt.s32 r10, r4, r6", "set.neu.f32 r10, r4, r6",
                         "set.ge.u64 r10, r4, 0x8000000000000000", "sel.u32 r10, r4, r6, r8",
                         "sel.u64 r10, r4, r6, r3", "sel.u32 r10, r4, r6, 1"};
    CHECK_ALL(ops, 0);
}

Test(lanes, conversions_and_special_registers)
{
    const char *ops[] = {"cvt.u64.u32 r10, r4", "cvt.s64.s32 r10, r6", "cvt.u64.s32 r10, r6",
                         "cvt.s64.u32 r10, r6", "cvt.s32.f32 r10, r4", "cvt.f32.s32 r10, r6",
                         "cvt.u8.u32 r10, r4", "cvt.f64.f32 r10, r4", "cvt.u32.u64 r10, r4",
                         "s2r r10, %tid.x", "s2r r10, %laneid", "s2r r10, %ctaid.x",
                         "s2r r10, %ntid.x"};
    CHECK_ALL(ops, 0);
}

Test(lanes, shuffles)
{
    const char *ops[] = {
        "  mov.u32 r13, 0x1f\n  xor.u32 r14, r0, 9\n  shfl.idx r10, r11, r4, r14, r13, 0xffffffff",
        "  mov.u32 r13, 0x1f\n  mov.u32 r14, 3\n  shfl.down r10, r11, r4, r14, r13, 0xffffffff",
        "  mov.u32 r13, 0\n  shfl.up r10, r11, r4, r8, r13, 0xffffffff",
        "  mov.u32 r13, 0x81f\n  mov.u32 r14, 5\n  shfl.bfly r10, r11, r4, r14, r13, 0xffffffff"};
    CHECK_ALL(ops, 0);
}

/* Addresses into the data buffer: contiguous (lane * 4), a gather (a permutation of the
 * lanes), uniform (every lane the same word), 64-bit words, bytes; shared memory through
 * its own space and through generic addresses; the parameter buffer. */
#define ADDR(idx, scale) "  cvt.u64.u32 r12, " idx "\n  shl.u64 r12, r12, " scale "\n" \
                         "  add.u64 r12, r44, r12\n"
Test(lanes, loads)
{
    const char *ops[] = {
        ADDR("r0", "2") "  ld.global.u32 r10, [r12]",
        ADDR("r0", "2") "  ld.global.u32 r10, [r12+4]",
        "  mul.u32 r13, r0, 7\n  and.u32 r13, r13, 31\n" ADDR("r13", "2")
        "  ld.global.u32 r10, [r12]",
        "  ld.global.u32 r10, [r44+8]",
        ADDR("r0", "3") "  ld.global.u64 r10, [r12]",
        ADDR("r0", "0") "  ld.global.s8 r10, [r12+3]",
        ADDR("r0", "1") "  ld.u16 r10, [r12]",
        "  xor.u32 r14, r14, 12\n  ld.shared.u32 r10, [r14]",
        "  ld.shared.u32 r10, [r14]",
        "  cvta.shared r12, r14\n  ld.u32 r10, [r12]",
        "  ld.param.u32 r10, [20]"};
    CHECK_ALL(ops, 0);
}

/* Each lane stores to its own u64 slot of the data buffer, in lane order or reversed. */
Test(lanes, stores)
{
    const char *ops[] = {
        ADDR("r0", "3") "  st.global.u64 [r12], r4",
        ADDR("r0", "3") "  st.global.u32 [r12+4], r6",
        ADDR("r0", "3") "  st.u8 [r12+1], r4",
        ADDR("r0", "3") "  st.global.u16 [r12+6], r6"};
    CHECK_ALL(ops, 1);
    check_paths("  mov.u32 r13, 31\n  sub.u32 r13, r13, r0\n" ADDR("r13", "3")
                "  st.global.u64 [r12], r6", 2);
}

/* Contiguous 32-bit stores of all lanes are one block: lane l's word is at 4 l (the
 * check above uses 8-byte slots, which the block path does not take). */
Test(lanes, contiguous_store_block)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d,
        ".kernel k\n.param 8\n  s2r r0, %tid.x\n  ld.param.u64 r44, [0]\n"
        "  mul.u32 r4, r0, 0x9e3779b9\n"
        "  cvt.u64.u32 r12, r0\n  shl.u64 r12, r12, 2\n  add.u64 r12, r44, r12\n"
        "  st.global.u32 [r12], r4\n  ld.global.u32 r5, [r12]\n  add.u32 r5, r5, 1\n"
        "  st.global.u32 [r12+128], r5\n  exit\n");
    uint64_t buf;
    uint32_t got[64];
    cr_assert_eq(emu_malloc(d, sizeof got, &buf), EMU_OK);
    EmuFault f;
    cr_assert_eq(t_launch(d, m, "k", DIM(1, 1, 1), DIM(32, 1, 1), &buf, 8, &f), EMU_OK,
                 "%s", f.message);
    emu_copy_from_device(d, got, buf, sizeof got);
    for (uint32_t l = 0; l < 32; l++) {
        cr_expect_eq(got[l], l * 0x9e3779b9u, "lane %u", l);
        cr_expect_eq(got[32 + l], l * 0x9e3779b9u + 1, "lane %u", l);
    }
    emu_destroy(d);
}

/* Every active lane stores its lane number to one word: the highest active lane's stays,
 * and every active lane loads it back. */
Test(lanes, same_address_store_keeps_the_highest_lane)
{
    static const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0x00f0f00fu, 0x00000101u};
    EmuDevice *d = t_dev();
    char src[4096];
    snprintf(src, sizeof src, PROLOGUE "%s" EPILOGUE,
             "  st.global.u32 [r44], r0\n  ld.global.u32 r10, [r44]\n");
    EmuModule *m = t_load(d, src);
    for (unsigned i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        Run r = run_case(d, m, masks[i]);
        uint32_t top = 31 - (uint32_t)__builtin_clz(masks[i]);
        for (unsigned l = 0; l < 32; l++) {
            uint64_t want = masks[i] >> l & 1 ? (SENTINEL & ~0xffffffffull) | top : SENTINEL;
            cr_expect_eq(r.reg[l], want, "mask 0x%08x lane %u: 0x%llx", masks[i], l,
                         (unsigned long long)r.reg[l]);
        }
    }
    emu_destroy(d);
}
