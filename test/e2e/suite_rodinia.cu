// A program written as Rodinia's are: no CUDA include at all, a __constant__ table set
// with cudaMemcpyToSymbol, a texture reference over the input (kmeans), shared-memory
// tiles with IN_RANGE guards (hotspot), pow(double, int) in device code, srand(time(NULL))
// and strncpy on the host, and an error-check macro in the style of the suite.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define BLOCK_SIZE 16
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define CHECK(call) do { cudaError_t err = (call); if (err != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__); exit(1); } } while (0)

__constant__ float c_weights[4];
texture<float, 1, cudaReadModeElementType> t_in;

__global__ void stencil(float *out, int rows, int cols, double scale)
{
    __shared__ float tile[BLOCK_SIZE][BLOCK_SIZE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * (BLOCK_SIZE - 2) + tx - 1, y = blockIdx.y * (BLOCK_SIZE - 2) + ty - 1;
    int cx = x < 0 ? 0 : x >= cols ? cols - 1 : x, cy = y < 0 ? 0 : y >= rows ? rows - 1 : y;
    tile[ty][tx] = tex1Dfetch(t_in, cy * cols + cx);
    __syncthreads();
    if (IN_RANGE(tx, 1, BLOCK_SIZE - 2) && IN_RANGE(ty, 1, BLOCK_SIZE - 2) && x < cols && y < rows) {
        float v = c_weights[0] * tile[ty][tx] + c_weights[1] * (tile[ty - 1][tx] + tile[ty + 1][tx]) +
                  c_weights[2] * (tile[ty][tx - 1] + tile[ty][tx + 1]);
        out[y * cols + x] = (float)(v * pow(scale, 2));
    }
}

int main(int argc, char **argv)
{
    int rows = 40, cols = 52, n = rows * cols;
    char name[16];
    strncpy(name, "stencil", sizeof name);
    srand((unsigned)time(NULL));
    float *in = (float *)malloc(n * sizeof(float)), *out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) in[i] = (float)((i * 7919) % 1000) / 100.0f;
    float w[4] = {0.5f, 0.125f, 0.125f, 0};
    float *d_in, *d_out;
    CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(c_weights, w, sizeof w));
    CHECK(cudaBindTexture(NULL, t_in, d_in, n * sizeof(float)));
    dim3 block(BLOCK_SIZE, BLOCK_SIZE);
    dim3 grid((cols + BLOCK_SIZE - 3) / (BLOCK_SIZE - 2), (rows + BLOCK_SIZE - 3) / (BLOCK_SIZE - 2));
    stencil<<<grid, block>>>(d_out, rows, cols, 2.0);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaUnbindTexture(t_in));
    int bad = 0;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) {
#define AT(yy, xx) in[((yy) < 0 ? 0 : (yy) >= rows ? rows - 1 : (yy)) * cols + ((xx) < 0 ? 0 : (xx) >= cols ? cols - 1 : (xx))]
            float v = w[0] * AT(y, x) + w[1] * (AT(y - 1, x) + AT(y + 1, x)) + w[2] * (AT(y, x - 1) + AT(y, x + 1));
            float want = (float)(v * pow(2.0, 2));
            if (fabsf(out[y * cols + x] - want) > 1e-4f * fabsf(want) + 1e-6f && bad++ < 5)
                printf("%s: (%d, %d) = %g, expected %g\n", name, y, x, out[y * cols + x], want);
        }
    printf("suite_rodinia: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
