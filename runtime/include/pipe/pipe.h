/* The step API: what a step's C, C++ or CUDA code calls. docs/step-api.md
 * describes every function, who owns what, what rank 0 does and the errors.
 *
 *   int train_main(pipe_ctx *ctx, const training_train_args *args)
 *   {
 *       const char *in = pipe_input_path(ctx, "data");
 *       FILE *out = pipe_output_open(ctx, "model");   // the runtime closes it
 *       pipe_log(ctx, "epoch %d loss %.4f", e, loss);
 *       pipe_metric(ctx, "loss", loss);
 *       return 0;                                     // non-zero fails the step
 *   }
 */
#ifndef PIPE_PIPE_H
#define PIPE_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pipe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PIPE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PIPE_PRINTF(f, a)
#endif

/* Everything a running step can ask the runtime; owned by the runtime. */
typedef struct pipe_ctx pipe_ctx;

typedef enum { PIPE_F32, PIPE_F64, PIPE_I32, PIPE_I64, PIPE_U8, PIPE_F16, PIPE_BF16 } pipe_dtype;
typedef enum { PIPE_SUM, PIPE_PROD, PIPE_MAX, PIPE_MIN, PIPE_AVG } pipe_op;

/* Inputs and outputs. pipe_input_path returns the path of an artifact input
   (the same string as the argument struct's field) or NULL for an unknown
   name. pipe_output_open returns a stream for an output declared by the
   step; the runtime owns it: when the step returns 0 it is flushed, fsynced
   and renamed into place; otherwise it is discarded. Only rank 0 writes
   outputs: other ranks get a stream to /dev/null. NULL on error (see
   pipe_last_error). */
const char *pipe_input_path(pipe_ctx *ctx, const char *name);
FILE *pipe_output_open(pipe_ctx *ctx, const char *name);
/* For outputs written by other means (a library that wants a file name):
   the temporary path to write; it is renamed into place on success. */
const char *pipe_output_path(pipe_ctx *ctx, const char *name);

/* Where this process stands. */
int pipe_rank(const pipe_ctx *ctx);
int pipe_world_size(const pipe_ctx *ctx);
int pipe_local_rank(const pipe_ctx *ctx);
int pipe_local_world_size(const pipe_ctx *ctx);
const char *pipe_invocation_id(const pipe_ctx *ctx);
const char *pipe_run_id(const pipe_ctx *ctx);
/* "no", "fp16", "bf16" or "fp8" (PIPE_MIXED_PRECISION). */
const char *pipe_mixed_precision(const pipe_ctx *ctx);
/* A scratch directory private to this invocation and rank. */
const char *pipe_scratch_dir(const pipe_ctx *ctx);

/* Logging and metrics: lines go to the invocation's log and the console;
   metrics to metrics.csv (name,step,value,time_s) and the step record (the
   last value of each name). pipe_metric records value at the name's next
   step index: 0, 1, 2, ..., one past the last index given for that name;
   pipe_metric_at gives the index (0 or more). A name is non-empty, at most
   200 bytes, without comma, quote or control characters. Rank 0's metrics
   count; other ranks' calls do nothing. PIPE_EINVAL for a bad name or step,
   PIPE_EIO when metrics.csv cannot be written. */
void pipe_log(pipe_ctx *ctx, const char *fmt, ...) PIPE_PRINTF(2, 3);
int pipe_metric(pipe_ctx *ctx, const char *name, double value);
int pipe_metric_at(pipe_ctx *ctx, const char *name, int64_t step, double value);
/* Records why the step failed (shown in the summary); returns 1 so that a
   step can `return pipe_fail(ctx, "...")`. */
int pipe_fail(pipe_ctx *ctx, const char *fmt, ...) PIPE_PRINTF(2, 3);
/* The last error message of a runtime call in this process. */
const char *pipe_last_error(const pipe_ctx *ctx);

/* Checkpoints (@checkpoint; docs/checkpoints.md). pipe_checkpoint_dir is
   the step's checkpoint folder, shared by its ranks and kept across
   retries, interruptions and later runs with the same cache key (NULL
   without @checkpoint); pipe_checkpoint_latest the newest complete
   checkpoint in it when the attempt started (DIR/NAME), NULL when none.
   To save one, every rank calls pipe_checkpoint_begin(ctx, "step_300"),
   writes into the folder it returns (DIR/.step_300.tmp, made empty), then
   calls pipe_checkpoint_commit(ctx, "step_300"): once every rank is there,
   rank 0 fsyncs what they wrote and renames the folder to DIR/step_300 (a
   kill in between leaves only a temporary folder, removed when the next
   attempt starts), and every rank gets its result. Both are collectives:
   every rank calls them, in the same order. A NAME is a file name that
   does not start with '.'. NULL or PIPE_EINVAL (a bad name, no
   @checkpoint), PIPE_EIO; see pipe_last_error. */
const char *pipe_checkpoint_dir(const pipe_ctx *ctx);
const char *pipe_checkpoint_latest(const pipe_ctx *ctx);
const char *pipe_checkpoint_begin(pipe_ctx *ctx, const char *name);
int pipe_checkpoint_commit(pipe_ctx *ctx, const char *name);

/* Collectives across the ranks of an accelerated step (identity when the
   world has one rank). NCCL on GPU steps, a CPU backend otherwise. */
int pipe_allreduce(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, pipe_op op);
int pipe_broadcast(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, int root);
int pipe_allgather(pipe_ctx *ctx, const void *send, void *recv, size_t count, pipe_dtype dtype);
int pipe_barrier(pipe_ctx *ctx);
size_t pipe_dtype_size(pipe_dtype dtype);
/* The NCCL communicator (an ncclComm_t) of a GPU step's ranks, for calling
   NCCL directly; NULL on CPU steps and in runtimes built without NCCL. */
void *pipe_nccl_comm(pipe_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
