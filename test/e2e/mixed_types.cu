// Mixed integer widths (8/16/32/64-bit, signed and unsigned division and shifts), a
// switch, local arrays with dynamic indices, structs, doubles and a device function
// taking a pointer to a local, checked against the same computation on the CPU.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>

struct Pt { float x, y; int tag; };

__device__ int classify(int v) {
  switch (v % 7) {
    case 0: return 10;
    case 1: return 11;
    case 3: return v * 2;
    case 5: return -v;
    default: return 0;
  }
}

__device__ void bump(int *p, int k) { *p += k; }

__global__ void mixed(int *out, const Pt *pts, int n, unsigned char *bytes, short *shorts, double *dd)
{
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  int local[16];
  for (int i = 0; i < 16; i++) local[i] = i * tid;
  int acc = local[tid & 15] + local[(tid * 7) & 15];
  unsigned u = (unsigned)tid * 2654435761u;
  acc += (int)(u / 97u) % 13 + (int)(u % 1000u);
  int s = -tid;
  acc += s / 3 + s % 5 + (s >> 2);
  Pt p = pts[tid];
  float f = p.x / (p.y + 1.0f);
  acc += (int)f + p.tag;
  acc += classify(tid);
  bool odd = tid & 1;
  if (odd) bump(&acc, 3); else bump(&acc, -3);
  int k = 0;
  do { k += 2; } while (k < (tid % 9));
  acc += k;
  unsigned char b = bytes[tid];
  b = (unsigned char)(b * 3 + 1);
  bytes[tid] = b;
  short sh = shorts[tid];
  sh = (short)(sh * -2);
  shorts[tid] = sh;
  long long big = (long long)tid * 1000000007LL;
  acc += (int)(big % 1000003LL) + (int)(big >> 33);
  uint64_t ux = (uint64_t)big * 6364136223846793005ULL + 1442695040888963407ULL;
  acc ^= (int)(ux >> 40);
  double d = dd[tid];
  d = d * 1.5 - 2.25 / (d + 3.0);
  dd[tid] = d;
  acc += (int)(d * 100.0);
  float mx = p.x > p.y ? p.x : p.y;
  acc += (int)mx;
  acc += (int)(uint8_t)(tid * 37) + (int)(int8_t)(tid * 37);
  out[tid] = acc;
}

static int classify_h(int v) { switch (v % 7) { case 0: return 10; case 1: return 11; case 3: return v*2; case 5: return -v; default: return 0; } }

int main() {
  const int n = 500;
  static Pt pts[n]; static unsigned char bytes[n]; static short shorts[n]; static double dd[n];
  for (int i = 0; i < n; i++) { pts[i].x = i * 0.7f - 30; pts[i].y = (i % 11) * 1.3f; pts[i].tag = i % 4; bytes[i] = (unsigned char)(i * 11); shorts[i] = (short)(i * 300 - 20000); dd[i] = i * 0.01 - 1.0; }
  int *dout; Pt *dpts; unsigned char *db; short *ds; double *ddd;
  cudaMalloc((void**)&dout, n*4); cudaMalloc((void**)&dpts, sizeof pts); cudaMalloc((void**)&db, n); cudaMalloc((void**)&ds, sizeof shorts); cudaMalloc((void**)&ddd, sizeof dd);
  cudaMemcpy(dpts, pts, sizeof pts, cudaMemcpyHostToDevice);
  cudaMemcpy(db, bytes, n, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, shorts, sizeof shorts, cudaMemcpyHostToDevice);
  cudaMemcpy(ddd, dd, sizeof dd, cudaMemcpyHostToDevice);
  mixed<<<(n+63)/64, 64>>>(dout, dpts, n, db, ds, ddd);
  static int out[n]; static unsigned char b2[n]; static short s2[n]; static double d2[n];
  cudaError_t e = cudaMemcpy(out, dout, n*4, cudaMemcpyDeviceToHost);
  cudaMemcpy(b2, db, n, cudaMemcpyDeviceToHost); cudaMemcpy(s2, ds, sizeof s2, cudaMemcpyDeviceToHost); cudaMemcpy(d2, ddd, sizeof d2, cudaMemcpyDeviceToHost);
  if (e) { printf("err %s\n", cudaGetErrorString(e)); return 1; }
  int bad = 0;
  for (int tid = 0; tid < n; tid++) {
    int local[16]; for (int i = 0; i < 16; i++) local[i] = i * tid;
    int acc = local[tid & 15] + local[(tid * 7) & 15];
    unsigned u = (unsigned)tid * 2654435761u;
    acc += (int)(u / 97u) % 13 + (int)(u % 1000u);
    int s = -tid; acc += s / 3 + s % 5 + (s >> 2);
    Pt p = pts[tid]; float f = p.x / (p.y + 1.0f); acc += (int)f + p.tag;
    acc += classify_h(tid);
    if (tid & 1) acc += 3; else acc -= 3;
    int k = 0; do { k += 2; } while (k < (tid % 9)); acc += k;
    long long big = (long long)tid * 1000000007LL;
    acc += (int)(big % 1000003LL) + (int)(big >> 33);
    uint64_t ux = (uint64_t)big * 6364136223846793005ULL + 1442695040888963407ULL; acc ^= (int)(ux >> 40);
    double d = dd[tid]; d = fma(d, 1.5, -(2.25 / (d + 3.0))); /* the device contracts a*b-c (CUDA does too) */
    acc += (int)(d * 100.0);
    float mx = p.x > p.y ? p.x : p.y; acc += (int)mx;
    acc += (int)(uint8_t)(tid * 37) + (int)(int8_t)(tid * 37);
    if (out[tid] != acc) { if (bad < 5) printf("out[%d]=%d exp %d\n", tid, out[tid], acc); bad++; }
    if (b2[tid] != (unsigned char)(bytes[tid]*3+1)) { if (bad<5) printf("byte %d\n", tid); bad++; }
    if (s2[tid] != (short)(shorts[tid]*-2)) { if (bad<5) printf("short %d: %d vs %d\n", tid, s2[tid], (short)(shorts[tid]*-2)); bad++; }
    if (d2[tid] != d) { if (bad<5) printf("double %d: %.17g vs %.17g\n", tid, d2[tid], d); bad++; }
  }
  printf("mixed_types: %s (%d bad)\n", bad ? "FAIL" : "PASS", bad);
  return bad != 0;
}
