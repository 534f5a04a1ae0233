/*
 * 140-reuse.c - Memento's static reuse bits (xisa_reuse_static) on hand-written
 * assembly, and the .xgpu.reuse section: round trip and malformed contents.
 *
 * Bits: XREUSE_SRC(i) for source i, XREUSE_DST(i) for destination i; set = near (the
 * value is read again within RTHLD instructions along some path, before any redefinition).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"

static XGpubin *assemble(const char *src)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(src, &g, err, sizeof err), 0, "%s", err);
    return g;
}

/* Reuse bits of the module's only kernel with threshold rthld (heap array). */
static uint8_t *bits_of(const XGpubin *g, unsigned rthld)
{
    uint8_t *b = calloc(g->ntext, 1);
    cr_assert_not_null(b);
    cr_assert_eq(xisa_reuse_static(g->text, g->ntext, rthld, b), 0);
    return b;
}

/* n independent filler instructions that touch neither r1 nor r2. */
static void fill(char *src, size_t size, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        strncat(src, "  add.u32 r10, r11, 1\n", size - strlen(src) - 1);
}

Test(reuse, distance_threshold_is_inclusive)
{
    for (unsigned gap = 0; gap <= 13; gap++) {
        char src[2048] = ".kernel k\n  mov.u32 r1, 5\n";
        fill(src, sizeof src, gap);
        strcat(src, "  add.u32 r2, r1, 1\n  exit\n");
        XGpubin *g = assemble(src);
        uint8_t *b = bits_of(g, 12);
        /* the use is gap + 1 instructions after the definition */
        int near = (b[0] & XREUSE_DST(0)) != 0;
        cr_expect_eq(near, gap + 1 <= 12, "gap %u: near %d", gap, near);
        free(b);
        xgpubin_free(g);
    }
}

Test(reuse, redefinition_kills_and_self_overwrite_is_far)
{
    XGpubin *g = assemble(".kernel k\n"
                          "  mov.u32 r1, 5\n"        /* 0: r1 redefined at 1: far */
                          "  mov.u32 r1, 6\n"        /* 1: read at 2: near */
                          "  add.u32 r1, r1, r1\n"   /* 2: sources overwritten here: far */
                          "  st.global.u32 [r4], r1\n" /* 3 */
                          "  exit\n");
    uint8_t *b = bits_of(g, 12);
    cr_expect_eq(b[0], 0);
    cr_expect_eq(b[1], XREUSE_DST(0));
    cr_expect_eq(b[2] & (XREUSE_SRC(0) | XREUSE_SRC(1)), 0);
    cr_expect(b[2] & XREUSE_DST(0), "the sum is stored next");
    cr_expect_eq(b[3], 0, "nothing is read after the store");
    free(b);
    xgpubin_free(g);
}

Test(reuse, loops_and_branches)
{
    XGpubin *g = assemble(".kernel k\n"
                          "  mov.u32 r1, 0\n"             /* 0 */
                          "top:\n"
                          "  add.u32 r1, r1, 1\n"         /* 1: r1 read again at 2 */
                          "  set.lt.u32 r2, r1, 100\n"    /* 2: r1 read at 1 next iteration */
                          "  brc r2, top, done\n"         /* 3 */
                          "done:\n"
                          "  set.eq.u32 r3, r1, 7\n"      /* 4 */
                          "  brc r3, one, join\n"         /* 5 */
                          "  mov.u32 r5, 1\n"             /* 6: fall-through side */
                          "  bra join\n"                  /* 7 */
                          "one:\n"
                          "  add.u32 r6, r5, 2\n"         /* 8: taken side reads r5 */
                          "join:\n"
                          "  exit\n");                    /* 9 */
    uint8_t *b = bits_of(g, 12);
    cr_expect(b[2] & XREUSE_SRC(0), "r1 is read again through the back edge");
    cr_expect(b[2] & XREUSE_DST(0), "r2 is read by the branch");
    cr_expect(b[4] & XREUSE_DST(0), "r3 is read by the branch");
    cr_expect_eq(b[6] & XREUSE_DST(0), 0, "r5 is not read on the path from 6");
    free(b);
    /* a long loop body makes the back-edge reuse far */
    char src[4096] = ".kernel k\n  mov.u32 r1, 0\ntop:\n  add.u32 r2, r1, 1\n";
    fill(src, sizeof src, 14);
    strcat(src, "  add.u32 r1, r2, 0\n  set.lt.u32 r3, r1, 9\n  brc r3, top, done\ndone:\n  exit\n");
    xgpubin_free(g);
    g = assemble(src);
    b = bits_of(g, 12);
    cr_expect_eq(b[1] & XREUSE_SRC(0), 0, "r1 is redefined before the next iteration reads it");
    cr_expect_eq(b[1] & XREUSE_DST(0), 0, "r2 is read 15 instructions later");
    free(b);
    xgpubin_free(g);
}

Test(reuse, pairs_rz_and_immediates)
{
    XGpubin *g = assemble(".kernel k\n"
                          "  ld.param.u64 r2, [0]\n"       /* 0: pair r2:r3 read at 1 */
                          "  add.u64 r4, r2, 8\n"          /* 1: src 1 is an immediate */
                          "  st.global.u32 [r4], rz\n"     /* 2: rz never near */
                          "  ld.global.u32 r6, [r2]\n"     /* 3 */
                          "  exit\n");
    uint8_t *b = bits_of(g, 12);
    cr_expect_eq(b[0], XREUSE_DST(0));
    cr_expect(b[1] & XREUSE_SRC(0), "r2 is read at 3");
    cr_expect_eq(b[1] & XREUSE_SRC(1), 0, "an immediate has no reuse bit");
    cr_expect_eq(b[2] & XREUSE_SRC(1), 0);
    free(b);
    xgpubin_free(g);
}

Test(reuse, section_round_trip_and_malformed)
{
    XGpubin *g = assemble(".kernel k\n  mov.u32 r1, 5\n  add.u32 r2, r1, 1\n  exit\n");
    uint8_t *b = bits_of(g, 7);
    g->reuse = b, g->reuse_rthld = 7, g->reuse_source = XREUSE_STATIC;
    void *img;
    size_t len;
    char err[256];
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", err);
    XGpubin *h = NULL;
    cr_assert_eq(xgpubin_read(img, len, &h, err, sizeof err), 0, "%s", err);
    cr_assert_not_null(h->reuse);
    cr_expect_eq(h->reuse_rthld, 7);
    cr_expect_eq(memcmp(h->reuse, b, g->ntext), 0);
    xgpubin_free(h);
    /* the threshold field (after the 16-byte section header) set to 0 is rejected */
    uint8_t *p = img, *sec = NULL;
    for (size_t i = 0; i + 16 < len && !sec; i++) /* the reuse section: count 3, rthld 7 */
        if (!memcmp(p + i, "XSEC", 4) && p[i + 8] == 3 && p[i + 16] == 7 && p[i + 20] == 0 &&
            p[i + 24] == b[0])
            sec = p + i;
    cr_assert_not_null(sec);
    sec[16] = 0;
    cr_expect_neq(xgpubin_read(img, len, &h, err, sizeof err), 0);
    cr_expect(strstr(err, ".xgpu.reuse") != NULL, "%s", err);
    sec[16] = 7, sec[20] = 9; /* unknown source */
    cr_expect_neq(xgpubin_read(img, len, &h, err, sizeof err), 0);
    sec[20] = 0, sec[8] = 2; /* count differs from the instructions */
    cr_expect_neq(xgpubin_read(img, len, &h, err, sizeof err), 0);
    cr_expect(strstr(err, ".xgpu.reuse") != NULL, "%s", err);
    free(img);
    g->reuse = NULL;
    free(b);
    xgpubin_free(g);
}
