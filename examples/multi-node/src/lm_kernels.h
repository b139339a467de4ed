/* lm_kernels.h - the GPU side of train_lm (lm_kernels.cu), callable from C.
 *
 * A factorized bigram language model: logits(next | x) = E[x] . W, with an
 * embedding E (vocab x dim) and an output projection W (dim x vocab).
 * Parameters and gradients each live in one device buffer, [E | W] and
 * [dE | dW | loss], so that one all-reduce averages everything.
 */
#ifndef EXAMPLE_LM_KERNELS_H
#define EXAMPLE_LM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lm lm;

/* Allocates the model on the current device (the runtime picks one GPU per
 * rank) for batches of up to max_positions tokens, initialized from seed:
 * every rank that passes the same seed starts from the same weights. With
 * bf16, the forward pass reads weights rounded to bfloat16 (fp32 master
 * weights and gradients, as autocast does). */
int lm_create(lm **out, uint32_t vocab, uint32_t dim, uint32_t max_positions, uint64_t seed,
              int bf16, char *err, size_t errsz);

/* Zeroes the gradients, then runs forward and backward on n positions
 * (input token x[i], target y[i]). Returns after the device is idle. */
int lm_forward_backward(lm *m, const uint32_t *x, const uint32_t *y, uint32_t n, char *err,
                        size_t errsz);

/* The device gradient buffer and its length in floats (the loss is last). */
float *lm_grad(lm *m);
size_t lm_grad_count(const lm *m);

/* params -= lr * scale * grad; *loss = the loss slot times scale. */
int lm_apply(lm *m, float lr, float scale, double *loss, char *err, size_t errsz);

/* Copies E (vocab x dim) and W (dim x vocab) to host memory. */
int lm_weights(const lm *m, float *embed, float *head, char *err, size_t errsz);

void lm_destroy(lm *m);

#ifdef __cplusplus
}
#endif

#endif /* EXAMPLE_LM_KERNELS_H */
