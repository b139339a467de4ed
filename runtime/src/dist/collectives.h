/* Collectives backends (private). pipe.h's pipe_allreduce & co. validate
   their arguments and then call the backend the context was given at
   creation: one table per backend, chosen in pipe_coll_select
   (coll_select.c): `single` (world size 1: the identity), `cpu`, `nccl`,
   and `none` (NCCL wanted, not built in: PIPE_ENOTSUP). */
#ifndef PIPE_COLLECTIVES_H
#define PIPE_COLLECTIVES_H

#include <stddef.h>

#include "pipe/pipe.h"

typedef struct pipe_coll_backend {
    const char *name;
    /* Sets up ctx->coll_state (may stay NULL). */
    int (*init)(pipe_ctx *ctx, char *err, size_t errsize);
    int (*allreduce)(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, pipe_op op);
    int (*broadcast)(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, int root);
    int (*allgather)(pipe_ctx *ctx, const void *send, void *recv, size_t count, pipe_dtype dtype);
    int (*barrier)(pipe_ctx *ctx);
    void (*destroy)(pipe_ctx *ctx);
} pipe_coll_backend;

/* The backend for ctx's world (rank and world size already set), not yet
   initialized. */
const pipe_coll_backend *pipe_coll_select(const pipe_ctx *ctx);

/* Maps this rank's slot of the hung-rank table (coll_watch.h) from the
   segment the launcher shares with the machine's ranks (PIPE_SHM_FD); a
   rank started otherwise has none. */
void pipe_coll_watch_attach(pipe_ctx *ctx);
void pipe_coll_watch_detach(pipe_ctx *ctx);

#endif
