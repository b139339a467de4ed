/* mlp.h - the model of this example on the CPU: a multilayer perceptron
 * n_in -> n_hidden (ReLU) -> n_out (softmax), its initialization, its
 * forward pass (evaluate) and a minibatch SGD step (train).
 */
#ifndef MNIST_MLP_H
#define MNIST_MLP_H

#include <stdint.h>

#include "formats.h"

/* Seeded initialization: He-uniform first layer, Glorot-uniform second,
   zero biases. The same seed gives the same bits everywhere. */
void mlp_init(mnist_model *m, int64_t seed);

/* The forward pass for one image x (n_in floats). hidden (n_hidden) and
   logits (n_out) are the caller's scratch and receive the activations.
   Returns the class with the highest logit. */
uint32_t mlp_forward(const mnist_model *m, const float *x, float *hidden, float *logits);

/* The gradients and scratch of minibatch SGD on the CPU. */
typedef struct mlp_cpu_trainer mlp_cpu_trainer;

int mlp_cpu_trainer_create(mlp_cpu_trainer **out, const mnist_model *m, char *err, size_t errsz);
void mlp_cpu_trainer_destroy(mlp_cpu_trainer *t);

/* One SGD step on the batch rows[0..batch) of ds: the mean cross-entropy
   gradient, then m -= lr * gradient. Adds the batch's summed loss to
   *loss_sum and its right guesses (before the step) to *right. */
void mlp_cpu_step(mlp_cpu_trainer *t, mnist_model *m, const mnist_dataset *ds,
                  const uint32_t *rows, uint32_t batch, float lr, double *loss_sum,
                  uint64_t *right);

#endif /* MNIST_MLP_H */
