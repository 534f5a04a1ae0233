// Overflow-checked and saturating integer arithmetic in device code: clang's
// __builtin_{add,sub,mul}_overflow (llvm.*.with.overflow) and
// __builtin_elementwise_{add,sub}_sat (llvm.*.sat), for 8-, 16-, 32- and 64-bit signed
// and unsigned values at the edges of their ranges, checked against the host's results;
// and a strided loop whose trip count the optimizer computes with them.
#include <stdio.h>
#include <stdint.h>

#define N 16
template <class T> struct Res { T add, sub, mul, adds, subs; int ov; };

template <class T> __host__ __device__ Res<T> ops(T a, T b)
{
    Res<T> r;
    int o1 = __builtin_add_overflow(a, b, &r.add);
    int o2 = __builtin_sub_overflow(a, b, &r.sub);
    int o3 = __builtin_mul_overflow(a, b, &r.mul);
    r.adds = __builtin_elementwise_add_sat(a, b);
    r.subs = __builtin_elementwise_sub_sat(a, b);
    r.ov = o1 | o2 << 1 | o3 << 2;
    return r;
}

template <class T> __global__ void k(const T *a, const T *b, Res<T> *o)
{
    int i = threadIdx.x;
    o[i] = ops(a[i], b[i]);
}

__global__ void strided(char *o, int n)
{
    __shared__ char s[256];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (char)i;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) o[i] = s[n - 1 - i];
}

template <class T> static int check(const char *name)
{
    T lo = (T)((T)0 < (T)-1 ? 0 : (T)1 << (8 * sizeof(T) - 1)), hi = (T)~lo;
    T a[N] = {lo, hi, 0, 1, (T)-1, lo, hi, (T)(hi / 2), (T)(lo / 2), 3, 100, (T)(hi - 1), lo, hi, 7, (T)-7};
    T b[N] = {(T)-1, 1, lo, hi, (T)-1, lo, hi, 3, 3, (T)(hi / 3), 100, 2, 1, (T)-1, (T)-9, 9};
    T *da, *db;
    Res<T> *dr, r[N];
    cudaMalloc((void **)&da, sizeof a); cudaMalloc((void **)&db, sizeof b); cudaMalloc((void **)&dr, sizeof r);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    k<T><<<1, N>>>(da, db, dr);
    cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        Res<T> w = ops(a[i], b[i]);
        int same = w.add == r[i].add && w.sub == r[i].sub && w.mul == r[i].mul &&
                   w.adds == r[i].adds && w.subs == r[i].subs && w.ov == r[i].ov;
        if (!same && bad++ < 3)
            printf("%s %d: (%lld, %lld): add %lld/%lld sub %lld/%lld mul %lld/%lld sat %lld/%lld %lld/%lld ov %d/%d\n",
                   name, i, (long long)a[i], (long long)b[i], (long long)r[i].add, (long long)w.add,
                   (long long)r[i].sub, (long long)w.sub, (long long)r[i].mul, (long long)w.mul,
                   (long long)r[i].adds, (long long)w.adds, (long long)r[i].subs, (long long)w.subs,
                   r[i].ov, w.ov);
    }
    return bad;
}

int main()
{
    int bad = check<int8_t>("s8") + check<uint8_t>("u8") + check<int16_t>("s16") +
              check<uint16_t>("u16") + check<int32_t>("s32") + check<uint32_t>("u32") +
              check<uint64_t>("u64");
    char *d, h[256];
    cudaMalloc((void **)&d, 256);
    strided<<<1, 96>>>(d, 256);
    cudaMemcpy(h, d, 256, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 256; i++) bad += h[i] != (char)(255 - i);
    printf("arith_overflow: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
