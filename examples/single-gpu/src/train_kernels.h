/* train_kernels.h - the GPU side of the train step (train_kernels.cu),
 * callable from C. */
#ifndef EXAMPLE_TRAIN_KERNELS_H
#define EXAMPLE_TRAIN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_trainer gpu_trainer;

/* Copies the training set to the current device (chosen by the runtime) and
 * allocates zeroed weights, n_classes * (n_features + 1) floats. */
int gpu_trainer_create(gpu_trainer **out, const float *features, const int32_t *labels,
                       uint32_t n_rows, uint32_t n_features, uint32_t n_classes,
                       uint32_t max_batch, char *err, size_t errsz);

/* One epoch of minibatch SGD visiting the rows in the given order; the mean
 * cross-entropy loss over the epoch goes to *mean_loss. */
int gpu_trainer_epoch(gpu_trainer *t, const uint32_t *order, uint32_t batch, float lr,
                      double *mean_loss, char *err, size_t errsz);

/* Copies the weights back to w (n_classes * (n_features + 1) floats). */
int gpu_trainer_weights(const gpu_trainer *t, float *w, char *err, size_t errsz);

void gpu_trainer_destroy(gpu_trainer *t);

#ifdef __cplusplus
}
#endif

#endif /* EXAMPLE_TRAIN_KERNELS_H */
