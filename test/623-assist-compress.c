/*
 * 623-assist-compress.c - CABA's compression assist routines (Vijaykumar et al., "A Case
 * for Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4) as xgpu assembly
 * (emulator/mech/caba/assist/{bdi,fpc,cpack}_comp.s), run on the functional emulator as one
 * warp per line against the C encoders (mech/common/compress_*.c): fixed-seed lines of many
 * kinds on 64 and 128 B lines are compressed by the routine in device memory and by
 * xc_compress; the encoding, the size and the bytes [0, size) must be the same, nothing
 * may be written past the size (rounded up to a word), and the routine's output must
 * decode (C decoder) back to the line. Every BDI encoding, every FPC prefix and every
 * C-Pack code (and dictionary size) must have occurred. The warp instructions a line
 * costs are printed per codec and encoding.
 */
#include "620-assist-util.h"

/* The line's place, exactly 64 or 128 B so that the memory check faults any read past
 * the line; the output buffer; the result word. */
static uint64_t d_in64, d_in128, d_out, d_res;

static void setup(void)
{
    dev = t_dev();
    cr_assert_eq(emu_malloc(dev, 64, &d_in64), EMU_OK);
    cr_assert_eq(emu_malloc(dev, 128, &d_in128), EMU_OK);
    cr_assert_eq(emu_malloc(dev, XC_LINE_MAX, &d_out), EMU_OK);
    cr_assert_eq(emu_malloc(dev, 4, &d_res), EMU_OK);
}

static void teardown(void) { emu_destroy(dev); }

TestSuite(assist_comp, .init = setup, .fini = teardown);

static const Routine routines[] = {
    {"bdi_comp.s", "caba_bdi_comp", XC_BDI},
    {"fpc_comp.s", "caba_fpc_comp", XC_FPC},
    {"cpack_comp.s", "caba_cpack_comp", XC_CPACK},
};

/* Compresses line (n bytes) with one warp into comp; the routine's encoding and size in
 * *info; the warp instructions it took. */
static uint64_t run_routine(EmuModule *m, const Routine *r, const uint8_t *line, unsigned n,
                            uint8_t *comp, XcInfo *info)
{
    uint8_t out[XC_LINE_MAX];
    uint64_t d_in = n == 64 ? d_in64 : d_in128;
    cr_assert_eq(emu_copy_to_device(dev, d_in, line, n), EMU_OK);
    cr_assert_eq(emu_memset(dev, d_out, 0xa5, XC_LINE_MAX), EMU_OK);
    cr_assert_eq(emu_memset(dev, d_res, 0xee, 4), EMU_OK);
    uint8_t params[32] = {0};
    uint32_t lb = n;
    memcpy(params, &d_in, 8);
    memcpy(params + 8, &lb, 4);
    memcpy(params + 16, &d_out, 8);
    memcpy(params + 24, &d_res, 8);
    EmuLaunchStats st;
    EmuFault f;
    memset(&f, 0, sizeof f);
    int k = emu_kernel(m, r->kernel);
    cr_assert_geq(k, 0, "no kernel %s", r->kernel);
    EmuStatus s = emu_launch(dev, m, k, DIM(1, 1, 1), DIM(32, 1, 1), 0, params, sizeof params,
                             &st, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s: pc %u: %s", r->kernel, emu_status_name(s), f.pc,
                 f.message);
    uint32_t res;
    cr_assert_eq(emu_copy_from_device(dev, &res, d_res, 4), EMU_OK);
    cr_assert_eq(emu_copy_from_device(dev, out, d_out, XC_LINE_MAX), EMU_OK);
    *info = (XcInfo){.algo = (uint8_t)r->algo, .encoding = (uint8_t)(res & 0xffff),
                     .bytes = (uint16_t)(res >> 16)};
    cr_assert_lt(res & 0xffff, 16, "%s: result word 0x%08x", r->kernel, res);
    cr_assert_leq(info->bytes, n, "%s: result word 0x%08x", r->kernel, res);
    unsigned end = (info->bytes + 3u) & ~3u;
    for (unsigned i = end; i < XC_LINE_MAX; i++)
        cr_assert_eq(out[i], 0xa5, "%s wrote byte %u past a %u B compressed size", r->kernel,
                     i, info->bytes);
    memcpy(comp, out, n);
    return st.warp_instructions;
}

/* Every kind of line on both sizes through the routine, against xc_compress. */
static void check_routine(const Routine *r, Seen *sn)
{
    EmuModule *m = load_routine(r);
    uint64_t s = 0x2545f4914f6cdd1dull ^ r->algo;
    memset(sn, 0, sizeof *sn);
    for (unsigned si = 0; si < 2; si++) {
        unsigned n = sizes[si];
        for (unsigned kind = 0; kind < NKINDS; kind++)
            for (unsigned t = 0; t < LINES_PER_KIND; t++) {
                uint8_t line[XC_LINE_MAX], want[XC_LINE_MAX], got[XC_LINE_MAX],
                    back[XC_LINE_MAX];
                make_line(kind, &s, line, n);
                XcInfo info = xc_compress(r->algo, line, n, want), ginfo;
                uint64_t insns = run_routine(m, r, line, n, got, &ginfo);
                cr_assert_eq(ginfo.encoding, info.encoding,
                             "%s, %u B line of kind %u (#%u): encoding %s, want %s", r->kernel,
                             n, kind, t, xc_encoding_name(r->algo, ginfo.encoding),
                             xc_encoding_name(r->algo, info.encoding));
                cr_assert_eq(ginfo.bytes, info.bytes,
                             "%s, %u B line of kind %u (#%u), %s: %u bytes, want %u", r->kernel,
                             n, kind, t, xc_encoding_name(r->algo, info.encoding), ginfo.bytes,
                             info.bytes);
                for (unsigned i = 0; i < info.bytes; i++)
                    cr_assert_eq(got[i], want[i],
                                 "%s, %u B line of kind %u (#%u), %s: byte %u is 0x%02x, "
                                 "want 0x%02x",
                                 r->kernel, n, kind, t, xc_encoding_name(r->algo, info.encoding),
                                 i, got[i], want[i]);
                cr_assert_eq(xc_decompress(r->algo, ginfo, got, ginfo.bytes, back, n), 0);
                cr_assert_arr_eq(back, line, n);
                note(sn, r->algo, si, info, want, n);
                sn->insns[si][info.encoding] += insns;
            }
    }
    report(r, sn);
}

Test(assist_comp, bdi_every_encoding)
{
    Seen sn;
    check_routine(&routines[0], &sn);
    static const unsigned codes[] = {XC_BDI_ZEROS, XC_BDI_REPEAT, XC_BDI_B8D1, XC_BDI_B8D2,
                                     XC_BDI_B8D4,  XC_BDI_B4D1,   XC_BDI_B4D2, XC_BDI_B2D1,
                                     XC_ENC_RAW};
    for (unsigned si = 0; si < 2; si++)
        for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++)
            cr_expect_gt(sn.enc[si][codes[i]], 0, "BDI %s never occurred on %u B lines",
                         xc_bdi_name(codes[i]), sizes[si]);
}

Test(assist_comp, fpc_every_pattern)
{
    Seen sn;
    check_routine(&routines[1], &sn);
    static const unsigned prefixes[] = {0, 2, 3, 6, 7};
    for (unsigned si = 0; si < 2; si++) {
        cr_expect_gt(sn.enc[si][XC_ENC_PACKED], 0);
        cr_expect_gt(sn.enc[si][XC_ENC_RAW], 0, "no raw FPC line on %u B", sizes[si]);
        for (unsigned i = 0; i < 5; i++)
            cr_expect_gt(sn.fpc_pat[si][prefixes[i]], 0, "FPC prefix %u never on %u B lines",
                         prefixes[i], sizes[si]);
    }
}

Test(assist_comp, cpack_every_code)
{
    Seen sn;
    check_routine(&routines[2], &sn);
    for (unsigned si = 0; si < 2; si++) {
        cr_expect_gt(sn.enc[si][XC_ENC_RAW], 0, "no raw C-Pack line on %u B", sizes[si]);
        for (unsigned c = 0; c < 4; c++)
            cr_expect_gt(sn.cp_code[si][c], 0, "C-Pack code %u never on %u B lines", c,
                         sizes[si]);
        for (unsigned nd = 0; nd <= 4; nd++)
            cr_expect_gt(sn.cp_dict[si][nd], 0, "no C-Pack line with %u entries on %u B",
                         nd, sizes[si]);
    }
}
