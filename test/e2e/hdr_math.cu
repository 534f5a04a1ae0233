// The C++ math overloads CUDA provides on the device: pow with an integer exponent,
// one-argument functions of integers, and two- and three-argument functions of mixed
// float, double and integer arguments, which compute in double unless all are float.
// The return types are checked at compile time, the values against the host's own
// overloads (the same libm results).
#include <cuda_runtime.h>

template <class A, class B> struct same { enum { value = 0 }; };
template <class A> struct same<A, A> { enum { value = 1 }; };
#define RETURNS(T, e) static_assert(same<T, decltype(e)>::value, #e " is not " #T)

__device__ void types(float f, double d, int i)
{
    RETURNS(float, pow(f, i));
    RETURNS(double, pow(d, i));
    RETURNS(double, pow(i, d));
    RETURNS(double, pow(f, d));
    RETURNS(double, pow(i, i));
    RETURNS(float, pow(f, f));
    RETURNS(double, sqrt(i));
    RETURNS(double, std::sqrt(i));
    RETURNS(double, fmin(f, d));
    RETURNS(float, fmax(f, f));
    RETURNS(double, atan2(i, f));
    RETURNS(double, std::hypot(f, 2u));
    RETURNS(double, fma(f, f, d));
    RETURNS(float, fma(f, f, f));
    RETURNS(double, fma(f, 2, f));
}

#define N 16
#define NR 18

/* Both sides evaluate this: the host with <cmath>'s overloads, the device with CUDA's. */
__host__ __device__ double mixed_hd(int i, float x)
{
    return pow(x, 2) + pow(i, 2) + atan2(x, i + 1) + fmin(i, x);
}

__global__ void eval(double *out, const int *is, const float *xs, const double *ds)
{
    int t = threadIdx.x, i = is[t], e = t - 8;
    float x = xs[t];
    double d = ds[t];
    double *o = out + t * NR;
    o[0] = pow((double)i, 2) + pow(2.0, e);
    o[1] = pow(x, 3);
    o[2] = pow(i, 0.5);
    o[3] = pow(2, e);
    o[4] = pow(x, d);
    o[5] = fmin(x, d);
    o[6] = fmax(i, x);
    o[7] = atan2(i, x);
    o[8] = hypot(x, 1);
    o[9] = fmod(d, i + 1);
    o[10] = sqrt(i);
    o[11] = std::pow(i, 2.0);
    o[12] = fma(x, d, 1);
    o[13] = exp(i % 5) + log(i + 1u) + cbrt(i);
    o[14] = copysign(i, -1.0f) + fdim(x, i) + remainder(d, 3);
    o[15] = std::fmax(1, x) + std::floor(i) + fabs(-i);
    o[16] = mixed_hd(i, x);
    o[17] = pow(x, -2) + pow(d, 4);
}

static double ref(int k, int t, int i, float x, double d)
{
    int e = t - 8;
    switch (k) {
    case 0: return pow((double)i, 2) + pow(2.0, e);
    case 1: return pow((double)x, 3.0);
    case 2: return pow((double)i, 0.5);
    case 3: return pow(2.0, (double)e);
    case 4: return pow((double)x, d);
    case 5: return fmin((double)x, d);
    case 6: return fmax((double)i, (double)x);
    case 7: return atan2((double)i, (double)x);
    case 8: return hypot((double)x, 1.0);
    case 9: return fmod(d, (double)(i + 1));
    case 10: return sqrt((double)i);
    case 11: return pow((double)i, 2.0);
    case 12: return fma((double)x, d, 1.0);
    case 13: return exp((double)(i % 5)) + log((double)(i + 1)) + cbrt((double)i);
    case 14: return copysign((double)i, -1.0) + fdim((double)x, (double)i) + remainder(d, 3.0);
    case 15: return fmax(1.0, (double)x) + floor((double)i) + fabs((double)-i);
    case 16: return mixed_hd(i, x);
    default: return pow((double)x, -2.0) + pow(d, 4.0);
    }
}

int main()
{
    int is[N];
    float xs[N];
    double ds[N];
    for (int t = 0; t < N; t++) {
        is[t] = 3 * t + 1;
        xs[t] = 0.75f + 0.5f * t;
        ds[t] = 1.0 / (t + 3) + 2.5;
    }
    int *di;
    float *dx;
    double *dd, *dout, out[N * NR];
    cudaMalloc(&di, sizeof is);
    cudaMalloc(&dx, sizeof xs);
    cudaMalloc(&dd, sizeof ds);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(di, is, sizeof is, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, xs, sizeof xs, cudaMemcpyHostToDevice);
    cudaMemcpy(dd, ds, sizeof ds, cudaMemcpyHostToDevice);
    eval<<<1, N>>>(dout, di, dx, dd);
    cudaError_t err = cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    int bad = err != cudaSuccess;
    for (int t = 0; t < N; t++)
        for (int k = 0; k < NR; k++) {
            double want = ref(k, t, is[t], xs[t], ds[t]), got = out[t * NR + k];
            /* pow(float, int) is a float on the device: 1e-6 for the rows that use it */
            double tol = (k == 1 || k == 16 || k == 17) ? 1e-6 : 1e-13;
            if (!(fabs(got - want) <= tol * fabs(want))) {
                if (bad < 10)
                    printf("row %d thread %d: device %.17g host %.17g\n", k, t, got, want);
                bad++;
            }
        }
    printf("hdr_math: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
