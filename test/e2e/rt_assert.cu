// A kernel prints a line, then fails a device assertion. The host prints around each
// call; test 793 checks that the kernel's output appears at the synchronizing call
// named by argv[1] (device, stream, event, memcpy) that reports the fault, before the
// host prints that call's result.
#include <cassert>
#include <cstdio>
#include <cstring>

__global__ void checked(int *v)
{
    printf("kernel: thread %d\n", threadIdx.x);
    assert(v[threadIdx.x] == 0);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "device";
    int *d = nullptr, h[2] = {0, 7};
    cudaStream_t s;
    cudaEvent_t ev;
    cudaStreamCreate(&s);
    cudaEventCreate(&ev);
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    checked<<<1, 2>>>(d);
    printf("host: launched\n");
    cudaError_t e;
    if (!strcmp(how, "stream"))
        e = cudaStreamSynchronize(s);
    else if (!strcmp(how, "event"))
        e = cudaEventSynchronize(ev);
    else if (!strcmp(how, "memcpy"))
        e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    else
        e = cudaDeviceSynchronize();
    printf("host: sync: %s\n", cudaGetErrorName(e));
    return 0;
}
