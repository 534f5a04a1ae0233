// Several devices in one process, as a multi-GPU program splits its work: each device
// scales its own slice of a vector (its own memory, copies and launch), then one device
// gathers the slices with cudaMemcpyPeer and sums them, and the host checks every
// result. Device i also runs i extra launches, so each device's statistics can be told
// apart. Run with XGPU_SET=system.gpus=N (N >= 2); argv[1]: elements per device.
#include <cstdio>
#include <cstdlib>

__global__ void scale(float *v, int n, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * k + 1.0f;
}

__global__ void sum_into(float *acc, const float *part, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] += part[i];
}

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            printf("FAIL: %s: %s (line %d)\n", #call, cudaGetErrorName(e_), __LINE__);     \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    printf("devices: %d\n", ndev);
    if (ndev < 2 || ndev > 16) {
        printf("FAIL: want 2 to 16 devices, have %d\n", ndev);
        return 1;
    }
    float *host = (float *)malloc(n * sizeof(float));
    float *dev[16];
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        int cur = -1;
        CHECK(cudaGetDevice(&cur));
        if (cur != d) {
            printf("FAIL: cudaGetDevice says %d after cudaSetDevice(%d)\n", cur, d);
            return 1;
        }
        cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, d));
        if (p.pciBusID != d) {
            printf("FAIL: device %d reports bus %d\n", d, p.pciBusID);
            return 1;
        }
        for (int i = 0; i < n; i++)
            host[i] = (float)(i % 97) + d;
        CHECK(cudaMalloc(&dev[d], n * sizeof(float)));
        CHECK(cudaMemcpy(dev[d], host, n * sizeof(float), cudaMemcpyHostToDevice));
        scale<<<(n + 255) / 256, 256>>>(dev[d], n, 2.0f);
        CHECK(cudaGetLastError());
        for (int extra = 0; extra < d; extra++) // device d: d launches more
            scale<<<(n + 255) / 256, 256>>>(dev[d], n, 1.0f);
        CHECK(cudaDeviceSynchronize());
    }
    // the other devices' pointers stay usable for copies whichever device is current
    CHECK(cudaSetDevice(0));
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaMemcpy(host, dev[d], n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            float want = ((float)(i % 97) + d) * 2.0f + 1.0f + d; // d extra "+1"s
            if (host[i] != want) {
                printf("FAIL: device %d element %d: %g, want %g\n", d, i, host[i], want);
                return 1;
            }
        }
    }
    // device 0 gathers the others' slices and sums them
    float *part;
    CHECK(cudaMalloc(&part, n * sizeof(float)));
    for (int d = 1; d < ndev; d++) {
        CHECK(cudaMemcpyPeer(part, 0, dev[d], d, n * sizeof(float)));
        sum_into<<<(n + 255) / 256, 256>>>(dev[0], part, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpy(host, dev[0], n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float want = 0;
        for (int d = 0; d < ndev; d++)
            want += ((float)(i % 97) + d) * 2.0f + 1.0f + d;
        if (host[i] != want) {
            printf("FAIL: sum element %d: %g, want %g\n", i, host[i], want);
            return 1;
        }
    }
    // a peer copy must name the devices that hold its sides
    if (cudaMemcpyPeer(part, 1, dev[1], 1, n * sizeof(float)) != cudaErrorInvalidValue) {
        printf("FAIL: a peer copy naming the wrong device was accepted\n");
        return 1;
    }
    cudaGetLastError();
    int can = 0;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (can != 1 || cudaSetDevice(ndev) != cudaErrorInvalidDevice) {
        printf("FAIL: peer access %d, or device %d accepted\n", can, ndev);
        return 1;
    }
    cudaGetLastError();
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(dev[d]));
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(part));
    free(host);
    printf("PASS\n");
    return 0;
}
