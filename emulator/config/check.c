/*
 * check.c - emu_config_check: the ranges of every key and the cross-key rules, applied
 * once the configuration is complete (emu_create), so that a configuration that passes
 * never makes a launch fail because of its values.
 *
 * Ranges are a table of key names (any .def; a row whose key is not declared is
 * skipped): a minimum, a maximum and, for sizes used as bit masks, a power-of-two rule.
 * Maxima are where a larger value would break the model (16-bit slot ids, 64-bit bank
 * masks, the 4 GiB shared window) or make the timing model allocate absurd amounts of
 * host memory; they are far above any GPU. The rules between keys follow, each
 * function the checks of one part of the model, in the order the timing model builds its
 * units; then the slots the mechanisms' mode keys chose, and each mechanism's own rules
 * (its EmuMech.check, mech/registry.h), whose ranges are rows of the table too. Every
 * message starts "key: ", says what the value must satisfy and what it was.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "xgpu/isa.h"
#include "timing/cache_index.h"
#include "timing/dram.h"
#include "mech/registry.h"

#define MAX_U32 UINT32_MAX
#define MAX_U64 UINT64_MAX

/* The device window starts at XGPU_GLOBAL_BASE and the runtime takes every address of
 * [XGPU_GLOBAL_BASE, XGPU_GLOBAL_BASE + device memory) for a device address, so no host
 * pointer may lie there. x86-64 Linux maps a program's own image and heap from 2/3 of
 * its 128 TiB user space up (0x555555554000, ELF_ET_DYN_BASE) and its stacks and shared
 * libraries near the top: 64 TiB of device memory ends well below both. */
#define CFG_GLOBAL_MAX (64ull << 40)
#define CFG_GLOBAL_WHY "the device window must end below the host's own addresses"

typedef struct CfgRange {
    const char *key;
    uint64_t min, max;
    int pow2;          /* the value must be a power of two */
    const char *why;   /* reason of the maximum, or NULL */
} CfgRange;

static const CfgRange cfg_ranges[] = {
    /* key                          min  max          pow2 why the maximum */
    {"gpu.sm_count",                1,   1024,        0, "the timing model builds every SM"},
    {"system.gpus",                 1,   16,          0, "the runtime's table of devices"},
    {"system.link_bytes_per_cycle", 1,   MAX_U32,     0, NULL},
    {"system.link_latency",         1,   MAX_U32,     0, NULL},
    {"system.link_header_bytes",    1,   4096,        0, NULL},
    {"numa.interleave_bytes",       1,   1ull << 40,  1, NULL},
    {"numa.page_bytes",             1,   1ull << 40,  1, NULL},
    {"gpu.max_threads_per_block",   1,   MAX_U32,     0, NULL},
    {"gpu.max_threads_per_sm",      1,   65536,       0, "2048 warp slots"},
    {"gpu.regs_per_sm",             1,   MAX_U32,     0, NULL},
    {"gpu.shared_per_block",        0,   XGPU_WINDOW_SIZE, 0, "the shared window"},
    {"gpu.global_mem_bytes",        1,   CFG_GLOBAL_MAX, 0, CFG_GLOBAL_WHY},
    {"gpu.clock_khz",               1,   MAX_U32,     0, NULL},
    {"gpu.issue_width",             1,   MAX_U32,     0, NULL},
    {"emu.printf_fifo_bytes",       1,   MAX_U64,     0, NULL},
    {"emu.its_spin",                1,   1u << 31,    0, NULL},
    {"core.subcores",               1,   64,          0, NULL},
    {"core.max_ctas_per_sm",        1,   1024,        0, NULL},
    {"core.sched_active",           1,   MAX_U32,     0, NULL},
    {"core.wb_ports",               1,   MAX_U32,     0, NULL},
    {"core.issue_width",            1,   64,          0, NULL},
    {"unit.int.lanes",              0,   1024,        0, "32 warp instructions a cycle"},
    {"unit.fp.lanes",               0,   1024,        0, "32 warp instructions a cycle"},
    {"unit.dp.lanes",               0,   1024,        0, "32 warp instructions a cycle"},
    {"unit.sfu.lanes",              0,   1024,        0, "32 warp instructions a cycle"},
    {"core.collect_stages",         0,   64,          0, "a stage is a pipeline register"},
    {"core.dispatch_stages",        0,   64,          0, "a stage is a pipeline register"},
    {"core.exec_stages",            0,   64,          0, "a stage is a pipeline register"},
    {"core.wb_stages",              0,   64,          0, "a stage is a pipeline register"},
    {"rf.banks_per_subcore",        1,   256,         0, "one bank per register"},
    {"rf.collectors_per_subcore",   1,   256,         0, NULL},
    {"unit.int.ii",                 1,   MAX_U32,     0, NULL},
    {"unit.fp.ii",                  1,   MAX_U32,     0, NULL},
    {"unit.dp.ii",                  1,   MAX_U32,     0, NULL},
    {"unit.sfu.ii",                 1,   MAX_U32,     0, NULL},
    {"unit.tensor.ii",              1,   MAX_U32,     0, NULL},
    {"unit.ldst.ii",                1,   MAX_U32,     0, NULL},
    {"l1.bytes",                    1,   64u << 20,   0, NULL},
    {"l1.ways",                     1,   MAX_U32,     0, NULL},
    {"l1.line",                     1,   4096,        1, NULL},
    {"l2.prefetch_degree",          0,   64,          0, NULL},
    {"l2.prefetch_queue",           1,   MAX_U32,     0, NULL},
    {"l1.sector",                   1,   4096,        1, NULL},
    {"l1.mshrs",                    1,   4096,        0, NULL},
    {"l1.mshr_merge",               1,   1024,        0, NULL},
    {"l1.ports",                    1,   MAX_U32,     0, NULL},
    {"tex.bytes",                   1,   64u << 20,   0, NULL},
    {"l1.prefetch_queue",           1,   4096,        0, NULL},
    {"tex.ways",                    1,   MAX_U32,     0, NULL},
    {"tex.mshrs",                   1,   4096,        0, NULL},
    {"tex.mshr_merge",              1,   1024,        0, NULL},
    {"const.bytes",                 1,   64u << 20,   0, NULL},
    {"const.ways",                  1,   MAX_U32,     0, NULL},
    {"const.mshrs",                 1,   4096,        0, NULL},
    {"const.mshr_merge",            1,   1024,        0, NULL},
    {"um.page_bytes",               4096, 1u << 30,   1, NULL},
    {"um.bytes_per_cycle",          1,   MAX_U32,     0, NULL},
    {"smem.banks",                  1,   64,          1, "a 64-bit bank mask"},
    {"smem.bank_bytes",             1,   MAX_U32,     1, NULL},
    {"icnt.latency",                1,   MAX_U32,     0, NULL},
    {"icnt.flit_bytes",             1,   MAX_U32,     0, NULL},
    {"icnt.port_flits",             1,   MAX_U32,     0, NULL},
    {"l2.slices",                   1,   1024,        0, NULL},
    {"l2.sets",                     1,   1u << 20,    1, NULL},
    {"l2.ways",                     1,   1024,        0, NULL},
    {"l2.mshrs",                    1,   4096,        0, NULL},
    {"l2.mshr_merge",               1,   1024,        0, NULL},
    {"dram.channels",               1,   1024,        0, NULL},
    {"dram.banks",                  1,   1024,        0, NULL},
    {"dram.row_bytes",              1,   MAX_U32,     1, NULL},
    {"dram.clock_khz",              1,   MAX_U32,     0, NULL},
    {"dram.burst_bytes",            1,   MAX_U32,     0, NULL},
    {"dram.burst_cycles",           1,   MAX_U32,     0, NULL},
    {"dram.queue",                  1,   4096,        0, NULL},
    {"dram.write_queue",            1,   4096,        0, NULL},
    {"dram.bank_groups",            1,   1024,        0, NULL},
    {"l2.queue",                    1,   65536,       0, NULL},
    /* the mechanisms' keys (emulator/mech/NAME/keys.def) */
#define CFG_RANGE(key, min, max, pow2, why) {key, min, max, pow2, why},
#include "mech/all_keys.def"
};

/* An integer key's value (U32/U64), or -1 when the key is missing or not an integer. */
static int cfg_uint(const EmuConfig *c, const char *key, uint64_t *v)
{
    const EmuCfgKey *k = emu_config_key(key);
    if (!k)
        return -1;
    const char *field = (const char *)c + k->offset;
    if (k->type == EMU_CFG_U32)
        *v = *(const uint32_t *)field;
    else if (k->type == EMU_CFG_U64)
        *v = *(const uint64_t *)field;
    else
        return -1;
    return 0;
}

static int cfg_check_ranges(const EmuConfig *c, char *err, size_t n)
{
    for (size_t i = 0; i < sizeof cfg_ranges / sizeof cfg_ranges[0]; i++) {
        const CfgRange *r = &cfg_ranges[i];
        uint64_t v;
        if (cfg_uint(c, r->key, &v))
            continue;
        unsigned long long uv = v;
        if (v < r->min) {
            snprintf(err, n, "%s: must be at least %llu, got %llu", r->key,
                     (unsigned long long)r->min, uv);
            return -1;
        }
        if (v > r->max) {
            snprintf(err, n, "%s: must be at most %llu%s%s%s, got %llu", r->key,
                     (unsigned long long)r->max, r->why ? " (" : "", r->why ? r->why : "",
                     r->why ? ")" : "", uv);
            return -1;
        }
        if (r->pow2 && (v & (v - 1))) {
            snprintf(err, n, "%s: must be a power of two, got %llu", r->key, uv);
            return -1;
        }
    }
    return 0;
}

/* The CUDA-visible limits. */
static int cfg_check_gpu(const EmuConfig *c, char *err, size_t n)
{
    if (c->gpu_shared_per_block > c->gpu_shared_per_sm) {
        snprintf(err, n, "gpu.shared_per_block: %llu exceeds gpu.shared_per_sm (%llu)",
                 (unsigned long long)c->gpu_shared_per_block,
                 (unsigned long long)c->gpu_shared_per_sm);
        return -1;
    }
    if (c->gpu_max_threads_per_block > c->gpu_max_threads_per_sm) {
        snprintf(err, n, "gpu.max_threads_per_block: %u exceeds gpu.max_threads_per_sm (%u)",
                 c->gpu_max_threads_per_block, c->gpu_max_threads_per_sm);
        return -1;
    }
    uint32_t gpus = emu_config_device_gpus(c);
    if (gpus > 1 && (uint64_t)gpus * c->gpu_sm_count > 4096) {
        snprintf(err, n, "gpu.sm_count: %u GPUs of %u SMs make %llu SMs in one device, at "
                 "most 4096", gpus, c->gpu_sm_count, (unsigned long long)gpus * c->gpu_sm_count);
        return -1;
    }
    if (gpus > 1 && c->gpu_global_mem_bytes > CFG_GLOBAL_MAX / gpus) {
        snprintf(err, n, "gpu.global_mem_bytes: %u GPUs of %llu bytes exceed the global "
                 "address window (%llu bytes: %s); at most %llu bytes each", gpus,
                 (unsigned long long)c->gpu_global_mem_bytes, CFG_GLOBAL_MAX, CFG_GLOBAL_WHY,
                 CFG_GLOBAL_MAX / gpus);
        return -1;
    }
    if (c->numa_interleave < c->l1_line || c->numa_page < c->l1_line) {
        snprintf(err, n, "%s: %llu is smaller than a line (l1.line = %u)",
                 c->numa_interleave < c->l1_line ? "numa.interleave_bytes" : "numa.page_bytes",
                 (unsigned long long)(c->numa_interleave < c->l1_line ? c->numa_interleave
                                                                     : c->numa_page),
                 c->l1_line);
        return -1;
    }
    if (emu_config_devices(c) > 1 && c->gpu_global_mem_bytes > XGPU_GPU_SPAN) {
        snprintf(err, n, "gpu.global_mem_bytes: %llu exceeds the %llu bytes of address space "
                 "each GPU of a system.gpus = %u system has",
                 (unsigned long long)c->gpu_global_mem_bytes,
                 (unsigned long long)XGPU_GPU_SPAN, c->system_gpus);
        return -1;
    }
    return 0;
}

/* The SM: warp slots are dealt to the sub-cores round robin, at most 256 each. */
static int cfg_check_core(const EmuConfig *c, char *err, size_t n)
{
    uint32_t warps = c->gpu_max_threads_per_sm / XGPU_WARP_SIZE;
    uint32_t per_sc = (warps + c->core_subcores - 1) / c->core_subcores;
    if (warps && c->core_subcores > warps) {
        snprintf(err, n, "core.subcores: %u sub-cores, more than the %u warp slots of an SM "
                 "(gpu.max_threads_per_sm / 32)", c->core_subcores, warps);
        return -1;
    }
    if (per_sc > 256) {
        snprintf(err, n, "core.subcores: %u warp slots per sub-core (gpu.max_threads_per_sm / "
                 "32 / core.subcores), at most 256, got %u sub-cores", per_sc, c->core_subcores);
        return -1;
    }
    return 0;
}

/* The energy per event of the register file and the memory system (docs/stats.md). */
static int cfg_check_energy(const EmuConfig *c, char *err, size_t n)
{
    const struct { const char *key; double v; } energy[] = {
        {"energy.bank_read", c->energy_bank_read}, {"energy.bank_write", c->energy_bank_write},
        {"energy.xbar", c->energy_xbar},           {"energy.ct_read", c->energy_ct_read},
        {"energy.ct_write", c->energy_ct_write},   {"energy.arbiter", c->energy_arbiter},
        {"energy.dram_activate", c->energy_dram_activate},
        {"energy.dram_burst", c->energy_dram_burst}, {"energy.icnt_flit", c->energy_icnt_flit},
    };
    for (size_t i = 0; i < sizeof energy / sizeof energy[0]; i++)
        if (energy[i].v < 0) {
            snprintf(err, n, "%s: must not be negative, got %g", energy[i].key, energy[i].v);
            return -1;
        }
    return 0;
}


/* The sets of a read-only cache beside the L1 (tex.*, const.*): whole sets of l1.line
 * lines. */
static int side_cache_sets(const char *name, uint64_t bytes, unsigned ways, unsigned line,
                           unsigned *sets, char *err, size_t n)
{
    uint64_t lines = bytes / line;
    if (bytes % line || lines == 0 || lines % ways) {
        snprintf(err, n, "%s.bytes: must be a non-zero multiple of l1.line x %s.ways "
                 "(%u x %u), got %llu", name, name, line, ways, (unsigned long long)bytes);
        return -1;
    }
    *sets = (unsigned)(lines / ways);
    return 0;
}

/* The L1: l1.bytes / l1.line lines in sets of l1.ways, lines of at most 8 sectors; the
 * texture cache: tex.bytes / l1.line lines in sets of tex.ways. */
static int cfg_check_l1(const EmuConfig *c, char *err, size_t n)
{
    uint64_t lines = c->l1_bytes / c->l1_line;
    if (c->l1_sector > c->l1_line) {
        snprintf(err, n, "l1.sector: %u is larger than l1.line (%u)", c->l1_sector, c->l1_line);
        return -1;
    }
    if (c->l1_line / c->l1_sector > 8) {
        snprintf(err, n, "l1.sector: l1.line / l1.sector must be at most 8 sectors per line, "
                 "got %u / %u = %u", c->l1_line, c->l1_sector, c->l1_line / c->l1_sector);
        return -1;
    }
    if (c->l1_bytes % c->l1_line || lines == 0) {
        snprintf(err, n, "l1.bytes: must be a non-zero multiple of l1.line (%u), got %llu",
                 c->l1_line, (unsigned long long)c->l1_bytes);
        return -1;
    }
    if (lines % c->l1_ways) {
        snprintf(err, n, "l1.ways: l1.bytes / l1.line (%llu lines) must be a multiple of "
                 "l1.ways, got %u", (unsigned long long)lines, c->l1_ways);
        return -1;
    }
    unsigned tsets, ksets;
    if (side_cache_sets("tex", c->tex_bytes, c->tex_ways, c->l1_line, &tsets, err, n) ||
        side_cache_sets("const", c->const_bytes, c->const_ways, c->l1_line, &ksets, err, n))
        return -1;
    /* each cache's set-index function must be defined for its set count */
    if (!cache_index_open("l1.index", "l1", c->l1_index, (unsigned)(lines / c->l1_ways), err, n) ||
        !cache_index_open("tex.index", "tex", c->tex_index, tsets, err, n) ||
        !cache_index_open("const.index", "const", c->const_index, ksets, err, n))
        return -1;
    return 0;
}

/* The memory system behind the L1: L2 slices (lines of l1.line bytes), DRAM rows. */
static int cfg_check_mem(const EmuConfig *c, char *err, size_t n)
{
    if ((uint64_t)c->l2_sets * c->l2_ways * c->l2_slices > (1u << 24)) {
        snprintf(err, n, "l2.sets: l2.sets x l2.ways x l2.slices must be at most 16777216 "
                 "lines, got %u x %u x %u", c->l2_sets, c->l2_ways, c->l2_slices);
        return -1;
    }
    if (c->dram_row_bytes < c->l1_line) {
        snprintf(err, n, "dram.row_bytes: %u is smaller than a line (l1.line = %u)",
                 c->dram_row_bytes, c->l1_line);
        return -1;
    }
    if (!cache_index_open("l2.index", "l2", c->l2_index, c->l2_sets, err, n) ||
        dram_check(c, err, n) < 0)
        return -1;
    return 0;
}

/* Policies named by STR keys (a table of names each, like an ENUM's choices). */
static int cfg_check_names(const EmuConfig *c, char *err, size_t n)
{
    const struct { const char *key, *value, *choices; } names[] = {
        {"l1.policy", c->l1_policy, "lru|fifo"},
        {"tex.policy", c->tex_policy, "lru|fifo"},
        {"const.policy", c->const_policy, "lru|fifo"},
        {"l2.policy", c->l2_policy, "lru|fifo"},
        {"l2.slice_hash", c->l2_slice_hash, "mod|xor|ipoly"},
        {"dram.scheduler", c->dram_scheduler, "fr-fcfs|fcfs"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *p = names[i].choices;
        size_t len = strlen(names[i].value);
        int found = 0;
        while (*p && !found) {
            size_t k = strcspn(p, "|");
            found = k == len && strncmp(p, names[i].value, len) == 0;
            p += k + (p[k] == '|');
        }
        if (!found) {
            snprintf(err, n, "%s: expected one of %s, got '%s'", names[i].key, names[i].choices,
                     names[i].value);
            return -1;
        }
    }
    return 0;
}

int emu_config_check(const EmuConfig *c, char *err, size_t n)
{
    if (cfg_check_ranges(c, err, n) || cfg_check_gpu(c, err, n) || cfg_check_core(c, err, n) ||
        cfg_check_energy(c, err, n) || cfg_check_names(c, err, n) || cfg_check_l1(c, err, n) ||
        cfg_check_mem(c, err, n) || emu_config_check_implied(c, err, n) ||
        emu_mech_check(c, err, n))
        return -1;
    return 0;
}
