// Control flow: loops with break, continue and goto out of a nested loop, early
// return, per-thread trip counts; and a kernel with many values live at once
// (register pressure: with --max-regs it spills).
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void flow(int *out, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int i = 0; i < 100; i++) {
    if (i > t % 37) break;
    if ((i + t) % 3 == 0) continue;
    for (int j = 0; j < (t & 7); j++) {
      if (j == 5 && (t & 16)) goto out;
      acc += i * j + 1;
    }
    if (acc > 5000 + t) return;
  }
out:
  if (t < n) out[t] = acc;
}

__global__ void pressure(float *o, const float *in)
{
  int t = threadIdx.x;
  float a0=in[t],a1=in[t+1],a2=in[t+2],a3=in[t+3],a4=in[t+4],a5=in[t+5],a6=in[t+6],a7=in[t+7];
  float b0=a0*a1,b1=a1*a2,b2=a2*a3,b3=a3*a4,b4=a4*a5,b5=a5*a6,b6=a6*a7,b7=a7*a0;
  float c0=b0+a7,c1=b1+a6,c2=b2+a5,c3=b3+a4,c4=b4+a3,c5=b5+a2,c6=b6+a1,c7=b7+a0;
  double d0=c0*2.0,d1=c1*3.0,d2=c2*4.0,d3=c3*5.0,d4=c4*6.0,d5=c5*7.0,d6=c6*8.0,d7=c7*9.0;
  o[t] = (float)(d0*d1 + d2*d3 + d4*d5 + d6*d7 + a0+a1+a2+a3+a4+a5+a6+a7+b0+b1+b2+b3+b4+b5+b6+b7+c0+c1+c2+c3+c4+c5+c6+c7);
}

static int flow_h(int t, int n) {
  int acc = 0;
  for (int i = 0; i < 100; i++) {
    if (i > t % 37) break;
    if ((i + t) % 3 == 0) continue;
    for (int j = 0; j < (t & 7); j++) { if (j == 5 && (t & 16)) goto out; acc += i * j + 1; }
    if (acc > 5000 + t) return -1;
  }
out:
  return acc;
}

int main() {
  const int n = 1000;
  int *d; static int h[1024];
  cudaMalloc((void**)&d, 1024*4);
  cudaMemset(d, 0xff, 1024*4);
  flow<<<8, 128>>>(d, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 1024; t++) { int e = t < n ? flow_h(t, n) : -1; if (h[t] != e) { if (bad++ < 5) printf("t=%d got %d exp %d\n", t, h[t], e);} }
  float *fi, *fo; static float hi[64], ho[32];
  for (int i = 0; i < 64; i++) hi[i] = (i % 5) * 0.5f + 0.25f;
  cudaMalloc((void**)&fi, sizeof hi); cudaMalloc((void**)&fo, sizeof ho);
  cudaMemcpy(fi, hi, sizeof hi, cudaMemcpyHostToDevice);
  pressure<<<1, 32>>>(fo, fi);
  cudaMemcpy(ho, fo, sizeof ho, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; t++) {
    const float *in = hi; float a0=in[t],a1=in[t+1],a2=in[t+2],a3=in[t+3],a4=in[t+4],a5=in[t+5],a6=in[t+6],a7=in[t+7];
    float b0=a0*a1,b1=a1*a2,b2=a2*a3,b3=a3*a4,b4=a4*a5,b5=a5*a6,b6=a6*a7,b7=a7*a0;
    float c0=b0+a7,c1=b1+a6,c2=b2+a5,c3=b3+a4,c4=b4+a3,c5=b5+a2,c6=b6+a1,c7=b7+a0;
    double d0=c0*2.0,d1=c1*3.0,d2=c2*4.0,d3=c3*5.0,d4=c4*6.0,d5=c5*7.0,d6=c6*8.0,d7=c7*9.0;
    float e = (float)(d0*d1 + d2*d3 + d4*d5 + d6*d7 + a0+a1+a2+a3+a4+a5+a6+a7+b0+b1+b2+b3+b4+b5+b6+b7+c0+c1+c2+c3+c4+c5+c6+c7);
    if (ho[t] < e*0.9999f || ho[t] > e*1.0001f) { if (bad++ < 5) printf("p t=%d %g vs %g\n", t, ho[t], e); }
  }
  printf("control_flow: %s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
