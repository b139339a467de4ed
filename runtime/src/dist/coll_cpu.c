#define _GNU_SOURCE /* accept4 */
#include "coll_cpu.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coll_kernels.h"
#include "coll_shm.h"
#include "coll_watch.h"
#include "pipe/precision.h"
#include "dist.h"
#include "rank_env.h"
#include "net.h"
#include "rendezvous_wire.h"
#include "util/util.h"

/* Each rank copies a chunk of its buffer into its slot; each reduces its
   share of the chunk across all slots into the result (coll_kernels.h:
   vector kernels, a fixed order); machine leaders combine results over
   TCP; everyone copies the result back. The segment's layout is
   coll_shm.h's; its traffic, docs/performance.md "All-reduce". */
typedef struct cpu_state {
    pipe_dist_env env;
    void *map; /* the whole segment (coll_shm.h) */
    size_t map_size;
    pipe_coll_shm_header *shm;
    unsigned char *slots;  /* local_world slots, then the result */
    int *peers;            /* machine 0's leader: a socket per other machine (index = machine) */
    int leader0_fd;        /* other leaders: the socket to machine 0 */
} cpu_state;

/* Chunk c uses set c % 2 of the slots and results (coll_shm.h). */
static unsigned char *slot(cpu_state *s, size_t c, int i)
{
    return s->slots + ((c % 2) * (size_t)(s->env.local_world_size + 1) + (size_t)i) * s->shm->slot_bytes;
}
static unsigned char *result(cpu_state *s, size_t c) { return slot(s, c, s->env.local_world_size); }

static int local_barrier(cpu_state *s)
{
    int rc = pthread_barrier_wait(&s->shm->barrier);
    return rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : PIPE_ECOMM;
}

/* AVG: divide the sum by the world size, in place. */
static void scale(void *buf, size_t n, pipe_dtype dtype, int world)
{
    for (size_t i = 0; i < n; i++) {
        switch (dtype) {
        case PIPE_F32: ((float *)buf)[i] /= (float)world; break;
        case PIPE_F64: ((double *)buf)[i] /= (double)world; break;
        case PIPE_I32: ((int32_t *)buf)[i] /= world; break;
        case PIPE_I64: ((int64_t *)buf)[i] /= world; break;
        case PIPE_U8: ((uint8_t *)buf)[i] = (uint8_t)(((uint8_t *)buf)[i] / world); break;
        case PIPE_F16: ((uint16_t *)buf)[i] = pipe_f32_to_f16(pipe_f16_to_f32(((uint16_t *)buf)[i]) / (float)world); break;
        case PIPE_BF16:
            ((uint16_t *)buf)[i] = pipe_f32_to_bf16(pipe_bf16_to_f32(((uint16_t *)buf)[i]) / (float)world);
            break;
        }
    }
}

/* ---- between machines ---- */

/* Machine leaders combine their machines' results: the others send theirs
   to machine 0, which reduces and sends the total back. A peer that closed
   or timed out goes to *lost (its machine). */
static int exchange_results(cpu_state *s, unsigned char *res, size_t n, pipe_dtype dtype, pipe_op op,
                            unsigned char *scratch, int *lost)
{
    size_t esize = pipe_dtype_size(dtype), elems = n / esize;
    if (s->env.machine_rank != 0) {
        int rc = pipe_send_all(s->leader0_fd, res, n);
        rc = rc ? rc : pipe_recv_all(s->leader0_fd, res, n);
        if (rc)
            *lost = 0;
        return rc;
    }
    for (int m = 1; m < s->env.num_machines; m++) {
        int rc = pipe_recv_all(s->peers[m], scratch, n);
        if (rc) {
            *lost = m;
            return rc;
        }
        const void *srcs[2] = {res, scratch};
        pipe_coll_reduce(res, srcs, 2, elems, dtype, op);
    }
    for (int m = 1; m < s->env.num_machines; m++) {
        int rc = pipe_send_all(s->peers[m], res, n);
        if (rc) {
            *lost = m;
            return rc;
        }
    }
    return 0;
}

static int cpu_allreduce(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    cpu_state *s = coll->state;
    size_t esize = pipe_dtype_size(dtype), bytes = count * esize;
    size_t chunk = s->shm->slot_bytes / esize * esize;
    int L = s->env.local_world_size, lr = s->env.local_rank;
    bool leader = lr == 0 && s->env.num_machines > 1;
    unsigned char *scratch = NULL;
    if (leader && s->env.machine_rank == 0 && !(scratch = malloc(chunk)))
        return pipe_coll_error(coll, PIPE_ENOMEM, "pipe_allreduce: out of memory");
    const void *srcs[256];
    int rc = 0, lost = -1;
    /* One barrier a chunk: chunk c + 1 is copied into the other set while
       the slowest rank still reduces chunk c, and a set is written again
       only after a barrier that every reader of its last use has passed. */
    size_t chunks = (bytes + chunk - 1) / chunk;
    if (chunks > 0)
        memcpy(slot(s, 0, lr), buf, bytes < chunk ? bytes : chunk);
    rc = local_barrier(s); /* with nothing to reduce, still a meeting */
    for (size_t c = 0; c < chunks && rc == 0; c++) {
        size_t off = c * chunk, n = bytes - off < chunk ? bytes - off : chunk, elems = n / esize;
        /* This rank's share, combined over the slots in rank order on every
           rank: the same bits whoever reduces it. */
        size_t lo = elems * (size_t)lr / (size_t)L, hi = elems * (size_t)(lr + 1) / (size_t)L;
        for (int k = 0; k < L && k < 256; k++)
            srcs[k] = slot(s, c, k) + lo * esize;
        pipe_coll_reduce(result(s, c) + lo * esize, srcs, L, hi - lo, dtype, op);
        if (s->env.num_machines > 1) {
            if ((rc = local_barrier(s)) != 0)
                break;
            if (leader && (rc = exchange_results(s, result(s, c), n, dtype, op, scratch, &lost)) != 0)
                break;
        }
        if (c + 1 < chunks) {
            size_t next = off + chunk;
            memcpy(slot(s, c + 1, lr), (unsigned char *)buf + next, bytes - next < chunk ? bytes - next : chunk);
        }
        if ((rc = local_barrier(s)) != 0)
            break;
        memcpy((unsigned char *)buf + off, result(s, c), n);
    }
    free(scratch);
    if (rc != 0 && lost >= 0) {
        /* The cause is on that machine: its launcher says what it was. */
        pipe_coll_watch_lost(coll->watch, lost);
        return pipe_coll_error(coll, PIPE_ECOMM, "pipe_allreduce: rank %d lost contact with machine %d", coll->rank,
                               lost);
    }
    if (rc != 0)
        return pipe_coll_error(coll, PIPE_ECOMM, "pipe_allreduce: rank %d lost contact with the other ranks",
                               coll->rank);
    if (op == PIPE_AVG)
        scale(buf, count, dtype, s->env.world_size);
    /* No barrier at the end: the next call writes set 0's slots and result
       only after barriers that every rank passes when done reading them. */
    return 0;
}

/* Broadcast and allgather as a byte-wise sum in which only one rank
   contributes each byte: simple, exact for every type, and cheap next to
   the allreduce the bench measures. */
static int cpu_broadcast(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root)
{
    if (coll->rank != root)
        memset(buf, 0, count * pipe_dtype_size(dtype));
    return cpu_allreduce(coll, buf, count * pipe_dtype_size(dtype), PIPE_U8, PIPE_SUM);
}

static int cpu_allgather(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    size_t bytes = count * pipe_dtype_size(dtype);
    unsigned char *mine = (unsigned char *)recv + (size_t)coll->rank * bytes;
    if (send != mine)
        memmove(mine, send, bytes);
    memset(recv, 0, (size_t)coll->rank * bytes);
    memset(mine + bytes, 0, (size_t)(coll->world_size - coll->rank - 1) * bytes);
    return cpu_allreduce(coll, recv, bytes * (size_t)coll->world_size, PIPE_U8, PIPE_SUM);
}

static int cpu_barrier(pipe_coll *coll)
{
    unsigned char token = 0;
    return cpu_allreduce(coll, &token, 1, PIPE_U8, PIPE_SUM);
}

/* ---- set-up ---- */

/* What a machine's leader sends machine 0's first: the run's token, so
   that a stranger who finds the port is turned away, and its machine. */
typedef struct leader_hello {
    char token[PIPE_RDZV_TOKEN_MAX];
    uint32_t machine;
} leader_hello;

/* Machine 0's leader accepts one connection from each other machine until
   the rendezvous timeout; strangers (wrong token, silence for 5 s) are
   closed and waited past. */
static int accept_leaders(cpu_state *s, int lfd, char *err, size_t errsize)
{
    int M = s->env.num_machines;
    double deadline = pipe_now() + (double)s->env.rdzv_timeout_ms / 1000.0;
    for (int joined = 1; joined < M;) {
        double left = deadline - pipe_now();
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        int r = left > 0 ? poll(&p, 1, (int)(left * 1000.0) + 1) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            pipe_errf(err, errsize, "collectives: only %d of %d machines connected to machine 0 within %.0f s",
                      joined, M, (double)s->env.rdzv_timeout_ms / 1000.0);
            return PIPE_ECOMM;
        }
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                pipe_sleep_ms(100); /* no busy loop while out of descriptors */
            continue;
        }
        leader_hello hello;
        pipe_tcp_set_timeouts(fd, PIPE_RDZV_REQUEST_TIMEOUT_MS);
        if (pipe_recv_all(fd, &hello, sizeof hello) != 0 ||
            !pipe_token_equal(hello.token, s->env.token, PIPE_RDZV_TOKEN_MAX) || hello.machine == 0 ||
            hello.machine >= (uint32_t)M || s->peers[hello.machine] >= 0) {
            close(fd); /* not one of ours: keep waiting */
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pipe_tcp_set_timeouts(fd, s->env.collective_timeout_ms);
        s->peers[hello.machine] = fd;
        joined++;
    }
    return 0;
}

static int connect_leaders(cpu_state *s, pipe_rdzv_client *rdzv, char *err, size_t errsize)
{
    int M = s->env.num_machines;
    leader_hello hello;
    pipe_token_copy(hello.token, s->env.token, PIPE_RDZV_TOKEN_MAX);
    if (s->env.machine_rank == 0) {
        int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in addr = {0};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_ANY);
        socklen_t len = sizeof addr;
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, M) != 0 ||
            getsockname(lfd, (struct sockaddr *)&addr, &len) != 0) {
            pipe_errf(err, errsize, "collectives: cannot listen for other machines: %s", strerror(errno));
            if (lfd >= 0)
                close(lfd);
            return PIPE_ECOMM;
        }
        char port[16];
        snprintf(port, sizeof port, "%d", ntohs(addr.sin_port));
        int rc = pipe_rdzv_set(rdzv, "coll/leader0", port, strlen(port), err, errsize);
        s->peers = calloc((size_t)M, sizeof *s->peers);
        for (int m = 0; m < M && s->peers; m++)
            s->peers[m] = -1;
        if (rc == 0 && !s->peers)
            rc = PIPE_ENOMEM;
        if (rc == 0)
            rc = accept_leaders(s, lfd, err, errsize);
        close(lfd);
        return rc;
    }
    void *port = NULL;
    size_t len = 0;
    int rc = pipe_rdzv_get(rdzv, "coll/leader0", &port, &len, s->env.rdzv_timeout_ms, err, errsize);
    if (rc != 0)
        return rc;
    char portbuf[16], why[128];
    snprintf(portbuf, sizeof portbuf, "%.*s", (int)(len < 15 ? len : 15), (char *)port);
    free(port);
    int fd;
    if (pipe_tcp_connect(s->env.master_addr, atoi(portbuf), s->env.rdzv_timeout_ms, &fd, why, sizeof why) != 0) {
        pipe_errf(err, errsize, "collectives: machine %d cannot reach machine 0 at %s:%s: %s", s->env.machine_rank,
                  s->env.master_addr, portbuf, why);
        return PIPE_ECOMM;
    }
    hello.machine = (uint32_t)s->env.machine_rank;
    if (pipe_send_all(fd, &hello, sizeof hello) != 0) {
        close(fd);
        pipe_errf(err, errsize, "collectives: machine 0 at %s:%s closed the connection", s->env.master_addr, portbuf);
        return PIPE_ECOMM;
    }
    pipe_tcp_set_timeouts(fd, s->env.collective_timeout_ms);
    s->leader0_fd = fd;
    return 0;
}

static void cpu_destroy(pipe_coll *coll)
{
    cpu_state *s = coll->state;
    if (!s)
        return;
    if (s->map)
        munmap(s->map, s->map_size);
    if (s->peers) {
        for (int m = 0; m < s->env.num_machines; m++)
            if (s->peers[m] >= 0)
                close(s->peers[m]);
        free(s->peers);
    }
    if (s->leader0_fd >= 0)
        close(s->leader0_fd);
    free(s);
    coll->state = NULL;
}

static int cpu_init(pipe_coll *coll, char *err, size_t errsize)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return PIPE_ENOMEM;
    s->leader0_fd = -1;
    coll->state = s;
    pipe_rdzv_client *rdzv = NULL;
    int rc = pipe_dist_env_read(&s->env, err, errsize);
    if (rc != 0)
        goto fail;
    if (s->env.shm_fd < 0) {
        pipe_errf(err, errsize, "rank %d: PIPE_SHM_FD is not set; accelerated steps are started by the bundle's "
                  "launcher (`step`), not by hand", s->env.rank);
        rc = PIPE_EINVAL;
        goto fail;
    }
    s->map_size = pipe_coll_shm_bytes(s->env.local_world_size);
    s->map = mmap(NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->env.shm_fd, 0);
    if (s->map == MAP_FAILED) {
        s->map = NULL;
        pipe_errf(err, errsize, "rank %d: cannot map the shared memory (PIPE_SHM_FD=%d): %s", s->env.rank,
                  s->env.shm_fd, strerror(errno));
        rc = PIPE_ECOMM;
        goto fail;
    }
    s->shm = pipe_coll_shm_header_of(s->map, s->env.local_world_size);
    if (s->shm->local_world != (uint32_t)s->env.local_world_size) {
        pipe_errf(err, errsize, "rank %d: the shared memory was made for %u local ranks, not %d", s->env.rank,
                  s->shm->local_world, s->env.local_world_size);
        rc = PIPE_EINVAL;
        goto fail;
    }
    s->slots = pipe_coll_shm_slots(s->shm);
    if (s->env.rdzv_port == 0) {
        /* One machine: the ranks meet here (the launcher started no
           server). The supervisor sees who joined and stops them all when
           one never does within rdzv_timeout. */
        if (s->env.num_machines != 1) {
            pipe_errf(err, errsize, "rank %d: PIPE_RDZV_PORT=0 (shared memory) needs one machine, not %d",
                      s->env.rank, s->env.num_machines);
            rc = PIPE_EINVAL;
            goto fail;
        }
        atomic_store(&pipe_coll_watch_slots(s->map)[s->env.local_rank].joined, 1);
        if (local_barrier(s) != 0) {
            pipe_errf(err, errsize, "rank %d: the barrier of the shared memory failed", s->env.rank);
            rc = PIPE_ECOMM;
            goto fail;
        }
        return 0;
    }
    if ((rc = pipe_dist_join(&s->env, &rdzv, err, errsize)) != 0)
        goto fail;
    if (s->env.num_machines > 1 && s->env.local_rank == 0 && (rc = connect_leaders(s, rdzv, err, errsize)) != 0)
        goto fail;
    pipe_rdzv_close(rdzv);
    return 0;
fail:
    pipe_rdzv_close(rdzv);
    cpu_destroy(coll);
    return rc;
}

const pipe_coll_backend pipe_coll_cpu_backend = {
    .name = "cpu",
    .init = cpu_init,
    .allreduce = cpu_allreduce,
    .broadcast = cpu_broadcast,
    .allgather = cpu_allgather,
    .barrier = cpu_barrier,
    .destroy = cpu_destroy,
};
