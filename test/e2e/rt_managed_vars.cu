// __managed__ variables: written on the host, read and updated by kernels, read back on
// the host without a copy; a scalar, an array with an initializer, a struct; symbol copies
// to and from a managed variable; a kernel that faults still hands back what it wrote.
#include <stdio.h>

struct Stats { int count; float sum; };
__managed__ int counter;
__managed__ float table[64] = {1, 2, 3};
__managed__ Stats stats;

__global__ void bump(int n)
{
    int i = threadIdx.x;
    if (i < 64) table[i] = table[i] * 2 + n;
    if (i == 0) { counter += n; stats.count++; stats.sum += 0.5f; }
}

int main()
{
    int bad = 0;
    counter = 10;                                // host writes before any launch
    table[3] = 4;
    bump<<<1, 64>>>(5);
    cudaDeviceSynchronize();
    bad += counter != 15;
    bad += table[0] != 7 || table[1] != 9 || table[3] != 13 || table[63] != 5;
    counter = 100;                               // host update between launches
    bump<<<1, 64>>>(1);
    cudaDeviceSynchronize();
    bad += counter != 101 || stats.count != 2 || stats.sum != 1.0f;
    int v = 42, w = 0;
    cudaMemcpyToSymbol(counter, &v, sizeof v);
    bad += counter != 42;                        // the host copy follows the symbol copy
    counter = 43;
    cudaMemcpyFromSymbol(&w, counter, sizeof w);
    bad += w != 43;                              // ... and the symbol copy the host copy
    if (bad) printf("counter %d table %g %g %g stats %d %g w %d\n", counter, table[0], table[1],
                    table[3], stats.count, stats.sum, w);
    printf("rt_managed_vars: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
