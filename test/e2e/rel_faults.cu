// Guest faults and bad launches, one per case (./rel_faults CASE): each must be reported
// with CUDA's code at the call CUDA reports it, and the host program must keep running:
// after cudaDeviceReset the device works again (the last lines).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>

__constant__ int cst[16];
__device__ int gdev[16];

__global__ void oob_read(const int *a, int *o, int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; o[i]=a[i+n]; }
__global__ void oob_write(int *a, int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; a[i+n]=i; }
__global__ void oob_shared(int *o, int n){ __shared__ int s[64]; s[threadIdx.x]=threadIdx.x; __syncthreads(); o[threadIdx.x]=s[threadIdx.x+n]; }
__global__ void oob_shared_w(int n){ __shared__ int s[64]; s[threadIdx.x+n]=threadIdx.x; }
__global__ void misal4(char *p, int *o){ o[threadIdx.x]=*(int*)(p+1+4*threadIdx.x); }
__global__ void misal8(char *p, double *o){ o[threadIdx.x]=*(double*)(p+4+8*threadIdx.x); }
__global__ void wr(int *p){ p[threadIdx.x]=threadIdx.x; }
__global__ void nullderef(int *p){ o_label: p[threadIdx.x]=*(volatile int*)0; }
__global__ void nullwrite(){ *(volatile int*)0 = 1; }
__global__ void constwrite(int v){ int *p=(int*)&cst[0]; p[threadIdx.x%16]=v; }
__global__ void divzero(int *o, int d){ o[threadIdx.x]=100/(d); o[threadIdx.x+32]=100%d; }
__global__ void runaway(int *o, int n){ volatile int i=0; while(n>0){ i++; } o[0]=i; }
__global__ void divbar(int *o){ if(threadIdx.x<16){ __syncthreads(); } o[threadIdx.x]=1; }
__global__ void divbar2(int *o){ if(threadIdx.x<32){ __syncthreads(); } else { o[threadIdx.x]=2; } }
__global__ void trapk(int *o){ if(threadIdx.x==5) __builtin_trap(); o[threadIdx.x]=1; }
__global__ void assertk(int *o, int n){ assert(threadIdx.x < n); o[threadIdx.x]=1; }
__global__ void localoob(int *o, int n){ int a[8]; for(int i=0;i<8;i++)a[i]=i; volatile int *p=a; o[threadIdx.x]=p[n]; p[n+1]=3; }
__global__ void localoobw(int *o, int n){ int a[8]; for(int i=0;i<8;i++)a[i]=i+o[i]; volatile int *p=a; p[n]=3; o[threadIdx.x]=p[threadIdx.x%8]; }
__global__ void nop(int *o){ if(o) o[blockIdx.x%16]=1; }
__global__ void dynsh(int *o){ extern __shared__ int s[]; s[threadIdx.x]=1; o[threadIdx.x]=s[threadIdx.x]; }
__global__ void pf(int n){ for(int i=0;i<n;i++) printf("thread %d block %d line %d xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", threadIdx.x, blockIdx.x, i); }
__global__ void bigstack(int *o, int n){ volatile int a[4096]; a[n]=5; o[threadIdx.x]=a[n]; }

static void st(const char *w, cudaError_t e){ printf("  %-28s -> %d %s (%s)\n", w, (int)e, cudaGetErrorName(e), cudaGetErrorString(e)); }

int main(int argc, char **argv){
  const char *c = argc>1?argv[1]:"";
  setvbuf(stdout,NULL,_IONBF,0);
  int *d=NULL, *o=NULL; cudaMalloc((void**)&d, 1024*sizeof(int)); cudaMalloc((void**)&o, 1024*sizeof(int));
  cudaMemset(d,0,4096); cudaMemset(o,0,4096);
  printf("case %s\n", c);
  if(!strcmp(c,"oob_read")) oob_read<<<4,256>>>(d,o,1);
  else if(!strcmp(c,"oob_read_far")) oob_read<<<1,32>>>(d,o,1<<28);
  else if(!strcmp(c,"oob_write")) oob_write<<<4,256>>>(d,100);
  else if(!strcmp(c,"oob_write_neg")) oob_write<<<1,32>>>(d,-100);
  else if(!strcmp(c,"oob_shared")) oob_shared<<<1,64>>>(o,1);
  else if(!strcmp(c,"oob_shared_w")) oob_shared_w<<<1,64>>>(100000);
  else if(!strcmp(c,"misal4")) misal4<<<1,32>>>((char*)d,o);
  else if(!strcmp(c,"misal8")) misal8<<<1,32>>>((char*)d,(double*)o);
  else if(!strcmp(c,"uaf")) { int *t; cudaMalloc((void**)&t,256); cudaFree(t); wr<<<1,32>>>(t); }
  else if(!strcmp(c,"doublefree")) { int *t; cudaMalloc((void**)&t,256); st("cudaFree 1",cudaFree(t)); st("cudaFree 2",cudaFree(t)); st("cudaFree(d+1)",cudaFree(d+1)); st("cudaFree(host ptr)",cudaFree((void*)main)); st("cudaFree(0xdead)",cudaFree((void*)0xdead)); }
  else if(!strcmp(c,"null")) nullderef<<<1,32>>>(o);
  else if(!strcmp(c,"nullwrite")) nullwrite<<<1,32>>>();
  else if(!strcmp(c,"constwrite")) constwrite<<<1,32>>>(7);
  else if(!strcmp(c,"divzero")) divzero<<<1,32>>>(o,0);
  else if(!strcmp(c,"runaway")) runaway<<<1,32>>>(o,1);
  else if(!strcmp(c,"divbar")) divbar<<<1,64>>>(o);
  else if(!strcmp(c,"divbar2")) divbar2<<<1,64>>>(o);
  else if(!strcmp(c,"trap")) trapk<<<1,32>>>(o);
  else if(!strcmp(c,"assert")) assertk<<<2,32>>>(o,7);
  else if(!strcmp(c,"localoob")) localoob<<<1,32>>>(o,1000);
  else if(!strcmp(c,"localoobw")) localoobw<<<1,32>>>(o,-3);
  else if(!strcmp(c,"hugegrid")) nop<<<2147483647,1>>>(NULL);
  else if(!strcmp(c,"hugegrid_y")) nop<<<dim3(1,65536,1),1>>>(NULL);
  else if(!strcmp(c,"zerogrid")) nop<<<0,32>>>(o);
  else if(!strcmp(c,"zeroblock")) nop<<<1,0>>>(o);
  else if(!strcmp(c,"block1025")) nop<<<1,1025>>>(o);
  else if(!strcmp(c,"blockz65")) nop<<<1,dim3(1,1,65)>>>(o);
  else if(!strcmp(c,"dynsh_big")) dynsh<<<1,32,1<<20>>>(o);
  else if(!strcmp(c,"dynsh_48k")) dynsh<<<1,32,49152>>>(o);
  else if(!strcmp(c,"dynsh_huge")) dynsh<<<1,32,(size_t)-1>>>(o);
  else if(!strcmp(c,"malloc1tb")) { void *p=(void*)1; st("cudaMalloc 1TB",cudaMalloc(&p,(size_t)1<<40)); printf("  p=%p\n",p); void *q=(void*)1; st("cudaMalloc SIZE_MAX",cudaMalloc(&q,(size_t)-1)); printf("  q=%p\n",q); st("cudaMalloc(NULL,16)",cudaMalloc(NULL,16)); void *z=(void*)1; st("cudaMalloc 0",cudaMalloc(&z,0)); printf("  z=%p\n",z); }
  else if(!strcmp(c,"manylaunch")) { for(int i=0;i<10000;i++) nop<<<1,32>>>(o); }
  else if(!strcmp(c,"printf")) pf<<<64,256>>>(20);
  else if(!strcmp(c,"bigstack")) bigstack<<<1,32>>>(o,5000);
  else { printf("unknown case\n"); return 3; }
  st("cudaGetLastError", cudaGetLastError());
  st("cudaDeviceSynchronize", cudaDeviceSynchronize());
  st("cudaGetLastError again", cudaGetLastError());
  st("cudaPeekAtLastError", cudaPeekAtLastError());
  int h[4]={0}; st("cudaMemcpy D2H", cudaMemcpy(h,o,16,cudaMemcpyDeviceToHost));
  void *p2=NULL; st("cudaMalloc after", cudaMalloc(&p2,64));
  nop<<<1,32>>>(o); st("launch after", cudaGetLastError());
  st("cudaDeviceReset", cudaDeviceReset());
  st("cudaGetLastError post-reset", cudaGetLastError());
  int *o2; st("cudaMalloc post-reset", cudaMalloc((void**)&o2,128));
  wr<<<1,32>>>(o2); st("launch post-reset", cudaGetLastError());
  st("sync post-reset", cudaDeviceSynchronize());
  int hh[32]={0}; st("memcpy post-reset", cudaMemcpy(hh,o2,128,cudaMemcpyDeviceToHost)); printf("  hh[31]=%d (expect 31)\n", hh[31]);
  printf("host still running: end\n");
  return 0;
}
