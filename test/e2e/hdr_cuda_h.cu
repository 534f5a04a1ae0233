// <cuda.h> alone: the driver API's types and error codes, CUDA_VERSION of the pinned SDK,
// CUstream and CUevent as the runtime's handles, CUdeviceptr holding a device address,
// and codes and attributes that agree with the runtime's numbers.
#include <cuda.h>

#if CUDA_VERSION != 12000 || CUDART_VERSION != 12000
#error "wrong CUDA_VERSION"
#endif

template <class A, class B> struct same { enum { value = 0 }; };
template <class A> struct same<A, A> { enum { value = 1 }; };
static_assert(same<CUstream, cudaStream_t>::value, "CUstream is cudaStream_t");
static_assert(same<CUevent, cudaEvent_t>::value, "CUevent is cudaEvent_t");
static_assert(sizeof(CUdeviceptr) == sizeof(void *), "CUdeviceptr holds an address");
static_assert((int)CUDA_ERROR_INVALID_VALUE == (int)cudaErrorInvalidValue, "");
static_assert((int)CUDA_ERROR_OUT_OF_MEMORY == (int)cudaErrorMemoryAllocation, "");
static_assert((int)CUDA_ERROR_NOT_READY == (int)cudaErrorNotReady, "");
static_assert((int)CUDA_ERROR_ILLEGAL_ADDRESS == (int)cudaErrorIllegalAddress, "");
static_assert((int)CUDA_ERROR_LAUNCH_FAILED == (int)cudaErrorLaunchFailure, "");
static_assert((int)CUDA_ERROR_MISALIGNED_ADDRESS == (int)cudaErrorMisalignedAddress, "");
static_assert((int)CUDA_ERROR_NOT_SUPPORTED == (int)cudaErrorNotSupported, "");
static_assert((int)CUDA_ERROR_INVALID_HANDLE == (int)cudaErrorInvalidResourceHandle, "");
static_assert((int)CU_DEVICE_ATTRIBUTE_WARP_SIZE == (int)cudaDevAttrWarpSize, "");
static_assert((int)CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
                  (int)cudaDevAttrMultiProcessorCount, "");
static_assert((int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
                  (int)cudaDevAttrComputeCapabilityMajor, "");
static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
                  (int)cudaDevAttrMaxSharedMemoryPerBlockOptin, "");

__global__ void scale(float *p, float s) { p[threadIdx.x] *= s; }

static const char *name(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    default: return "other";
    }
}

int main()
{
    int bad = 0;
    float h[32], *d;
    for (int i = 0; i < 32; i++)
        h[i] = (float)i;
    cudaMalloc(&d, sizeof h);
    CUdeviceptr dp = (CUdeviceptr)(size_t)d; /* the address as the driver API holds it */
    CUstream s;
    cudaStreamCreate(&s);
    cudaMemcpyAsync((void *)(size_t)dp, h, sizeof h, cudaMemcpyHostToDevice, s);
    scale<<<1, 32, 0, s>>>((float *)(size_t)dp, 2.0f);
    CUevent ev;
    cudaEventCreate(&ev);
    cudaEventRecord(ev, s);
    CUresult r = (CUresult)cudaEventSynchronize(ev);
    bad += r != CUDA_SUCCESS;
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; i++)
        bad += h[i] != 2.0f * i;
    CUdevice dev = 0;
    int warp = 0;
    cudaDeviceGetAttribute(&warp, (cudaDeviceAttr)CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
    bad += warp != 32;
    r = (CUresult)cudaStreamCreateWithFlags(&s, CU_STREAM_NON_BLOCKING);
    bad += r != CUDA_SUCCESS;
    r = (CUresult)cudaSetDevice(7); /* there is one device */
    cudaGetLastError();
    bad += r != CUDA_ERROR_INVALID_DEVICE;
    printf("hdr_cuda_h: %s %s\n", name(CUDA_SUCCESS), bad ? "FAIL" : "PASS");
    return bad != 0;
}
