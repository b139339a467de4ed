/* NCCL backend: buffers are device memory (the step allocates them with
   cudaMalloc); each call runs on the communicator's stream and waits for it,
   so the step sees the result when the call returns.

   The wait is a watchdog, as PyTorch's is: it polls the stream and the
   communicator's asynchronous error, and when a collective has not finished
   within collective_timeout (a rank never entered it, a peer died, a GPU
   hung) it aborts the communicator (ncclCommAbort, which makes the kernels
   waiting on the missing rank return) and fails the call. The
   communicator is created non-blocking, so that its set-up is bounded by
   the rendezvous timeout the same way. */
#include "coll_nccl.h"

#if defined(PIPE_HAVE_NCCL) && PIPE_HAVE_NCCL

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipe/base.h"
#include "dist.h"
#include "nccl_lib.h"
#include "util/util.h"

/* NCCL's and the CUDA runtime's functions, loaded by the first init
   (nccl_lib.h); every other function runs after it. */
static const pipe_nccl_lib *nc;

typedef struct nccl_state {
    ncclComm_t comm;
    cudaStream_t stream;
    uint64_t timeout_ms; /* collective_timeout */
} nccl_state;

/* A sleep between polls that grows from 10 us to 1 ms: short collectives
   stay fast, long ones do not burn a core. */
static void poll_pause(unsigned *us)
{
    struct timespec ts = {0, (long)*us * 1000L};
    nanosleep(&ts, NULL);
    if (*us < 1000)
        *us *= 2;
}

/* Aborts the communicator: what NCCL needs to give up on a missing peer. */
static void abort_comm(nccl_state *s)
{
    if (s->comm)
        nc->CommAbort(s->comm);
    s->comm = NULL;
}

/* Waits until the communicator's pending work is accepted (a non-blocking
   communicator answers ncclInProgress meanwhile) or its error, up to
   deadline. */
static ncclResult_t wait_comm(nccl_state *s, double deadline)
{
    unsigned us = 10;
    for (;;) {
        ncclResult_t state = ncclSuccess;
        ncclResult_t r = nc->CommGetAsyncError(s->comm, &state);
        if (r != ncclSuccess)
            return r;
        if (state != ncclInProgress)
            return state;
        if (pipe_now() >= deadline)
            return ncclInProgress;
        poll_pause(&us);
    }
}

static bool nccl_type(pipe_dtype t, ncclDataType_t *out)
{
    switch (t) {
    case PIPE_F32: *out = ncclFloat32; return true;
    case PIPE_F64: *out = ncclFloat64; return true;
    case PIPE_I32: *out = ncclInt32; return true;
    case PIPE_I64: *out = ncclInt64; return true;
    case PIPE_U8: *out = ncclUint8; return true;
    case PIPE_F16: *out = ncclFloat16; return true;
    case PIPE_BF16: *out = ncclBfloat16; return true;
    }
    return false;
}

static ncclRedOp_t nccl_op(pipe_op op)
{
    switch (op) {
    case PIPE_SUM: return ncclSum;
    case PIPE_PROD: return ncclProd;
    case PIPE_MAX: return ncclMax;
    case PIPE_MIN: return ncclMin;
    case PIPE_AVG: return ncclAvg;
    }
    return ncclSum;
}

/* After an NCCL call was issued with result r: the watchdog wait. */
static int finish(pipe_coll *coll, const char *fn, ncclResult_t r)
{
    nccl_state *s = coll->state;
    double deadline = pipe_now() + (double)s->timeout_ms / 1000.0;
    if (!s->comm)
        return pipe_coll_error(coll, PIPE_ECOMM, "%s: rank %d: the communicator was aborted by an earlier timeout", fn,
                               coll->rank);
    if (r == ncclInProgress)
        r = wait_comm(s, deadline);
    if (r != ncclSuccess && r != ncclInProgress) {
        abort_comm(s);
        return pipe_coll_error(coll, PIPE_ECOMM, "%s: rank %d: %s", fn, coll->rank, nc->GetErrorString(r));
    }
    unsigned us = 10;
    while (r == ncclSuccess) {
        cudaError_t c = nc->StreamQuery(s->stream);
        if (c == cudaSuccess)
            return 0;
        if (c != cudaErrorNotReady) {
            abort_comm(s);
            return pipe_coll_error(coll, PIPE_ECOMM, "%s: rank %d: %s", fn, coll->rank, nc->CudaErrorString(c));
        }
        ncclResult_t state = ncclSuccess;
        if (nc->CommGetAsyncError(s->comm, &state) != ncclSuccess ||
            (state != ncclSuccess && state != ncclInProgress)) {
            abort_comm(s);
            return pipe_coll_error(coll, PIPE_ECOMM, "%s: rank %d: %s", fn, coll->rank, nc->GetErrorString(state));
        }
        if (pipe_now() >= deadline)
            break;
        poll_pause(&us);
    }
    abort_comm(s);
    char limit[64];
    pipe_format_duration(s->timeout_ms, limit, sizeof limit);
    return pipe_coll_error(coll, PIPE_ETIMEOUT,
                           "%s: rank %d: not finished after collective_timeout (%s): a rank never entered it, or a "
                           "peer or GPU hung; the NCCL communicator was aborted",
                           fn, coll->rank, limit);
}

static int nccl_allreduce(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    nccl_state *s = coll->state;
    ncclDataType_t t;
    if (!nccl_type(dtype, &t))
        return pipe_coll_error(coll, PIPE_EINVAL, "pipe_allreduce: dtype %d has no NCCL type", (int)dtype);
    return finish(coll, "pipe_allreduce", nc->AllReduce(buf, buf, count, t, nccl_op(op), s->comm, s->stream));
}

static int nccl_broadcast(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root)
{
    nccl_state *s = coll->state;
    ncclDataType_t t;
    if (!nccl_type(dtype, &t))
        return pipe_coll_error(coll, PIPE_EINVAL, "pipe_broadcast: dtype %d has no NCCL type", (int)dtype);
    return finish(coll, "pipe_broadcast", nc->Broadcast(buf, buf, count, t, root, s->comm, s->stream));
}

static int nccl_allgather(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    nccl_state *s = coll->state;
    ncclDataType_t t;
    if (!nccl_type(dtype, &t))
        return pipe_coll_error(coll, PIPE_EINVAL, "pipe_allgather: dtype %d has no NCCL type", (int)dtype);
    return finish(coll, "pipe_allgather", nc->AllGather(send, recv, count, t, s->comm, s->stream));
}

/* A one-element all-reduce on the device is NCCL's barrier. */
static int nccl_barrier(pipe_coll *coll)
{
    nccl_state *s = coll->state;
    void *d = NULL;
    if (nc->Malloc(&d, sizeof(float)) != cudaSuccess)
        return pipe_coll_error(coll, PIPE_ENOMEM, "pipe_barrier: cudaMalloc failed");
    int rc = finish(coll, "pipe_barrier", nc->AllReduce(d, d, 1, ncclFloat32, ncclSum, s->comm, s->stream));
    nc->Free(d);
    return rc;
}

static void nccl_destroy(pipe_coll *coll)
{
    nccl_state *s = coll->state;
    if (!s)
        return;
    if (s->comm)
        nc->CommDestroy(s->comm);
    s->comm = NULL;
    if (s->stream)
        nc->StreamDestroy(s->stream);
    free(s);
    coll->state = NULL;
}

static int nccl_init(pipe_coll *coll, char *err, size_t errsize)
{
    pipe_dist_env env;
    pipe_rdzv_client *rdzv = NULL;
    int rc = pipe_dist_env_read(&env, err, errsize);
    if (rc != 0)
        return rc;
    if (!nc && !(nc = pipe_nccl_lib_load(err, errsize)))
        return PIPE_ENOTSUP;
    nccl_state *s = calloc(1, sizeof *s);
    if (!s)
        return PIPE_ENOMEM;
    coll->state = s;
    s->timeout_ms = env.collective_timeout_ms;
    if ((rc = pipe_dist_join(&env, &rdzv, err, errsize)) != 0)
        goto fail;
    ncclUniqueId id;
    if (env.rank == 0) {
        ncclResult_t r = nc->GetUniqueId(&id);
        if (r != ncclSuccess) {
            pipe_errf(err, errsize, "rank 0: ncclGetUniqueId: %s", nc->GetErrorString(r));
            rc = PIPE_ECOMM;
            goto fail;
        }
        if ((rc = pipe_rdzv_set(rdzv, "nccl/unique_id", &id, sizeof id, err, errsize)) != 0)
            goto fail;
    } else {
        void *got = NULL;
        size_t len = 0;
        if ((rc = pipe_rdzv_get(rdzv, "nccl/unique_id", &got, &len, env.rdzv_timeout_ms, err, errsize)) != 0)
            goto fail;
        if (len != sizeof id) {
            free(got);
            pipe_errf(err, errsize, "rank %d: the NCCL unique id from the rendezvous has %zu bytes, not %zu",
                      env.rank, len, sizeof id);
            rc = PIPE_ECOMM;
            goto fail;
        }
        memcpy(&id, got, sizeof id);
        free(got);
    }
    cudaError_t c = nc->StreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
    if (c != cudaSuccess) {
        pipe_errf(err, errsize, "rank %d: cudaStreamCreate: %s", env.rank, nc->CudaErrorString(c));
        rc = PIPE_ERESOURCE;
        goto fail;
    }
    /* Non-blocking, so that a rank that never comes cannot hold the others
       in ncclCommInitRank forever: the rendezvous timeout bounds it. */
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = nc->CommInitRankConfig(&s->comm, env.world_size, id, env.rank, &config);
    if (r == ncclInProgress || r == ncclSuccess)
        r = wait_comm(s, pipe_now() + (double)env.rdzv_timeout_ms / 1000.0);
    else
        s->comm = NULL; /* never made */
    if (r != ncclSuccess) {
        pipe_errf(err, errsize, "rank %d: ncclCommInitRank: %s", env.rank,
                  r == ncclInProgress ? "not done within rdzv_timeout" : nc->GetErrorString(r));
        abort_comm(s);
        rc = PIPE_ECOMM;
        goto fail;
    }
    pipe_rdzv_close(rdzv);
    return 0;
fail:
    pipe_rdzv_close(rdzv);
    nccl_destroy(coll);
    return rc;
}

const pipe_coll_backend pipe_coll_nccl_backend = {
    .name = "nccl",
    .init = nccl_init,
    .allreduce = nccl_allreduce,
    .broadcast = nccl_broadcast,
    .allgather = nccl_allgather,
    .barrier = nccl_barrier,
    .destroy = nccl_destroy,
};

void *pipe_coll_nccl_comm(const pipe_coll *coll)
{
    return coll->backend == &pipe_coll_nccl_backend && coll->state ? (void *)((nccl_state *)coll->state)->comm : NULL;
}

#else

/* Built without NCCL: there is never a communicator. */
void *pipe_coll_nccl_comm(const pipe_coll *coll)
{
    (void)coll;
    return NULL;
}

#endif
