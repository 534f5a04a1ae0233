/*
 * 622-assist-routines.c - CABA's decompression assist routines (Vijaykumar et al., "A Case
 * for Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4) as xgpu assembly
 * (emulator/mech/caba/assist/{bdi,fpc,cpack}_decomp.s), run on the functional emulator as one
 * warp per line against the C codecs (mech/common/compress_*.c): fixed-seed lines of many kinds
 * on 64 and 128 B lines are compressed with xc_compress, decoded by the routine in device
 * memory, and must come back byte for byte (the C decoder too), with nothing written past
 * the line. Every BDI encoding, every FPC prefix and every C-Pack code (and dictionary
 * size) must have occurred. Also: raw lines are copied, unknown encodings trap, and the
 * warp instructions a line costs are printed per codec and encoding.
 */
#include "620-assist-util.h"

/* The compressed line's place, exactly 64 or 128 B so that the memory check faults any
 * read past the line, and the output line. */
static uint64_t d_in64, d_in128, d_out;

static void setup(void)
{
    dev = t_dev();
    cr_assert_eq(emu_malloc(dev, 64, &d_in64), EMU_OK);
    cr_assert_eq(emu_malloc(dev, 128, &d_in128), EMU_OK);
    cr_assert_eq(emu_malloc(dev, XC_LINE_MAX, &d_out), EMU_OK);
}

static void teardown(void) { emu_destroy(dev); }

TestSuite(assist, .init = setup, .fini = teardown);

static const Routine routines[] = {
    {"bdi_decomp.s", "caba_bdi_decomp", XC_BDI},
    {"fpc_decomp.s", "caba_fpc_decomp", XC_FPC},
    {"cpack_decomp.s", "caba_cpack_decomp", XC_CPACK},
};

/* Decodes comp (info.bytes of it, the rest of the line's place filled with junk the
 * routine must not depend on) with one warp into line (n bytes); the warp instructions it
 * took. */
static uint64_t run_routine(EmuModule *m, const Routine *r, XcInfo info, const uint8_t *comp,
                            unsigned n, uint8_t *line, EmuStatus *status)
{
    uint8_t place[XC_LINE_MAX], out[XC_LINE_MAX];
    uint64_t d_in = n == 64 ? d_in64 : d_in128;
    memset(place, 0x5a, sizeof place);
    memcpy(place, comp, info.bytes);
    cr_assert_eq(emu_copy_to_device(dev, d_in, place, n), EMU_OK);
    cr_assert_eq(emu_memset(dev, d_out, 0xa5, XC_LINE_MAX), EMU_OK);
    uint8_t params[24];
    uint32_t enc = info.encoding, lb = n;
    memcpy(params, &d_in, 8);
    memcpy(params + 8, &enc, 4);
    memcpy(params + 12, &lb, 4);
    memcpy(params + 16, &d_out, 8);
    EmuLaunchStats st;
    EmuFault f;
    memset(&f, 0, sizeof f);
    int k = emu_kernel(m, r->kernel);
    cr_assert_geq(k, 0, "no kernel %s", r->kernel);
    EmuStatus s = emu_launch(dev, m, k, DIM(1, 1, 1), DIM(32, 1, 1), 0, params, sizeof params,
                             &st, &f);
    if (status) {
        *status = s;
        return 0;
    }
    cr_assert_eq(s, EMU_OK, "%s %s: %s: pc %u: %s", r->kernel,
                 xc_encoding_name(r->algo, info.encoding), emu_status_name(s), f.pc,
                 f.message);
    cr_assert_eq(emu_copy_from_device(dev, out, d_out, XC_LINE_MAX), EMU_OK);
    for (unsigned i = n; i < XC_LINE_MAX; i++)
        cr_assert_eq(out[i], 0xa5, "%s wrote byte %u past a %u B line", r->kernel, i, n);
    memcpy(line, out, n);
    return st.warp_instructions;
}

/* Every kind of line on both sizes through the routine and the C decoder. */
static void check_routine(const Routine *r, Seen *sn)
{
    EmuModule *m = load_routine(r);
    uint64_t s = 0x9e3779b97f4a7c15ull ^ r->algo;
    memset(sn, 0, sizeof *sn);
    for (unsigned si = 0; si < 2; si++) {
        unsigned n = sizes[si];
        for (unsigned kind = 0; kind < NKINDS; kind++)
            for (unsigned t = 0; t < LINES_PER_KIND; t++) {
                uint8_t line[XC_LINE_MAX], comp[XC_LINE_MAX], got[XC_LINE_MAX],
                    back[XC_LINE_MAX];
                make_line(kind, &s, line, n);
                XcInfo info = xc_compress(r->algo, line, n, comp);
                note(sn, r->algo, si, info, comp, n);
                cr_assert_eq(xc_decompress(r->algo, info, comp, info.bytes, back, n), 0);
                cr_assert_arr_eq(back, line, n);
                sn->insns[si][info.encoding] +=
                    run_routine(m, r, info, comp, n, got, NULL);
                for (unsigned i = 0; i < n; i++)
                    cr_assert_eq(got[i], line[i],
                                 "%s, %u B line of kind %u (#%u), %s: byte %u is 0x%02x, "
                                 "want 0x%02x",
                                 r->kernel, n, kind, t, xc_encoding_name(r->algo, info.encoding),
                                 i, got[i], line[i]);
            }
    }
    report(r, sn);
}

Test(assist, bdi_every_encoding)
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

Test(assist, fpc_every_pattern)
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

Test(assist, cpack_every_code)
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

/* Any line sent as raw (even one that would compress) comes back as it is. */
Test(assist, raw_lines_are_copied)
{
    uint64_t s = 42;
    for (unsigned ri = 0; ri < 3; ri++) {
        EmuModule *m = load_routine(&routines[ri]);
        for (unsigned si = 0; si < 2; si++)
            for (unsigned kind = 0; kind < NKINDS; kind++) {
                uint8_t line[XC_LINE_MAX], got[XC_LINE_MAX];
                unsigned n = sizes[si];
                make_line(kind, &s, line, n);
                XcInfo info = {.algo = (uint8_t)routines[ri].algo, .encoding = XC_ENC_RAW,
                               .bytes = (uint16_t)n};
                run_routine(m, &routines[ri], info, line, n, got, NULL);
                cr_assert_arr_eq(got, line, n, "%s: raw %u B line of kind %u",
                                 routines[ri].kernel, n, kind);
            }
    }
}

/* A code the codec does not have ends the launch (trap) instead of writing a line; the
 * device decodes the next line as usual. */
Test(assist, unknown_encodings_trap)
{
    static const uint8_t bad[3][2] = {{8, 14}, {1, 7}, {1, 2}};
    uint8_t zero[XC_LINE_MAX] = {0}, got[XC_LINE_MAX];
    for (unsigned ri = 0; ri < 3; ri++) {
        EmuModule *m = load_routine(&routines[ri]);
        for (unsigned b = 0; b < 2; b++) {
            XcInfo info = {.algo = (uint8_t)routines[ri].algo, .encoding = bad[ri][b],
                           .bytes = 8};
            EmuStatus st = EMU_OK;
            run_routine(m, &routines[ri], info, zero, 128, got, &st);
            cr_expect_neq(st, EMU_OK, "%s with encoding %u did not trap", routines[ri].kernel,
                          bad[ri][b]);
            XcInfo ok = {.algo = (uint8_t)routines[ri].algo, .encoding = XC_ENC_RAW,
                         .bytes = 128};
            memset(zero, 0x11 * (b + 1), sizeof zero);
            run_routine(m, &routines[ri], ok, zero, 128, got, NULL);
            cr_assert_arr_eq(got, zero, 128, "%s after a trap", routines[ri].kernel);
            memset(zero, 0, sizeof zero);
        }
    }
}
