/* train_cuda.cu - the train step's minibatch SGD on a GPU (train_cuda.h).
 *
 * The training set and the weights stay on the device; per batch, six
 * kernels do what mlp_cpu_step does on the CPU, one thread per output
 * element (the matrices are small: 64x32 and 32x10):
 *
 *   forward_hidden   a1 = relu(x[rows] w1^T + b1)          batch x hidden
 *   forward_out      z2 = a1 w2^T + b2                     batch x out
 *   softmax_xent     g2 = (softmax(z2) - onehot) / batch, loss and guesses per row
 *   backward_hidden  g1 = (g2 w2) * (a1 > 0)               batch x hidden
 *   update_layer     w2 -= lr g2^T a1, b2 -= lr sum(g2)    (after backward_hidden read w2)
 *   update_layer     w1 -= lr g1^T x[rows], b1 -= lr sum(g1)
 *
 * Sums run in a fixed order (no atomics), so a run is repeatable on one GPU.
 * Plain CUDA runtime API, no libraries.
 */
#include "train_cuda.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 256

struct mlp_gpu {
    uint32_t n_rows, n_in, n_hidden, n_out, max_batch;
    float *x;         /* n_rows * n_in */
    uint8_t *y;       /* n_rows */
    uint32_t *order;  /* n_rows: this epoch's visiting order */
    float *params;    /* w1, b1, w2, b2 as in mnist_model.params */
    float *a1, *g1;   /* max_batch * n_hidden */
    float *z2, *g2;   /* max_batch * n_out */
    float *loss;      /* n_rows: per position in order */
    uint8_t *right;   /* n_rows */
    float *host_loss; /* n_rows, host copies */
    uint8_t *host_right;
};

static int ok(cudaError_t e, const char *what, char *err, size_t errsz)
{
    if (e == cudaSuccess)
        return 1;
    snprintf(err, errsz, "%s: %s", what, cudaGetErrorString(e));
    return 0;
}

/* cudaMalloc, with the size in the message when it fails. */
static int dev_alloc(void **p, size_t bytes, char *err, size_t errsz)
{
    char what[64];
    snprintf(what, sizeof what, "cudaMalloc(%zu bytes)", bytes);
    return ok(cudaMalloc(p, bytes), what, err, errsz);
}

static unsigned blocks_for(size_t n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

__global__ void forward_hidden(const float *x, const uint32_t *rows, uint32_t batch, uint32_t n_in,
                               uint32_t n_hidden, const float *w1, const float *b1, float *a1)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)batch * n_hidden)
        return;
    const uint32_t r = (uint32_t)(i / n_hidden), j = (uint32_t)(i % n_hidden);
    const float *xr = x + (size_t)rows[r] * n_in, *w = w1 + (size_t)j * n_in;
    float z = b1[j];
    for (uint32_t k = 0; k < n_in; k++)
        z += w[k] * xr[k];
    a1[i] = z > 0.0f ? z : 0.0f;
}

__global__ void forward_out(const float *a1, uint32_t batch, uint32_t n_hidden, uint32_t n_out,
                            const float *w2, const float *b2, float *z2)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)batch * n_out)
        return;
    const uint32_t r = (uint32_t)(i / n_out), c = (uint32_t)(i % n_out);
    const float *ar = a1 + (size_t)r * n_hidden, *w = w2 + (size_t)c * n_hidden;
    float z = b2[c];
    for (uint32_t j = 0; j < n_hidden; j++)
        z += w[j] * ar[j];
    z2[i] = z;
}

/* One thread per row of the batch. loss and right are indexed by the
   row's position in the epoch. */
__global__ void softmax_xent(const float *z2, const uint8_t *y, const uint32_t *rows,
                             uint32_t batch, uint32_t n_out, float inv_batch, float *g2,
                             float *loss, uint8_t *right)
{
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= batch)
        return;
    const float *z = z2 + (size_t)r * n_out;
    float *g = g2 + (size_t)r * n_out;
    const uint32_t label = y[rows[r]];
    uint32_t best = 0;
    for (uint32_t c = 1; c < n_out; c++)
        if (z[c] > z[best])
            best = c;
    const float max = z[best];
    float sum = 0.0f;
    for (uint32_t c = 0; c < n_out; c++)
        sum += expf(z[c] - max);
    loss[r] = logf(sum) - (z[label] - max);
    right[r] = best == label;
    for (uint32_t c = 0; c < n_out; c++)
        g[c] = (expf(z[c] - max) / sum - (c == label ? 1.0f : 0.0f)) * inv_batch;
}

__global__ void backward_hidden(const float *g2, const float *w2, const float *a1, uint32_t batch,
                                uint32_t n_hidden, uint32_t n_out, float *g1)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)batch * n_hidden)
        return;
    const uint32_t r = (uint32_t)(i / n_hidden), j = (uint32_t)(i % n_hidden);
    float s = 0.0f;
    for (uint32_t c = 0; c < n_out; c++)
        s += g2[(size_t)r * n_out + c] * w2[(size_t)c * n_hidden + j];
    g1[i] = a1[i] > 0.0f ? s : 0.0f; /* ReLU: no gradient where the unit was off */
}

/* The SGD step of one dense layer n_in -> n_out: one thread per weight
   (j, k), k == n_in being the bias. The layer's input row r is
   in[rows[r]] when rows is given, in[r] otherwise. */
__global__ void update_layer(const float *g, const float *in, const uint32_t *rows, uint32_t batch,
                             uint32_t n_in, uint32_t n_out, float *w, float *b, float lr)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n_out * (n_in + 1))
        return;
    const uint32_t j = (uint32_t)(i / (n_in + 1)), k = (uint32_t)(i % (n_in + 1));
    float grad = 0.0f;
    for (uint32_t r = 0; r < batch; r++) {
        const float v = k == n_in ? 1.0f : in[(size_t)(rows ? rows[r] : r) * n_in + k];
        grad += g[(size_t)r * n_out + j] * v;
    }
    if (k == n_in)
        b[j] -= lr * grad;
    else
        w[(size_t)j * n_in + k] -= lr * grad;
}

extern "C" int mlp_gpu_device_count(char *info, size_t infosz)
{
    int count = 0;
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceCount(&count);

    if (e != cudaSuccess || count <= 0) {
        snprintf(info, infosz, "no usable CUDA device: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
        (void)cudaGetLastError(); /* not sticky, but leave no error behind */
        return 0;
    }
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(info, infosz, "%s", prop.name);
    else
        snprintf(info, infosz, "CUDA device 0");
    return count;
}

extern "C" int mlp_gpu_create(mlp_gpu **out, const float *pixels, const uint8_t *labels,
                              uint32_t n_rows, uint32_t n_in, uint32_t n_hidden, uint32_t n_out,
                              uint32_t max_batch, const float *params, char *err, size_t errsz)
{
    const size_t n_params = (size_t)n_hidden * n_in + n_hidden + (size_t)n_out * n_hidden + n_out;
    mlp_gpu *g = (mlp_gpu *)calloc(1, sizeof *g);

    *out = NULL;
    if (!g) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    g->n_rows = n_rows;
    g->n_in = n_in;
    g->n_hidden = n_hidden;
    g->n_out = n_out;
    g->max_batch = max_batch;
    g->host_loss = (float *)malloc((size_t)n_rows * sizeof(float));
    g->host_right = (uint8_t *)malloc(n_rows);
    if (!g->host_loss || !g->host_right) {
        snprintf(err, errsz, "out of memory");
        mlp_gpu_destroy(g);
        return -1;
    }
    const size_t rows_f = (size_t)n_rows * sizeof(float); /* bytes of one float per row */
    const size_t batch_f = (size_t)max_batch * sizeof(float);
    if (!ok(cudaSetDevice(0), "cudaSetDevice(0)", err, errsz) ||
        !dev_alloc((void **)&g->x, rows_f * n_in, err, errsz) ||
        !dev_alloc((void **)&g->y, n_rows, err, errsz) ||
        !dev_alloc((void **)&g->order, (size_t)n_rows * sizeof(uint32_t), err, errsz) ||
        !dev_alloc((void **)&g->params, n_params * sizeof(float), err, errsz) ||
        !dev_alloc((void **)&g->a1, batch_f * n_hidden, err, errsz) ||
        !dev_alloc((void **)&g->g1, batch_f * n_hidden, err, errsz) ||
        !dev_alloc((void **)&g->z2, batch_f * n_out, err, errsz) ||
        !dev_alloc((void **)&g->g2, batch_f * n_out, err, errsz) ||
        !dev_alloc((void **)&g->loss, rows_f, err, errsz) ||
        !dev_alloc((void **)&g->right, n_rows, err, errsz) ||
        !ok(cudaMemcpy(g->x, pixels, rows_f * n_in, cudaMemcpyHostToDevice), "copying the images",
            err, errsz) ||
        !ok(cudaMemcpy(g->y, labels, n_rows, cudaMemcpyHostToDevice), "copying the labels", err,
            errsz) ||
        !ok(cudaMemcpy(g->params, params, n_params * sizeof(float), cudaMemcpyHostToDevice),
            "copying the weights", err, errsz)) {
        mlp_gpu_destroy(g);
        return -1;
    }
    *out = g;
    return 0;
}

extern "C" int mlp_gpu_epoch(mlp_gpu *g, const uint32_t *order, uint32_t batch, float lr,
                             double *loss_sum, uint64_t *right, char *err, size_t errsz)
{
    const uint32_t n_in = g->n_in, n_hidden = g->n_hidden, n_out = g->n_out;
    float *w1 = g->params, *b1 = w1 + (size_t)n_hidden * n_in;
    float *w2 = b1 + n_hidden, *b2 = w2 + (size_t)n_out * n_hidden;

    if (batch == 0 || batch > g->max_batch) {
        snprintf(err, errsz, "batch %u outside 1..%u", batch, g->max_batch);
        return -1;
    }
    if (!ok(cudaMemcpy(g->order, order, (size_t)g->n_rows * sizeof(uint32_t),
                       cudaMemcpyHostToDevice), "copying the order", err, errsz))
        return -1;
    for (uint32_t first = 0; first < g->n_rows; first += batch) {
        const uint32_t b = g->n_rows - first < batch ? g->n_rows - first : batch;
        const uint32_t *rows = g->order + first;
        const unsigned hidden_grid = blocks_for((size_t)b * n_hidden);
        const unsigned out_grid = blocks_for((size_t)b * n_out), rows_grid = blocks_for(b);
        const unsigned w2_grid = blocks_for((size_t)n_out * (n_hidden + 1));
        const unsigned w1_grid = blocks_for((size_t)n_hidden * (n_in + 1));

        forward_hidden<<<hidden_grid, THREADS>>>(g->x, rows, b, n_in, n_hidden, w1, b1, g->a1);
        forward_out<<<out_grid, THREADS>>>(g->a1, b, n_hidden, n_out, w2, b2, g->z2);
        softmax_xent<<<rows_grid, THREADS>>>(g->z2, g->y, rows, b, n_out, 1.0f / (float)b, g->g2,
                                             g->loss + first, g->right + first);
        backward_hidden<<<hidden_grid, THREADS>>>(g->g2, w2, g->a1, b, n_hidden, n_out, g->g1);
        /* In stream order: w2 changes only after backward_hidden has read it. */
        update_layer<<<w2_grid, THREADS>>>(g->g2, g->a1, NULL, b, n_hidden, n_out, w2, b2, lr);
        update_layer<<<w1_grid, THREADS>>>(g->g1, g->x, rows, b, n_in, n_hidden, w1, b1, lr);
    }
    if (!ok(cudaGetLastError(), "launching the kernels", err, errsz) ||
        !ok(cudaMemcpy(g->host_loss, g->loss, (size_t)g->n_rows * sizeof(float),
                       cudaMemcpyDeviceToHost), "the epoch", err, errsz) ||
        !ok(cudaMemcpy(g->host_right, g->right, g->n_rows, cudaMemcpyDeviceToHost), "the epoch",
            err, errsz))
        return -1;
    for (uint32_t i = 0; i < g->n_rows; i++) {
        *loss_sum += g->host_loss[i];
        *right += g->host_right[i];
    }
    return 0;
}

extern "C" int mlp_gpu_params(const mlp_gpu *g, float *params, char *err, size_t errsz)
{
    const size_t n_params = (size_t)g->n_hidden * g->n_in + g->n_hidden +
                            (size_t)g->n_out * g->n_hidden + g->n_out;
    return ok(cudaMemcpy(params, g->params, n_params * sizeof(float), cudaMemcpyDeviceToHost),
              "copying the weights back", err, errsz) ? 0 : -1;
}

extern "C" void mlp_gpu_destroy(mlp_gpu *g)
{
    if (!g)
        return;
    cudaFree(g->x);
    cudaFree(g->y);
    cudaFree(g->order);
    cudaFree(g->params);
    cudaFree(g->a1);
    cudaFree(g->g1);
    cudaFree(g->z2);
    cudaFree(g->g2);
    cudaFree(g->loss);
    cudaFree(g->right);
    free(g->host_loss);
    free(g->host_right);
    free(g);
}
