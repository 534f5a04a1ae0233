/*
 * assist.c - lookups over tables of CABA assist routines (assist.h): the one for an
 * (algo, dir), and the names of both.
 *
 * Part of libxgpuassist, whose other half (xgpu_assist_builtin) is generated at build
 * time by assist-gen.c; the generator itself is linked with this file too, for the names
 * it checks routine files against, so that the spelling is defined once.
 */
#include "xgpu/assist.h"

static const char *const algo_names[XASSIST_NALGO] = {
    [XASSIST_BDI] = "bdi",
    [XASSIST_FPC] = "fpc",
    [XASSIST_CPACK] = "cpack",
};

static const char *const dir_names[XASSIST_NDIR] = {
    [XASSIST_DECOMP] = "decomp",
    [XASSIST_COMP] = "comp",
};

const char *xgpu_assist_algo_name(unsigned algo)
{
    return algo < XASSIST_NALGO ? algo_names[algo] : NULL;
}

const char *xgpu_assist_dir_name(unsigned dir)
{
    return dir < XASSIST_NDIR ? dir_names[dir] : NULL;
}

const XAssist *xgpu_assist_find(const XAssist *a, uint32_t n, unsigned algo, unsigned dir)
{
    for (uint32_t i = 0; a && i < n; i++)
        if (a[i].algo == algo && a[i].dir == dir)
            return &a[i];
    return NULL;
}
