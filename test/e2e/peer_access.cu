// Peer access between two devices (docs/multi-device.md): device 0 enables access to
// device 1, then its kernels read device 1's vector and write into it directly (remote
// loads and stores over the link); enabling twice and disabling what is not enabled are
// the errors CUDA names; after disabling, a kernel that touches device 1's memory
// faults. Run with XGPU_SET=system.gpus=2; argv[1]: elements.
#include <cstdio>
#include <cstdlib>

__global__ void gather(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i] * 2.0f;
}

__global__ void scatter(float *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = -(float)i;
}

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            printf("FAIL: %s: %s\n", #call, cudaGetErrorString(e_));                       \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8192;
    float *host = (float *)malloc(n * sizeof(float)), *remote, *local;
    int can = 0;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (!can) {
        printf("FAIL: device 0 cannot reach device 1\n");
        return 1;
    }
    CHECK(cudaSetDevice(1));
    for (int i = 0; i < n; i++)
        host[i] = (float)(i % 101);
    CHECK(cudaMalloc(&remote, n * sizeof(float)));
    CHECK(cudaMemcpy(remote, host, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&local, n * sizeof(float)));
    if (cudaDeviceDisablePeerAccess(1) != cudaErrorPeerAccessNotEnabled) {
        printf("FAIL: disabling peer access that was not enabled\n");
        return 1;
    }
    cudaGetLastError();
    CHECK(cudaDeviceEnablePeerAccess(1, 0));
    if (cudaDeviceEnablePeerAccess(1, 0) != cudaErrorPeerAccessAlreadyEnabled) {
        printf("FAIL: enabling peer access twice\n");
        return 1;
    }
    cudaGetLastError();
    gather<<<(n + 255) / 256, 256>>>(local, remote, n); // remote loads
    CHECK(cudaGetLastError());
    scatter<<<(n + 255) / 256, 256>>>(remote, n);       // remote stores
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host, local, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (host[i] != (float)(i % 101) * 2.0f) {
            printf("FAIL: gathered element %d: %g\n", i, host[i]);
            return 1;
        }
    CHECK(cudaMemcpy(host, remote, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (host[i] != -(float)i) {
            printf("FAIL: scattered element %d: %g\n", i, host[i]);
            return 1;
        }
    CHECK(cudaDeviceDisablePeerAccess(1));
    scatter<<<1, 32>>>(remote, n);
    if (cudaDeviceSynchronize() == cudaSuccess) {
        printf("FAIL: device 1's memory reachable after disabling peer access\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
