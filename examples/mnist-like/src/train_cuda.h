/* train_cuda.h - the GPU side of the train step (train_cuda.cu), callable
 * from C. Compiled only when the bundle is built with CUDA (PIPE_HAVE_CUDA);
 * train.c uses it only when a device is present at run time.
 */
#ifndef MNIST_TRAIN_CUDA_H
#define MNIST_TRAIN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mlp_gpu mlp_gpu;

/* The number of CUDA devices this process can use: 0 when there is none
   or no driver (info says why), otherwise info names device 0. */
int mlp_gpu_device_count(char *info, size_t infosz);

/* Copies the training set (n_rows images of n_in pixels, their labels) and
   the initial weights (laid out as mnist_model.params) to device 0. */
int mlp_gpu_create(mlp_gpu **out, const float *pixels, const uint8_t *labels, uint32_t n_rows,
                   uint32_t n_in, uint32_t n_hidden, uint32_t n_out, uint32_t max_batch,
                   const float *params, char *err, size_t errsz);

/* One epoch of minibatch SGD visiting the rows in order (n_rows indices),
   batch rows at a time: the same step as mlp_cpu_step. The summed loss and
   the right guesses of the epoch go to *loss_sum and *right. */
int mlp_gpu_epoch(mlp_gpu *g, const uint32_t *order, uint32_t batch, float lr, double *loss_sum,
                  uint64_t *right, char *err, size_t errsz);

/* Copies the weights back to params. */
int mlp_gpu_params(const mlp_gpu *g, float *params, char *err, size_t errsz);

void mlp_gpu_destroy(mlp_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* MNIST_TRAIN_CUDA_H */
