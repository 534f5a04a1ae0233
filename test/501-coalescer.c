/*
 * 501-coalescer.c - warp accesses become one request per distinct 128-byte line with the
 * 32-byte sectors touched: unit stride, stride 2, scattered, 8-byte, misaligned, partial
 * masks, and the interleaved per-thread layout of local memory.
 */
#include "500-mem-util.h"
#include "timing/coalescer.h"

static TmReq req[COAL_MAX];

static unsigned split(const TmAccess *a)
{
    return coal_split(a, 3, 128, 32, req);
}

Test(coalescer, unit_stride_4_bytes_is_one_line_four_sectors)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, 0x1000, 4);
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].line, 0x1000);
    cr_expect_eq(req[0].sectors, 0xf);
    cr_expect_eq(req[0].sm, 3);
    cr_expect_eq(req[0].kind, TM_READ);
}

Test(coalescer, stride_2_is_two_lines)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_WRITE, 4, 0x1000, 8);
    cr_assert_eq(split(&a), 2);
    cr_expect_eq(req[0].line, 0x1000);
    cr_expect_eq(req[1].line, 0x1080);
    cr_expect_eq(req[0].sectors, 0xf);
    cr_expect_eq(req[1].sectors, 0xf);
    cr_expect_eq(req[1].kind, TM_WRITE);
}

Test(coalescer, stride_8_words_touches_one_sector_per_lane_group)
{
    /* 32-byte stride: every lane its own sector, 4 lanes per line */
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, 0x0, 32);
    cr_assert_eq(split(&a), 8);
    for (unsigned i = 0; i < 8; i++) {
        cr_expect_eq(req[i].line, 128 * i);
        cr_expect_eq(req[i].sectors, 0xf);
    }
}

Test(coalescer, scattered_lanes_make_one_request_each_in_lane_order)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, 0, 0);
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = (uint64_t)(31 - l) * 4096 + 64; /* descending, sector 2 */
    cr_assert_eq(split(&a), 32);
    for (unsigned i = 0; i < 32; i++) {
        cr_expect_eq(req[i].line, (uint64_t)(31 - i) * 4096);
        cr_expect_eq(req[i].sectors, 0x4);
    }
}

Test(coalescer, eight_byte_unit_stride_is_two_full_lines)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 8, 0x2000, 8);
    cr_assert_eq(split(&a), 2);
    cr_expect_eq(req[0].line, 0x2000);
    cr_expect_eq(req[1].line, 0x2080);
    cr_expect_eq(req[0].sectors | req[1].sectors << 4, 0xff);
}

Test(coalescer, misaligned_start_spills_into_the_next_line)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, 0x1010, 4); /* bytes 0x1010..0x108f */
    cr_assert_eq(split(&a), 2);
    cr_expect_eq(req[0].sectors, 0xf);
    cr_expect_eq(req[1].line, 0x1080);
    cr_expect_eq(req[1].sectors, 0x1);
}

Test(coalescer, partial_mask_and_bytes)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 1, 0x100, 1);
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].sectors, 0x1); /* 32 bytes: one sector */
    a.mask = 0x80000001u;
    a.addr[31] = 0x100 + 127;
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].sectors, 0x9);
    a.mask = 0;
    cr_expect_eq(split(&a), 0);
}

Test(coalescer, atomics_coalesce_per_line_with_their_sectors)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_ATOMIC, 4, 0x4000, 0); /* every lane, one word */
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].sectors, 0x1);
    cr_expect_eq(req[0].kind, TM_ATOMIC);
}

Test(coalescer, local_same_offset_interleaves_into_one_line)
{
    TmAccess a = t_acc(TM_LOCAL, TM_READ, 4, 8, 0); /* every thread's word at offset 8 */
    a.warp = 5;
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].line, coal_local_addr(3, 5, 0, 8));
    cr_expect_eq(req[0].sectors, 0xf);
    cr_expect_eq(coal_local_addr(3, 5, 1, 8) - coal_local_addr(3, 5, 0, 8), 4);
    cr_expect_eq(coal_local_addr(3, 5, 0, 12) - coal_local_addr(3, 5, 0, 8), 128);
    /* other warps and other SMs have their own regions */
    cr_expect_neq(coal_local_addr(3, 6, 0, 8), coal_local_addr(3, 5, 0, 8));
    cr_expect_neq(coal_local_addr(4, 5, 0, 8), coal_local_addr(3, 5, 0, 8));
}

Test(coalescer, local_8_bytes_splits_into_two_interleaved_words)
{
    TmAccess a = t_acc(TM_LOCAL, TM_WRITE, 8, 16, 0);
    cr_assert_eq(split(&a), 2);
    cr_expect_eq(req[0].line, coal_local_addr(3, 0, 0, 16));
    cr_expect_eq(req[1].line, coal_local_addr(3, 0, 0, 20));
    cr_expect_eq(req[0].sectors, 0xf);
    cr_expect_eq(req[1].sectors, 0xf);
}

Test(coalescer, local_per_thread_array_walk_is_scattered)
{
    TmAccess a = t_acc(TM_LOCAL, TM_READ, 4, 0, 4); /* thread l reads its word l */
    cr_assert_eq(split(&a), 32);
    cr_expect_eq(req[0].sectors, 0x1);
    cr_expect_eq(req[31].line, coal_local_addr(3, 0, 0, 31 * 4));
    cr_expect_eq(req[31].sectors, 0x8);
}

/* A reference splitter, byte by byte: every byte of every active lane, in lane order,
 * adds its sector to its line's request (appended when new). */
static unsigned reference_split(const TmAccess *a, TmReq *out)
{
    unsigned n = 0, size = a->size ? a->size : 1;
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!(a->mask >> lane & 1))
            continue;
        for (unsigned k = 0; k < size; k++) {
            uint64_t b = a->addr[lane] + k, line = b & ~127ull;
            unsigned i = 0;
            while (i < n && out[i].line != line)
                i++;
            if (i == n)
                out[n++] = (TmReq){.line = line};
            out[i].sectors |= (uint8_t)(1u << ((b - line) / 32));
        }
    }
    return n;
}

/* The split's shortcuts (one sector per lane, a warp in one line) against the reference,
 * on random global accesses of every size: aligned and not, clustered and scattered,
 * with random masks and repeated addresses. */
Test(coalescer, random_accesses_match_a_byte_by_byte_reference)
{
    static const uint64_t spans[3] = {256, 4096, 1u << 20};
    uint64_t x = 0x9e3779b97f4a7c15ull, span;
    for (int t = 0; t < 4000; t++) {
        TmAccess a = t_random_access(TM_GLOBAL, &x, t, spans, &span);
        a.mask |= 1u;
        for (unsigned l = 0; l < 32; l++) {
            t_next(&x);
            uint64_t off = (x >> 20) % span;
            if (t % 2)
                off &= ~(uint64_t)(a.size - 1); /* aligned */
            a.addr[l] = 0x10000 + (l && (x >> 60) == 0 ? a.addr[l - 1] - 0x10000 : off);
        }
        TmReq ref[COAL_MAX];
        unsigned n = reference_split(&a, ref);
        cr_assert_eq(split(&a), n, "access %d: request count", t);
        for (unsigned i = 0; i < n; i++) {
            cr_assert_eq(req[i].line, ref[i].line, "access %d, request %u: line", t, i);
            cr_assert_eq(req[i].sectors, ref[i].sectors, "access %d, request %u: sectors", t, i);
        }
    }
}
