/*
 * config.c - defaults, the key table and the parsers for config.def.
 *
 * Everything is table-driven: a key is parsed by its EmuCfgType and written at its
 * offset in EmuConfig, so adding a key to config.def is the whole change. Integers accept
 * decimal or 0x hex with an optional binary suffix (K, M, G, or KiB, MiB, GiB); reals are
 * finite strtod numbers; ENUM values must be one of the key's listed choices. Cross-key
 * rules (emu_config_check) are a table of key names, so they hold for keys of every .def.
 * Presets, the dump and the environment are in preset.c.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMU_STR(x) #x

const EmuCfgKey emu_cfg_keys[] = {
#define CFG(id, key, type, def, unit, desc) \
    {key, EMU_CFG_##type, offsetof(EmuConfig, id), EMU_STR(def), unit, desc},
#include "config.def"
};
const size_t emu_cfg_nkeys = sizeof emu_cfg_keys / sizeof emu_cfg_keys[0];

static const char *const mode_names[] = {"functional", "timing"};

void emu_config_defaults(EmuConfig *c)
{
    char err[16];
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        char def[128];
        const char *s = emu_cfg_keys[i].def;
        size_t len = strlen(s);
        if (len >= 2 && s[0] == '"') { /* string defaults are stringified literals */
            snprintf(def, sizeof def, "%.*s", (int)(len - 2), s + 1);
            s = def;
        }
        (void)emu_config_set(c, emu_cfg_keys[i].key, s, err, sizeof err);
    }
}

const EmuCfgKey *emu_config_key(const char *key)
{
    for (size_t i = 0; i < emu_cfg_nkeys; i++)
        if (strcmp(emu_cfg_keys[i].key, key) == 0)
            return &emu_cfg_keys[i];
    return NULL;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno)
        return -1;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M')
        mul = 1ull << 20;
    else if (*end == 'G')
        mul = 1ull << 30;
    if (mul != 1) {
        end++;
        if (strcmp(end, "iB") == 0)
            end += 2;
    }
    if (*end || (v && mul > UINT64_MAX / v) || v * mul > max)
        return -1;
    *out = v * mul;
    return 0;
}

static int parse_f64(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || isspace((unsigned char)*s) || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(s, yes[i]) == 0)
            return *out = true, 0;
        if (strcmp(s, no[i]) == 0)
            return *out = false, 0;
    }
    return -1;
}

/* Is value one of the '|'-separated names in choices? */
static int enum_has(const char *choices, const char *value)
{
    size_t len = strlen(value);
    for (const char *p = choices; len && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, value, len) == 0)
            return 1;
        p += n + (bar != NULL);
    }
    return 0;
}

/* The types whose values are not plain integers or text. */
static int set_other(const EmuCfgKey *k, char *field, const char *value, char *err, size_t n)
{
    switch (k->type) {
    case EMU_CFG_F64:
        if (parse_f64(value, (double *)field) == 0)
            return 0;
        snprintf(err, n, "%s: expected a real number, got '%s'", k->key, value);
        return -1;
    case EMU_CFG_BOOL:
        if (parse_bool(value, (bool *)field) == 0)
            return 0;
        snprintf(err, n, "%s: expected true or false, got '%s'", k->key, value);
        return -1;
    case EMU_CFG_ENUM:
        if (strlen(value) < 32 && enum_has(k->unit, value)) {
            strcpy(field, value);
            return 0;
        }
        snprintf(err, n, "%s: expected one of %s, got '%s'", k->key, k->unit, value);
        return -1;
    default:
        snprintf(err, n, "%s: unsupported key type", k->key);
        return -1;
    }
}

int emu_config_set(EmuConfig *c, const char *key, const char *value, char *err, size_t n)
{
    const EmuCfgKey *k = emu_config_key(key);
    if (!k) {
        snprintf(err, n, "%s: unknown configuration key", key);
        return -1;
    }
    char *field = (char *)c + k->offset;
    uint64_t v;
    switch (k->type) {
    case EMU_CFG_STR:
        if (strlen(value) >= 64) {
            snprintf(err, n, "%s: value longer than 63 bytes", key);
            return -1;
        }
        if (strpbrk(value, "#;\n")) { /* would not survive a config file or XGPU_SET */
            snprintf(err, n, "%s: value may not contain '#', ';' or a newline", key);
            return -1;
        }
        strcpy(field, value);
        return 0;
    case EMU_CFG_U32:
        if (parse_u64(value, UINT32_MAX, &v)) {
            snprintf(err, n, "%s: expected an unsigned 32-bit integer, got '%s'", key, value);
            return -1;
        }
        *(uint32_t *)field = (uint32_t)v;
        return 0;
    case EMU_CFG_U64:
        if (parse_u64(value, UINT64_MAX, &v)) {
            snprintf(err, n, "%s: expected an unsigned integer, got '%s'", key, value);
            return -1;
        }
        *(uint64_t *)field = v;
        return 0;
    case EMU_CFG_MODE:
        for (uint32_t m = 0; m < 2; m++)
            if (strcmp(value, mode_names[m]) == 0) {
                *(uint32_t *)field = m;
                return 0;
            }
        snprintf(err, n, "%s: expected functional or timing, got '%s'", key, value);
        return -1;
    default:
        return set_other(k, field, value, err, n);
    }
}

/* Copies s[0..len) into buf without surrounding whitespace. */
static void trim_copy(char *buf, size_t n, const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
}

/* Splits "key = value" (or key=value) and applies it. */
static int set_pair(EmuConfig *c, const char *item, size_t len, char *err, size_t n)
{
    const char *eq = memchr(item, '=', len);
    char key[128], value[256];
    if (!eq) {
        trim_copy(key, sizeof key, item, len);
        snprintf(err, n, "%s: expected key=value", key);
        return -1;
    }
    trim_copy(key, sizeof key, item, (size_t)(eq - item));
    trim_copy(value, sizeof value, eq + 1, len - (size_t)(eq - item) - 1);
    return emu_config_set(c, key, value, err, n);
}

int emu_config_set_list(EmuConfig *c, const char *list, const char *what, char *err, size_t n)
{
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char probe[2];
        trim_copy(probe, sizeof probe, p, len);
        if (probe[0]) {
            char msg[256];
            if (set_pair(c, p, len, msg, sizeof msg)) {
                snprintf(err, n, "%s: %s", what, msg);
                return -1;
            }
        }
        p += len + (end != NULL);
    }
    return 0;
}

int emu_config_load_file(EmuConfig *c, const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, n, "%s: cannot open configuration file: %s", path, strerror(errno));
        return -1;
    }
    char line[512], msg[256];
    int rc = 0;
    for (unsigned ln = 1; fgets(line, sizeof line, f); ln++) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char probe[2];
        trim_copy(probe, sizeof probe, line, strlen(line));
        if (!probe[0])
            continue;
        if (set_pair(c, line, strlen(line), msg, sizeof msg)) {
            snprintf(err, n, "%s:%u: %s", path, ln, msg);
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}

/* Per-key rules by name, for keys of any .def; a rule whose key is not declared (yet) is
 * skipped. Sizes that index by bit masks must be powers of two. */
typedef enum CfgRule { RULE_POSITIVE, RULE_POW2 } CfgRule;

static const struct { const char *key; CfgRule rule; } cfg_rules[] = {
    {"core.subcores", RULE_POSITIVE},
    {"core.max_ctas_per_sm", RULE_POSITIVE},
    {"core.wb_ports", RULE_POSITIVE},
    {"rf.banks_per_subcore", RULE_POSITIVE},
    {"rf.collectors_per_subcore", RULE_POSITIVE},
    {"l1.line", RULE_POW2},
    {"l1.sector", RULE_POW2},
    {"l1.ways", RULE_POSITIVE},
    {"l1.mshrs", RULE_POSITIVE},
    {"l2.line", RULE_POW2},
    {"l2.sector", RULE_POW2},
    {"l2.sets", RULE_POW2},
    {"l2.slices", RULE_POSITIVE},
    {"l2.ways", RULE_POSITIVE},
    {"l2.mshrs", RULE_POSITIVE},
    {"smem.banks", RULE_POW2},
    {"dram.channels", RULE_POSITIVE},
    {"dram.banks", RULE_POSITIVE},
    {"dram.row_bytes", RULE_POW2},
    {"dram.clock_khz", RULE_POSITIVE},
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

static int cfg_check_rules(const EmuConfig *c, char *err, size_t n)
{
    for (size_t i = 0; i < sizeof cfg_rules / sizeof cfg_rules[0]; i++) {
        uint64_t v;
        if (cfg_uint(c, cfg_rules[i].key, &v))
            continue;
        if (v == 0) {
            snprintf(err, n, "%s: must be at least 1", cfg_rules[i].key);
            return -1;
        }
        if (cfg_rules[i].rule == RULE_POW2 && (v & (v - 1))) {
            snprintf(err, n, "%s: must be a power of two, got %llu", cfg_rules[i].key,
                     (unsigned long long)v);
            return -1;
        }
    }
    return 0;
}

long emu_config_sthld(const EmuConfig *c)
{
    if (strcmp(c->memento_sthld, "dynamic") == 0)
        return -1;
    uint64_t v;
    if (parse_u64(c->memento_sthld, c->memento_sthld_max, &v))
        return -2;
    return (long)v;
}

/* The collector and Memento keys (docs/memento.md). */
static int cfg_check_memento(const EmuConfig *c, char *err, size_t n)
{
    int ccu = strcmp(c->rf_collector, "ccu") == 0;
    if (c->rf_bow_window < 1 || c->rf_bow_window > 64) {
        snprintf(err, n, "rf.bow_window: must be 1..64, got %u", c->rf_bow_window);
        return -1;
    }
    if (c->rf_rfc_entries < 1 || c->rf_rfc_entries > 64) {
        snprintf(err, n, "rf.rfc_entries: must be 1..64, got %u", c->rf_rfc_entries);
        return -1;
    }
    if ((strcmp(c->core_sched, "rfc") == 0 || strcmp(c->core_sched, "swrfc") == 0) &&
        strcmp(c->rf_collector, "ocu") != 0) {
        snprintf(err, n, "core.sched: %s has its own register-file cache; use rf.collector = "
                         "ocu (got %s)", c->core_sched, c->rf_collector);
        return -1;
    }
    if (strncmp(c->core_sched, "memento", 7) == 0 && !ccu) {
        snprintf(err, n, "core.sched: %s needs rf.collector = ccu (got %s)", c->core_sched,
                 c->rf_collector);
        return -1;
    }
    if (c->rf_ct_entries < 1 || c->rf_ct_entries > 64) {
        snprintf(err, n, "rf.ct_entries: must be 1..64, got %u", c->rf_ct_entries);
        return -1;
    }
    if (emu_config_sthld(c) < -1) {
        snprintf(err, n, "memento.sthld: expected dynamic or a number 0..%u "
                         "(memento.sthld_max), got '%s'", c->memento_sthld_max, c->memento_sthld);
        return -1;
    }
    if (c->memento_interval == 0) {
        snprintf(err, n, "memento.interval: must be at least 1");
        return -1;
    }
    if (c->memento_sl_boundary < 0) {
        snprintf(err, n, "memento.sl_boundary: must not be negative");
        return -1;
    }
    const struct { const char *key; double v; } energy[] = {
        {"energy.bank_read", c->energy_bank_read}, {"energy.bank_write", c->energy_bank_write},
        {"energy.xbar", c->energy_xbar},           {"energy.ct_read", c->energy_ct_read},
        {"energy.ct_write", c->energy_ct_write},   {"energy.arbiter", c->energy_arbiter},
    };
    for (size_t i = 0; i < sizeof energy / sizeof energy[0]; i++)
        if (energy[i].v < 0) {
            snprintf(err, n, "%s: must not be negative", energy[i].key);
            return -1;
        }
    return 0;
}

int emu_config_check(const EmuConfig *c, char *err, size_t n)
{
    const struct { const char *key; uint64_t v; } positive[] = {
        {"gpu.sm_count", c->gpu_sm_count},
        {"gpu.max_threads_per_block", c->gpu_max_threads_per_block},
        {"gpu.max_threads_per_sm", c->gpu_max_threads_per_sm},
        {"gpu.regs_per_sm", c->gpu_regs_per_sm},
        {"gpu.global_mem_bytes", c->gpu_global_mem_bytes},
        {"gpu.clock_khz", c->gpu_clock_khz},
        {"gpu.issue_width", c->gpu_issue_width},
        {"emu.printf_fifo_bytes", c->emu_printf_fifo_bytes},
    };
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
        if (positive[i].v == 0) {
            snprintf(err, n, "%s: must be at least 1", positive[i].key);
            return -1;
        }
    if (c->gpu_shared_per_block > c->gpu_shared_per_sm) {
        snprintf(err, n, "gpu.shared_per_block: %llu exceeds gpu.shared_per_sm (%llu)",
                 (unsigned long long)c->gpu_shared_per_block,
                 (unsigned long long)c->gpu_shared_per_sm);
        return -1;
    }
    if (c->gpu_max_threads_per_block > c->gpu_max_threads_per_sm) {
        snprintf(err, n, "gpu.max_threads_per_block: exceeds gpu.max_threads_per_sm");
        return -1;
    }
    if (cfg_check_memento(c, err, n))
        return -1;
    return cfg_check_rules(c, err, n);
}

int emu_config_from_env(EmuConfig *c, char *err, size_t n)
{
    emu_config_defaults(c);
    const char *file = getenv("XGPU_CONFIG");
    if (file && *file && emu_config_load(c, file, err, n))
        return -1;
    const char *set = getenv("XGPU_SET");
    if (set && emu_config_set_list(c, set, "XGPU_SET", err, n))
        return -1;
    const char *mode = getenv("XGPU_MODE");
    if (mode && *mode) {
        char msg[256];
        if (emu_config_set(c, "emu.mode", mode, msg, sizeof msg)) {
            snprintf(err, n, "XGPU_MODE: %s", msg);
            return -1;
        }
    }
    const char *summary = getenv("XGPU_SUMMARY");
    if (summary && *summary) {
        char msg[256];
        if (emu_config_set(c, "emu.summary", summary, msg, sizeof msg)) {
            snprintf(err, n, "XGPU_SUMMARY: %s", msg);
            return -1;
        }
    }
    return emu_config_check(c, err, n);
}

/* The shortest of %.15g..%.17g that reads back as the same double. */
static int format_f64(char *buf, size_t n, double v)
{
    int len = 0;
    for (int prec = 15; prec <= 17; prec++) {
        len = snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return len;
}

int emu_config_format(const EmuConfig *c, const EmuCfgKey *k, char *buf, size_t n)
{
    const char *field = (const char *)c + k->offset;
    switch (k->type) {
    case EMU_CFG_STR:
        return snprintf(buf, n, "%s", field);
    case EMU_CFG_U32:
        return snprintf(buf, n, "%u", *(const uint32_t *)field);
    case EMU_CFG_U64:
        return snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)field);
    case EMU_CFG_MODE:
        return snprintf(buf, n, "%s", mode_names[*(const uint32_t *)field & 1]);
    case EMU_CFG_F64:
        return format_f64(buf, n, *(const double *)field);
    case EMU_CFG_BOOL:
        return snprintf(buf, n, "%s", *(const bool *)field ? "true" : "false");
    case EMU_CFG_ENUM:
        return snprintf(buf, n, "%s", field);
    }
    return 0;
}
