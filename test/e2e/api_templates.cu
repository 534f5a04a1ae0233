// The C++ conveniences of cuda_runtime.h: kernels and pointers named by their own type
// (cudaFuncSetAttribute(k, ...), cudaHostAlloc(&float_ptr, ...)).
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() {
  int nb = 0; float *h;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  cudaFuncSetSharedMemConfig(k, cudaSharedMemBankSizeFourByte);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 128, 0);
  cudaHostAlloc(&h, 64, cudaHostAllocDefault);
  cudaFuncAttributes a; cudaFuncGetAttributes(&a, k);
  int ok = nb > 0 && a.numRegs > 0 && h != NULL;
  printf("api_templates: blocks/SM %d regs %d %s\n", nb, a.numRegs, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
