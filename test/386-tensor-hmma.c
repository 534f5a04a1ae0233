/*
 * 386-tensor-hmma.c - the functional semantics of the tensor step hmma, on hand-assembled
 * kernels: each lane loads its six source registers from in[slot * 32 + lane], one hmma
 * runs, each lane stores d0 and d1 to out[slot * 32 + lane]. The expected quadrant is
 * computed here from the element mapping of docs/isa.md (written out again, not taken
 * from the emulator): A and B panels for both layouts, every format of C and D, f32
 * sums in k order from C with a single f16 rounding at the end (ties to even, overflow to
 * infinity). A warp with inactive lanes faults.
 */
#include <math.h>

#include "300-emu-util.h"

static const char kernel_fmt[] =
    ".kernel k\n.param 8\n.param 8\n"
    "    ld.param.u64 r10, [0]\n    ld.param.u64 r12, [8]\n"
    "    s2r r14, %%laneid\n    shl.u32 r15, r14, 2\n    cvt.u64.u32 r16, r15\n"
    "    add.u64 r10, r10, r16\n    add.u64 r12, r12, r16\n"
    "    ld.global.u32 r0, [r10]\n    ld.global.u32 r1, [r10+128]\n"
    "    ld.global.u32 r2, [r10+256]\n    ld.global.u32 r3, [r10+384]\n"
    "    ld.global.u32 r4, [r10+512]\n    ld.global.u32 r5, [r10+640]\n"
    "    mov.u32 r7, 0\n"
    "    hmma.q1.%s.%s.%s.%s r6, %s, r0, r1, r2, r3, r4, %s\n"
    "    st.global.u32 [r12], r6\n    st.global.u32 [r12+128], r7\n    exit\n";

/* Runs one hmma with the given form on in[6][32] with `threads` threads; out[2][32]. */
static EmuStatus run(int acol, int bcol, int d32, int c32, const uint32_t in[6][32],
                     uint32_t out[2][32], unsigned threads, EmuFault *f)
{
    char src[1400];
    snprintf(src, sizeof src, kernel_fmt, acol ? "col" : "row", bcol ? "col" : "row",
             d32 ? "f32" : "f16", c32 ? "f32" : "f16", d32 ? "r7" : "rz", c32 ? "r5" : "rz");
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, src);
    uint64_t din, dout, params[2];
    cr_assert_eq(emu_malloc(d, 6 * 128, &din), EMU_OK);
    cr_assert_eq(emu_malloc(d, 2 * 128, &dout), EMU_OK);
    cr_assert_eq(emu_copy_to_device(d, din, in, 6 * 128), EMU_OK);
    params[0] = din;
    params[1] = dout;
    EmuStatus s = t_launch(d, m, "k", DIM(1, 1, 1), DIM(threads, 1, 1), params, 16, f);
    if (s == EMU_OK)
        cr_assert_eq(emu_copy_from_device(d, out, dout, 2 * 128), EMU_OK);
    emu_destroy(d);
    return s;
}

static float h2f(uint32_t h) { return xisa_f16_to_f32((uint16_t)h); }

/* Element e (0..3) of lane l in a panel: (p, k) per docs/isa.md. */
static void panel(int pmaj, unsigned l, unsigned e, unsigned *p, unsigned *k)
{
    *p = pmaj ? l / 4 : 4 * (l % 2) + e;
    *k = pmaj ? 4 * (l % 4) + e : l / 2;
}

static void expected(int acol, int bcol, int d32, int c32, const uint32_t in[6][32],
                     uint32_t want[2][32])
{
    float a[8][16], b[8][16];
    for (unsigned l = 0; l < 32; l++)
        for (unsigned e = 0; e < 4; e++) {
            unsigned p, k;
            panel(!acol, l, e, &p, &k);
            a[p][k] = h2f(in[e / 2][l] >> (16 * (e % 2)) & 0xffff);
            panel(bcol, l, e, &p, &k);
            b[p][k] = h2f(in[2 + e / 2][l] >> (16 * (e % 2)) & 0xffff);
        }
    memset(want, 0, 2 * 128);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned j = 0; j < 2; j++) {
            float s;
            if (c32)
                memcpy(&s, &in[4 + j][l], 4);
            else
                s = h2f(in[4][l] >> (16 * j) & 0xffff);
            for (unsigned k = 0; k < 16; k++)
                s += a[l / 4][k] * b[2 * (l % 4) + j][k];
            if (d32)
                memcpy(&want[j][l], &s, 4);
            else
                want[0][l] |= (uint32_t)xisa_f32_to_f16(s) << (16 * j);
        }
}

static uint32_t half2(float lo, float hi)
{
    return xisa_f32_to_f16(lo) | (uint32_t)xisa_f32_to_f16(hi) << 16;
}

Test(hmma, every_layout_and_format_matches_the_mapping)
{
    uint32_t in[6][32], out[2][32], want[2][32];
    unsigned seed = 5;
    for (int form = 0; form < 16; form++) {
        int acol = form & 1, bcol = form >> 1 & 1, d32 = form >> 2 & 1, c32 = form >> 3 & 1;
        for (unsigned s = 0; s < 6; s++)
            for (unsigned l = 0; l < 32; l++) {
                seed = seed * 1103515245u + 12345u;
                float x = (float)((int)(seed >> 16) % 97 - 48) / 16.0f;
                float y = (float)((int)(seed >> 8) % 89 - 44) / 32.0f;
                in[s][l] = (s >= 4 && c32) ? t_fbits(x * 7.0f) : half2(x, y);
            }
        EmuFault f;
        cr_assert_eq(run(acol, bcol, d32, c32, in, out, 32, &f), EMU_OK, "%s", f.message);
        expected(acol, bcol, d32, c32, in, want);
        for (unsigned j = 0; j < 2; j++)
            for (unsigned l = 0; l < 32; l++)
                cr_expect_eq(out[j][l], want[j][l], "form %d: d%u lane %u = 0x%08x, want 0x%08x",
                             form, j, l, out[j][l], want[j][l]);
    }
}

/* One product per output: A is the identity on row 0 of the panel (k = 0), B column n
 * holds v at k = 0, everything else zero; C supplies the addend. */
static uint32_t one_product(float c, float v, int d32)
{
    uint32_t in[6][32] = {{0}}, out[2][32];
    /* row-major A: lane 0 holds (p 0, k 0..3) in registers 0, 1: A[0][0] = 1 */
    in[0][0] = half2(1.0f, 0.0f);
    /* column-major B: lane 0 holds (column 0, k 0..3): B[k 0][column 0] = v */
    in[2][0] = half2(v, 0.0f);
    in[4][0] = half2(c, 0.0f); /* f16 C: lane 0 holds row 0, columns 0 and 1 */
    EmuFault f;
    cr_assert_eq(run(0, 1, d32, 0, in, out, 32, &f), EMU_OK, "%s", f.message);
    return out[0][0];
}

Test(hmma, f16_result_is_rounded_once_to_nearest_even)
{
    cr_expect_eq(one_product(1.0f, 0x1p-11f, 0) & 0xffff, 0x3c00);  /* tie: stays even */
    cr_expect_eq(one_product(1.0f, 0x3p-11f, 0) & 0xffff, 0x3c02);  /* tie: up to even */
    cr_expect_eq(one_product(65504.0f, 16.0f, 0) & 0xffff, 0x7c00); /* overflows to inf */
    cr_expect_eq(one_product(65504.0f, 8.0f, 0) & 0xffff, 0x7bff);
    uint32_t f32 = one_product(1.0f, 0x1p-11f, 1); /* an f32 D keeps the bit */
    cr_expect_eq(f32, t_fbits(1.0f + 0x1p-11f));
}

Test(hmma, inactive_lanes_fault)
{
    uint32_t in[6][32] = {{0}}, out[2][32];
    EmuFault f;
    EmuStatus s = run(0, 0, 1, 1, in, out, 16, &f);
    cr_assert_eq(s, EMU_ERR_LAUNCH_FAILURE, "%s", emu_status_name(s));
    cr_expect(strstr(f.message, "inactive lanes") != NULL, "%s", f.message);
    cr_expect(strstr(f.message, "0x0000ffff") != NULL, "%s", f.message);
}
