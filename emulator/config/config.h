/*
 * config.h - the emulator's configuration: a struct generated from config.def, and the
 * parsers that fill it.
 *
 * Precedence, lowest first: defaults, the preset or file named by XGPU_CONFIG, the
 * XGPU_SET list, XGPU_MODE (emu.mode), XGPU_SUMMARY (emu.summary), XGPU_PROGRESS
 * (emu.progress). Every error names
 * the key (and FILE:LINE for files); unknown keys are errors.
 * Derived limits (EmuProps) are computed once in device.c from the finished struct.
 */
#ifndef EMU_CONFIG_H
#define EMU_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum EmuMode { EMU_MODE_FUNCTIONAL, EMU_MODE_TIMING } EmuMode;

/* Value types (config.def's type column). ENUM keys list their choices, separated by '|',
 * in the unit column (e.g. "lrr|gto|two-level") and store the chosen name. */
typedef enum EmuCfgType {
    EMU_CFG_STR,  /* text, up to 63 bytes */
    EMU_CFG_U32,  /* unsigned, decimal or 0x hex, optional K/M/G (KiB/MiB/GiB) suffix */
    EMU_CFG_U64,
    EMU_CFG_MODE, /* functional | timing, stored as EmuMode */
    EMU_CFG_F64,  /* finite real number (ratios, energies) */
    EMU_CFG_BOOL, /* true/false, 1/0, yes/no, on/off */
    EMU_CFG_ENUM, /* one of the names in the unit column, stored as text (< 32 bytes) */
    EMU_CFG_U64_AUTO, /* "auto" (stored as EMU_CFG_AUTO) or a U64 below it */
} EmuCfgType;

#define EMU_CFG_AUTO UINT64_MAX

#define EMU_CFG_FIELD_STR(id) char id[64];
#define EMU_CFG_FIELD_U32(id) uint32_t id;
#define EMU_CFG_FIELD_U64(id) uint64_t id;
#define EMU_CFG_FIELD_MODE(id) uint32_t id; /* EmuMode */
#define EMU_CFG_FIELD_F64(id) double id;
#define EMU_CFG_FIELD_BOOL(id) bool id;
#define EMU_CFG_FIELD_ENUM(id) char id[32];
#define EMU_CFG_FIELD_U64_AUTO(id) uint64_t id; /* EMU_CFG_AUTO: auto */

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
    const char *unit; /* for ENUM keys: the choices, '|'-separated */
    const char *desc;
} EmuCfgKey;

extern const EmuCfgKey emu_cfg_keys[];
extern const size_t emu_cfg_nkeys;

void emu_config_defaults(EmuConfig *c);
/* Sets one key from text. Returns 0, or -1 with "key: reason" in err. */
int emu_config_set(EmuConfig *c, const char *key, const char *value, char *err, size_t n);
/* Applies "key=value;key=value" (whitespace around items ignored). */
int emu_config_set_list(EmuConfig *c, const char *list, const char *what, char *err, size_t n);
/* Applies a flat "key = value" file (# comments, lines of any length); errors are
 * "FILE:LINE: key: reason"; a directory is refused ("FILE: is a directory"). */
int emu_config_load_file(EmuConfig *c, const char *path, char *err, size_t n);
/* Defaults, then XGPU_CONFIG, XGPU_SET, XGPU_MODE, XGPU_SUMMARY and XGPU_PROGRESS, then
 * emu_config_check. */
int emu_config_from_env(EmuConfig *c, char *err, size_t n);
/* Validation of the finished configuration: every key's range and the cross-key rules
 * of the functional core and the timing model (a configuration that passes never makes
 * a launch fail for its values). Returns 0, or -1 with "key: reason" in err. */
int emu_config_check(const EmuConfig *c, char *err, size_t n);
/* The slots a mechanism's mode key chose (its keys.def's CFG_IMPLY rows) agree
 * with it: 0, or -1 naming the slot's key in err (config.c's table). */
int emu_config_check_implied(const EmuConfig *c, char *err, size_t n);
/* emu.max_warp_insns resolved for the configured mode: "auto" is
 * EMU_BUDGET_AUTO_FUNCTIONAL or EMU_BUDGET_AUTO_TIMING (about two minutes of emulation
 * at this emulator's measured speeds, docs/config.md), 0 is unlimited (UINT64_MAX). */
#define EMU_BUDGET_AUTO_FUNCTIONAL 1000000000ull
#define EMU_BUDGET_AUTO_TIMING 100000000ull
uint64_t emu_config_budget(const EmuConfig *c);
/* The GPUs (or GPU modules) one device is made of: system.gpus when system.memory is
 * shared or numa, else 1. The device's timing model has that many times gpu.sm_count SMs,
 * l2.slices L2 slices and dram.channels DRAM channels (docs/multi-gpu.md). */
uint32_t emu_config_device_gpus(const EmuConfig *c);
/* The devices the system shows (cudaGetDeviceCount): system.gpus when system.memory is
 * separate, else 1. */
uint32_t emu_config_devices(const EmuConfig *c);
/* The defaults, then config (a preset name or file, as XGPU_CONFIG; NULL or "": none),
 * then set ("key=value;...", as XGPU_SET; may be NULL), then emu_config_check; the
 * environment is not read. 0, or -1 with the reason in err. */
int emu_config_from(EmuConfig *c, const char *config, const char *set, char *err, size_t n);
/* Value of key k as text (what a config file would say). */
int emu_config_format(const EmuConfig *c, const EmuCfgKey *k, char *buf, size_t n);
/* The row of a key, or NULL. */
const EmuCfgKey *emu_config_key(const char *key);

/* Presets. A XGPU_CONFIG / --config value that contains '/' or ends in ".ini" is a path;
 * anything else names a preset: NAME.ini in $XGPU_PRESETS_DIR, or else in the presets
 * directory compiled in (the source tree's emulator/config/presets). */
const char *emu_presets_dir(void);
/* Resolves NAME|FILE to a path in buf. Returns 0, or -1 with "NAME: unknown preset ..." */
int emu_preset_path(const char *name_or_path, char *buf, size_t n, char *err, size_t errn);
/* Applies a preset or file (emu_preset_path + emu_config_load_file). */
int emu_config_load(EmuConfig *c, const char *name_or_path, char *err, size_t n);
/* Writes the preset names (sorted, one per line) to f; returns how many, or -1. */
int emu_presets_list(FILE *f);
/* Writes c as a valid config file: every key as "key = value" with its unit and
 * description as a comment. Loading it back gives c again. */
int emu_config_dump(const EmuConfig *c, FILE *f);

#endif
