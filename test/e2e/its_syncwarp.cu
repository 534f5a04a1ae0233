// __syncwarp with its CUDA meaning (independent thread scheduling): after the warp diverges,
// each half writes its own array, waits at __syncwarp inside its branch for the other half,
// then reads what the other half wrote. With emu.simt = ipdom the first path reads before the
// second has written (pre-Volta behaviour).
__global__ void k(int *o, int v)
{
    __shared__ int a[16], b[16];
    int l = threadIdx.x;
    if (l < 16) { a[l] = v + l; __syncwarp(); o[l] = b[15 - l] * 3; }
    else        { b[l - 16] = 2 * v + l; __syncwarp(); o[l] = a[31 - l] * 5; }
}
int main()
{
    int *d, h[32], bad = 0;
    cudaMalloc((void **)&d, sizeof h);
    k<<<1, 32>>>(d, 1000);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int l = 0; l < 32; l++) bad += h[l] != (l < 16 ? 3 * (2000 + 31 - l) : 5 * (1000 + 31 - l));
    printf("%d %d\n", h[0], h[16]);
    printf("its_syncwarp: %s\n", bad ? "FAIL" : "PASS");
    return bad;
}
