/*
 * 427-ldesc-numa.c - the Locality Descriptor on a multi-module GPU (numa.map = ldesc;
 * mech/ldesc/ldesc_numa.c, Algorithm 2): a small case worked out by hand. Two zones; A is 64
 * rows of 256 floats whose D-Tiles are 16 rows (16 KB, contiguous) paired with C-Tiles
 * that are rows of a 4 x 4 grid; B is 64 KB whose D-Tiles are 16 KB chunks paired with
 * 2 x 2 C-Tiles. Zone bits from bit 14 up keep every A D-Tile in one zone; 14 is the
 * lowest (ties go to the lowest bit), so C-Tile k (grid row k) is in zone k mod 2. B's
 * C-Tiles start in grid rows 0 and 2, zone 0, so B takes bit 16, which keeps all of B in
 * zone 0. The memory side places each line by its structure's bits, and the CTA
 * placement runs each grid row on its zone's SMs.
 */
#include "400-timing-util.h"
#include "hints.h"
#include "mech/ldesc/ldesc.h"
#include "xgpu/ldesc.h"

#define A_BASE 0x100000ull
#define B_BASE 0x200000ull

static void descs(uint64_t a, uint64_t b, EmuDescRange d[2])
{
    d[0] = (EmuDescRange){.base = a, .bytes = 65536, .id = 0, .locality = XLD_INTER_THREAD,
                          .sharing = XLD_COACCESSED, .pattern = XLD_REGULAR, .priority = 2,
                          .map = {1, 2, 0}, .elem_size = 4, .dtile = {256, 16, 1},
                          .ctile = {4, 1, 1}, .stride = 256};
    d[1] = (EmuDescRange){.base = b, .bytes = 65536, .id = 1, .locality = XLD_INTER_THREAD,
                          .sharing = XLD_COACCESSED, .pattern = XLD_IRREGULAR, .priority = 1,
                          .map = {1, 2, 0}, .elem_size = 4, .dtile = {4096, 1, 1},
                          .ctile = {2, 2, 1}};
}

Test(ldesc_numa, algorithm_2_by_hand)
{
    EmuDescRange d[2];
    descs(A_BASE, B_BASE, d);
    EmuHintTable h = {.descs = d, .ndescs = 2};
    LdNuma p;
    cr_assert_eq(ld_numa_plan(&h, DIM(4, 4, 1), 2, &p), 0);
    cr_expect_eq(p.top, 0);
    cr_expect_eq(p.bit[0], 14);
    cr_expect_eq(p.bit[1], 16);
    cr_expect_eq(p.nparts, 4);
    for (unsigned k = 0; k < 4; k++)
        cr_expect_eq(p.part[k], k % 2, "C-Tile %u in zone %u", k, p.part[k]);
    cr_expect_float_eq(p.util, 2.0, 1e-9, "both structures wholly local");
    for (uint32_t y = 0; y < 4; y++)
        cr_expect_eq(ld_numa_cta_zone(&p, DIM(3, y, 0)), (int)(y % 2));
    cr_expect_eq(ld_numa_line_zone(&p, &h, A_BASE + 16384 + 128), 1);
    cr_expect_eq(ld_numa_line_zone(&p, &h, A_BASE + 32768), 0);
    cr_expect_eq(ld_numa_line_zone(&p, &h, B_BASE + 49152), 0);
    cr_expect_eq(ld_numa_line_zone(&p, &h, 0x300000), -1, "no structure");
    ld_numa_free(&p);
    /* four zones, or a power-of-two count missing: nothing placed */
    cr_assert_eq(ld_numa_plan(&h, DIM(4, 4, 1), 3, &p), 0);
    cr_expect_eq(p.top, -1);
    ld_numa_free(&p);
}

static const char *src = TM_SMID_SRC; /* 400-timing-util.h */

Test(ldesc_numa, ctas_run_in_their_c_tiles_zone)
{
    EmuDevice *d = tm_dev("gpu.sm_count=2;system.gpus=2;system.memory=numa;numa.map=ldesc;"
                          "ldesc.mode=cta;core.max_ctas_per_sm=4");
    EmuModule *m = t_load(d, src);
    uint64_t buf, mem;
    cr_assert_eq(emu_malloc(d, 4 * 16, &buf), EMU_OK);
    cr_assert_eq(emu_malloc(d, 6 * 65536, &mem), EMU_OK);
    uint64_t a = (mem + 131071) & ~131071ull; /* 128 KB-aligned: in the zones as by hand */
    EmuDescRange dr[2];
    descs(a, a + 131072, dr);
    EmuHints hints = {.descs = dr, .ndescs = 2};
    cr_assert_eq(emu_set_hints(d, &hints), EMU_OK);
    EmuLaunchStats st;
    EmuFault f;
    cr_assert_eq(emu_launch(d, m, emu_kernel(m, "k"), DIM(4, 4, 1), DIM(32, 1, 1), 0, &buf, 8,
                            &st, &f), EMU_OK, "%s", f.message);
    uint32_t sm[16];
    cr_assert_eq(emu_copy_from_device(d, sm, buf, sizeof sm), EMU_OK);
    LdNuma p;
    EmuHintTable h = {.descs = dr, .ndescs = 2};
    cr_assert_eq(ld_numa_plan(&h, DIM(4, 4, 1), 2, &p), 0);
    cr_expect_eq(p.bit[0], 14);
    for (uint32_t i = 0; i < 16; i++) {
        int z = ld_numa_cta_zone(&p, DIM(i % 4, i / 4, 0));
        cr_expect_eq(sm[i] / 2, (uint32_t)z, "CTA (%u, %u) of zone %d on SM %u", i % 4, i / 4,
                     z, sm[i]);
    }
    ld_numa_free(&p);
    emu_destroy(d);
}
