// Narrowing in a braced initializer and the `register` storage class: errors in clang's
// C++17, warnings for nvcc's host compiler; xgpu-cc follows nvcc.
#include <cuda_runtime.h>
#include <stdio.h>
int main()
{
    double d = 3.0;
    register int r = 2;
    int v[2] = {d, r};
    printf("compat_narrowing: %s\n", v[0] == 3 && v[1] == 2 ? "PASS" : "FAIL");
    return 0;
}
