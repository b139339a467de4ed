/* train_kernels.cu - minibatch SGD for softmax regression on one GPU.
 *
 * Per batch, two kernels: `forward` (one block per example) computes the
 * softmax and writes dL/dlogits; `update` (one thread per weight) sums the
 * gradient over the batch and takes the SGD step. Plain CUDA, no libraries.
 * The runtime has already selected this step's GPU (CUDA_VISIBLE_DEVICES).
 */
#include "train_kernels.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 256 /* a power of two: block_reduce halves it */

struct gpu_trainer {
    uint32_t n_rows, n_features, n_classes, max_batch;
    float *x;        /* n_rows * n_features */
    int32_t *y;      /* n_rows */
    float *w;        /* n_classes * (n_features + 1), bias last */
    float *g;        /* max_batch * n_classes: dL/dlogits / batch */
    uint32_t *order; /* n_rows */
    float *loss;     /* 1: summed over the epoch */
};

static int ok(cudaError_t e, const char *what, char *err, size_t errsz)
{
    if (e == cudaSuccess)
        return 1;
    snprintf(err, errsz, "%s: %s", what, cudaGetErrorString(e));
    return 0;
}

/* Max (is_max) or sum of v over the block. Every thread gets the result. */
__device__ float block_reduce(float v, float *scratch, bool is_max)
{
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            float o = scratch[threadIdx.x + s];
            scratch[threadIdx.x] = is_max ? fmaxf(scratch[threadIdx.x], o) : scratch[threadIdx.x] + o;
        }
        __syncthreads();
    }
    float r = scratch[0];
    __syncthreads(); /* scratch is reused by the next call */
    return r;
}

__global__ void forward(const float *x, const int32_t *y, const uint32_t *order, uint32_t first,
                        uint32_t n_features, uint32_t n_classes, const float *w, float *g,
                        float *loss, float inv_batch)
{
    extern __shared__ float logit[]; /* n_classes */
    __shared__ float scratch[THREADS];
    const uint32_t row = order[first + blockIdx.x];
    const float *xr = x + (size_t)row * n_features;
    const int32_t label = y[row];

    for (uint32_t c = threadIdx.x; c < n_classes; c += blockDim.x) {
        const float *wc = w + (size_t)c * (n_features + 1);
        float z = wc[n_features];
        for (uint32_t f = 0; f < n_features; f++)
            z += wc[f] * xr[f];
        logit[c] = z;
    }
    __syncthreads();
    const float z_label = logit[label];

    float m = -INFINITY;
    for (uint32_t c = threadIdx.x; c < n_classes; c += blockDim.x)
        m = fmaxf(m, logit[c]);
    m = block_reduce(m, scratch, true);

    float s = 0.0f;
    for (uint32_t c = threadIdx.x; c < n_classes; c += blockDim.x) {
        logit[c] = expf(logit[c] - m);
        s += logit[c];
    }
    s = block_reduce(s, scratch, false);

    float *gr = g + (size_t)blockIdx.x * n_classes;
    for (uint32_t c = threadIdx.x; c < n_classes; c += blockDim.x)
        gr[c] = (logit[c] / s - (c == (uint32_t)label ? 1.0f : 0.0f)) * inv_batch;
    if (threadIdx.x == 0)
        atomicAdd(loss, logf(s) - (z_label - m)); /* -log softmax(z)[label] */
}

__global__ void update(const float *x, const uint32_t *order, uint32_t first, uint32_t batch,
                       uint32_t n_features, uint32_t n_classes, const float *g, float *w, float lr)
{
    const uint32_t stride = n_features + 1;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n_classes * stride)
        return;
    const uint32_t c = (uint32_t)(i / stride), f = (uint32_t)(i % stride);

    float grad = 0.0f;
    for (uint32_t b = 0; b < batch; b++) {
        float xf = f == n_features ? 1.0f : x[(size_t)order[first + b] * n_features + f];
        grad += g[(size_t)b * n_classes + c] * xf;
    }
    w[i] -= lr * grad;
}

extern "C" int gpu_trainer_create(gpu_trainer **out, const float *features, const int32_t *labels,
                                  uint32_t n_rows, uint32_t n_features, uint32_t n_classes,
                                  uint32_t max_batch, char *err, size_t errsz)
{
    gpu_trainer *t = (gpu_trainer *)calloc(1, sizeof *t);
    size_t nw = (size_t)n_classes * (n_features + 1);

    *out = NULL;
    if (!t) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    t->n_rows = n_rows;
    t->n_features = n_features;
    t->n_classes = n_classes;
    t->max_batch = max_batch;
    if (!ok(cudaMalloc(&t->x, (size_t)n_rows * n_features * sizeof(float)), "cudaMalloc", err, errsz) ||
        !ok(cudaMalloc(&t->y, (size_t)n_rows * sizeof(int32_t)), "cudaMalloc", err, errsz) ||
        !ok(cudaMalloc(&t->w, nw * sizeof(float)), "cudaMalloc", err, errsz) ||
        !ok(cudaMalloc(&t->g, (size_t)max_batch * n_classes * sizeof(float)), "cudaMalloc", err, errsz) ||
        !ok(cudaMalloc(&t->order, (size_t)n_rows * sizeof(uint32_t)), "cudaMalloc", err, errsz) ||
        !ok(cudaMalloc(&t->loss, sizeof(float)), "cudaMalloc", err, errsz) ||
        !ok(cudaMemcpy(t->x, features, (size_t)n_rows * n_features * sizeof(float),
                       cudaMemcpyHostToDevice), "copy features", err, errsz) ||
        !ok(cudaMemcpy(t->y, labels, (size_t)n_rows * sizeof(int32_t), cudaMemcpyHostToDevice),
            "copy labels", err, errsz) ||
        !ok(cudaMemset(t->w, 0, nw * sizeof(float)), "cudaMemset", err, errsz)) {
        gpu_trainer_destroy(t);
        return -1;
    }
    *out = t;
    return 0;
}

extern "C" int gpu_trainer_epoch(gpu_trainer *t, const uint32_t *order, uint32_t batch, float lr,
                                 double *mean_loss, char *err, size_t errsz)
{
    const size_t nw = (size_t)t->n_classes * (t->n_features + 1);
    const unsigned update_blocks = (unsigned)((nw + THREADS - 1) / THREADS);
    float loss = 0.0f;

    if (batch == 0 || batch > t->max_batch) {
        snprintf(err, errsz, "batch %u outside 1..%u", batch, t->max_batch);
        return -1;
    }
    if (!ok(cudaMemcpy(t->order, order, (size_t)t->n_rows * sizeof(uint32_t),
                       cudaMemcpyHostToDevice), "copy order", err, errsz) ||
        !ok(cudaMemset(t->loss, 0, sizeof(float)), "cudaMemset", err, errsz))
        return -1;
    for (uint32_t first = 0; first < t->n_rows; first += batch) {
        uint32_t b = t->n_rows - first < batch ? t->n_rows - first : batch;
        forward<<<b, THREADS, t->n_classes * sizeof(float)>>>(t->x, t->y, t->order, first,
                                                              t->n_features, t->n_classes, t->w,
                                                              t->g, t->loss, 1.0f / (float)b);
        update<<<update_blocks, THREADS>>>(t->x, t->order, first, b, t->n_features, t->n_classes,
                                           t->g, t->w, lr);
    }
    if (!ok(cudaGetLastError(), "kernel launch", err, errsz) ||
        !ok(cudaMemcpy(&loss, t->loss, sizeof loss, cudaMemcpyDeviceToHost), "epoch", err, errsz))
        return -1;
    *mean_loss = (double)loss / t->n_rows;
    return 0;
}

extern "C" int gpu_trainer_weights(const gpu_trainer *t, float *w, char *err, size_t errsz)
{
    size_t nw = (size_t)t->n_classes * (t->n_features + 1);
    return ok(cudaMemcpy(w, t->w, nw * sizeof(float), cudaMemcpyDeviceToHost), "copy weights",
              err, errsz) ? 0 : -1;
}

extern "C" void gpu_trainer_destroy(gpu_trainer *t)
{
    if (!t)
        return;
    cudaFree(t->x);
    cudaFree(t->y);
    cudaFree(t->w);
    cudaFree(t->g);
    cudaFree(t->order);
    cudaFree(t->loss);
    free(t);
}
