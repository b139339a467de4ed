/* Which collectives backend a context gets (collectives.h): `single` for a
   world of one rank, `cpu` (coll_cpu.c) and `nccl` (coll_nccl.c) for more,
   and `none` when a GPU step wants NCCL that the build does not have. The
   backends use pipe_dtype_size & co. of collectives.c; collectives.c calls
   them only through the context's table. */
#include <stdlib.h>
#include <string.h>

#include "coll_cpu.h"
#include "coll_nccl.h"
#include "collectives.h"

/* single: one rank, every collective is the identity. */

static int single_allreduce(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    (void)coll, (void)buf, (void)count, (void)dtype, (void)op;
    return 0;
}

static int single_broadcast(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root)
{
    (void)coll, (void)buf, (void)count, (void)dtype, (void)root;
    return 0;
}

static int single_allgather(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    (void)coll;
    if (count > 0 && send != recv)
        memmove(recv, send, count * pipe_dtype_size(dtype));
    return 0;
}

static int single_barrier(pipe_coll *coll)
{
    (void)coll;
    return 0;
}

static const pipe_coll_backend single_backend = {
    .name = "single",
    .allreduce = single_allreduce,
    .broadcast = single_broadcast,
    .allgather = single_allgather,
    .barrier = single_barrier,
};

/* none: NCCL wanted, not built in. */

static int unsupported(pipe_coll *coll, const char *fn)
{
    return pipe_coll_error(coll, PIPE_ENOTSUP,
                           "%s: this multi-GPU step needs NCCL across its %d ranks, and the bundle was built without "
                           "NCCL (install NCCL where the bundle is built, or run the step with `cpu = true`)",
                           fn, coll->world_size);
}

static int none_allreduce(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    (void)buf, (void)count, (void)dtype, (void)op;
    return unsupported(coll, "pipe_allreduce");
}

static int none_broadcast(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root)
{
    (void)buf, (void)count, (void)dtype, (void)root;
    return unsupported(coll, "pipe_broadcast");
}

static int none_allgather(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    (void)send, (void)recv, (void)count, (void)dtype;
    return unsupported(coll, "pipe_allgather");
}

static int none_barrier(pipe_coll *coll) { return unsupported(coll, "pipe_barrier"); }

static const pipe_coll_backend none_backend = {
    .name = "none",
    .allreduce = none_allreduce,
    .broadcast = none_broadcast,
    .allgather = none_allgather,
    .barrier = none_barrier,
};

/* The launcher says which transport the ranks share (PIPE_COLL_BACKEND):
   NCCL for multi-GPU steps when the runtime has it, else the CPU backend. */
const pipe_coll_backend *pipe_coll_select(const pipe_coll *coll)
{
    if (coll->world_size <= 1)
        return &single_backend;
    const char *want = getenv("PIPE_COLL_BACKEND");
    if (want && strcmp(want, "nccl") == 0) {
#if defined(PIPE_HAVE_NCCL) && PIPE_HAVE_NCCL
        (void)&none_backend;
        return &pipe_coll_nccl_backend;
#else
        return &none_backend;
#endif
    }
    return &pipe_coll_cpu_backend;
}
