// backprop: one training step of a two-layer perceptron (Rodinia backprop-like) with a
// wide input layer (IN units), HID = 16 hidden units and OUT output units, sigmoid
// activations (expf), learning rate ETA and momentum MOMENTUM. Four launches:
//   layer_forward    16x16 blocks: thread (tx, ty) accumulates w1[i][tx] * x[i] over the
//                    block's input rows i = ty, ty + 16, ... (grid-stride), then the block
//                    reduces over ty in shared memory: one partial sum per block and unit;
//   hidden_activate  one block sums the partials of every hidden unit (again a shared-
//                    memory tree), adds the bias and applies the sigmoid;
//   output_error     one block: output layer, output deltas, hidden deltas, and the
//                    hidden->output weight update (with momentum);
//   adjust_weights   16x16 blocks: input->hidden weight update w += ETA*delta*x + MOMENTUM*dw.
// The CPU reference runs the same step in double precision. Tolerances (float on the
// device, different summation order, FMA contraction, expf within a few ulp): activations
// and outputs 1e-5 absolute; deltas 1e-4 relative (+1e-8 absolute); updated weights within
// 1e-3 of their change plus 1e-6 absolute.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HID 16
#define ROWS 16 /* input rows per block step */
#define MAX_OUT 32
#define FORWARD_BLOCKS 256
#define ETA 0.3f
#define MOMENTUM 0.3f

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            fprintf(stderr, "backprop: %s:%d: %s\n", __FILE__, __LINE__,                \
                    cudaGetErrorString(err_));                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__device__ float sigmoid(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

/* Sums s[0..15][tx] into s[0][tx]; every thread of the 16x16 block must call it. */
__device__ void reduce_rows(float s[ROWS][HID + 1], int tx, int ty)
{
    for (int stride = ROWS / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (ty < stride)
            s[ty][tx] += s[ty + stride][tx];
    }
    __syncthreads();
}

__global__ void layer_forward(const float *x, const float *w1, float *partial, int in)
{
    __shared__ float s[ROWS][HID + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int i = blockIdx.x * ROWS + ty; i < in; i += gridDim.x * ROWS)
        acc += w1[(size_t)i * HID + tx] * x[i];
    s[ty][tx] = acc;
    reduce_rows(s, tx, ty);
    if (ty == 0)
        partial[blockIdx.x * HID + tx] = s[0][tx];
}

__global__ void hidden_activate(const float *partial, int blocks, const float *b1, float *hidden)
{
    __shared__ float s[ROWS][HID + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int p = ty; p < blocks; p += ROWS)
        acc += partial[p * HID + tx];
    s[ty][tx] = acc;
    reduce_rows(s, tx, ty);
    if (ty == 0)
        hidden[tx] = sigmoid(s[0][tx] + b1[tx]);
}

/* One block of MAX_OUT threads. */
__global__ void output_error(const float *hidden, float *w2, float *b2, float *dw2, float *db2,
                             const float *target, int out, float *output, float *delta_o,
                             float *delta_h)
{
    __shared__ float h[HID], d[MAX_OUT];
    int t = threadIdx.x;
    if (t < HID)
        h[t] = hidden[t];
    __syncthreads();
    if (t < out) {
        float sum = b2[t];
        for (int j = 0; j < HID; j++)
            sum += w2[j * out + t] * h[j];
        float o = sigmoid(sum);
        output[t] = o;
        d[t] = o * (1.0f - o) * (target[t] - o);
        delta_o[t] = d[t];
    }
    __syncthreads();
    if (t < HID) {
        float err = 0.0f;
        for (int k = 0; k < out; k++)
            err += w2[t * out + k] * d[k];
        delta_h[t] = h[t] * (1.0f - h[t]) * err;
    }
    __syncthreads(); /* every delta_h read the old w2 */
    if (t < HID)
        for (int k = 0; k < out; k++) {
            float change = ETA * d[k] * h[t] + MOMENTUM * dw2[t * out + k];
            w2[t * out + k] += change;
            dw2[t * out + k] = change;
        }
    if (t < out) {
        float change = ETA * d[t] + MOMENTUM * db2[t];
        b2[t] += change;
        db2[t] = change;
    }
}

__global__ void adjust_weights(const float *x, const float *delta_h, float *w1, float *dw1,
                               float *b1, float *db1, int in)
{
    __shared__ float d[HID];
    int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0)
        d[tx] = delta_h[tx];
    __syncthreads();
    for (int i = blockIdx.x * ROWS + ty; i < in; i += gridDim.x * ROWS) {
        size_t k = (size_t)i * HID + tx;
        float change = ETA * d[tx] * x[i] + MOMENTUM * dw1[k];
        w1[k] += change;
        dw1[k] = change;
    }
    if (blockIdx.x == 0 && ty == 0) {
        float change = ETA * d[tx] + MOMENTUM * db1[tx];
        b1[tx] += change;
        db1[tx] = change;
    }
}

/* The host side of the network: parameters, momentum terms, input and target. */
struct Net {
    int in, out;
    float *x, *w1, *dw1, *b1, *db1, *w2, *dw2, *b2, *db2, *target;
};

static float uniform(unsigned *seed, float lo, float hi)
{
    *seed = *seed * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*seed >> 8) / 16777216.0f;
}

static void fill(float *a, size_t n, unsigned *seed, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        a[i] = uniform(seed, lo, hi);
}

static float *to_device(const float *h, size_t n)
{
    float *d;
    CHECK(cudaMalloc(&d, sizeof(float) * n));
    CHECK(cudaMemcpy(d, h, sizeof(float) * n, cudaMemcpyHostToDevice));
    return d;
}

static void from_device(float *h, const float *d, size_t n)
{
    CHECK(cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost));
}

static double sigmoid_d(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

/* The reference step in double; updates the double copies of the parameters in place. */
static void cpu_step(const Net *n, double *w1, double *dw1, double *b1, double *db1, double *w2,
                     double *dw2, double *b2, double *db2, double *hidden, double *output,
                     double *delta_o, double *delta_h)
{
    for (int j = 0; j < HID; j++) {
        double sum = b1[j];
        for (int i = 0; i < n->in; i++)
            sum += w1[(size_t)i * HID + j] * n->x[i];
        hidden[j] = sigmoid_d(sum);
    }
    for (int k = 0; k < n->out; k++) {
        double sum = b2[k];
        for (int j = 0; j < HID; j++)
            sum += w2[j * n->out + k] * hidden[j];
        output[k] = sigmoid_d(sum);
        delta_o[k] = output[k] * (1 - output[k]) * (n->target[k] - output[k]);
    }
    for (int j = 0; j < HID; j++) {
        double err = 0;
        for (int k = 0; k < n->out; k++)
            err += w2[j * n->out + k] * delta_o[k];
        delta_h[j] = hidden[j] * (1 - hidden[j]) * err;
    }
    for (int j = 0; j < HID; j++)
        for (int k = 0; k < n->out; k++) {
            int q = j * n->out + k;
            dw2[q] = ETA * delta_o[k] * hidden[j] + MOMENTUM * dw2[q];
            w2[q] += dw2[q];
        }
    for (int k = 0; k < n->out; k++) {
        db2[k] = ETA * delta_o[k] + MOMENTUM * db2[k];
        b2[k] += db2[k];
    }
    for (int i = 0; i < n->in; i++)
        for (int j = 0; j < HID; j++) {
            size_t q = (size_t)i * HID + j;
            dw1[q] = ETA * delta_h[j] * n->x[i] + MOMENTUM * dw1[q];
            w1[q] += dw1[q];
        }
    for (int j = 0; j < HID; j++) {
        db1[j] = ETA * delta_h[j] + MOMENTUM * db1[j];
        b1[j] += db1[j];
    }
}

static double *widen(const float *a, size_t n)
{
    double *d = (double *)malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++)
        d[i] = a[i];
    return d;
}

/* |got - ref| <= rel * |ref| + abs_tol, else report (the first few) and count. */
static int check(const char *what, const float *got, const double *ref, size_t n, double rel,
                 double abs_tol)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(got[i] - ref[i]) <= rel * fabs(ref[i]) + abs_tol)) {
            if (bad < 3)
                fprintf(stderr, "backprop: %s[%zu] = %.8g, expected %.8g\n", what, i, got[i],
                        ref[i]);
            bad++;
        }
    if (bad)
        fprintf(stderr, "backprop: %s: %d of %zu differ\n", what, bad, n);
    return bad;
}

/* Updated weights: within 1e-3 of the reference change, plus 1e-6. */
static int check_update(const char *what, const float *got, const double *ref,
                        const double *change, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(got[i] - ref[i]) <= 1e-3 * fabs(change[i]) + 1e-6)) {
            if (bad < 3)
                fprintf(stderr, "backprop: %s[%zu] = %.8g, expected %.8g (change %.3g)\n", what,
                        i, got[i], ref[i], change[i]);
            bad++;
        }
    if (bad)
        fprintf(stderr, "backprop: %s: %d of %zu differ\n", what, bad, n);
    return bad;
}

int main(int argc, char **argv)
{
    Net n;
    n.in = argc > 1 ? atoi(argv[1]) : 262144;
    n.out = argc > 2 ? atoi(argv[2]) : 4;
    if (n.in <= 0 || n.out <= 0 || n.out > MAX_OUT) {
        fprintf(stderr, "usage: backprop [INPUTS > 0] [OUTPUTS 1..%d]\n", MAX_OUT);
        return 2;
    }
    size_t nw1 = (size_t)n.in * HID, nw2 = (size_t)HID * n.out;
    unsigned seed = 7;
    float scale = 2.0f / sqrtf((float)n.in);
    n.x = (float *)malloc(sizeof(float) * n.in);
    n.w1 = (float *)malloc(sizeof(float) * nw1);
    n.dw1 = (float *)malloc(sizeof(float) * nw1);
    n.b1 = (float *)malloc(sizeof(float) * HID);
    n.db1 = (float *)malloc(sizeof(float) * HID);
    n.w2 = (float *)malloc(sizeof(float) * nw2);
    n.dw2 = (float *)malloc(sizeof(float) * nw2);
    n.b2 = (float *)malloc(sizeof(float) * n.out);
    n.db2 = (float *)malloc(sizeof(float) * n.out);
    n.target = (float *)malloc(sizeof(float) * n.out);
    fill(n.x, n.in, &seed, 0.0f, 1.0f);
    fill(n.w1, nw1, &seed, -scale, scale);
    fill(n.dw1, nw1, &seed, -0.01f * scale, 0.01f * scale);
    fill(n.b1, HID, &seed, -0.5f, 0.5f);
    fill(n.db1, HID, &seed, -0.01f, 0.01f);
    fill(n.w2, nw2, &seed, -1.0f, 1.0f);
    fill(n.dw2, nw2, &seed, -0.01f, 0.01f);
    fill(n.b2, n.out, &seed, -0.5f, 0.5f);
    fill(n.db2, n.out, &seed, -0.01f, 0.01f);
    fill(n.target, n.out, &seed, 0.1f, 0.9f);

    float *dx = to_device(n.x, n.in), *dw1 = to_device(n.w1, nw1), *ddw1 = to_device(n.dw1, nw1);
    float *db1 = to_device(n.b1, HID), *ddb1 = to_device(n.db1, HID);
    float *dw2 = to_device(n.w2, nw2), *ddw2 = to_device(n.dw2, nw2);
    float *db2 = to_device(n.b2, n.out), *ddb2 = to_device(n.db2, n.out);
    float *dtarget = to_device(n.target, n.out);
    float *dpartial, *dhidden, *doutput, *ddelta_o, *ddelta_h;
    CHECK(cudaMalloc(&dpartial, sizeof(float) * FORWARD_BLOCKS * HID));
    CHECK(cudaMalloc(&dhidden, sizeof(float) * HID));
    CHECK(cudaMalloc(&doutput, sizeof(float) * n.out));
    CHECK(cudaMalloc(&ddelta_o, sizeof(float) * n.out));
    CHECK(cudaMalloc(&ddelta_h, sizeof(float) * HID));
    int blocks = (n.in + ROWS - 1) / ROWS;
    blocks = blocks < FORWARD_BLOCKS ? blocks : FORWARD_BLOCKS;
    dim3 tile(HID, ROWS);
    layer_forward<<<blocks, tile>>>(dx, dw1, dpartial, n.in);
    hidden_activate<<<1, tile>>>(dpartial, blocks, db1, dhidden);
    output_error<<<1, MAX_OUT>>>(dhidden, dw2, db2, ddw2, ddb2, dtarget, n.out, doutput, ddelta_o,
                                 ddelta_h);
    adjust_weights<<<blocks, tile>>>(dx, ddelta_h, dw1, ddw1, db1, ddb1, n.in);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    float hidden[HID], delta_h[HID], output[MAX_OUT], delta_o[MAX_OUT], b1[HID], b2[MAX_OUT];
    float *w1 = (float *)malloc(sizeof(float) * nw1), *w2 = (float *)malloc(sizeof(float) * nw2);
    from_device(hidden, dhidden, HID);
    from_device(delta_h, ddelta_h, HID);
    from_device(output, doutput, n.out);
    from_device(delta_o, ddelta_o, n.out);
    from_device(b1, db1, HID);
    from_device(b2, db2, n.out);
    from_device(w1, dw1, nw1);
    from_device(w2, dw2, nw2);

    double *rw1 = widen(n.w1, nw1), *rdw1 = widen(n.dw1, nw1), *rb1 = widen(n.b1, HID);
    double *rdb1 = widen(n.db1, HID), *rw2 = widen(n.w2, nw2), *rdw2 = widen(n.dw2, nw2);
    double *rb2 = widen(n.b2, n.out), *rdb2 = widen(n.db2, n.out);
    double rhidden[HID], rdelta_h[HID], routput[MAX_OUT], rdelta_o[MAX_OUT];
    double t0 = cpu_seconds();
    cpu_step(&n, rw1, rdw1, rb1, rdb1, rw2, rdw2, rb2, rdb2, rhidden, routput, rdelta_o, rdelta_h);
    printf("cpu_reference_seconds: %.6f\n", cpu_seconds() - t0);

    int bad = check("hidden", hidden, rhidden, HID, 0, 1e-5);
    bad += check("output", output, routput, n.out, 0, 1e-5);
    bad += check("delta_o", delta_o, rdelta_o, n.out, 1e-4, 1e-8);
    bad += check("delta_h", delta_h, rdelta_h, HID, 1e-4, 1e-8);
    bad += check_update("w1", w1, rw1, rdw1, nw1);
    bad += check_update("b1", b1, rb1, rdb1, HID);
    bad += check_update("w2", w2, rw2, rdw2, nw2);
    bad += check_update("b2", b2, rb2, rdb2, n.out);
    double err = 0;
    for (int k = 0; k < n.out; k++)
        err += 0.5 * (n.target[k] - routput[k]) * (n.target[k] - routput[k]);
    printf("backprop %d inputs, %d hidden, %d outputs, 4 launches, output error %.6f\n", n.in,
           HID, n.out, err);

    float *device_buffers[] = {dx,    dw1,      ddw1,     db1,     ddb1,    dw2,
                               ddw2,  db2,      ddb2,     dtarget, dpartial, dhidden,
                               doutput, ddelta_o, ddelta_h};
    for (size_t i = 0; i < sizeof device_buffers / sizeof *device_buffers; i++)
        cudaFree(device_buffers[i]);
    float *host_buffers[] = {n.x, n.w1, n.dw1, n.b1, n.db1, n.w2, n.dw2, n.b2, n.db2, n.target,
                             w1,  w2};
    for (size_t i = 0; i < sizeof host_buffers / sizeof *host_buffers; i++)
        free(host_buffers[i]);
    double *ref_buffers[] = {rw1, rdw1, rb1, rdb1, rw2, rdw2, rb2, rdb2};
    for (size_t i = 0; i < sizeof ref_buffers / sizeof *ref_buffers; i++)
        free(ref_buffers[i]);
    printf("backprop: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
