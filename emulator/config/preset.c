/*
 * preset.c - presets (named configuration files), the configuration dump and listing.
 *
 * A preset is a flat `key = value` file NAME.ini in the presets directory: $XGPU_PRESETS_DIR
 * when set, else the directory compiled in as XGPU_PRESETS_DIR_DEFAULT (the source tree's
 * emulator/config/presets). A value with a '/' or ending in ".ini" is a path instead; a
 * path or preset that is a directory is refused when loaded (config.c). The
 * dump writes every key of the table, so loading a dump over the defaults reproduces the
 * configuration exactly (reals are printed so that they read back bit for bit).
 */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef XGPU_PRESETS_DIR_DEFAULT
#define XGPU_PRESETS_DIR_DEFAULT "presets"
#endif

const char *emu_presets_dir(void)
{
    const char *env = getenv("XGPU_PRESETS_DIR");
    return env && *env ? env : XGPU_PRESETS_DIR_DEFAULT;
}

static int preset_is_path(const char *s)
{
    size_t len = strlen(s);
    return strchr(s, '/') != NULL || (len >= 4 && strcmp(s + len - 4, ".ini") == 0);
}

int emu_preset_path(const char *name_or_path, char *buf, size_t n, char *err, size_t errn)
{
    if (preset_is_path(name_or_path)) {
        snprintf(buf, n, "%s", name_or_path);
        return 0;
    }
    const char *dir = emu_presets_dir();
    if ((size_t)snprintf(buf, n, "%s/%s.ini", dir, name_or_path) >= n) {
        snprintf(err, errn, "%s: preset path too long", name_or_path);
        return -1;
    }
    FILE *f = fopen(buf, "r");
    if (!f) {
        snprintf(err, errn, "%s: unknown preset (no %s.ini in %s; a file path needs a '/')",
                 name_or_path, name_or_path, dir);
        return -1;
    }
    fclose(f);
    return 0;
}

int emu_config_load(EmuConfig *c, const char *name_or_path, char *err, size_t n)
{
    char path[1024];
    if (emu_preset_path(name_or_path, path, sizeof path, err, n))
        return -1;
    return emu_config_load_file(c, path, err, n);
}

static int preset_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first "# ..." line of a preset: its one-line description. */
static void preset_title(const char *dir, const char *file, char *buf, size_t n)
{
    char path[1024], line[256];
    buf[0] = 0;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (line[0] == '#') {
            line[strcspn(line, "\n")] = 0;
            snprintf(buf, n, "%s", line + 1 + (line[1] == ' '));
            break;
        }
    fclose(f);
}

int emu_presets_list(FILE *f)
{
    const char *dir = emu_presets_dir();
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || e->d_name[0] == '.' || strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        char path[1024];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue; /* a directory named *.ini is no preset */
        char **p = realloc(names, (count + 1) * sizeof *names);
        if (!p)
            break;
        names = p;
        if (!(names[count] = strdup(e->d_name)))
            break;
        count++;
    }
    closedir(d);
    if (count) /* qsort needs a non-null array even for zero elements */
        qsort(names, count, sizeof *names, preset_cmp);
    for (size_t i = 0; i < count; i++) {
        char title[200];
        preset_title(dir, names[i], title, sizeof title);
        fprintf(f, "%-12.*s %s\n", (int)(strlen(names[i]) - 4), names[i], title);
        free(names[i]);
    }
    free(names);
    return (int)count;
}

/* "gpu.sm_count" and "gpu.name" belong to one group: the text before the first '.'. */
static int same_group(const char *a, const char *b)
{
    size_t la = strcspn(a, "."), lb = strcspn(b, ".");
    return la == lb && strncmp(a, b, la) == 0;
}

int emu_config_dump(const EmuConfig *c, FILE *f)
{
    fprintf(f, "# xgpu configuration: every key with its effective value.\n"
               "# Load it with XGPU_CONFIG=FILE or xgpu-run --config FILE.\n");
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        const EmuCfgKey *k = &emu_cfg_keys[i];
        char value[128];
        emu_config_format(c, k, value, sizeof value);
        if (i == 0 || !same_group(k->key, emu_cfg_keys[i - 1].key))
            fputc('\n', f);
        if (k->type == EMU_CFG_ENUM)
            fprintf(f, "# %s (one of: %s)\n", k->desc, k->unit);
        else if (k->unit[0])
            fprintf(f, "# %s [%s]\n", k->desc, k->unit);
        else
            fprintf(f, "# %s\n", k->desc);
        fprintf(f, "%s = %s\n", k->key, value);
    }
    return ferror(f) ? -1 : 0;
}
