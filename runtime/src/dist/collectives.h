/* A rank's collectives (private). The step API's pipe_allreduce & co.
   (api/collectives.c) pass the context's pipe_coll down; here the
   arguments are checked and the backend the rank was given at creation
   runs: one table per backend, chosen in pipe_coll_select
   (coll_select.c): `single` (world size 1: the identity), `cpu`, `nccl`,
   and `none` (NCCL wanted, not built in: PIPE_ENOTSUP). dist/ knows
   nothing of the step context: what went wrong goes into the error buffer
   its owner lends (the context's last error, pipe_last_error). */
#ifndef PIPE_COLLECTIVES_H
#define PIPE_COLLECTIVES_H

#include <stddef.h>

#include "pipe/pipe.h" /* pipe_dtype, pipe_op */

struct pipe_coll_backend;
struct pipe_coll_slot;

typedef struct pipe_coll {
    int rank, world_size, local_rank, local_world_size;
    const struct pipe_coll_backend *backend; /* NULL until pipe_coll_open */
    void *state;                             /* the backend's own (may stay NULL) */
    void *watch_map; /* the hung-rank table (coll_watch.h), NULL when none */
    size_t watch_size;
    struct pipe_coll_slot *watch; /* this rank's slot in it */
    char *error; /* the owner's buffer for the last error */
    size_t errsize;
} pipe_coll;

typedef struct pipe_coll_backend {
    const char *name;
    /* Sets up coll->state (may stay NULL). */
    int (*init)(pipe_coll *coll, char *err, size_t errsize);
    int (*allreduce)(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op);
    int (*broadcast)(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root);
    int (*allgather)(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype);
    int (*barrier)(pipe_coll *coll);
    void (*destroy)(pipe_coll *coll);
} pipe_coll_backend;

/* Chooses and starts the backend for coll's world (rank, sizes and error
   buffer already set), then maps this rank's slot of the hung-rank table
   from the segment the launcher shares with the machine's ranks
   (PIPE_SHM_FD; a rank started otherwise has none). PIPE_E* with the
   reason in err. (coll_open.c) */
int pipe_coll_open(pipe_coll *coll, char *err, size_t errsize);
/* The backend stopped, the slot unmapped. Idempotent. */
void pipe_coll_close(pipe_coll *coll);

/* The backend for coll's world, not yet initialized (coll_select.c). */
const pipe_coll_backend *pipe_coll_select(const pipe_coll *coll);

/* The collectives of pipe/pipe.h on coll: the arguments checked, the hung-rank
   slot marked around the backend's call. */
int pipe_coll_allreduce(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op);
int pipe_coll_broadcast(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root);
int pipe_coll_allgather(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype);
int pipe_coll_barrier(pipe_coll *coll);

/* Writes the last error into coll's buffer and returns code. */
int pipe_coll_error(pipe_coll *coll, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The NCCL communicator of coll (an ncclComm_t), NULL without one
   (coll_nccl.c). */
void *pipe_coll_nccl_comm(const pipe_coll *coll);

#endif
