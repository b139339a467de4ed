/* struct pipe_ctx: what the step API (pipe.h) sees of the running worker.
   Private to the runtime. The worker (worker.c) creates one per rank before
   calling the step, and finishes it after: outputs are committed (flushed,
   fsynced, renamed into place) only when the step returned 0, so a file
   named outputs/NAME is always complete. */
#ifndef PIPE_CTX_H
#define PIPE_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dist/collectives.h"
#include "observe/metrics.h"
#include "pipe/pipe.h"

typedef struct pipe_ctx_input {
    char *name;
    char *path;
} pipe_ctx_input;

typedef struct pipe_ctx_output {
    char *name;
    char *final_path; /* DIR/outputs/NAME */
    char *tmp_path;   /* DIR/outputs/.NAME.tmp.PID (rank 0), a scratch file on other ranks */
    FILE *stream;     /* from pipe_output_open; NULL until then */
    int fd;           /* the stream's descriptor on rank 0 (-1: none) */
    bool fd_synced;   /* fsynced through fd by pipe_ctx_finish */
    struct pipe_hashed_stream *hashed; /* the digest of what went through stream (rank 0) */
    bool path_given;  /* pipe_output_path handed tmp_path out */
    bool committed;   /* renamed to final_path by pipe_ctx_finish */
} pipe_ctx_output;

struct pipe_ctx {
    char *invocation;
    char *run_id;
    char *dir;         /* STORE/RUN/INVOCATION */
    char *error_path;  /* DIR/error: pipe_fail's text, read by the supervisor */
    int rank, world_size, local_rank, local_world_size;
    char *mixed_precision;
    char *scratch_root; /* per attempt, removed by the supervisor */
    char *scratch_dir;  /* SCRATCH_ROOT/rank-N, created on first use */
    char *checkpoint_dir;    /* PIPE_CHECKPOINT_DIR (@checkpoint), NULL without */
    char *checkpoint_latest; /* PIPE_CHECKPOINT_LATEST, NULL when none */
    char *checkpoint_tmp;    /* what pipe_checkpoint_begin returned last */
    pipe_ctx_input *inputs;
    size_t ninputs;
    pipe_ctx_output *outputs;
    size_t noutputs;
    pipe_metrics_writer metrics; /* DIR/metrics.csv, opened on the first metric (rank 0 only) */
    double started;     /* pipe_now() at creation: metrics' time_s */
    pipe_coll coll; /* the collectives (dist/collectives.h), their errors into last_error */
    bool finished;
    bool writes_deferred; /* pipe_ctx_config's */
    char last_error[1024];
};

typedef struct pipe_ctx_config {
    const char *invocation;
    const char *run_id;
    const char *dir;                /* STORE/RUN/INVOCATION; DIR/outputs must exist */
    const char *const *input_names; /* artifact inputs */
    const char *const *input_paths;
    size_t ninputs;
    const char *const *output_names; /* declared outputs */
    size_t noutputs;
    const char *scratch_root;        /* NULL: $PIPE_SCRATCH_ROOT, else DIR/scratch */
    bool writes_deferred;            /* outputs without fsync: the runner commits them (store/commit.h) */
} pipe_ctx_config;

/* Reads the ranks from the environment (pipe_rank_env_read_ids),
   PIPE_MIXED_PRECISION ("no"), PIPE_CHECKPOINT_DIR and
   PIPE_CHECKPOINT_LATEST. PIPE_EINVAL for malformed or inconsistent
   values (RANK >= WORLD_SIZE, ...). */
int pipe_ctx_create(const pipe_ctx_config *cfg, pipe_ctx **out, char *err, size_t errsize);
/* After the step returned rc. rc == 0: every stream from pipe_output_open is
   flushed, fsynced and closed, and every output written (stream or
   pipe_output_path) is renamed to DIR/outputs/NAME, fsyncing the directory.
   rc != 0: temporary files are removed. A failed commit (full disk) is
   PIPE_EIO naming the output. Idempotent. */
int pipe_ctx_finish(pipe_ctx *ctx, int rc, char *err, size_t errsize);
/* Finishes with rc = 1 (discarding outputs) if not yet finished, then frees. */
void pipe_ctx_destroy(pipe_ctx *ctx);

#endif
