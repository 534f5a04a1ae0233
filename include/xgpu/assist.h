/*
 * assist.h - the built-in CABA assist-warp routines (Vijaykumar et al., ISCA 2015): the
 * decompression and compression routines of BDI, FPC and C-Pack written in xgpu assembly
 * in emulator/mech/assist/ (ALGO_DIR.s), assembled when the project is built, and what
 * finds one of them in a table.
 *
 * They live in libxgpuassist (a static library, isa/assist/): the build runs a small tool
 * of libxgpuisa (isa/assist/assist-gen.c) that assembles the six files and writes them as
 * XAssist and XInsn arrays in a generated C file, so that a change to a routine's assembly
 * rebuilds the table, and an assembly error fails the build naming FILE:LINE. xgpu-cc
 * writes them into every device binary's .xgpu.assist section (gpubin.h; --no-assist
 * leaves it out), where the emulator's loader finds them.
 */
#ifndef XGPU_ASSIST_H
#define XGPU_ASSIST_H

#pragma GCC visibility push(default)

#include <stdint.h>
#include "xgpu/gpubin.h"

/* The CABA assist routines, assembled from emulator/mech/assist/ at build time: one per
 * (algo, dir), sorted by algo then dir, each named caba_ALGO_DIR (caba_bdi_decomp ...).
 * The table is static: never freed, never written. */
const XAssist *xgpu_assist_builtin(uint32_t *n);

/* The one for (algo, dir) in a table of n, or NULL. */
const XAssist *xgpu_assist_find(const XAssist *a, uint32_t n, unsigned algo, unsigned dir);

/* How routine names and xgpu-objdump spell an XAssistAlgo ("bdi", "fpc", "cpack") and an
 * XAssistDir ("decomp", "comp"); NULL out of range. */
const char *xgpu_assist_algo_name(unsigned algo);
const char *xgpu_assist_dir_name(unsigned dir);

#pragma GCC visibility pop

#endif
