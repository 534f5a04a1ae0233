/*
 * exec_tensor.c - the tensor step hmma: one quadrant of a warp's 16x16x16 matrix
 * multiply-accumulate D = A*B + C, with f16 A and B and f16 or f32 C and D.
 *
 * A warp holds each 16x16 matrix spread over its 32 lanes (the fragments of CUDA's wmma).
 * hmma is warp-wide like shfl: it reads its source registers in every lane, assembles the
 * 8 rows of A and the 8 columns of B its quadrant needs, and writes each lane's share of
 * the 8x8 quadrant of D. The element mapping (which lane and register hold which element)
 * is documented in docs/isa.md and shared with the lowering of wmma load and store
 * (passes/lower/isel_wmma.c):
 *
 *   A or B panel p (registers 2p, 2p+1; element e = 0..3 is register 2p + e/2, half e%2),
 *   with P the panel's dimension (rows of A, columns of B) and K the shared one:
 *     A row-major / B column-major:  P = 8p + lane/4,        K = 4*(lane%4) + e
 *     A column-major / B row-major:  K = lane/2,             P = 8p + 4*(lane%2) + e
 *   C or D quadrant q = 2*mi + ni (f32: registers 2q, 2q+1; f16: register q, halves j):
 *     row = 8*mi + lane/4, column = 8*ni + 2*(lane%4) + j
 *
 * Arithmetic: f16 inputs are widened exactly to f32; their products are exact in f32;
 * each output starts from C (widened) and adds the 16 products in k order, every sum
 * rounded to f32 (round to nearest even); an f16 D is rounded once at the end. All lanes
 * must be active (CUDA requires the whole warp in a wmma operation): otherwise the
 * instruction faults. Every source is read before any destination is written.
 */
#include <string.h>

#include "func/exec.h"

/* Position within a panel of lane l's element e (0..3): *p in the panel dimension (0..7),
 * *k in the shared one (0..15). pmaj: the panel dimension is the memory's major one. */
static void panel_pos(int pmaj, unsigned l, unsigned e, unsigned *p, unsigned *k)
{
    if (pmaj) {
        *p = l >> 2;
        *k = 4 * (l & 3) + e;
    } else {
        *k = l >> 1;
        *p = 4 * (l & 1) + e;
    }
}

/* The panel held in rows r0, r1 of every lane, as out[p][k] in f32. */
static void read_panel(const EmuWarp *w, uint16_t r0, uint16_t r1, int pmaj, float out[8][16])
{
    for (unsigned l = 0; l < 32; l++)
        for (unsigned e = 0; e < 4; e++) {
            uint32_t v = w->r[e < 2 ? r0 : r1][l];
            unsigned p, k;
            panel_pos(pmaj, l, e, &p, &k);
            out[p][k] = xisa_f16_to_f32((uint16_t)(v >> (16 * (e & 1))));
        }
}

static int hmma_run(EXEC_ARGS)
{
    if (mask != 0xffffffffu) {
        unsigned lane = 0;
        while (mask >> lane & 1u)
            lane++;
        return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, lane, 0,
                              "hmma with inactive lanes (mask 0x%08x): warp matrix "
                              "operations need all 32 lanes of the warp", mask);
    }
    float a[8][16], b[8][16], acc[32][2];
    read_panel(w, in->s0, in->s1, !(in->mod & XHMMA_ACOL), a);
    read_panel(w, in->s2, in->s3, (in->mod & XHMMA_BCOL) != 0, b);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned j = 0; j < 2; j++) {
            uint32_t c = (in->mod & XHMMA_C32) ? w->r[j ? in->s5 : in->s4][l] : 0;
            float sum;
            if (in->mod & XHMMA_C32)
                memcpy(&sum, &c, 4);
            else
                sum = xisa_f16_to_f32((uint16_t)(w->r[in->s4][l] >> (16 * j)));
            unsigned row = l >> 2, col = 2 * (l & 3) + j;
            for (unsigned k = 0; k < 16; k++)
                sum += a[row][k] * b[col][k]; /* exact product, f32 sum */
            acc[l][j] = sum;
        }
    for (unsigned l = 0; l < 32; l++) {
        if (in->mod & XHMMA_D32) {
            memcpy(&w->r[in->d][l], &acc[l][0], 4);
            memcpy(&w->r[in->d1][l], &acc[l][1], 4);
        } else {
            w->r[in->d][l] = (uint32_t)xisa_f32_to_f16(acc[l][0]) |
                             (uint32_t)xisa_f32_to_f16(acc[l][1]) << 16;
        }
    }
    return EXEC_NEXT;
}

int emu_pick_hmma(const XInsn *xi, EmuInsn *o)
{
    if (xi->sub >= XHMMA_STEPS || xi->mod >= XHMMA_MODS)
        return -1;
    o->fn = hmma_run;
    o->kind = EK_PLAIN;
    return 0;
}
