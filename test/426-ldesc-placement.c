/*
 * 426-ldesc-placement.c - CTA clustering (ldesc.mode = cta; mech/ldesc/ldesc.c, Algorithm 1 of
 * the Locality Descriptor paper): each CTA records the SM it ran on, and the placement of
 * a small grid is checked CTA by CTA against the clusters worked out by hand: a C-Tile
 * per SM when the grid holds exactly one per SM, C-Tiles halved along their largest
 * dimension until there is one per SM, a lower-priority C-Tile merged in while every SM
 * still gets a cluster (and not merged when that would leave SMs without one), and the
 * compute-data map choosing the walk order. Without an INTER_THREAD descriptor the
 * placement is round robin's.
 */
#include "400-timing-util.h"
#include "xgpu/ldesc.h"

static const char *src = TM_SMID_SRC; /* 400-timing-util.h */

typedef struct Desc {
    uint8_t locality, priority, map[3];
    uint32_t ctile[3];
} Desc;

/* Runs a gx x gy grid on nsm SMs with the descriptors given (on an unrelated buffer);
 * smid[] receives each CTA's SM; returns the launch's ldesc.clusters. */
static uint64_t run(const char *mode, unsigned nsm, unsigned gx, unsigned gy, const Desc *ds,
                    size_t nd, uint32_t *smid)
{
    char set[256];
    snprintf(set, sizeof set, "gpu.sm_count=%u;ldesc.mode=%s", nsm, mode);
    EmuDevice *d = tm_dev(set);
    EmuModule *m = t_load(d, src);
    uint64_t buf, data;
    cr_assert_eq(emu_malloc(d, 4 * gx * gy, &buf), EMU_OK);
    cr_assert_eq(emu_malloc(d, 4096, &data), EMU_OK);
    EmuDescRange dr[4];
    for (size_t i = 0; i < nd; i++)
        dr[i] = (EmuDescRange){.base = data, .bytes = 4096, .id = (uint32_t)i,
                               .locality = ds[i].locality, .sharing = XLD_COACCESSED,
                               .pattern = XLD_IRREGULAR, .priority = ds[i].priority,
                               .map = {ds[i].map[0], ds[i].map[1], ds[i].map[2]},
                               .elem_size = 4, .dtile = {1, 1, 1},
                               .ctile = {ds[i].ctile[0], ds[i].ctile[1], ds[i].ctile[2]}};
    EmuHints h = {.descs = dr, .ndescs = nd};
    cr_assert_eq(emu_set_hints(d, &h), EMU_OK);
    EmuLaunchStats st;
    EmuFault f;
    cr_assert_eq(emu_launch(d, m, emu_kernel(m, "k"), DIM(gx, gy, 1), DIM(32, 1, 1), 0, &buf,
                            8, &st, &f),
                 EMU_OK, "%s", f.message);
    cr_assert_eq(emu_copy_from_device(d, smid, buf, 4 * gx * gy), EMU_OK);
    uint64_t clusters = 0;
    cr_assert_eq(emu_launch_counter(d, 0, "ldesc.clusters", &clusters), EMU_OK);
    emu_destroy(d);
    return clusters;
}

Test(ldesc_placement, one_c_tile_per_sm)
{
    /* 4 x 4 grid, C-Tile = a row of 4 CTAs, 4 SMs: row y on SM y (round robin would put
     * CTA (x, y) on SM x) */
    Desc row = {XLD_INTER_THREAD, 1, {1, 0, 0}, {4, 1, 1}};
    uint32_t sm[16];
    cr_expect_eq(run("cta", 4, 4, 4, &row, 1, sm), 4);
    for (unsigned i = 0; i < 16; i++)
        cr_expect_eq(sm[i], i / 4, "CTA (%u, %u) on SM %u", i % 4, i / 4, sm[i]);
}

Test(ldesc_placement, c_tiles_split_until_every_sm_has_one)
{
    /* 8 SMs: the 4-CTA columns are halved (1, 2, 1): 8 clusters, walked x first (map
     * (1,0,0)): cluster c = (x = c % 4, rows 2(c / 4) .. +1) on SM c */
    Desc col = {XLD_INTER_THREAD, 1, {1, 0, 0}, {1, 4, 1}};
    uint32_t sm[16];
    cr_expect_eq(run("cta", 8, 4, 4, &col, 1, sm), 8);
    for (unsigned i = 0; i < 16; i++) {
        unsigned x = i % 4, y = i / 4;
        cr_expect_eq(sm[i], x + 4 * (y / 2), "CTA (%u, %u) on SM %u", x, y, sm[i]);
    }
    /* walked y first (map (0,1,0)): cluster c = (x = c / 2, rows 2(c % 2) .. +1) */
    col.map[0] = 0, col.map[1] = 1;
    run("cta", 8, 4, 4, &col, 1, sm);
    for (unsigned i = 0; i < 16; i++) {
        unsigned x = i % 4, y = i / 4;
        cr_expect_eq(sm[i], 2 * x + y / 2, "CTA (%u, %u) on SM %u", x, y, sm[i]);
    }
}

Test(ldesc_placement, lower_priority_merges_while_every_sm_keeps_a_cluster)
{
    Desc two[2] = {{XLD_INTER_THREAD, 2, {1, 0, 0}, {4, 1, 1}},
                   {XLD_INTER_THREAD, 1, {1, 0, 0}, {1, 2, 1}}};
    uint32_t sm[16];
    /* 2 SMs: (max(4,1), max(1,2)) = (4, 2) leaves 2 clusters, one per SM: merged, rows
     * 0-1 on SM 0 and 2-3 on SM 1 */
    cr_expect_eq(run("cta", 2, 4, 4, two, 2, sm), 2);
    for (unsigned i = 0; i < 16; i++)
        cr_expect_eq(sm[i], (i / 4) / 2, "CTA (%u, %u) on SM %u", i % 4, i / 4, sm[i]);
    /* 4 SMs: (4, 2) would leave 2 clusters for 4 SMs: the higher priority's rows */
    cr_expect_eq(run("cta", 4, 4, 4, two, 2, sm), 4);
    for (unsigned i = 0; i < 16; i++)
        cr_expect_eq(sm[i], i / 4, "CTA (%u, %u) on SM %u", i % 4, i / 4, sm[i]);
}

Test(ldesc_placement, no_inter_thread_descriptor_places_round_robin)
{
    Desc intra = {XLD_INTRA_THREAD, 1, {1, 0, 0}, {1, 4, 1}};
    uint32_t sm[16], rr[16];
    cr_expect_eq(run("cta", 4, 4, 4, &intra, 1, sm), 0);
    run("off", 4, 4, 4, &intra, 1, rr);
    for (unsigned i = 0; i < 16; i++)
        cr_expect_eq(sm[i], rr[i], "CTA %u", i);
}
