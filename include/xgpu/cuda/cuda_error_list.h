/*
 * cuda_error_list.h - CUDA runtime error codes, defined once (X-macro table).
 *
 * Define XCUDA_ERROR(name, value, text) before including; there is no include guard,
 * the file may be included several times with different definitions. The values are
 * CUDA's public numeric codes; driver_types.h builds the cudaError_t enum from it and
 * the runtime builds cudaGetErrorName / cudaGetErrorString from the same rows.
 */
#ifndef XCUDA_ERROR
#define XCUDA_ERROR(name, value, text)
#endif

/*           name                               value  text (cudaGetErrorString) */
XCUDA_ERROR(cudaSuccess,                           0, "no error")
XCUDA_ERROR(cudaErrorInvalidValue,                 1, "invalid argument")
XCUDA_ERROR(cudaErrorMemoryAllocation,             2, "out of memory")
XCUDA_ERROR(cudaErrorInitializationError,          3, "initialization error")
XCUDA_ERROR(cudaErrorCudartUnloading,              4, "driver shutting down")
XCUDA_ERROR(cudaErrorInvalidConfiguration,         9, "invalid configuration argument")
XCUDA_ERROR(cudaErrorInvalidPitchValue,           12, "invalid pitch argument")
XCUDA_ERROR(cudaErrorInvalidSymbol,               13, "invalid device symbol")
XCUDA_ERROR(cudaErrorInvalidHostPointer,          16, "invalid host pointer")
XCUDA_ERROR(cudaErrorInvalidDevicePointer,        17, "invalid device pointer")
XCUDA_ERROR(cudaErrorInvalidMemcpyDirection,      21, "invalid copy direction for memcpy")
XCUDA_ERROR(cudaErrorInsufficientDriver,          35, "CUDA driver version is insufficient for CUDA runtime version")
XCUDA_ERROR(cudaErrorMissingConfiguration,        52, "__global__ function call is not configured")
XCUDA_ERROR(cudaErrorInvalidDeviceFunction,       98, "invalid device function")
XCUDA_ERROR(cudaErrorNoDevice,                   100, "no CUDA-capable device is detected")
XCUDA_ERROR(cudaErrorInvalidDevice,              101, "invalid device ordinal")
XCUDA_ERROR(cudaErrorStartupFailure,             127, "device init failed")
XCUDA_ERROR(cudaErrorInvalidKernelImage,         200, "device kernel image is invalid")
XCUDA_ERROR(cudaErrorNoKernelImageForDevice,     209, "no kernel image is available for execution on the device")
XCUDA_ERROR(cudaErrorUnsupportedLimit,           215, "limit is not supported on this architecture")
XCUDA_ERROR(cudaErrorInvalidResourceHandle,      400, "invalid resource handle")
XCUDA_ERROR(cudaErrorSymbolNotFound,             500, "named symbol not found")
XCUDA_ERROR(cudaErrorNotReady,                   600, "device not ready")
XCUDA_ERROR(cudaErrorIllegalAddress,             700, "an illegal memory access was encountered")
XCUDA_ERROR(cudaErrorLaunchOutOfResources,       701, "too many resources requested for launch")
XCUDA_ERROR(cudaErrorLaunchTimeout,              702, "the launch timed out and was terminated")
XCUDA_ERROR(cudaErrorAssert,                     710, "device-side assert triggered")
XCUDA_ERROR(cudaErrorIllegalInstruction,         715, "an illegal instruction was encountered")
XCUDA_ERROR(cudaErrorMisalignedAddress,          716, "misaligned address")
XCUDA_ERROR(cudaErrorLaunchFailure,              719, "unspecified launch failure")
XCUDA_ERROR(cudaErrorNotPermitted,               800, "operation not permitted")
XCUDA_ERROR(cudaErrorNotSupported,               801, "operation not supported")
XCUDA_ERROR(cudaErrorUnknown,                    999, "unknown error")

#undef XCUDA_ERROR
