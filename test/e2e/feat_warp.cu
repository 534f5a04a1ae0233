// Warp shuffles (idx/up/down/xor, every width, int/float/64-bit/double), votes,
// __activemask, __syncthreads_count/and/or, __byte_perm and bit intrinsics, checked on
// the host against the CUDA semantics.
#include <cuda_runtime.h>
#include <stdio.h>

#define T 64 /* two warps */
#define NW 5 /* widths 32, 16, 8, 4, 2 */

__global__ void shuffles(int *si, float *sf, long long *sl, double *sd, int *red)
{
    int t = threadIdx.x, k = 0;
    for (int w = 32; w >= 2; w /= 2, k++) {
        int base = (k * 4) * T;
        si[base + t] = __shfl_sync(0xffffffffu, t * 10, (t * 3) % w, w);
        si[base + T + t] = __shfl_up_sync(0xffffffffu, t * 10, 1, w);
        si[base + 2 * T + t] = __shfl_down_sync(0xffffffffu, t * 10, 2, w);
        si[base + 3 * T + t] = __shfl_xor_sync(0xffffffffu, t * 10, 1, w);
    }
    sf[t] = __shfl_down_sync(0xffffffffu, t * 0.5f, 3);
    sl[t] = __shfl_xor_sync(0xffffffffu, (long long)t << 40 | t, 5);
    sd[t] = __shfl_sync(0xffffffffu, t * 1.25, 31 - (t & 31));
    /* warp sum reduction */
    int v = t + 1;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((t & 31) == 0)
        red[t / 32] = v;
}

__global__ void votes(unsigned *o)
{
    int t = threadIdx.x;
    unsigned b = __ballot_sync(0xffffffffu, t % 3 == 0);
    int any = __any_sync(0xffffffffu, t == 40);
    int all = __all_sync(0xffffffffu, t < 60);
    unsigned am = 0;
    if (t % 4 == 1)
        am = __activemask();
    int cnt = __syncthreads_count(t % 5 == 0);
    int and_ = __syncthreads_and(t < 100);
    int or_ = __syncthreads_or(t == 63);
    int and0 = __syncthreads_and(t != 7);
    o[t * 8 + 0] = b;
    o[t * 8 + 1] = any;
    o[t * 8 + 2] = all;
    o[t * 8 + 3] = am;
    o[t * 8 + 4] = cnt;
    o[t * 8 + 5] = and_ | (or_ << 1) | (and0 << 2);
    o[t * 8 + 6] = __byte_perm(0x33221100u + t, 0x77665544u, 0x5140 + (t & 3));
    o[t * 8 + 7] = __popc(t * 12345u) + (__clz(t) << 8) + (__ffs(t << 3) << 16) +
                   ((__brev(t) >> 26) << 24);
}

static int expect_idx(int t, int w, int mode)
{
    int seg = t / w * w, lane = t % w, src;
    switch (mode) {
    case 0: src = seg + (t * 3) % w; break;
    case 1: src = lane >= 1 ? t - 1 : t; break;
    case 2: src = lane + 2 < w ? t + 2 : t; break;
    default: src = seg + (lane ^ 1); break;
    }
    return src * 10;
}

static unsigned byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
    return r;
}

int main(void)
{
    int *si, *red, hsi[NW * 4 * T], hred[2];
    float *sf, hsf[T];
    long long *sl, hsl[T];
    double *sd, hsd[T];
    unsigned *vo, hvo[T * 8];
    cudaMalloc((void **)&si, sizeof hsi);
    cudaMalloc((void **)&sf, sizeof hsf);
    cudaMalloc((void **)&sl, sizeof hsl);
    cudaMalloc((void **)&sd, sizeof hsd);
    cudaMalloc((void **)&red, sizeof hred);
    cudaMalloc((void **)&vo, sizeof hvo);
    shuffles<<<1, T>>>(si, sf, sl, sd, red);
    votes<<<1, T>>>(vo);
    cudaMemcpy(hsi, si, sizeof hsi, cudaMemcpyDeviceToHost);
    cudaMemcpy(hsf, sf, sizeof hsf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hsl, sl, sizeof hsl, cudaMemcpyDeviceToHost);
    cudaMemcpy(hsd, sd, sizeof hsd, cudaMemcpyDeviceToHost);
    cudaMemcpy(hred, red, sizeof hred, cudaMemcpyDeviceToHost);
    cudaMemcpy(hvo, vo, sizeof hvo, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int k = 0, w = 32; k < NW; k++, w /= 2)
        for (int m = 0; m < 4; m++)
            for (int t = 0; t < T; t++)
                if (hsi[(k * 4 + m) * T + t] != expect_idx(t, w, m)) {
                    if (bad++ < 5)
                        printf("shfl mode %d width %d lane %d: %d, want %d\n", m, w, t,
                               hsi[(k * 4 + m) * T + t], expect_idx(t, w, m));
                }
    for (int t = 0; t < T; t++) {
        int l = t & 31, d = l + 3 < 32 ? t + 3 : t, x = (t & ~31) | (l ^ 5);
        bad += hsf[t] != d * 0.5f;
        bad += hsl[t] != ((long long)x << 40 | x);
        bad += hsd[t] != ((t & ~31) + 31 - l) * 1.25;
    }
    bad += hred[0] != 32 * 33 / 2;
    bad += hred[1] != (33 + 64) * 32 / 2;
    for (int t = 0; t < T; t++) {
        unsigned *o = &hvo[t * 8], b = 0;
        for (int l = 0; l < 32; l++)
            b |= (unsigned)(((t & ~31) + l) % 3 == 0) << l;
        bad += o[0] != b;
        bad += o[1] != (unsigned)(t >= 32);
        bad += o[2] != (unsigned)(t < 32);
        bad += o[3] != (t % 4 == 1 ? 0x22222222u : 0u);
        bad += o[4] != 13;
        bad += o[5] != 3;
        bad += o[6] != byte_perm(0x33221100u + t, 0x77665544u, 0x5140 + (t & 3));
        unsigned want = __builtin_popcount(t * 12345u) + ((t ? __builtin_clz(t) : 32) << 8) +
                        (__builtin_ffs(t << 3) << 16);
        unsigned rev = 0;
        for (int i = 0; i < 32; i++)
            rev |= ((t >> i) & 1u) << (31 - i);
        want += (rev >> 26) << 24;
        if (o[7] != want && bad++ < 5)
            printf("bits lane %d: %x, want %x\n", t, o[7], want);
        if (bad && t < 2)
            printf("lane %d: %x %u %u %x %u %u %x\n", t, o[0], o[1], o[2], o[3], o[4], o[5], o[6]);
    }
    printf("feat_warp: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
