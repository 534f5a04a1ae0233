/*
 * error.c - error codes: names and strings (cuda_error_list.h, every CUDA 12.0 code), the
 * last/sticky error pair, and the mapping from emulator statuses to cudaError_t.
 *
 * The last error is the calling thread's (RtThread), the sticky one the process's.
 * cudaGetLastError returns the last error and clears it, unless a sticky error (guest
 * fault) is set: that one is returned and stays. cudaPeekAtLastError never clears. A
 * code CUDA does not define has the name and the text "unrecognized error code", as
 * CUDA documents for both functions.
 */
#include <stdio.h>

#include "rt.h"

typedef struct RtErrorRow {
    cudaError_t code;
    const char *name;
    const char *text;
} RtErrorRow;

/*                              code   name   cudaGetErrorString text */
static const RtErrorRow rt_errors[] = {
#define XCUDA_ERROR(name, value, text) {name, #name, text},
#include "xgpu/cuda/cuda_error_list.h"
};

static const RtErrorRow *rt_error_row(cudaError_t e)
{
    for (size_t i = 0; i < sizeof rt_errors / sizeof rt_errors[0]; i++)
        if (rt_errors[i].code == e)
            return &rt_errors[i];
    return NULL;
}

const char *cudaGetErrorString(cudaError_t error)
{
    const RtErrorRow *r = rt_error_row(error);
    return r ? r->text : "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t error)
{
    const RtErrorRow *r = rt_error_row(error);
    return r ? r->name : "unrecognized error code";
}

cudaError_t cudaGetLastError(void)
{
    RT_ENTER(c);
    RtThread *t = rt_thread();
    if (rt_sticky(c) != cudaSuccess)
        return rt_sticky(c);
    cudaError_t e = t->last;
    t->last = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    RT_ENTER(c);
    return rt_sticky(c) != cudaSuccess ? rt_sticky(c) : rt_thread()->last;
}

/* Records a call's result as the calling thread's last error (when it is one) and
 * returns it. */
cudaError_t rt_error(RtContext *c, cudaError_t e)
{
    if (e != cudaSuccess)
        rt_thread()->last = e;
    return e;
}

/* Emulator status -> CUDA error. EMU_ERR_NOT_FOUND maps to cudaErrorInvalidValue here;
 * callers that look up kernels or symbols report their own code. */
cudaError_t rt_from_emu(EmuStatus s)
{
    switch (s) {
    case EMU_OK: return cudaSuccess;
    case EMU_ERR_INVALID_VALUE: return cudaErrorInvalidValue;
    case EMU_ERR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case EMU_ERR_INVALID_IMAGE: return cudaErrorInvalidKernelImage;
    case EMU_ERR_NOT_FOUND: return cudaErrorInvalidValue;
    case EMU_ERR_INVALID_CONFIG: return cudaErrorInvalidConfiguration;
    case EMU_ERR_ILLEGAL_ADDRESS: return cudaErrorIllegalAddress;
    case EMU_ERR_MISALIGNED: return cudaErrorMisalignedAddress;
    case EMU_ERR_LAUNCH_FAILURE: return cudaErrorLaunchFailure;
    case EMU_ERR_LAUNCH_TIMEOUT: return cudaErrorLaunchTimeout;
    case EMU_ERR_DEADLOCK: return cudaErrorLaunchFailure;
    case EMU_ERR_OUT_OF_RESOURCES: return cudaErrorLaunchOutOfResources;
    }
    return cudaErrorUnknown;
}

/* Guest faults are the sticky statuses. */
int rt_is_fault(EmuStatus s)
{
    return s == EMU_ERR_ILLEGAL_ADDRESS || s == EMU_ERR_MISALIGNED ||
           s == EMU_ERR_LAUNCH_FAILURE || s == EMU_ERR_LAUNCH_TIMEOUT || s == EMU_ERR_DEADLOCK;
}

/* A declared API function that xgpu does not implement. */
cudaError_t rt_unsupported(const char *api)
{
    fprintf(stderr, "xgpu: %s is not supported\n", api);
    return rt_error(rt_ctx(), cudaErrorNotSupported);
}
