// Vector types (loads/stores of char4..double4, make_*), a 3D grid of 3D blocks,
// by-value struct parameters of several sizes, __constant__ arrays and __device__
// globals with initializers (arrays of structs), static __shared__ arrays of several
// types, and dynamic shared memory declared with several types (all alias one base).
#include <cuda_runtime.h>
#include <stdio.h>

struct Pt { int x; float y; double z; char tag; };
struct Big { int v[20]; double scale; };
struct Small { short a; char b; };

__constant__ int c_table[8] = {1, 2, 3, 5, 8, 13, 21, 34};
__constant__ Pt c_pts[3] = {{1, 1.5f, 2.25, 'a'}, {2, 2.5f, 3.25, 'b'}, {3, 3.5f, 4.25, 'c'}};
__device__ Pt g_pts[2] = {{7, 0.5f, -1.0, 'x'}, {9, 0.25f, -2.0, 'y'}};
__device__ unsigned long long g_counter = 1000;
__device__ float g_vec[4] = {0.5f, 1.5f, 2.5f, 3.5f};

__global__ void vectors(const float4 *a, double2 *b, int3 *c, uchar4 *d, short2 *e, longlong2 *f)
{
    int i = threadIdx.x;
    float4 v = a[i];
    b[i] = make_double2(v.x + v.y, v.z * v.w);
    int3 w = c[i];
    c[i] = make_int3(w.z, w.x, w.y + i);
    uchar4 u = d[i];
    d[i] = make_uchar4(u.w, u.z, u.y, (unsigned char)(u.x + 1));
    short2 s = e[i];
    e[i] = make_short2(s.y, (short)-s.x);
    longlong2 l = f[i];
    f[i] = make_longlong2(l.y << 1, l.x - 1);
}

__global__ void grid3d(int *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz)
        out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z + gridDim.z * blockDim.y * 1000000;
}

__global__ void params(Pt p, Big big, Small sm, char c, double *out)
{
    double s = 0;
    for (int i = 0; i < 20; i++)
        s += big.v[i];
    out[0] = p.x + p.y + p.z + p.tag;
    out[1] = s * big.scale;
    out[2] = sm.a * 1000 + sm.b + c;
}

__global__ void tables(double *out)
{
    int i = threadIdx.x;
    Pt p = c_pts[i % 3];
    out[i] = c_table[i] + p.x * 10 + p.y + p.z + g_pts[i & 1].z * g_pts[i & 1].x + g_vec[i & 3];
    if (i == 0) {
        g_pts[1].x += 1;
        g_counter += 5;
    }
}

__global__ void shared_static(int *out)
{
    __shared__ int si[64];
    __shared__ double sd[16];
    __shared__ char sc[40];
    __shared__ Pt sp[4];
    int t = threadIdx.x;
    si[t] = t * 3;
    if (t < 16)
        sd[t] = t * 0.5;
    if (t < 40)
        sc[t] = (char)(t + 1);
    if (t < 4)
        sp[t] = c_pts[t % 3];
    __syncthreads();
    out[t] = si[63 - t] + (int)(sd[t % 16] * 4) + sc[t % 40] + sp[t % 4].x;
}

extern __shared__ int dyn_i[];
extern __shared__ float dyn_f[];
extern __shared__ double dyn_d[];

__global__ void shared_dynamic(int *out, int n)
{
    int t = threadIdx.x;
    __shared__ int fixed[8];
    if (t < 8)
        fixed[t] = t;
    dyn_d[t] = t + 0.5; /* doubles 0..n-1 */
    __syncthreads();
    float f = dyn_f[2 * t + 1]; /* upper half of double t */
    int i = dyn_i[2 * t];       /* lower half */
    __syncthreads();
    out[t] = (int)(dyn_d[n - 1 - t] * 2) + fixed[t & 7] * 1000 +
             (__float_as_int(f) == (int)(__double_as_longlong(t + 0.5) >> 32)) * 100000 +
             (i == (int)__double_as_longlong(t + 0.5)) * 1000000;
}

int main(void)
{
    int bad = 0;
#define CHECK(c) do { if (!(c)) { printf("mismatch line %d: %s\n", __LINE__, #c); bad++; } } while (0)
    /* vectors */
    enum { NV = 8 };
    float4 ha[NV]; double2 hb[NV]; int3 hc[NV]; uchar4 hd[NV]; short2 he[NV]; longlong2 hf[NV];
    for (int i = 0; i < NV; i++) {
        ha[i] = make_float4(i, i + 0.5f, 2, i * 0.25f);
        hc[i] = make_int3(i, -i, i * 7);
        hd[i] = make_uchar4(i, 2 * i, 3 * i, 255);
        he[i] = make_short2(-i, i * 100);
        hf[i] = make_longlong2(1ll << (i + 32), -i);
    }
    float4 *da; double2 *db; int3 *dc; uchar4 *dd; short2 *de; longlong2 *df;
    cudaMalloc((void **)&da, sizeof ha); cudaMalloc((void **)&db, sizeof hb);
    cudaMalloc((void **)&dc, sizeof hc); cudaMalloc((void **)&dd, sizeof hd);
    cudaMalloc((void **)&de, sizeof he); cudaMalloc((void **)&df, sizeof hf);
    cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice);
    cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice);
    cudaMemcpy(de, he, sizeof he, cudaMemcpyHostToDevice);
    cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice);
    vectors<<<1, NV>>>(da, db, dc, dd, de, df);
    cudaMemcpy(hb, db, sizeof hb, cudaMemcpyDeviceToHost);
    int3 rc[NV]; uchar4 rd[NV]; short2 re[NV]; longlong2 rf[NV];
    cudaMemcpy(rc, dc, sizeof rc, cudaMemcpyDeviceToHost);
    cudaMemcpy(rd, dd, sizeof rd, cudaMemcpyDeviceToHost);
    cudaMemcpy(re, de, sizeof re, cudaMemcpyDeviceToHost);
    cudaMemcpy(rf, df, sizeof rf, cudaMemcpyDeviceToHost);
    for (int i = 0; i < NV; i++) {
        CHECK(hb[i].x == ha[i].x + ha[i].y && hb[i].y == ha[i].z * ha[i].w);
        CHECK(rc[i].x == hc[i].z && rc[i].y == hc[i].x && rc[i].z == hc[i].y + i);
        CHECK(rd[i].x == 255 && rd[i].y == 3 * i && rd[i].z == 2 * i && rd[i].w == i + 1);
        CHECK(re[i].x == i * 100 && re[i].y == i);
        CHECK(rf[i].x == -i * 2 && rf[i].y == (1ll << (i + 32)) - 1);
    }
    /* 3D grid */
    const int nx = 9, ny = 7, nz = 5;
    int *dg, hg[nx * ny * nz];
    cudaMalloc((void **)&dg, sizeof hg);
    cudaMemset(dg, 0xff, sizeof hg);
    dim3 block(4, 2, 2), grid((nx + 3) / 4, (ny + 1) / 2, (nz + 1) / 2);
    grid3d<<<grid, block>>>(dg, nx, ny, nz);
    cudaMemcpy(hg, dg, sizeof hg, cudaMemcpyDeviceToHost);
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                CHECK(hg[(z * ny + y) * nx + x] == x + 100 * y + 10000 * z + 3 * 2 * 1000000);
    /* by-value parameters */
    Pt p = {4, 0.5f, 0.25, 'z'};
    Big big;
    for (int i = 0; i < 20; i++)
        big.v[i] = i;
    big.scale = 0.5;
    Small sm = {7, 3};
    double *dp, hp[64];
    cudaMalloc((void **)&dp, sizeof hp);
    params<<<1, 1>>>(p, big, sm, (char)9, dp);
    cudaMemcpy(hp, dp, 3 * sizeof(double), cudaMemcpyDeviceToHost);
    CHECK(hp[0] == 4 + 0.5 + 0.25 + 'z');
    CHECK(hp[1] == 190 * 0.5);
    CHECK(hp[2] == 7000 + 3 + 9);
    /* constant and global tables */
    tables<<<1, 8>>>(dp);
    cudaMemcpy(hp, dp, 8 * sizeof(double), cudaMemcpyDeviceToHost);
    int ct[8] = {1, 2, 3, 5, 8, 13, 21, 34};
    Pt cp[3] = {{1, 1.5f, 2.25, 'a'}, {2, 2.5f, 3.25, 'b'}, {3, 3.5f, 4.25, 'c'}};
    Pt gp[2] = {{7, 0.5f, -1.0, 'x'}, {9, 0.25f, -2.0, 'y'}};
    float gv[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    for (int i = 0; i < 8; i++)
        CHECK(hp[i] == ct[i] + cp[i % 3].x * 10 + cp[i % 3].y + cp[i % 3].z +
                           gp[i & 1].z * gp[i & 1].x + gv[i & 3]);
    Pt gpr[2];
    unsigned long long cnt;
    cudaMemcpyFromSymbol(gpr, g_pts, sizeof gpr);
    cudaMemcpyFromSymbol(&cnt, g_counter, sizeof cnt);
    CHECK(gpr[1].x == 10 && gpr[0].tag == 'x' && cnt == 1005);
    /* shared memory */
    int *ds, hs[64];
    cudaMalloc((void **)&ds, sizeof hs);
    shared_static<<<1, 64>>>(ds);
    cudaMemcpy(hs, ds, sizeof hs, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++)
        CHECK(hs[t] == (63 - t) * 3 + (int)((t % 16) * 0.5 * 4) + (t % 40 + 1) + cp[t % 4 % 3].x);
    shared_dynamic<<<1, 32, 32 * sizeof(double)>>>(ds, 32);
    cudaMemcpy(hs, ds, 32 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 32; t++)
        CHECK(hs[t] == (int)((31 - t + 0.5) * 2) + (t & 7) * 1000 + 100000 + 1000000);
    printf("feat_memory: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
