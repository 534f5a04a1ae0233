// Device math (float and double) against the host C library: every function of
// math_functions.h on a set of inputs, within a documented tolerance (relative 1e-5 for
// float, 1e-12 for double, or the same value); also <cmath>'s std:: overloads, integer
// abs/min/max, the fast intrinsics and the rounding conversions.
#include <cuda_runtime.h>
#include <math.h>
#include <cmath>
#include <stdio.h>

#define NX 8
#define NF 48

__constant__ double c_in[NX] = {0.3, 0.75, 1.5, 2.25, -0.6, 3.7, 0.01, 9.5};

template <class R> __host__ __device__ void eval(R x, R y, R *o)
{
    R ax = x < 0 ? -x : x, s, c;
    int k = 0, e;
    o[k++] = sin(x); o[k++] = cos(x); o[k++] = tan(x);
    o[k++] = asin(x / 10); o[k++] = acos(x / 10); o[k++] = atan(x);
    o[k++] = sinh(x); o[k++] = cosh(x); o[k++] = tanh(x);
    o[k++] = asinh(x); o[k++] = acosh(ax + 1); o[k++] = atanh(x / 10);
    o[k++] = exp(x); o[k++] = exp2(x); o[k++] = expm1(x);
    o[k++] = log(ax); o[k++] = log2(ax); o[k++] = log10(ax); o[k++] = log1p(ax);
    o[k++] = cbrt(x); o[k++] = sqrt(ax); o[k++] = fabs(x);
    o[k++] = floor(x); o[k++] = ceil(x); o[k++] = trunc(x); o[k++] = round(x * 2);
    o[k++] = rint(x * 2); o[k++] = nearbyint(x * 2);
    o[k++] = erf(x); o[k++] = erfc(x); o[k++] = lgamma(ax); o[k++] = tgamma(ax);
    o[k++] = pow(ax, y); o[k++] = atan2(x, y); o[k++] = fmod(x, y); o[k++] = hypot(x, y);
    o[k++] = remainder(x, y); o[k++] = copysign(x, -y); o[k++] = fdim(x, y);
    o[k++] = nextafter(x, y); o[k++] = fmin(x, y); o[k++] = fmax(x, y);
    o[k++] = fma(x, y, (R)0.5); o[k++] = frexp(x, &e) + e; o[k++] = ldexp(x, 5);
    o[k++] = modf(x, &s) + s * 3;
#ifdef __CUDA_ARCH__
    sincos(x, &s, &c);
#else
    s = sin(x), c = cos(x);
#endif
    o[k++] = s + c * 2;
    o[k++] = std::sin(x) + std::exp(y) + std::pow(x, (R)2);
}

__global__ void fmath(const float *xf, float *of, double *od, long long *oi)
{
    int i = threadIdx.x;
    float x = xf[i], y = xf[(i + 3) % NX] + 0.5f;
    eval<float>(x, y, of + i * NF);
    eval<double>(c_in[i], c_in[(i + 3) % NX] + 0.5, od + i * NF);
    long long *q = oi + i * 12;
    q[0] = abs(-i * 3) + labs(-7l * i) + llabs(-9ll * i) + std::abs(-i);
    q[1] = min(i, 3) + max(i, 5) * 10 + (long long)min(2.5, (double)i) * 100;
    q[2] = lround(x * 3) + llround((double)x * 5) * 100;
    q[3] = __float2int_rn(x * 3) + __float2int_rz(x * 3) * 100 + __float2int_ru(x * 3) * 10000 +
           __float2int_rd(x * 3) * 1000000;
    q[4] = (long long)(__expf(x) * 1e6) + (long long)(__sinf(x) * 1e6) * 1000000000ll;
    q[5] = isnan(x / 0.0f - x / 0.0f) + isinf(x / 0.0f) * 2 + isfinite(x) * 4 + signbit(-x) * 8;
    q[6] = (long long)(__saturatef(x) * 1000) + (long long)(__fdividef(x, 3.0f) * 1e6) * 10000;
    q[7] = (long long)(rsqrtf(fabsf(x) + 1) * 1e6) + (long long)(exp10f(x) * 1e3) * 10000000;
    q[8] = __float_as_int(x) ^ __double2hiint((double)x);
    q[9] = (long long)(sinpi((double)x) * 1e9) + (long long)(cospif(x) * 1e6) * 10000000000ll;
    q[10] = __mulhi(i * 123456789, 987654321) + (long long)__umul64hi(~0ull - i, 12345ull << 40);
    q[11] = __sad(i, 5, 100) + __usad(3u, (unsigned)i, 1000u) * 1000 + __mul24(i, -3) * 100000;
}

static int close(double got, double want, double tol)
{
    if (isnan(want))
        return isnan(got);
    if (got == want)
        return 1;
    double d = fabs(got - want), m = fabs(want) > 1 ? fabs(want) : 1;
    return d <= tol * m;
}

int main(void)
{
    float hx[NX];
    double hcin[NX] = {0.3, 0.75, 1.5, 2.25, -0.6, 3.7, 0.01, 9.5};
    for (int i = 0; i < NX; i++)
        hx[i] = (float)hcin[i];
    float *xf, *of, hof[NX * NF];
    double *od, hod[NX * NF];
    long long *oi, hoi[NX * 12];
    cudaMalloc((void **)&xf, sizeof hx);
    cudaMalloc((void **)&of, sizeof hof);
    cudaMalloc((void **)&od, sizeof hod);
    cudaMalloc((void **)&oi, sizeof hoi);
    cudaMemcpy(xf, hx, sizeof hx, cudaMemcpyHostToDevice);
    fmath<<<1, NX>>>(xf, of, od, oi);
    cudaMemcpy(hof, of, sizeof hof, cudaMemcpyDeviceToHost);
    cudaMemcpy(hod, od, sizeof hod, cudaMemcpyDeviceToHost);
    cudaMemcpy(hoi, oi, sizeof hoi, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < NX; i++) {
        float wf[NF];
        double wd[NF];
        eval<float>(hx[i], hx[(i + 3) % NX] + 0.5f, wf);
        eval<double>(hcin[i], hcin[(i + 3) % NX] + 0.5, wd);
        for (int k = 0; k < NF; k++) {
            if (!close(hof[i * NF + k], wf[k], 1e-5) && bad++ < 10)
                printf("float fn %d x=%g: %.9g, host %.9g\n", k, hx[i], hof[i * NF + k], wf[k]);
            if (!close(hod[i * NF + k], wd[k], 1e-12) && bad++ < 10)
                printf("double fn %d x=%g: %.17g, host %.17g\n", k, hcin[i], hod[i * NF + k], wd[k]);
        }
        float x = hx[i];
        long long *q = hoi + i * 12, w[12];
        w[0] = i * 3 + 7 * i + 9 * i + i;
        w[1] = (i < 3 ? i : 3) + (i > 5 ? i : 5) * 10 + (long long)(i < 2.5 ? i : 2.5) * 100;
        w[2] = lroundf(x * 3) + llround((double)x * 5) * 100;
        w[3] = (int)rintf(x * 3) + (int)(x * 3) * 100 + (int)ceilf(x * 3) * 10000 +
               (int)floorf(x * 3) * 1000000;
        w[4] = (long long)(expf(x) * 1e6) + (long long)(sinf(x) * 1e6) * 1000000000ll;
        w[5] = 1 + 2 + 4 + (x > 0 ? 8 : 0);
        float sat = x >= 1 ? 1 : x > 0 ? x : 0;
        w[6] = (long long)(sat * 1000) + (long long)(x / 3.0f * 1e6) * 10000;
        w[7] = (long long)(1 / sqrtf(fabsf(x) + 1) * 1e6) + (long long)(exp10f(x) * 1e3) * 10000000;
        union { float f; int i; } fu = {x};
        union { double d; long long l; } du = {(double)x};
        w[8] = fu.i ^ (int)(du.l >> 32);
        w[9] = (long long)(sin(M_PI * remainder((double)x, 2.0)) * 1e9) +
               (long long)(cosf(3.14159265f * remainderf(x, 2.0f)) * 1e6) * 10000000000ll;
        unsigned __int128 p = (unsigned __int128)(~0ull - i) * (12345ull << 40);
        w[10] = (int)(((long long)(i * 123456789) * 987654321) >> 32) + (long long)(p >> 64);
        w[11] = (unsigned)(i > 5 ? i - 5 : 5 - i) + 100 +
                ((unsigned)(i > 3 ? i - 3 : 3 - i) + 1000) * 1000 + (i * -3) * 100000;
        for (int k = 0; k < 12; k++)
            if (q[k] != w[k] && bad++ < 20)
                printf("int check %d x=%g: %lld, host %lld\n", k, x, q[k], w[k]);
    }
    printf("feat_math: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
