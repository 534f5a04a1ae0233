/*
 * caba_mem.c - the `caba` memory-side transform (mem.transform; timing/slots.h): lines
 * kept compressed in DRAM, as CABA's memory side (Vijaykumar et al., "A Case for
 * Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4 and 5; docs/caba.md).
 *
 * What is stored. A line is compressed by caba.algo (BDI, FPC or C-Pack in CABA's forms,
 * compress.h; best: the smallest of the three) from its current bytes in device memory
 * (the functional model runs ahead at issue, so this is the line as the access leaves it).
 * A line that compresses is stored as one unit: a read moves its bursts
 * (ceil(compressed bytes / dram.burst_bytes)) and brings the whole line, so the L2 fills
 * every sector; a write-back writes it whole. A line that does not compress is stored as
 * it is and moves by sectors, as without compression. This is bandwidth only: the L2 and
 * the crossbar hold and move lines as they are.
 *
 * Where the bursts come from. Each memory controller keeps caba.md_bits of metadata per
 * line (the encoding; the bursts follow from it) in a DRAM region of its own, behind a
 * metadata cache (caba.md_cache_bytes, caba.md_cache_ways, LRU, lines of caba.md_line
 * bytes, each one DRAM burst). A read looks its line's metadata up first; a miss reads the
 * metadata line from DRAM. A read that does not know its bursts (a miss, or metadata still
 * on its way) reads the whole line's place at once, whatever sectors it asked for, as the
 * compressed line starts there if it is one (caba.md_miss = full), or waits for the
 * metadata (wait, the default). A write-back knows its new encoding and does not wait,
 * but it updates the metadata (a miss reads the metadata line, then it is dirty). A dirty
 * metadata line that is evicted is written back.
 *
 * The modes (caba.mode; the paper's designs):
 *   hw-mem  (HW-BDI-Mem) compressed in DRAM only: logic at each memory controller; a read
 *           of a compressed line reaches its L2 caba.latency_<codec> cycles after its
 *           data left DRAM. The L2 and the crossbar hold and move lines as they are.
 *   hw      (HW-BDI) compressed in DRAM and in the L2: a read fills the L2 as it left
 *           DRAM, and each read response crosses as the smaller of the compressed line
 *           and the sectors it asks for (decompressed at the L2); either way the line is
 *           decompressed once, by dedicated logic, and reaches the SM caba.latency_<codec>
 *           cycles after the crossbar delivered it.
 *   ideal   as hw with no decompression latency and metadata that costs nothing (no
 *           metadata cache, no metadata traffic).
 *   caba    (CABA) compressed in DRAM and in the L2, with no logic at either: a read
 *           response of a compressed line always crosses compressed, whole, marked for
 *           the SM's assist warps (TmReq.assist, caba_assist.c), which decompress it.
 *           Lines are compressed by the SMs' assist warps too: a line an SM writes
 *           uncompressed (TM_WR_PLAIN: no pending line was free, or it did not compress;
 *           or a write no assist warp saw, an atomic) is kept as it is, in the L2 and DRAM,
 *           until a write brings it compressed (TM_WR_PACKED). Lines the host copied in
 *           are compressed (the paper compresses them on the host), unless an SM last
 *           wrote them uncompressed: the memory side does not see the host's copies.
 * Under the other modes, compressing a write-back is off the SMs' path and costs no time
 * here, and a store crosses uncompressed (CABA assumes stores target uncompressed lines).
 */
#include <stdlib.h>
#include <string.h>
#include "mech/common/compress.h"
#include "mech/mech.h"
#include "mech/registry.h"

enum { CABA_BEST = -1 };
enum { CABA_HW_MEM, CABA_HW, CABA_IDEAL, CABA_ASSIST }; /* caba.mode */

/* A metadata-cache way: the metadata line it holds (its index in the channel's region). */
typedef struct MdWay {
    uint64_t tag, used;
    uint8_t valid, dirty, ready; /* ready: its DRAM read is back */
} MdWay;

typedef struct Caba {
    int algo;                  /* XcAlgo, or CABA_BEST */
    int mode;                  /* CABA_HW_MEM ... */
    int md_wait;               /* caba.md_miss = wait */
    unsigned latency[3];       /* per XcAlgo */
    unsigned line, sector, burst; /* l1.line, l1.sector, dram.burst_bytes */
    unsigned nchan, sets, ways;
    uint64_t per_md;           /* data lines one metadata line covers */
    MdWay *md;                 /* [nchan][sets][ways] */
    uint64_t *clock;           /* [nchan] LRU clock */
    uint8_t out[XC_LINE_MAX];
    /* caba: the lines kept uncompressed, an open-addressing set of line addresses with
     * their state (1: kept as they are, 0: compressed again); 0 is never a line */
    uint64_t *plain_key;
    uint8_t *plain_on;
    size_t plain_cap, plain_n;
} Caba;

static void *caba_init(const EmuConfig *cfg)
{
    Caba *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    static const char *const algos[] = {"bdi", "fpc", "cpack"};
    c->algo = CABA_BEST;
    for (int i = 0; i < 3; i++)
        if (strcmp(cfg->caba_algo, algos[i]) == 0)
            c->algo = i;
    c->md_wait = strcmp(cfg->caba_md_miss, "wait") == 0;
    c->mode = strcmp(cfg->caba_mode, "hw") == 0      ? CABA_HW
              : strcmp(cfg->caba_mode, "ideal") == 0 ? CABA_IDEAL
              : strcmp(cfg->caba_mode, "caba") == 0  ? CABA_ASSIST
                                                     : CABA_HW_MEM;
    c->latency[XC_BDI] = cfg->caba_latency_bdi;
    c->latency[XC_FPC] = cfg->caba_latency_fpc;
    c->latency[XC_CPACK] = cfg->caba_latency_cpack;
    c->line = cfg->l1_line, c->sector = cfg->l1_sector, c->burst = cfg->dram_burst_bytes;
    c->nchan = cfg->dram_channels * emu_config_device_gpus(cfg), c->ways = cfg->caba_md_cache_ways;
    c->sets = cfg->caba_md_cache_bytes / cfg->caba_md_line / c->ways;
    c->sets = c->sets ? c->sets : 1;
    c->per_md = (uint64_t)cfg->caba_md_line * 8 / cfg->caba_md_bits;
    c->md = calloc((size_t)c->nchan * c->sets * c->ways, sizeof *c->md);
    c->clock = calloc(c->nchan, sizeof *c->clock);
    if (!c->md || !c->clock) {
        free(c->md), free(c->clock), free(c);
        return NULL;
    }
    return c;
}

static void caba_free(void *state)
{
    Caba *c = state;
    if (c)
        free(c->md), free(c->clock), free(c->plain_key), free(c->plain_on);
    free(c);
}

/* The slot of line in the plain set (its own, or the empty one where it would go). */
static size_t plain_slot(const Caba *c, uint64_t line)
{
    size_t i = (size_t)((line >> 7) * 0x9e3779b97f4a7c15ull >> 20) & (c->plain_cap - 1);
    while (c->plain_key[i] && c->plain_key[i] != line)
        i = (i + 1) & (c->plain_cap - 1);
    return i;
}

static int plain_has(const Caba *c, uint64_t line)
{
    return c->plain_cap && c->plain_on[plain_slot(c, line)];
}

/* Sets line's state; -1 when host memory ran out (the line stays as it was). */
static int plain_set(Caba *c, uint64_t line, int on)
{
    if (!on && !plain_has(c, line))
        return 0;
    if (2 * (c->plain_n + 1) > c->plain_cap) {
        Caba old = *c;
        c->plain_cap = old.plain_cap ? 2 * old.plain_cap : 1024;
        c->plain_key = calloc(c->plain_cap, sizeof *c->plain_key);
        c->plain_on = calloc(c->plain_cap, 1);
        if (!c->plain_key || !c->plain_on) {
            free(c->plain_key), free(c->plain_on);
            c->plain_key = old.plain_key, c->plain_on = old.plain_on;
            c->plain_cap = old.plain_cap;
            return -1;
        }
        for (size_t i = 0; i < old.plain_cap; i++)
            if (old.plain_key[i]) {
                size_t j = plain_slot(c, old.plain_key[i]);
                c->plain_key[j] = old.plain_key[i], c->plain_on[j] = old.plain_on[i];
            }
        free(old.plain_key), free(old.plain_on);
    }
    size_t i = plain_slot(c, line);
    c->plain_n += !c->plain_key[i];
    c->plain_key[i] = line, c->plain_on[i] = (uint8_t)on;
    return 0;
}

/* The line at addr as stored: its codec and size (XC_ENC_RAW when it does not compress,
 * or is kept as it is). */
static XcInfo caba_store(Caba *c, uint64_t addr, const uint8_t *line)
{
    if (!line || !xc_line_ok(c->line) || plain_has(c, addr))
        return (XcInfo){.encoding = XC_ENC_RAW, .bytes = (uint16_t)c->line};
    if (c->algo != CABA_BEST)
        return xc_compress((XcAlgo)c->algo, line, c->line, c->out);
    XcInfo best = {.encoding = XC_ENC_RAW, .bytes = (uint16_t)c->line};
    for (int a = XC_BDI; a <= XC_CPACK; a++) { /* ties: the first, in this order */
        XcInfo i = xc_compress((XcAlgo)a, line, c->line, c->out);
        if (i.encoding != XC_ENC_RAW && i.bytes < best.bytes)
            best = i;
    }
    return best;
}

/* The metadata cache of channel ch: the way of metadata line meta, or the way to put it
 * in (an invalid way, else the least recently used of those whose read is back, else the
 * least recently used). *hit says which. */
static MdWay *md_find(Caba *c, unsigned ch, uint64_t meta, int *hit)
{
    MdWay *set = &c->md[((size_t)ch * c->sets + meta % c->sets) * c->ways], *victim = NULL;
    for (unsigned w = 0; w < c->ways; w++)
        if (set[w].valid && set[w].tag == meta) {
            *hit = 1;
            return &set[w];
        }
    *hit = 0;
    for (unsigned w = 0; w < c->ways && !victim; w++)
        if (!set[w].valid)
            victim = &set[w];
    if (victim)
        return victim;
    for (unsigned w = 0; w < c->ways; w++)
        if (set[w].ready && (!victim || set[w].used < victim->used))
            victim = &set[w];
    for (unsigned w = 0; w < c->ways; w++)
        if (!victim || (!victim->ready && set[w].used < victim->used))
            victim = &set[w];
    return victim;
}

static void caba_access(void *state, TmCounters *ctr, unsigned ch, uint64_t local,
                        const TmReq *r, const uint8_t *line, TmXfAccess *a)
{
    Caba *c = state;
    int write = r->kind == TM_WRITE;
    XcInfo i = caba_store(c, r->line, line);
    int packed = i.encoding != XC_ENC_RAW;
    ctr->caba_lines++;
    ctr->caba_line_bytes += c->line;
    ctr->caba_stored_bytes += packed ? i.bytes : c->line;
    if (packed) {
        ctr->caba_compressed++;
        ctr->caba_bdi_lines += i.algo == XC_BDI;
        ctr->caba_fpc_lines += i.algo == XC_FPC;
        ctr->caba_cpack_lines += i.algo == XC_CPACK;
        a->bursts = xc_bursts(i.bytes, c->burst);
        a->whole = 1;
        a->delay = write || c->mode != CABA_HW_MEM ? 0 : (uint16_t)c->latency[i.algo];
    }
    if (c->mode == CABA_IDEAL)
        return;
    uint64_t meta = local / c->per_md;
    int hit;
    MdWay *w = md_find(c, ch, meta, &hit);
    if (hit) {
        ctr->caba_md_hits++;
    } else {
        ctr->caba_md_misses++;
        if (w->valid && w->dirty) {
            a->meta_write = w->tag;
            ctr->caba_md_writebacks++;
        }
        *w = (MdWay){.tag = meta, .valid = 1};
        a->meta_read = meta;
    }
    w->used = ++c->clock[ch];
    w->dirty |= (uint8_t)write;
    if (w->ready || write)
        return;
    /* a read that does not know its bursts yet: it waits for them, or reads the whole
     * line's place, where the compressed line starts if it is one, whatever it asked for */
    if (c->md_wait) {
        a->meta_wait = meta;
        ctr->caba_md_waits += hit;
    } else {
        a->bursts = c->line / c->sector;
        a->whole = 1;
        ctr->caba_md_full_reads++;
    }
}

static void caba_respond(void *state, TmCounters *ctr, const TmReq *r, const uint8_t *line,
                         TmXfResponse *out)
{
    Caba *c = state;
    if (c->mode == CABA_HW_MEM)
        return;
    XcInfo i = caba_store(c, r->line, line);
    unsigned plain = tm_nsectors(r->sectors) * c->sector;
    ctr->caba_xbar_responses++;
    ctr->caba_xbar_plain_bytes += plain;
    if (i.encoding == XC_ENC_RAW) {
        ctr->caba_xbar_bytes += plain;
        return;
    }
    if (c->mode == CABA_ASSIST) { /* no logic at the L2: the line crosses as it is stored */
        ctr->caba_xbar_compressed++;
        ctr->caba_xbar_bytes += i.bytes;
        out->bytes = i.bytes;
        out->assist = (uint8_t)(1 + i.algo);
        out->enc = i.encoding;
        return;
    }
    int packed = i.bytes < plain;
    ctr->caba_xbar_compressed += packed;
    ctr->caba_xbar_bytes += packed ? i.bytes : plain;
    out->bytes = packed ? i.bytes : 0;
    out->delay = c->mode == CABA_IDEAL ? 0 : c->latency[i.algo];
}

static void caba_meta_done(void *state, unsigned ch, uint64_t meta)
{
    Caba *c = state;
    int hit;
    MdWay *w = md_find(c, ch, meta, &hit);
    if (hit)
        w->ready = 1;
}

/* caba: what the SM did with a line it wrote decides how it is kept. */
static void caba_written(void *state, TmCounters *ctr, const TmReq *r)
{
    Caba *c = state;
    if (c->mode != CABA_ASSIST)
        return;
    int packed = r->kind == TM_WRITE && r->assist == TM_WR_PACKED;
    ctr->caba_plain_writes += !packed;
    (void)plain_set(c, r->line, !packed); /* out of host memory: kept as before */
}

const TmTransformOps tm_xf_caba = {.name = "caba", .init = caba_init, .free = caba_free,
                                   .access = caba_access, .meta_done = caba_meta_done,
                                   .respond = caba_respond, .written = caba_written};

/* CABA's keys (docs/caba.md); caba.mode itself selects mem.transform and core.assist
 * (keys.def). The codecs take 64- and 128-byte lines. */
static int caba_check(const EmuConfig *c, char *err, size_t n)
{
    int caba = strcmp(c->mem_transform, "caba") == 0;
    if (strcmp(c->caba_mode, "caba") == 0 && c->core_mem_latency) {
        snprintf(err, n, "caba.mode = caba needs the memory system (core.mem_latency = 0)");
        return -1;
    }
    if (c->caba_assist_regs != EMU_CFG_AUTO && c->caba_assist_regs > 255) {
        snprintf(err, n, "caba.assist_regs: at most 255 registers per thread, got %llu",
                 (unsigned long long)c->caba_assist_regs);
        return -1;
    }
    if (caba && c->l1_line != 64 && c->l1_line != 128) {
        snprintf(err, n, "mem.transform = caba: the line compressors take 64- or 128-byte "
                 "lines, l1.line is %u", c->l1_line);
        return -1;
    }
    if (caba && c->caba_md_line > c->dram_burst_bytes) {
        snprintf(err, n, "caba.md_line: a metadata line is one DRAM burst, at most "
                 "dram.burst_bytes = %u, got %u", c->dram_burst_bytes, c->caba_md_line);
        return -1;
    }
    if (caba && c->caba_md_cache_bytes < c->caba_md_line * c->caba_md_cache_ways) {
        snprintf(err, n, "caba.md_cache_bytes: %u bytes hold less than one set of %u ways of "
                 "%u-byte lines", c->caba_md_cache_bytes, c->caba_md_cache_ways,
                 c->caba_md_line);
        return -1;
    }
    return 0;
}

const EmuMech emu_mech_caba = {.name = "caba", .check = caba_check};
