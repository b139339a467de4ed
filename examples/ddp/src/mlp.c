/* mlp.c - the MLP of mlp.h on the CPU. */
#include "mlp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mlp_work {
    size_t n_params;
    float *hidden, *logits; /* one row's activations */
    double *dz, *da;        /* one row's output and hidden deltas */
};

static void glorot(float *w, size_t fan_in, size_t fan_out, ddp_rng *rng)
{
    double limit = sqrt(6.0 / (double)(fan_in + fan_out));
    for (size_t i = 0; i < fan_in * fan_out; i++)
        w[i] = (float)((2.0 * ddp_rng_uniform(rng) - 1.0) * limit);
}

void mlp_init(ddp_model *m, int64_t seed)
{
    ddp_rng rng = ddp_rng_make(seed, 2); /* stream 2: the initial weights */
    glorot(m->w1, m->n_in, m->n_hidden, &rng);
    glorot(m->w2, m->n_hidden, m->n_out, &rng);
    memset(m->b1, 0, m->n_hidden * sizeof *m->b1);
    memset(m->b2, 0, m->n_out * sizeof *m->b2);
}

uint32_t mlp_forward(const ddp_model *m, const float *x, float *hidden, float *logits)
{
    uint32_t best = 0;
    for (uint32_t j = 0; j < m->n_hidden; j++) {
        const float *w = m->w1 + (size_t)j * m->n_in;
        float s = m->b1[j];
        for (uint32_t i = 0; i < m->n_in; i++)
            s += w[i] * x[i];
        hidden[j] = tanhf(s);
    }
    for (uint32_t k = 0; k < m->n_out; k++) {
        const float *w = m->w2 + (size_t)k * m->n_hidden;
        float s = m->b2[k];
        for (uint32_t j = 0; j < m->n_hidden; j++)
            s += w[j] * hidden[j];
        logits[k] = s;
        if (s > logits[best])
            best = k;
    }
    return best;
}

int mlp_work_create(mlp_work **out, const ddp_model *m, char *err, size_t errsz)
{
    mlp_work *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        goto oom;
    w->n_params = ddp_param_count(m->n_in, m->n_hidden, m->n_out);
    w->hidden = malloc(m->n_hidden * sizeof *w->hidden);
    w->logits = malloc(m->n_out * sizeof *w->logits);
    w->dz = malloc(m->n_out * sizeof *w->dz);
    w->da = malloc(m->n_hidden * sizeof *w->da);
    if (!w->hidden || !w->logits || !w->dz || !w->da)
        goto oom;
    *out = w;
    return 0;
oom:
    mlp_work_destroy(w);
    snprintf(err, errsz, "out of memory for the gradients of a %u-%u-%u model", m->n_in,
             m->n_hidden, m->n_out);
    return -1;
}

void mlp_work_destroy(mlp_work *w)
{
    if (!w)
        return;
    free(w->hidden);
    free(w->logits);
    free(w->dz);
    free(w->da);
    free(w);
}

void mlp_shard_gradient(mlp_work *w, const ddp_model *m, const ddp_dataset *ds,
                        const uint32_t *rows, uint32_t n, double *grad, double *loss_sum,
                        uint64_t *right)
{
    const uint32_t n_in = m->n_in, n_hidden = m->n_hidden, n_out = m->n_out;
    double *gw1 = grad, *gb1 = gw1 + (size_t)n_hidden * n_in, *gw2 = gb1 + n_hidden,
           *gb2 = gw2 + (size_t)n_out * n_hidden;

    memset(grad, 0, w->n_params * sizeof *grad);
    for (uint32_t r = 0; r < n; r++) {
        const float *x = ds->x + (size_t)rows[r] * n_in;
        const uint32_t y = ds->labels[rows[r]];
        const uint32_t guess = mlp_forward(m, x, w->hidden, w->logits);
        double max = w->logits[0], total = 0.0;

        /* softmax and cross-entropy, shifted by the largest logit */
        for (uint32_t k = 1; k < n_out; k++)
            if (w->logits[k] > max)
                max = w->logits[k];
        for (uint32_t k = 0; k < n_out; k++)
            total += exp((double)w->logits[k] - max);
        *loss_sum += log(total) - ((double)w->logits[y] - max);
        *right += guess == y;

        /* output layer: dz = softmax - onehot */
        for (uint32_t k = 0; k < n_out; k++) {
            double dz = exp((double)w->logits[k] - max) / total - (k == y ? 1.0 : 0.0);
            double *g = gw2 + (size_t)k * n_hidden;
            w->dz[k] = dz;
            gb2[k] += dz;
            for (uint32_t j = 0; j < n_hidden; j++)
                g[j] += dz * w->hidden[j];
        }
        /* hidden layer: da = (W2^T dz) * (1 - h^2) */
        for (uint32_t j = 0; j < n_hidden; j++) {
            double s = 0.0;
            for (uint32_t k = 0; k < n_out; k++)
                s += (double)m->w2[(size_t)k * n_hidden + j] * w->dz[k];
            w->da[j] = s * (1.0 - (double)w->hidden[j] * w->hidden[j]);
        }
        for (uint32_t j = 0; j < n_hidden; j++) {
            double *g = gw1 + (size_t)j * n_in, da = w->da[j];
            gb1[j] += da;
            for (uint32_t i = 0; i < n_in; i++)
                g[i] += da * x[i];
        }
    }
}

void mlp_apply(ddp_model *m, const float *grad, float step)
{
    const size_t n = ddp_param_count(m->n_in, m->n_hidden, m->n_out);
    for (size_t i = 0; i < n; i++)
        m->params[i] -= step * grad[i];
}
