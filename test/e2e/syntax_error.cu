// A syntax error: clang's diagnostic and exit status come through xgpu-cc.
#include <cuda_runtime.h>

__global__ void k(int *out) { out[threadIdx.x] = 1 }

int main(void) { return 0; }
