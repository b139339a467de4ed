/* mlp.c - the MLP on the CPU (mlp.h): plain loops, float weights, the loss
 * summed in double. train_cuda.cu computes the same step with kernels. */
#include "mlp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mlp_cpu_trainer {
    float *grad;   /* the gradient, laid out like mnist_model.params */
    float *hidden; /* n_hidden: activations of one row */
    float *logits; /* n_out: logits, then dL/dlogits of one row */
    float *dhidden; /* n_hidden: dL/dhidden of one row */
};

static void fill_uniform(float *w, size_t n, double limit, mnist_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        w[i] = (float)((2.0 * mnist_rng_uniform(rng) - 1.0) * limit);
}

void mlp_init(mnist_model *m, int64_t seed)
{
    mnist_rng rng = mnist_rng_make(seed, 2); /* stream 2: weights */

    fill_uniform(m->w1, (size_t)m->n_hidden * m->n_in, sqrt(6.0 / m->n_in), &rng);
    fill_uniform(m->w2, (size_t)m->n_out * m->n_hidden, sqrt(6.0 / (m->n_hidden + m->n_out)), &rng);
    memset(m->b1, 0, m->n_hidden * sizeof *m->b1);
    memset(m->b2, 0, m->n_out * sizeof *m->b2);
}

uint32_t mlp_forward(const mnist_model *m, const float *x, float *hidden, float *logits)
{
    uint32_t best = 0;

    for (uint32_t j = 0; j < m->n_hidden; j++) {
        const float *w = m->w1 + (size_t)j * m->n_in;
        float z = m->b1[j];
        for (uint32_t k = 0; k < m->n_in; k++)
            z += w[k] * x[k];
        hidden[j] = z > 0.0f ? z : 0.0f;
    }
    for (uint32_t c = 0; c < m->n_out; c++) {
        const float *w = m->w2 + (size_t)c * m->n_hidden;
        float z = m->b2[c];
        for (uint32_t j = 0; j < m->n_hidden; j++)
            z += w[j] * hidden[j];
        logits[c] = z;
        if (z > logits[best])
            best = c;
    }
    return best;
}

int mlp_cpu_trainer_create(mlp_cpu_trainer **out, const mnist_model *m, char *err, size_t errsz)
{
    mlp_cpu_trainer *t = calloc(1, sizeof *t);

    *out = NULL;
    if (t) {
        t->grad = malloc(mnist_model_param_count(m->n_in, m->n_hidden, m->n_out) * sizeof *t->grad);
        t->hidden = malloc(m->n_hidden * sizeof *t->hidden);
        t->dhidden = malloc(m->n_hidden * sizeof *t->dhidden);
        t->logits = malloc(m->n_out * sizeof *t->logits);
    }
    if (!t || !t->grad || !t->hidden || !t->dhidden || !t->logits) {
        mlp_cpu_trainer_destroy(t);
        snprintf(err, errsz, "out of memory for the trainer");
        return -1;
    }
    *out = t;
    return 0;
}

void mlp_cpu_trainer_destroy(mlp_cpu_trainer *t)
{
    if (!t)
        return;
    free(t->grad);
    free(t->hidden);
    free(t->dhidden);
    free(t->logits);
    free(t);
}

void mlp_cpu_step(mlp_cpu_trainer *t, mnist_model *m, const mnist_dataset *ds,
                  const uint32_t *rows, uint32_t batch, float lr, double *loss_sum,
                  uint64_t *right)
{
    const uint32_t n_in = m->n_in, n_hidden = m->n_hidden, n_out = m->n_out;
    const size_t n_params = mnist_model_param_count(n_in, n_hidden, n_out);
    float *gw1 = t->grad, *gb1 = gw1 + (size_t)n_hidden * n_in;
    float *gw2 = gb1 + n_hidden, *gb2 = gw2 + (size_t)n_out * n_hidden;
    const float inv_batch = 1.0f / (float)batch;

    memset(t->grad, 0, n_params * sizeof *t->grad);
    for (uint32_t b = 0; b < batch; b++) {
        const float *x = ds->pixels + (size_t)rows[b] * n_in;
        const uint32_t label = ds->labels[rows[b]];
        float *g = t->logits;
        uint32_t guess = mlp_forward(m, x, t->hidden, g);
        float max = g[guess], sum = 0.0f;

        *right += guess == label;
        /* Softmax cross-entropy: loss = log(sum exp(z - max)) - (z_label - max);
           dL/dz = (softmax(z) - onehot(label)) / batch. */
        for (uint32_t c = 0; c < n_out; c++)
            sum += expf(g[c] - max);
        *loss_sum += (double)(logf(sum) - (g[label] - max));
        for (uint32_t c = 0; c < n_out; c++)
            g[c] = (expf(g[c] - max) / sum - (c == label ? 1.0f : 0.0f)) * inv_batch;

        for (uint32_t j = 0; j < n_hidden; j++)
            t->dhidden[j] = 0.0f;
        for (uint32_t c = 0; c < n_out; c++) {
            const float *w = m->w2 + (size_t)c * n_hidden;
            float *gw = gw2 + (size_t)c * n_hidden;
            for (uint32_t j = 0; j < n_hidden; j++) {
                gw[j] += g[c] * t->hidden[j];
                t->dhidden[j] += g[c] * w[j];
            }
            gb2[c] += g[c];
        }
        for (uint32_t j = 0; j < n_hidden; j++) {
            /* ReLU: no gradient where the unit was off. */
            float d = t->hidden[j] > 0.0f ? t->dhidden[j] : 0.0f;
            float *gw = gw1 + (size_t)j * n_in;
            if (d == 0.0f)
                continue;
            for (uint32_t k = 0; k < n_in; k++)
                gw[k] += d * x[k];
            gb1[j] += d;
        }
    }
    for (size_t i = 0; i < n_params; i++)
        m->params[i] -= lr * t->grad[i];
}
