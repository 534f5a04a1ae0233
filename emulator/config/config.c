/*
 * config.c - defaults, the key table and the parsers for config.def.
 *
 * Everything is table-driven: a key is parsed by its EmuCfgType and written at its
 * offset in EmuConfig, so adding a key to config.def is the whole change. Integers accept
 * decimal or 0x hex with an optional binary suffix (K, M, G, or KiB, MiB, GiB); reals are
 * finite strtod numbers; ENUM values must be one of the key's listed choices; U64_AUTO
 * takes "auto" or an integer. Configuration files are read a whole line at a time (any
 * length). Ranges and cross-key rules (emu_config_check) are in check.c; presets and the
 * dump in preset.c.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mech/choices.h"

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

/* A mechanism's mode key that chooses the policy slots it occupies: setting mode to one of
 * `modes` sets slot to value. The choice is the mechanism's alone (CFG_IMPLY, exclusive):
 * setting the mode to anything else gives back a slot that held value (its default
 * again), and emu_config_check refuses a slot that disagrees with the mode either way;
 * or the mechanism needs it but others may use it too (CFG_SETS): the slot is only
 * checked while the mode asks for it. Later settings of the slot's own key win. */
static const struct {
    const char *mode, *modes, *slot, *value;
    int exclusive;
} cfg_implied[] = {
#define CFG_IMPLY(mode, modes, slot, value) {mode, modes, slot, value, 1},
#define CFG_SETS(mode, modes, slot, value) {mode, modes, slot, value, 0},
#include "mech/all_keys.def"
    {NULL, NULL, NULL, NULL, 0}, /* sentinel: no mechanism may have a mode key */
};
#define NIMPLIED (sizeof cfg_implied / sizeof cfg_implied[0] - 1)

static int cfg_set(EmuConfig *c, const char *key, const char *value, char *err, size_t n);

static int cfg_imply(EmuConfig *c, const char *key, const char *value, char *err, size_t n)
{
    for (size_t i = 0; i < NIMPLIED; i++) {
        if (strcmp(cfg_implied[i].mode, key) != 0)
            continue;
        const EmuCfgKey *s = emu_config_key(cfg_implied[i].slot);
        const char *held = (const char *)c + s->offset;
        if (enum_has(cfg_implied[i].modes, value)) {
            if (cfg_set(c, s->key, cfg_implied[i].value, err, n))
                return -1;
        } else if (cfg_implied[i].exclusive && strcmp(held, cfg_implied[i].value) == 0) {
            char def[64];
            snprintf(def, sizeof def, "%.*s", (int)strlen(s->def) - 2, s->def + 1);
            if (cfg_set(c, s->key, def, err, n))
                return -1;
        }
    }
    return 0;
}

int emu_config_check_implied(const EmuConfig *c, char *err, size_t n)
{
    for (size_t i = 0; i < NIMPLIED; i++) {
        const char *mode = (const char *)c + emu_config_key(cfg_implied[i].mode)->offset;
        const char *slot = (const char *)c + emu_config_key(cfg_implied[i].slot)->offset;
        int want = enum_has(cfg_implied[i].modes, mode);
        int held = strcmp(slot, cfg_implied[i].value) == 0;
        if ((want || cfg_implied[i].exclusive) && want != held) {
            snprintf(err, n, "%s: %s = %s %s %s = %s (got %s = %s)", cfg_implied[i].slot,
                     cfg_implied[i].mode, mode, want ? "sets" : "does not use",
                     cfg_implied[i].slot, cfg_implied[i].value, cfg_implied[i].slot, slot);
            return -1;
        }
    }
    return 0;
}

int emu_config_set(EmuConfig *c, const char *key, const char *value, char *err, size_t n)
{
    return cfg_set(c, key, value, err, n) || cfg_imply(c, key, value, err, n) ? -1 : 0;
}

static int cfg_set(EmuConfig *c, const char *key, const char *value, char *err, size_t n)
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
    case EMU_CFG_U64_AUTO:
        if (strcmp(value, "auto") == 0) {
            *(uint64_t *)field = EMU_CFG_AUTO;
            return 0;
        }
        if (parse_u64(value, EMU_CFG_AUTO - 1, &v)) {
            snprintf(err, n, "%s: expected auto or an unsigned integer, got '%s'", key, value);
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
    if (!key[0]) {
        snprintf(err, n, "empty key name before '=' (in '=%.60s')", value);
        return -1;
    }
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

/* Opens path for reading as a configuration file: a regular file or a pipe. A directory
 * or a character device (/dev/zero would be read until memory runs out) is refused. */
static FILE *config_open(const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, n, "%s: cannot open configuration file: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    const char *why = NULL;
    if (fstat(fileno(f), &sb) != 0) {
        why = strerror(errno);
    } else if (S_ISDIR(sb.st_mode)) {
        snprintf(err, n, "%s: is a directory, not a configuration file", path);
        fclose(f);
        return NULL;
    } else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode))
        why = "is a device, not a file";
    if (why) {
        snprintf(err, n, "cannot read configuration file %s: %s", path, why);
        fclose(f);
        return NULL;
    }
    return f;
}

/* Applies one line (ln: its number; without its newline) of configuration file path. */
static int load_line(EmuConfig *c, char *line, size_t len, const char *path, unsigned ln,
                     char *err, size_t n)
{
    char msg[256];
    if (memchr(line, 0, len)) {
        snprintf(err, n, "%s:%u: NUL byte in a configuration file", path, ln);
        return -1;
    }
    if (ln == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0) /* a UTF-8 byte order mark */
        line += 3;
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char probe[2];
    trim_copy(probe, sizeof probe, line, strlen(line));
    if (probe[0] && set_pair(c, line, strlen(line), msg, sizeof msg)) {
        snprintf(err, n, "%s:%u: %s", path, ln, msg);
        return -1;
    }
    return 0;
}

/* A line getline cannot read (out of memory for a long one, a read error) is an error,
 * never the end of the file: the keys after it would silently be dropped. */
int emu_config_load_file(EmuConfig *c, const char *path, char *err, size_t n)
{
    FILE *f = config_open(path, err, n);
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    unsigned ln = 1;
    errno = 0;
    while (!rc && (len = getline(&line, &cap, f)) >= 0) {
        rc = load_line(c, line, (size_t)len, path, ln++, err, n);
        errno = 0;
    }
    if (!rc && (ferror(f) || !feof(f))) {
        snprintf(err, n, "cannot read configuration file %s: %s (line %u)", path,
                 strerror(errno ? errno : EIO), ln);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

uint32_t emu_config_device_gpus(const EmuConfig *c)
{
    return strcmp(c->system_memory, "separate") ? c->system_gpus : 1;
}

uint32_t emu_config_devices(const EmuConfig *c)
{
    return strcmp(c->system_memory, "separate") ? 1 : c->system_gpus;
}

/* XGPU_PROGRESS: a boolean (1 = always, 0 = never) or one of emu.progress's names. */
static int env_progress(EmuConfig *c, const char *v, char *err, size_t n)
{
    bool on;
    char msg[256];
    if (parse_bool(v, &on) == 0)
        v = on ? "always" : "never";
    if (emu_config_set(c, "emu.progress", v, msg, sizeof msg)) {
        snprintf(err, n, "XGPU_PROGRESS: expected 1, 0, auto, never or always, got '%s'", v);
        return -1;
    }
    return 0;
}

uint64_t emu_config_budget(const EmuConfig *c)
{
    if (c->emu_max_warp_insns == EMU_CFG_AUTO)
        return c->emu_mode == EMU_MODE_TIMING ? EMU_BUDGET_AUTO_TIMING
                                              : EMU_BUDGET_AUTO_FUNCTIONAL;
    return c->emu_max_warp_insns ? c->emu_max_warp_insns : UINT64_MAX;
}

int emu_config_from(EmuConfig *c, const char *config, const char *set, char *err, size_t n)
{
    emu_config_defaults(c);
    if (config && *config && emu_config_load(c, config, err, n))
        return -1;
    if (set && emu_config_set_list(c, set, "settings", err, n))
        return -1;
    return emu_config_check(c, err, n);
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
    const char *progress = getenv("XGPU_PROGRESS");
    if (progress && *progress && env_progress(c, progress, err, n))
        return -1;
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
    case EMU_CFG_U64_AUTO:
        if (*(const uint64_t *)field == EMU_CFG_AUTO)
            return snprintf(buf, n, "auto");
        return snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)field);
    }
    return 0;
}
