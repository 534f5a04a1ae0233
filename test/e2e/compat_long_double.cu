// A long double kernel parameter: the host passes the 80-bit x87 format, the device would
// read a double. xgpu-cc refuses it with a located error (the line of the parameter).
#include <cuda_runtime.h>
__global__ void k(double *o,
                  long double x) { o[0] = (double)(x * 3.0L); }
int main() { k<<<1, 1>>>(0, 1.25L); return 0; }
