/* mlp.h - the model of this example on the CPU: a multilayer perceptron
 * n_in -> n_hidden (tanh) -> n_out (softmax), its initialization, its
 * forward pass, and the gradient of a shard of a minibatch.
 *
 * Data parallelism rests on one identity: the gradient of a sum of
 * per-row losses is the sum of the per-row gradients. So each rank sums
 * the gradients of its rows (mlp_shard_gradient), the ranks add their sums
 * (pipe_allreduce with PIPE_SUM), and every rank applies
 * params -= (lr / global_batch) * sum (mlp_apply): the same update as one
 * process computing the mean gradient of the whole minibatch. The sums are
 * exchanged in double and rounded to float once, after the all-reduce, so
 * that the only difference left is the order of double additions.
 */
#ifndef DDP_MLP_H
#define DDP_MLP_H

#include <stdint.h>

#include "formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seeded initialization: Glorot-uniform weights, zero biases. The same
   seed gives the same bits everywhere. */
void mlp_init(ddp_model *m, int64_t seed);

/* The forward pass for one row x (n_in floats). hidden (n_hidden) and
   logits (n_out) are the caller's scratch and receive the activations.
   Returns the class with the highest logit. */
uint32_t mlp_forward(const ddp_model *m, const float *x, float *hidden, float *logits);

/* Accumulators and scratch for gradients on the CPU. */
typedef struct mlp_work mlp_work;

int mlp_work_create(mlp_work **out, const ddp_model *m, char *err, size_t errsz);
void mlp_work_destroy(mlp_work *w);

/* grad[0..ddp_param_count) = the gradient of the cross-entropy summed (not
   averaged) over the rows rows[0..n) of ds, laid out like m->params, in
   double: the ranks add these sums before anything is rounded to float, so
   that 1, 2 and 4 ranks round the same minibatch sum once, as one process
   does. Adds the rows' summed loss to *loss_sum and their right guesses to
   *right. */
void mlp_shard_gradient(mlp_work *w, const ddp_model *m, const ddp_dataset *ds,
                        const uint32_t *rows, uint32_t n, double *grad, double *loss_sum,
                        uint64_t *right);

/* params -= step * grad, element by element. */
void mlp_apply(ddp_model *m, const float *grad, float step);

#ifdef __cplusplus
}
#endif

#endif /* DDP_MLP_H */
