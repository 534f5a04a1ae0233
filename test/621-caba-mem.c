/*
 * 621-caba-mem.c - CABA's compressed memory (mem.transform = caba, caba.mode = hw-mem,
 * hw, ideal; docs/caba.md), through the LD/ST unit and the real memory system, with a
 * device memory the test makes up. A compressed line moves its compressed bursts
 * and reaches the L2 caba.latency_<codec> cycles after its data; an incompressible one
 * moves every sector with no delay; a read first finds its metadata in the metadata cache
 * or causes a one-burst metadata read, and then reads the whole line at once or (md_miss =
 * wait) waits for the metadata, as does a read whose metadata is already on its way; dirty metadata evicted from the cache is written back. Under hw a
 * line crosses compressed and is decompressed at the SM; under ideal, at no cost and
 * without metadata. The keys go together and are checked.
 */
#include "500-mem-util.h"
#include "mech/common/compress.h"

/* One bank per channel makes a metadata read and the data read behind it meet the same
 * bank, so the timing is the arithmetic below; 1 slice and 1 channel keep it one queue. */
#define CFG T_SAME_CLOCKS ";l2.slices=1;dram.channels=1;mem.transform=caba;caba.mode=hw-mem"
/* a read whose metadata is missing waits for it (caba.md_miss = wait, the default), or
 * reads the whole line at once (full) */
#define WAIT CFG
#define FULL CFG ";caba.md_miss=full"

/* The made-up memory: every line reads as `line`. */
typedef struct Fake {
    uint8_t line[128];
} Fake;

static int fake_read(void *ctx, uint64_t addr, uint8_t *buf, unsigned n)
{
    Fake *f = ctx;
    (void)addr;
    if (n > sizeof f->line)
        return -1;
    memcpy(buf, f->line, n);
    return 0;
}

static void open_with(TMem *t, const char *set, Fake *f)
{
    t_mem_open(t, set);
    memsys_set_reader(t->m, fake_read, f);
}

/* An incompressible line: a byte pattern no codec packs. */
static void noise(Fake *f)
{
    uint64_t x = 12345;
    for (unsigned i = 0; i < sizeof f->line; i++)
        f->line[i] = (uint8_t)(t_next(&x) >> 56);
}

Test(caba_mem, a_compressed_line_moves_its_bursts_after_a_metadata_read)
{
    TMem t;
    Fake f = {{0}}; /* all zero: BDI's zeros encoding, 1 byte, one burst */
    EmuConfig c = t_cfg(WAIT);
    open_with(&t, WAIT, &f);
    TmAccess a = t_line_read(0x10000), b = t_line_read(0x10000 + 128);
    Cycle cold = t_latency(&t, 0, &a, 1);
    cr_expect_eq(t.ctr.caba_md_misses, 1);
    cr_expect_eq(t.ctr.dram_meta_accesses, 1, "one metadata burst read");
    cr_expect_eq(t.ctr.dram_reads, 2);
    cr_expect_eq(t.ctr.caba_compressed, 1);
    cr_expect_eq(t.ctr.caba_bdi_lines, 1);
    cr_expect_eq(t.ctr.dram_bursts_saved, 3);
    cr_expect_eq(t.ctr.dram_bytes, 2 * c.dram_burst_bytes, "metadata + one data burst");
    /* the next line shares the metadata line (64 lines per 32-byte metadata line) and the
     * DRAM row: it moves one burst, decompressed caba.latency_bdi cycles later */
    Cycle warm = t_latency(&t, 0, &b, 2);
    cr_expect_eq(t.ctr.caba_md_hits, 1);
    cr_expect_eq(t.ctr.dram_meta_accesses, 1);
    cr_expect_eq(warm, t_miss_latency(&c, 4, 1) - 3 * c.dram_burst_cycles + c.caba_latency_bdi,
                 "row hit, one burst, then decompression");
    cr_expect_gt(cold, warm);
    t_mem_close(&t);
}

Test(caba_mem, the_metadata_read_is_a_dram_access_of_its_own)
{
    /* cold: the metadata read opens the metadata row (a row miss); the data read then
     * finds its bank open at another row (a conflict) -- one bank makes this certain */
    TMem t;
    Fake f = {{0}};
    const char *set = WAIT ";dram.banks=1;dram.bank_groups=1";
    EmuConfig c = t_cfg(set);
    open_with(&t, set, &f);
    TmAccess a = t_line_read(0x10000);
    Cycle cold = t_latency(&t, 0, &a, 1);
    cr_expect_eq(t.ctr.dram_row_misses, 2, "both reads activate a row");
    cr_expect_eq(t.ctr.dram_row_conflicts, 1, "the data read closes the metadata row");
    /* the metadata read: activate at the arrival, data back after tRCD + tCL + a burst and
     * dram.latency; the data read arrives then and waits for tRAS of the metadata row
     * (the precharge), tRP, tRCD, tCL, its burst, dram.latency and the decompression */
    Cycle arrive = c.icnt_latency + c.l2_latency;
    Cycle meta = arrive + c.dram_trcd + c.dram_tcl + c.dram_burst_cycles + c.dram_latency;
    Cycle pre = arrive + c.dram_tras > meta ? arrive + c.dram_tras : meta;
    Cycle data = pre + c.dram_trp + c.dram_trcd + c.dram_tcl + c.dram_burst_cycles +
                 c.dram_latency + c.caba_latency_bdi;
    cr_expect_eq(cold, data + c.icnt_latency + 3, "the response crosses uncompressed: 4 flits");
    t_mem_close(&t);
}

Test(caba_mem, a_read_without_its_metadata_reads_the_whole_line_at_once)
{
    /* caba.md_miss = full: the cold read moves the whole line's four bursts beside the
     * metadata read, so it is no slower than an uncompressed cold read behind one more
     * DRAM access; the next read knows its metadata and moves one burst */
    TMem t;
    Fake f = {{0}};
    Cycle lat[2];
    for (int k = 0; k < 2; k++) {
        open_with(&t, k ? FULL : WAIT, &f);
        TmAccess a = t_line_read(0x10000);
        lat[k] = t_latency(&t, 0, &a, 1);
        if (k) {
            cr_expect_eq(t.ctr.caba_md_full_reads, 1);
            cr_expect_eq(t.ctr.dram_bytes, 5 * t.cfg.dram_burst_bytes, "metadata + 4 bursts");
            TmAccess b = t_line_read(0x10000 + 128);
            t_latency(&t, 0, &b, 2);
            cr_expect_eq(t.ctr.dram_bytes, 6 * t.cfg.dram_burst_bytes, "then one burst");
            cr_expect_eq(t.ctr.caba_md_full_reads, 1);
        }
        t_mem_close(&t);
    }
    cr_expect_lt(lat[1], lat[0], "not waiting for the metadata is faster");
}

Test(caba_mem, an_incompressible_line_moves_every_sector_without_delay)
{
    TMem t;
    Fake f;
    noise(&f);
    EmuConfig c = t_cfg(CFG);
    open_with(&t, CFG, &f);
    TmAccess a = t_line_read(0x10000), b = t_line_read(0x10000 + 128);
    t_latency(&t, 0, &a, 1);
    Cycle warm = t_latency(&t, 0, &b, 2);
    cr_expect_eq(t.ctr.caba_compressed, 0);
    cr_expect_eq(t.ctr.caba_lines, 2);
    cr_expect_eq(t.ctr.caba_stored_bytes, t.ctr.caba_line_bytes);
    cr_expect_eq(t.ctr.dram_bursts_saved, 0);
    cr_expect_eq(warm, t_miss_latency(&c, 4, 1), "as without compression, after the metadata");
    t_mem_close(&t);
}

Test(caba_mem, a_read_waits_for_metadata_already_on_its_way)
{
    TMem t;
    Fake f = {{0}};
    open_with(&t, WAIT, &f);
    TmAccess a = t_line_read(0x10000), b = t_line_read(0x10000 + 128);
    t_issue(&t, 0, &a, 1);
    t_issue(&t, 1, &b, 2);
    Cycle da = t_wait(&t, 0, 1), db = t_wait(&t, 1, 2);
    cr_expect_eq(t.ctr.caba_md_misses, 1);
    cr_expect_eq(t.ctr.caba_md_waits, 1);
    cr_expect_eq(t.ctr.dram_meta_accesses, 1, "one metadata read serves both");
    cr_expect_gt(da, 0);
    cr_expect_gt(db, 0);
    t_mem_close(&t);
}

Test(caba_mem, every_codec_and_best)
{
    /* a 128-byte line: 16 zero words, then the words 1..16. BDI: B4-D1 (4 mask + 4 base +
     * 32 deltas = 40 B, two bursts; B8-D1 fails, as an 8-byte value pairs two words). FPC:
     * 4 zero segments and 4 of 8-bit words (3 head + 16 = 19 B, one burst). C-Pack: 16
     * zzzz and 16 zzzx words (16 head + 16 payload = 32 B, one burst). best: FPC. */
    static const struct { const char *algo; unsigned bursts, codec; } want[] = {
        {"bdi", 2, 0}, {"fpc", 1, 1}, {"cpack", 1, 2}, {"best", 1, 1}};
    Fake f = {{0}};
    for (unsigned i = 0; i < 16; i++)
        xc_store(f.line + 64 + 4 * i, i + 1, 4);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        TMem t;
        char set[256];
        snprintf(set, sizeof set, WAIT ";caba.algo=%s", want[k].algo);
        open_with(&t, set, &f);
        TmAccess a = t_line_read(0x10000);
        t_latency(&t, 0, &a, 1);
        uint64_t lines[3] = {t.ctr.caba_bdi_lines, t.ctr.caba_fpc_lines, t.ctr.caba_cpack_lines};
        cr_expect_eq(lines[want[k].codec], 1, "%s: codec", want[k].algo);
        cr_expect_eq(t.ctr.dram_bytes, (1 + want[k].bursts) * t.cfg.dram_burst_bytes,
                     "%s: metadata + %u bursts", want[k].algo, want[k].bursts);
        t_mem_close(&t);
    }
}

Test(caba_mem, dirty_metadata_is_written_back)
{
    /* a one-line metadata cache; two written lines 64 lines apart use two metadata lines:
     * the second write-back evicts the first's dirty metadata */
    TMem t;
    Fake f = {{0}};
    const char *set = CFG ";caba.md_cache_bytes=32;caba.md_cache_ways=1;l2.sets=1;l2.ways=1";
    open_with(&t, set, &f);
    TmAccess w0 = t_acc(TM_GLOBAL, TM_WRITE, 4, 0x10000, 4);
    TmAccess w1 = t_acc(TM_GLOBAL, TM_WRITE, 4, 0x10000 + 64 * 128, 4);
    TmAccess w2 = t_acc(TM_GLOBAL, TM_WRITE, 4, 0x10000 + 128 * 128, 4);
    t_latency(&t, 0, &w0, 1);
    t_latency(&t, 0, &w1, 2); /* evicts line 0 from the L2: its write-back */
    t_latency(&t, 0, &w2, 3); /* evicts line 64: its write-back evicts line 0's metadata */
    t_drain(&t);
    cr_expect_eq(t.ctr.dram_writes - t.ctr.caba_md_writebacks, 2, "two data write-backs");
    cr_expect_eq(t.ctr.caba_md_misses, 2);
    cr_expect_eq(t.ctr.caba_md_writebacks, 1);
    cr_expect_eq(t.ctr.dram_meta_accesses, 3, "two metadata reads, one write");
    t_mem_close(&t);
}

/* Latencies of a cold read of line 0x10000, a read of the next line (metadata cached, row
 * open, L2 miss) and a read of that line again (an L2 hit), all-zero memory. */
static void three_reads(const char *set, TMem *t, Cycle lat[3])
{
    static Fake f; /* all zero */
    open_with(t, set, &f);
    TmAccess a = t_line_read(0x10000), b = t_line_read(0x10000 + 128);
    lat[0] = t_latency(t, 0, &a, 1);
    lat[1] = t_latency(t, 0, &b, 2);
    /* the L1 holds b now: another SM reads it from the L2 */
    lat[2] = t_latency(t, 1, &b, 3);
}

Test(caba_mem, hw_moves_compressed_lines_on_the_crossbar_and_decompresses_at_the_sm)
{
    TMem t;
    Cycle mem[3], hw[3];
    EmuConfig c = t_cfg(CFG);
    three_reads(CFG, &t, mem);
    cr_expect_eq(t.ctr.caba_xbar_responses, 0, "hw-mem leaves the crossbar alone");
    t_mem_close(&t);
    three_reads(CFG ";caba.mode=hw", &t, hw);
    /* a 1-byte line crosses as one flit instead of four, and is decompressed at the SM
     * instead of at the memory controller: the same latency in cycles */
    cr_expect_eq(hw[1], mem[1] - 3, "L2 miss: one flit, decompression moved to the SM");
    cr_expect_eq(hw[1], t_miss_latency(&c, 4, 1) - 3 * c.dram_burst_cycles - 3 +
                            c.caba_latency_bdi);
    cr_expect_eq(hw[2], mem[2] - 3 + c.caba_latency_bdi, "L2 hit: one flit, then decompression");
    cr_expect_eq(t.ctr.caba_xbar_responses, 3);
    cr_expect_eq(t.ctr.caba_xbar_compressed, 3);
    cr_expect_eq(t.ctr.caba_xbar_bytes, 3, "three 1-byte lines");
    cr_expect_eq(t.ctr.caba_xbar_plain_bytes, 3 * 128);
    cr_expect_eq(t.ctr.dram_meta_accesses, 1);
    t_mem_close(&t);
}

Test(caba_mem, ideal_costs_no_latency_and_no_metadata)
{
    TMem t;
    Cycle hw[3], ideal[3];
    EmuConfig c = t_cfg(CFG);
    three_reads(CFG ";caba.mode=hw", &t, hw);
    t_mem_close(&t);
    three_reads(CFG ";caba.mode=ideal", &t, ideal);
    cr_expect_eq(ideal[1], hw[1] - c.caba_latency_bdi);
    cr_expect_eq(ideal[2], hw[2] - c.caba_latency_bdi);
    cr_expect_lt(ideal[0], hw[0] - c.caba_latency_bdi, "no metadata read before the first");
    cr_expect_eq(t.ctr.dram_meta_accesses, 0);
    cr_expect_eq(t.ctr.caba_md_hits + t.ctr.caba_md_misses, 0);
    cr_expect_eq(t.ctr.caba_compressed, 2);
    t_mem_close(&t);
}

Test(caba_mem, a_response_crosses_as_the_smaller_of_line_and_sectors)
{
    /* one sector of a line that compresses to 40 bytes (BDI B4-D1 on 128 B) crosses as its
     * 32 raw bytes, still decompressed once */
    TMem t;
    Fake f = {{0}};
    for (unsigned i = 0; i < 32; i++)
        xc_store(f.line + 4 * i, 1000 + i, 4);
    open_with(&t, CFG ";caba.mode=hw", &f);
    TmAccess one = t_acc(TM_GLOBAL, TM_READ, 4, 0x10000, 0); /* every lane: one word */
    t_latency(&t, 0, &one, 1);
    cr_expect_eq(t.ctr.caba_xbar_responses, 1);
    cr_expect_eq(t.ctr.caba_xbar_compressed, 0);
    cr_expect_eq(t.ctr.caba_xbar_bytes, 32);
    cr_expect_eq(t.ctr.caba_compressed, 1, "stored compressed all the same");
    t_mem_close(&t);
}

static void expect_refused(const char *set, const char *what)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    int rc = emu_config_set_list(&c, set, "test", err, sizeof err);
    if (rc == 0)
        rc = emu_config_check(&c, err, sizeof err);
    cr_expect_neq(rc, 0, "%s accepted", set);
    cr_expect(strstr(err, what), "%s: '%s' does not name %s", set, err, what);
}

/* caba.mode alone selects the slots it needs; set the other way, they are refused. */
static void expect_selects(const char *set, const char *transform, const char *assist)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    cr_assert_eq(emu_config_set_list(&c, set, "test", err, sizeof err), 0, "%s", err);
    cr_expect_eq(emu_config_check(&c, err, sizeof err), 0, "%s: %s", set, err);
    cr_expect_str_eq(c.mem_transform, transform, "%s", set);
    cr_expect_str_eq(c.core_assist, assist, "%s", set);
}

Test(caba_mem, keys_go_together_and_are_checked)
{
    expect_selects("caba.mode=hw-mem", "caba", "none");
    expect_selects("caba.mode=caba", "caba", "caba");
    expect_selects("caba.mode=caba;caba.mode=hw", "caba", "none");
    expect_selects("caba.mode=caba;caba.mode=off", "none", "none");
    expect_refused("mem.transform=caba", "mem.transform");
    expect_refused("caba.mode=hw;mem.transform=zero", "mem.transform");
    expect_refused("caba.mode=hw;core.assist=caba", "core.assist");
    expect_refused("caba.mode=caba;core.assist=none", "core.assist");
    expect_refused("mem.transform=caba;caba.mode=hw-mem;l1.line=32", "l1.line");
    expect_refused("mem.transform=caba;caba.mode=hw-mem;caba.md_line=64", "caba.md_line");
    expect_refused("mem.transform=caba;caba.mode=hw-mem;caba.md_cache_bytes=64",
                   "caba.md_cache_bytes");
    expect_refused("caba.algo=lz4", "caba.algo");
    expect_refused("caba.md_bits=3", "caba.md_bits");
    expect_refused("caba.md_miss=guess", "caba.md_miss");
}
