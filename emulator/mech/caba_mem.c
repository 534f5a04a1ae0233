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
 * bytes, each one DRAM burst). A read looks its line's metadata up first: a miss reads the
 * metadata line from DRAM and the data read waits for it; a read that finds the metadata
 * line still on its way waits for the same read. A write-back knows its new encoding and
 * does not wait, but it updates the metadata (a miss reads the metadata line, then it is
 * dirty). A dirty metadata line that is evicted is written back.
 *
 * hw-mem (the paper's HW-BDI-Mem): compression and decompression logic at each memory
 * controller; a read of a compressed line reaches its L2 caba.latency_<codec> cycles
 * after its data left DRAM. Compressing a write-back is off the SMs' path and costs no
 * time here.
 */
#include <stdlib.h>
#include <string.h>
#include "mech/compress.h"
#include "mech/mech.h"

enum { CABA_BEST = -1 };

/* A metadata-cache way: the metadata line it holds (its index in the channel's region). */
typedef struct MdWay {
    uint64_t tag, used;
    uint8_t valid, dirty, ready; /* ready: its DRAM read is back */
} MdWay;

typedef struct Caba {
    int algo;                  /* XcAlgo, or CABA_BEST */
    unsigned latency[3];       /* per XcAlgo */
    unsigned line, burst;      /* l1.line, dram.burst_bytes */
    unsigned nchan, sets, ways;
    uint64_t per_md;           /* data lines one metadata line covers */
    MdWay *md;                 /* [nchan][sets][ways] */
    uint64_t *clock;           /* [nchan] LRU clock */
    uint8_t out[XC_LINE_MAX];
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
    c->latency[XC_BDI] = cfg->caba_latency_bdi;
    c->latency[XC_FPC] = cfg->caba_latency_fpc;
    c->latency[XC_CPACK] = cfg->caba_latency_cpack;
    c->line = cfg->l1_line, c->burst = cfg->dram_burst_bytes;
    c->nchan = cfg->dram_channels, c->ways = cfg->caba_md_cache_ways;
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
        free(c->md), free(c->clock);
    free(c);
}

/* The line as stored: its codec and size (XC_ENC_RAW when it does not compress). */
static XcInfo caba_store(Caba *c, const uint8_t *line)
{
    if (!line || !xc_line_ok(c->line))
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
    XcInfo i = caba_store(c, line);
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
        a->delay = write ? 0 : (uint16_t)c->latency[i.algo];
    }
    uint64_t meta = local / c->per_md;
    int hit;
    MdWay *w = md_find(c, ch, meta, &hit);
    if (hit) {
        ctr->caba_md_hits++;
        if (!w->ready && !write) {
            a->meta_wait = meta;
            ctr->caba_md_waits++;
        }
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
}

static void caba_meta_done(void *state, unsigned ch, uint64_t meta)
{
    Caba *c = state;
    int hit;
    MdWay *w = md_find(c, ch, meta, &hit);
    if (hit)
        w->ready = 1;
}

const TmTransformOps tm_xf_caba = {.name = "caba", .init = caba_init, .free = caba_free,
                                   .access = caba_access, .meta_done = caba_meta_done};
