/*
 * launches.h - the launches nvcc accepts with spaces inside the chevrons
 * (`k << < g, b >> > (args)`), rewritten into ones clang reads (launches.c).
 */
#ifndef XGPU_LAUNCHES_H
#define XGPU_LAUNCHES_H

#include <stddef.h>

/* Rewrites text[0..n) (a CUDA source) in place: each `<< <` that opens a launch and its
 * `>> >` become `<<< ` and `>>> `, keeping every other character's line and column.
 * Comments and literals are left alone, and so is `operator<< <T>`. Returns the number of
 * launches rewritten. */
unsigned xgpu_fix_launches(char *text, size_t n);

#endif
