// Cooperative groups within a block: thread_block ranks and sync, static and dynamic tiles
// (ranks, meta ranks, shuffles, votes), tiles of tiles, coalesced groups under divergence
// (ranks in lane order, shuffles by rank, ballot), and cg::reduce / scans with each
// operator, checked against sequential host computations.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdio.h>
namespace cg = cooperative_groups;

#define N 128
__global__ void k(const int *in, int *out)
{
    cg::thread_block b = cg::this_thread_block();
    __shared__ int s[N];
    int r = (int)b.thread_rank();
    s[r] = in[r];
    b.sync();
    int v = s[(r + 1) % N];                       // needs the barrier
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(w);
    out[0 * N + r] = v;
    out[1 * N + r] = cg::reduce(w, v, cg::plus<int>());
    out[2 * N + r] = cg::reduce(t8, v, cg::greater<int>());
    out[3 * N + r] = cg::reduce(t8, v, cg::less<int>());
    out[4 * N + r] = cg::reduce(t8, v, cg::bit_xor<int>());
    out[5 * N + r] = t8.shfl(v, 7) + 1000 * (int)t8.meta_group_rank() + 100000 * (int)t8.thread_rank();
    out[6 * N + r] = (int)t8.ballot(v & 1) + 256 * t8.any(v > 60) + 512 * t8.all(v >= 0);
    out[7 * N + r] = cg::inclusive_scan(t8, v);
    out[8 * N + r] = cg::exclusive_scan(t8, v, cg::plus<int>());
    cg::thread_group d4 = cg::tiled_partition(b, 4);
    out[9 * N + r] = (int)d4.size() * 100 + (int)d4.thread_rank();
    out[10 * N + r] = -1;
    if (v % 3 == 0) {                              // a divergent subset of each warp
        cg::coalesced_group c = cg::coalesced_threads();
        out[10 * N + r] = (int)c.thread_rank() * 1000 + (int)c.size();
        out[11 * N + r] = c.shfl(v, c.size() - 1);
        out[12 * N + r] = cg::reduce(c, v, cg::plus<int>());
    } else {
        out[11 * N + r] = out[12 * N + r] = -1;
    }
    double dv = v * 0.5;
    out[13 * N + r] = (int)(2 * w.shfl_down(dv, 1));
}

int main()
{
    int in[N], out[14 * N], *din, *dout, bad = 0;
    for (int i = 0; i < N; i++) in[i] = (i * 37 + 11) % 97;
    cudaMalloc((void **)&din, sizeof in); cudaMalloc((void **)&dout, sizeof out);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    k<<<1, N>>>(din, dout);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    int v[N];
    for (int r = 0; r < N; r++) v[r] = in[(r + 1) % N];
#define CHECK(row, r, want) do { if (out[(row) * N + (r)] != (want) && bad++ < 10) \
    printf("row %d rank %d: %d, expected %d\n", row, r, out[(row) * N + (r)], want); } while (0)
    for (int r = 0; r < N; r++) {
        int w0 = r / 32 * 32, t0 = r / 8 * 8, sum = 0, mx = 0, mn = 1 << 30, x = 0, bal = 0, any = 0, all = 1, inc = 0, exc = 0;
        for (int i = w0; i < w0 + 32; i++) sum += v[i];
        for (int i = t0; i < t0 + 8; i++) {
            mx = v[i] > mx ? v[i] : mx; mn = v[i] < mn ? v[i] : mn; x ^= v[i];
            bal |= (v[i] & 1) << (i - t0); any |= v[i] > 60; all &= v[i] >= 0;
            if (i <= r) inc += v[i];
            if (i < r) exc += v[i];
        }
        CHECK(0, r, v[r]);
        CHECK(1, r, sum); CHECK(2, r, mx); CHECK(3, r, mn); CHECK(4, r, x);
        CHECK(5, r, v[t0 + 7] + 1000 * (r / 8) + 100000 * (r % 8));
        CHECK(6, r, bal + 256 * any + 512 * all);
        CHECK(7, r, inc); CHECK(8, r, exc);
        CHECK(9, r, 400 + r % 4);
        int rank = 0, size = 0, last = 0, csum = 0;
        for (int i = w0; i < w0 + 32; i++)
            if (v[i] % 3 == 0) { if (i < r) rank++; size++; last = v[i]; csum += v[i]; }
        CHECK(10, r, v[r] % 3 == 0 ? rank * 1000 + size : -1);
        CHECK(11, r, v[r] % 3 == 0 ? last : -1);
        CHECK(12, r, v[r] % 3 == 0 ? csum : -1);
        CHECK(13, r, (r % 32) < 31 ? v[r + 1] : v[r]);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { printf("error: %s\n", cudaGetErrorString(e)); bad++; }
    printf("cg_groups: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
