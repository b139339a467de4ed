/* Mixed precision for step code: 16-bit float storage types and their
   conversions, and a dynamic loss scaler for fp16 training as AMP's
   GradScaler does it (PIPE_MIXED_PRECISION / pipe_mixed_precision() say
   which precision the step was launched with). */
#ifndef PIPE_PRECISION_H
#define PIPE_PRECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/pipe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Storage types on the host (the bits of IEEE binary16 and of bfloat16). On
   the device, use CUDA's __half and __nv_bfloat16: the layouts are the same. */
typedef uint16_t pipe_f16;
typedef uint16_t pipe_bf16;

float pipe_f16_to_f32(pipe_f16 h);
pipe_f16 pipe_f32_to_f16(float f);  /* round to nearest even; overflow to inf */
float pipe_bf16_to_f32(pipe_bf16 h);
pipe_bf16 pipe_f32_to_bf16(float f); /* round to nearest even; NaN stays NaN */
void pipe_f32_to_f16_n(const float *src, pipe_f16 *dst, size_t n);
void pipe_f16_to_f32_n(const pipe_f16 *src, float *dst, size_t n);
void pipe_f32_to_bf16_n(const float *src, pipe_bf16 *dst, size_t n);
void pipe_bf16_to_f32_n(const pipe_bf16 *src, float *dst, size_t n);

/* Dynamic loss scaling: multiply the loss by `scale` before the backward
   pass; then pipe_loss_scaler_step unscales the gradients, and skips the
   optimizer step on every rank if any rank saw an inf or NaN. */
typedef struct pipe_loss_scaler {
    float scale;           /* current factor (default 65536) */
    float growth_factor;   /* after growth_interval good steps (2.0) */
    float backoff_factor;  /* after an overflow (0.5) */
    int growth_interval;   /* 2000 */
    int good_steps;        /* since the last change */
    long skipped;          /* optimizer steps skipped so far */
} pipe_loss_scaler;

void pipe_loss_scaler_init(pipe_loss_scaler *s);
/* Checks grads (n floats, host memory) for inf/NaN on every rank (one
   all-reduce), unscales them when all are finite, and updates the scale.
   *apply says whether to take the optimizer step. For steps whose gradients
   live on the GPU (NCCL collectives take device buffers only): check them on
   the device, all-reduce the flag in device memory with PIPE_MAX, and call
   pipe_loss_scaler_update (examples/ddp/src/train_gpu.cu does). */
int pipe_loss_scaler_step(pipe_ctx *ctx, pipe_loss_scaler *s, float *grads, size_t n, bool *apply);
/* The scale update alone, for code that checks overflow itself (on the GPU). */
void pipe_loss_scaler_update(pipe_loss_scaler *s, bool found_inf);

#ifdef __cplusplus
}
#endif

#endif
