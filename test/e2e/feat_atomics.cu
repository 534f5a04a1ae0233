// Every CUDA atomic on global and shared memory, 32 and 64 bits, integer and float,
// plus CAS loops; each result is checked against a sequential computation on the host.
#include <cuda_runtime.h>
#include <stdio.h>

#define N 256

struct Out {
    int add, sub, mn, mx, and_, or_, xor_, exch_seen;
    unsigned uadd, umin, umax, inc, dec;
    unsigned long long ull_add, ull_and, ull_or, ull_xor, ull_cas_sum;
    long long ll_min, ll_max;
    unsigned long long ull_min, ull_max;
    float fadd;
    double dadd, dcas;
    float fexch;
    int sh_add, sh_min, sh_max, sh_or, sh_cas;
    unsigned sh_inc;
    float sh_fadd;
    double sh_dadd;
    int old_unique;
};

__device__ double cas_add_double(double *p, double v)
{
    unsigned long long *a = (unsigned long long *)p, old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __double_as_longlong(__longlong_as_double(assumed) + v));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__global__ void atomics(Out *o, int *olds)
{
    __shared__ int s_add, s_min, s_max, s_or, s_cas;
    __shared__ unsigned s_inc;
    __shared__ float s_fadd;
    __shared__ double s_dadd;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        s_add = 0; s_min = 1 << 30; s_max = -(1 << 30); s_or = 0; s_cas = 0;
        s_inc = 0; s_fadd = 0.0f; s_dadd = 0.0;
    }
    __syncthreads();
    olds[t] = atomicAdd(&o->add, 1);
    atomicSub(&o->sub, t);
    atomicMin(&o->mn, 1000 - t);
    atomicMax(&o->mx, t * 3 - 100);
    atomicAnd(&o->and_, ~(1 << (t % 31)));
    atomicOr(&o->or_, 1 << (t % 20));
    atomicXor(&o->xor_, t * 7);
    int prev = atomicExch(&o->exch_seen, t);
    atomicAdd(&o->uadd, (unsigned)t);
    atomicMin(&o->umin, 5000u - (unsigned)t);
    atomicMax(&o->umax, (unsigned)t * 11u);
    atomicInc(&o->inc, 99u);
    atomicDec(&o->dec, 1000u);
    atomicAdd(&o->ull_add, (unsigned long long)t << 33);
    atomicAnd(&o->ull_and, ~(1ull << (t % 60)));
    atomicOr(&o->ull_or, 1ull << (t % 64));
    atomicXor(&o->ull_xor, (unsigned long long)t * 0x100000001ull);
    atomicMin(&o->ll_min, -(long long)t * 100000000000ll);
    atomicMax(&o->ll_max, (long long)t * 100000000000ll);
    atomicMin(&o->ull_min, 1000000000000ull - t);
    atomicMax(&o->ull_max, 1000000000000ull + t);
    atomicAdd(&o->fadd, 0.5f);
    atomicAdd(&o->dadd, 0.25);
    cas_add_double(&o->dcas, 1.5);
    unsigned long long old, seen = o->ull_cas_sum;
    do {
        old = seen;
        seen = atomicCAS(&o->ull_cas_sum, old, old + t);
    } while (seen != old);
    atomicExch(&o->fexch, 2.5f);
    (void)prev;
    atomicAdd(&s_add, 2);
    atomicMin(&s_min, t);
    atomicMax(&s_max, t);
    atomicOr(&s_or, 1 << (threadIdx.x % 16));
    int c, sc = s_cas;
    do {
        c = sc;
        sc = atomicCAS(&s_cas, c, c + 1);
    } while (sc != c);
    atomicInc(&s_inc, 1000u);
    atomicAdd(&s_fadd, 1.0f);
    atomicAdd(&s_dadd, 0.5);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&o->sh_add, s_add);
        atomicMin(&o->sh_min, s_min);
        atomicMax(&o->sh_max, s_max);
        atomicOr(&o->sh_or, s_or);
        atomicAdd(&o->sh_cas, s_cas);
        atomicAdd(&o->sh_inc, s_inc);
        atomicAdd(&o->sh_fadd, s_fadd);
        atomicAdd(&o->sh_dadd, s_dadd);
    }
}

int main(void)
{
    Out h = {};
    h.mn = 1 << 30; h.mx = -(1 << 30); h.and_ = -1; h.exch_seen = -1;
    h.umin = 0xffffffffu; h.dec = 0; h.ull_and = ~0ull;
    h.ll_min = 0; h.ll_max = 0; h.ull_min = ~0ull; h.ull_max = 0;
    h.sh_min = 1 << 30; h.sh_max = -(1 << 30);
    Out *d;
    int *d_olds, olds[N];
    cudaMalloc((void **)&d, sizeof h);
    cudaMalloc((void **)&d_olds, sizeof olds);
    cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
    atomics<<<N / 64, 64>>>(d, d_olds);
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(olds, d_olds, sizeof olds, cudaMemcpyDeviceToHost);
    int bad = 0;
#define CHECK(c) do { if (!(c)) { printf("mismatch: %s\n", #c); bad++; } } while (0)
    int sub = 0, mn = 1 << 30, mx = -(1 << 30), and_ = -1, or_ = 0, xor_ = 0;
    unsigned uadd = 0, umin = 0xffffffffu, umax = 0, inc = 0, dec = 0;
    unsigned long long ull_add = 0, ull_and = ~0ull, ull_or = 0, ull_xor = 0, cas = 0;
    long long llmin = 0, llmax = 0;
    for (int t = 0; t < N; t++) {
        sub -= t;
        mn = mn < 1000 - t ? mn : 1000 - t;
        mx = mx > t * 3 - 100 ? mx : t * 3 - 100;
        and_ &= ~(1 << (t % 31));
        or_ |= 1 << (t % 20);
        xor_ ^= t * 7;
        uadd += t;
        umin = umin < 5000u - t ? umin : 5000u - t;
        umax = umax > t * 11u ? umax : t * 11u;
        inc = inc >= 99u ? 0 : inc + 1;
        dec = (dec == 0 || dec > 1000u) ? 1000u : dec - 1;
        ull_add += (unsigned long long)t << 33;
        ull_and &= ~(1ull << (t % 60));
        ull_or |= 1ull << (t % 64);
        ull_xor ^= (unsigned long long)t * 0x100000001ull;
        llmin = llmin < -(long long)t * 100000000000ll ? llmin : -(long long)t * 100000000000ll;
        llmax = llmax > (long long)t * 100000000000ll ? llmax : (long long)t * 100000000000ll;
        cas += t;
    }
    CHECK(h.add == N);
    int seen[N] = {0};
    for (int t = 0; t < N; t++)
        if (olds[t] >= 0 && olds[t] < N)
            seen[olds[t]]++;
    int unique = 1;
    for (int t = 0; t < N; t++)
        unique &= seen[t] == 1;
    CHECK(unique);
    CHECK(h.sub == sub); CHECK(h.mn == mn); CHECK(h.mx == mx); CHECK(h.and_ == and_);
    CHECK(h.or_ == or_); CHECK(h.xor_ == xor_);
    CHECK(h.exch_seen >= 0 && h.exch_seen < N);
    CHECK(h.uadd == uadd); CHECK(h.umin == umin); CHECK(h.umax == umax);
    CHECK(h.inc == inc); CHECK(h.dec == dec);
    CHECK(h.ull_add == ull_add); CHECK(h.ull_and == ull_and); CHECK(h.ull_or == ull_or);
    CHECK(h.ull_xor == ull_xor); CHECK(h.ull_cas_sum == cas);
    CHECK(h.ll_min == llmin); CHECK(h.ll_max == llmax);
    CHECK(h.ull_min == 1000000000000ull - (N - 1)); CHECK(h.ull_max == 1000000000000ull + N - 1);
    CHECK(h.fadd == 0.5f * N); CHECK(h.dadd == 0.25 * N); CHECK(h.dcas == 1.5 * N);
    CHECK(h.fexch == 2.5f);
    CHECK(h.sh_add == 2 * N); CHECK(h.sh_min == 0); CHECK(h.sh_max == N - 1);
    CHECK(h.sh_or == 0xffff); CHECK(h.sh_cas == N); CHECK(h.sh_inc == N);
    CHECK(h.sh_fadd == (float)N); CHECK(h.sh_dadd == 0.5 * N);
    printf("feat_atomics: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
