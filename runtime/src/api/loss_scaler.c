/* The dynamic loss scaler (pipe/precision.h): every rank takes the same
   decision through one all-reduce. Apart from the conversions
   (util/precision.c), which the collectives use themselves. */
#include <math.h>

#include "pipe/precision.h"

void pipe_loss_scaler_init(pipe_loss_scaler *s)
{
    s->scale = 65536.0f;
    s->growth_factor = 2.0f;
    s->backoff_factor = 0.5f;
    s->growth_interval = 2000;
    s->good_steps = 0;
    s->skipped = 0;
}

void pipe_loss_scaler_update(pipe_loss_scaler *s, bool found_inf)
{
    if (found_inf) {
        s->scale *= s->backoff_factor;
        if (s->scale < 1.0f / 65536.0f)
            s->scale = 1.0f / 65536.0f; /* never underflow to zero */
        s->good_steps = 0;
        s->skipped++;
        return;
    }
    if (++s->good_steps >= s->growth_interval) {
        float grown = s->scale * s->growth_factor;
        if (isfinite(grown))
            s->scale = grown;
        s->good_steps = 0;
    }
}

int pipe_loss_scaler_step(pipe_ctx *ctx, pipe_loss_scaler *s, float *grads, size_t n, bool *apply)
{
    int32_t found = 0;
    for (size_t i = 0; i < n && !found; i++)
        found = !isfinite(grads[i]);
    /* Every rank must take the same decision. */
    int rc = pipe_allreduce(ctx, &found, 1, PIPE_I32, PIPE_MAX);
    if (rc != 0)
        return rc;
    if (!found) {
        float inv = 1.0f / s->scale;
        for (size_t i = 0; i < n; i++)
            grads[i] *= inv;
    }
    pipe_loss_scaler_update(s, found != 0);
    *apply = !found;
    return 0;
}
