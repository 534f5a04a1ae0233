/*
 * config.h - the emulator's configuration: a struct generated from config.def, and the
 * parsers that fill it.
 *
 * Precedence, lowest first: defaults, the file named by XGPU_CONFIG, the XGPU_SET list,
 * XGPU_MODE. Every error names the key (and FILE:LINE for files); unknown keys are errors.
 * Derived limits (EmuProps) are computed once in device.c from the finished struct.
 */
#ifndef EMU_CONFIG_H
#define EMU_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum EmuMode { EMU_MODE_FUNCTIONAL, EMU_MODE_TIMING } EmuMode;

typedef enum EmuCfgType { EMU_CFG_STR, EMU_CFG_U32, EMU_CFG_U64, EMU_CFG_MODE } EmuCfgType;

#define EMU_CFG_FIELD_STR(id) char id[64];
#define EMU_CFG_FIELD_U32(id) uint32_t id;
#define EMU_CFG_FIELD_U64(id) uint64_t id;
#define EMU_CFG_FIELD_MODE(id) uint32_t id; /* EmuMode */

typedef struct EmuConfig {
#define CFG(id, key, type, def, unit, desc) EMU_CFG_FIELD_##type(id)
#include "config.def"
} EmuConfig;

/* One row of the key table (what config.def says about a key). */
typedef struct EmuCfgKey {
    const char *key;
    EmuCfgType type;
    size_t offset; /* of the field in EmuConfig */
    const char *def; /* default, as text */
    const char *unit;
    const char *desc;
} EmuCfgKey;

extern const EmuCfgKey emu_cfg_keys[];
extern const size_t emu_cfg_nkeys;

void emu_config_defaults(EmuConfig *c);
/* Sets one key from text. Returns 0, or -1 with "key: reason" in err. */
int emu_config_set(EmuConfig *c, const char *key, const char *value, char *err, size_t n);
/* Applies "key=value;key=value" (whitespace around items ignored). */
int emu_config_set_list(EmuConfig *c, const char *list, const char *what, char *err, size_t n);
/* Applies a flat "key = value" file (# comments); errors are "FILE:LINE: key: reason". */
int emu_config_load_file(EmuConfig *c, const char *path, char *err, size_t n);
/* Defaults, then XGPU_CONFIG, XGPU_SET and XGPU_MODE, then emu_config_check. */
int emu_config_from_env(EmuConfig *c, char *err, size_t n);
/* Cross-key validation (ranges, unsupported modes). */
int emu_config_check(const EmuConfig *c, char *err, size_t n);
/* Value of key k as text (what a config file would say). */
int emu_config_format(const EmuConfig *c, const EmuCfgKey *k, char *buf, size_t n);

#endif
