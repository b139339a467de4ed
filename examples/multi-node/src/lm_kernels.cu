/* lm_kernels.cu - forward, backward and SGD for the factorized bigram model
 * of lm_kernels.h. Plain CUDA, one thread per output element: simple rather
 * than fast (a real model would call cuBLAS). The runtime has selected this
 * rank's GPU before the step runs.
 */
#include "lm_kernels.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 256 /* a power of two: block_reduce halves it */

struct lm {
    uint32_t vocab, dim, max_positions;
    int bf16;
    float *params;     /* [E: vocab*dim | W: dim*vocab] */
    float *grad;       /* [dE | dW | loss] */
    float *probs;      /* max_positions * vocab: logits, then dL/dlogits */
    uint32_t *x, *y;   /* max_positions */
};

static int ok(cudaError_t e, const char *what, char *err, size_t errsz)
{
    if (e == cudaSuccess)
        return 1;
    snprintf(err, errsz, "%s: %s", what, cudaGetErrorString(e));
    return 0;
}

static size_t n_params(const lm *m)
{
    return 2 * (size_t)m->vocab * m->dim;
}

__device__ float mixed(float v, int bf16)
{
    return bf16 ? __bfloat162float(__float2bfloat16(v)) : v;
}

/* Max (is_max) or sum of v over the block; every thread gets the result. */
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
    __syncthreads();
    return r;
}

/* probs[i][v] = E[x_i] . W[:, v]; grid (vocab / THREADS, n). */
__global__ void logits_kernel(const float *E, const float *W, const uint32_t *x, uint32_t vocab,
                              uint32_t dim, int bf16, float *probs)
{
    const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= vocab)
        return;
    const float *e = E + (size_t)x[i] * dim;
    float z = 0.0f;
    for (uint32_t k = 0; k < dim; k++)
        z += mixed(e[k], bf16) * mixed(W[(size_t)k * vocab + v], bf16);
    probs[(size_t)i * vocab + v] = z;
}

/* Softmax of row i, then dL/dlogits = (p - onehot(y_i)) / n in place, and the
 * row's loss / n added to *loss; one block per row. */
__global__ void softmax_kernel(float *probs, const uint32_t *y, uint32_t vocab, float inv_n,
                               float *loss)
{
    __shared__ float scratch[THREADS];
    float *row = probs + (size_t)blockIdx.x * vocab;
    const uint32_t target = y[blockIdx.x];
    const float z_target = row[target];

    float m = -INFINITY;
    for (uint32_t v = threadIdx.x; v < vocab; v += blockDim.x)
        m = fmaxf(m, row[v]);
    m = block_reduce(m, scratch, true);

    float s = 0.0f;
    for (uint32_t v = threadIdx.x; v < vocab; v += blockDim.x)
        s += expf(row[v] - m);
    s = block_reduce(s, scratch, false);

    for (uint32_t v = threadIdx.x; v < vocab; v += blockDim.x)
        row[v] = (expf(row[v] - m) / s - (v == target ? 1.0f : 0.0f)) * inv_n;
    if (threadIdx.x == 0)
        atomicAdd(loss, (logf(s) - (z_target - m)) * inv_n);
}

/* dW[k][v] = sum_i E[x_i][k] * probs[i][v]; grid (vocab / THREADS, dim). */
__global__ void grad_head_kernel(const float *E, const uint32_t *x, const float *probs, uint32_t n,
                                 uint32_t vocab, uint32_t dim, float *dW)
{
    const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (v >= vocab)
        return;
    float g = 0.0f;
    for (uint32_t i = 0; i < n; i++)
        g += E[(size_t)x[i] * dim + k] * probs[(size_t)i * vocab + v];
    dW[(size_t)k * vocab + v] = g;
}

/* dE[x_i][k] += sum_v probs[i][v] * W[k][v]; grid (dim / THREADS, n). Rows
 * of E shared by several positions are summed with atomics. */
__global__ void grad_embed_kernel(const float *W, const uint32_t *x, const float *probs,
                                  uint32_t vocab, uint32_t dim, float *dE)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (k >= dim)
        return;
    const float *row = probs + (size_t)i * vocab, *w = W + (size_t)k * vocab;
    float g = 0.0f;
    for (uint32_t v = 0; v < vocab; v++)
        g += row[v] * w[v];
    atomicAdd(&dE[(size_t)x[i] * dim + k], g);
}

__global__ void sgd_kernel(float *params, const float *grad, size_t n, float step)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        params[j] -= step * grad[j];
}

extern "C" int lm_create(lm **out, uint32_t vocab, uint32_t dim, uint32_t max_positions,
                         uint64_t seed, int bf16, char *err, size_t errsz)
{
    lm *m = (lm *)calloc(1, sizeof *m);
    float *init = NULL;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;

    *out = NULL;
    if (!m) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    m->vocab = vocab;
    m->dim = dim;
    m->max_positions = max_positions;
    m->bf16 = bf16;
    const size_t np = n_params(m);
    if (!(init = (float *)malloc(np * sizeof(float)))) {
        snprintf(err, errsz, "out of memory for %zu parameters", np);
        goto fail;
    }
    /* Uniform in [-1/sqrt(dim), 1/sqrt(dim)] from a seeded xorshift. */
    for (size_t j = 0; j < np; j++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        init[j] = ((float)(s >> 40) / (float)(1u << 24) * 2.0f - 1.0f) / sqrtf((float)dim);
    }
    if (!ok(cudaMalloc(&m->params, np * sizeof(float)), "cudaMalloc params", err, errsz) ||
        !ok(cudaMalloc(&m->grad, (np + 1) * sizeof(float)), "cudaMalloc grad", err, errsz) ||
        !ok(cudaMalloc(&m->probs, (size_t)max_positions * vocab * sizeof(float)),
            "cudaMalloc probs", err, errsz) ||
        !ok(cudaMalloc(&m->x, max_positions * sizeof(uint32_t)), "cudaMalloc", err, errsz) ||
        !ok(cudaMalloc(&m->y, max_positions * sizeof(uint32_t)), "cudaMalloc", err, errsz) ||
        !ok(cudaMemcpy(m->params, init, np * sizeof(float), cudaMemcpyHostToDevice),
            "copy initial weights", err, errsz))
        goto fail;
    free(init);
    *out = m;
    return 0;
fail:
    free(init);
    lm_destroy(m);
    return -1;
}

extern "C" int lm_forward_backward(lm *m, const uint32_t *x, const uint32_t *y, uint32_t n,
                                   char *err, size_t errsz)
{
    const size_t np = n_params(m), ne = (size_t)m->vocab * m->dim;
    const float *E = m->params, *W = m->params + ne;
    const unsigned vblocks = (m->vocab + THREADS - 1) / THREADS;
    const unsigned dblocks = (m->dim + THREADS - 1) / THREADS;

    if (n == 0 || n > m->max_positions) {
        snprintf(err, errsz, "%u positions, at most %u", n, m->max_positions);
        return -1;
    }
    if (!ok(cudaMemcpy(m->x, x, n * sizeof(uint32_t), cudaMemcpyHostToDevice), "copy x", err, errsz) ||
        !ok(cudaMemcpy(m->y, y, n * sizeof(uint32_t), cudaMemcpyHostToDevice), "copy y", err, errsz) ||
        !ok(cudaMemset(m->grad, 0, (np + 1) * sizeof(float)), "cudaMemset", err, errsz))
        return -1;
    logits_kernel<<<dim3(vblocks, n), THREADS>>>(E, W, m->x, m->vocab, m->dim, m->bf16, m->probs);
    softmax_kernel<<<n, THREADS>>>(m->probs, m->y, m->vocab, 1.0f / (float)n, m->grad + np);
    grad_head_kernel<<<dim3(vblocks, m->dim), THREADS>>>(E, m->x, m->probs, n, m->vocab, m->dim,
                                                         m->grad + ne);
    grad_embed_kernel<<<dim3(dblocks, n), THREADS>>>(W, m->x, m->probs, m->vocab, m->dim, m->grad);
    /* Idle before the caller hands the buffer to the all-reduce. */
    return ok(cudaGetLastError(), "kernel launch", err, errsz) &&
                   ok(cudaDeviceSynchronize(), "forward/backward", err, errsz)
               ? 0
               : -1;
}

extern "C" float *lm_grad(lm *m)
{
    return m->grad;
}

extern "C" size_t lm_grad_count(const lm *m)
{
    return n_params(m) + 1;
}

extern "C" int lm_apply(lm *m, float lr, float scale, double *loss, char *err, size_t errsz)
{
    const size_t np = n_params(m);
    float l = 0.0f;

    sgd_kernel<<<(unsigned)((np + THREADS - 1) / THREADS), THREADS>>>(m->params, m->grad, np,
                                                                       lr * scale);
    if (!ok(cudaGetLastError(), "kernel launch", err, errsz) ||
        !ok(cudaMemcpy(&l, m->grad + np, sizeof l, cudaMemcpyDeviceToHost), "sgd", err, errsz))
        return -1;
    *loss = (double)l * scale;
    return 0;
}

extern "C" int lm_weights(const lm *m, float *embed, float *head, char *err, size_t errsz)
{
    const size_t ne = (size_t)m->vocab * m->dim;
    return ok(cudaMemcpy(embed, m->params, ne * sizeof(float), cudaMemcpyDeviceToHost),
              "copy embedding", err, errsz) &&
                   ok(cudaMemcpy(head, m->params + ne, ne * sizeof(float), cudaMemcpyDeviceToHost),
                      "copy head", err, errsz)
               ? 0
               : -1;
}

extern "C" void lm_destroy(lm *m)
{
    if (!m)
        return;
    cudaFree(m->params);
    cudaFree(m->grad);
    cudaFree(m->probs);
    cudaFree(m->x);
    cudaFree(m->y);
    free(m);
}
