// aes: AES-128 encryption in ECB mode (FIPS-197), one 16-byte block per thread, with the
// S-box and the round keys staged in shared memory (Hetero-Mark's AES, one of the HALCONE
// paper's workloads). The S-box is computed on the host (inverse in GF(2^8) and the
// affine map), the key schedule too; the standard's example vector (its Appendix C.1)
// checks them, and every block is checked against the same cipher on the CPU.
// Usage: aes [blocks]   (default 65536 blocks = 1 MB)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned char u8;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "aes: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

__host__ __device__ static u8 xtime(u8 a)
{
    return (u8)((a << 1) ^ (a & 0x80 ? 0x1b : 0));
}

// One block: 10 rounds over the column-major state with the 11 round keys rk.
__host__ __device__ static void encrypt(const u8 *sbox, const u8 *rk, const u8 *in, u8 *out)
{
    u8 s[16], t[16];
    for (int i = 0; i < 16; i++)
        s[i] = in[i] ^ rk[i];
    for (int round = 1; round <= 10; round++) {
        for (int r = 0; r < 4; r++) // SubBytes and ShiftRows: row r turns left by r
            for (int c = 0; c < 4; c++)
                t[r + 4 * c] = sbox[s[r + 4 * ((c + r) & 3)]];
        if (round < 10) {
            for (int c = 0; c < 4; c++) { // MixColumns
                u8 a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];
                u8 all = a0 ^ a1 ^ a2 ^ a3;
                s[4 * c] = a0 ^ all ^ xtime(a0 ^ a1);
                s[4 * c + 1] = a1 ^ all ^ xtime(a1 ^ a2);
                s[4 * c + 2] = a2 ^ all ^ xtime(a2 ^ a3);
                s[4 * c + 3] = a3 ^ all ^ xtime(a3 ^ a0);
            }
        } else {
            memcpy(s, t, 16);
        }
        for (int i = 0; i < 16; i++)
            s[i] ^= rk[16 * round + i];
    }
    memcpy(out, s, 16);
}

__global__ void ecb(const u8 *sbox_g, const u8 *rk_g, const u8 *in, u8 *out, int blocks)
{
    __shared__ u8 sbox[256], rk[176];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        sbox[i] = sbox_g[i];
    for (int i = threadIdx.x; i < 176; i += blockDim.x)
        rk[i] = rk_g[i];
    __syncthreads();
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < blocks)
        encrypt(sbox, rk, in + 16 * (size_t)b, out + 16 * (size_t)b);
}

static u8 gmul(u8 a, u8 b)
{
    u8 p = 0;
    for (; b; b >>= 1, a = xtime(a))
        if (b & 1)
            p ^= a;
    return p;
}

static void make_sbox(u8 *sbox)
{
    for (int x = 0; x < 256; x++) {
        u8 inv = 0; // x^254 is x's inverse (0 for 0)
        if (x) {
            inv = 1;
            for (int k = 0; k < 254; k++)
                inv = gmul(inv, (u8)x);
        }
        u8 s = inv;
        for (int k = 1; k < 5; k++)
            s ^= (u8)((inv << k) | (inv >> (8 - k)));
        sbox[x] = s ^ 0x63;
    }
}

static void expand_key(const u8 *sbox, const u8 *key, u8 *rk)
{
    u8 rcon = 1;
    memcpy(rk, key, 16);
    for (int i = 4; i < 44; i++) {
        u8 w[4];
        memcpy(w, rk + 4 * (i - 1), 4);
        if (i % 4 == 0) {
            u8 first = w[0];
            w[0] = sbox[w[1]] ^ rcon, w[1] = sbox[w[2]], w[2] = sbox[w[3]], w[3] = sbox[first];
            rcon = xtime(rcon);
        }
        for (int k = 0; k < 4; k++)
            rk[4 * i + k] = rk[4 * (i - 4) + k] ^ w[k];
    }
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 65536;
    if (blocks < 1 || blocks > (1 << 22)) {
        fprintf(stderr, "usage: aes [blocks 1..2^22]\n");
        return 2;
    }
    u8 sbox[256], rk[176], key[16], probe[16], got[16];
    make_sbox(sbox);
    for (int i = 0; i < 16; i++)
        key[i] = (u8)i, probe[i] = (u8)(0x11 * i);
    expand_key(sbox, key, rk);
    static const u8 fips[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
    encrypt(sbox, rk, probe, got);
    if (memcmp(got, fips, 16)) {
        fprintf(stderr, "aes: the CPU cipher does not give FIPS-197's example\n");
        return 1;
    }
    size_t bytes = 16 * (size_t)blocks;
    u8 *in = (u8 *)malloc(bytes), *out = (u8 *)malloc(bytes);
    memcpy(in, probe, 16); // block 0 is the standard's example
    unsigned seed = 5;
    for (size_t i = 16; i < bytes; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (u8)(seed >> 24);
    }
    u8 *din, *dout, *dsbox, *drk;
    if (check(cudaMalloc(&din, bytes), "cudaMalloc") || check(cudaMalloc(&dout, bytes), "cudaMalloc") ||
        check(cudaMalloc(&dsbox, 256), "cudaMalloc") || check(cudaMalloc(&drk, 176), "cudaMalloc") ||
        check(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(dsbox, sbox, 256, cudaMemcpyHostToDevice), "copy") ||
        check(cudaMemcpy(drk, rk, 176, cudaMemcpyHostToDevice), "copy"))
        return 1;
    ecb<<<(blocks + 127) / 128, 128>>>(dsbox, drk, din, dout, blocks);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost), "copy"))
        return 1;
    double t0 = cpu_seconds();
    int bad = memcmp(out, fips, 16) != 0;
    if (bad)
        fprintf(stderr, "aes: block 0 is not FIPS-197's example ciphertext\n");
    for (int b = 0; b < blocks; b++) {
        encrypt(sbox, rk, in + 16 * (size_t)b, got);
        if (memcmp(got, out + 16 * (size_t)b, 16) && bad++ < 5)
            fprintf(stderr, "aes: block %d differs from the CPU's\n", b);
    }
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);
    printf("aes %d blocks\n", blocks);
    printf("aes: %s\n", bad ? "FAIL" : "PASS");
    cudaFree(din), cudaFree(dout), cudaFree(dsbox), cudaFree(drk);
    free(in), free(out);
    return bad ? 1 : 0;
}
