/*
 * cuda_profiler_api.h - the profiler's start and stop marks, as CUDA declares them.
 * xgpu has no profiler to start: both calls succeed and change nothing (the statistics,
 * XGPU_STATS, cover every launch).
 */
#ifndef XGPU_CUDA_PROFILER_API_H
#define XGPU_CUDA_PROFILER_API_H
#define __CUDA_PROFILER_API_H__ /* CUDA's own guard: programs test it */

#include "cuda_runtime_api.h"

#pragma GCC visibility push(default)
XGPU_CUDA_BEGIN_C
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
XGPU_CUDA_END_C
#pragma GCC visibility pop

#endif
