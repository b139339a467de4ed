/* The CPU collectives backend with real processes: 1 to 8 ranks on one
   machine, and two "machines" of 2 ranks talking over loopback; every type
   and op on odd sizes (including more than one shared-memory chunk). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"
#include "dist/coll_cpu.h"
#include "dist/coll_shm.h"
#include "dist/coll_watch.h"
#include "dist/rendezvous.h"
#include "util/util.h"

static const pipe_dtype dtypes[] = {PIPE_F32, PIPE_F64, PIPE_I32, PIPE_I64, PIPE_U8, PIPE_F16, PIPE_BF16};
static const pipe_op ops[] = {PIPE_SUM, PIPE_PROD, PIPE_MAX, PIPE_MIN, PIPE_AVG};
static const size_t sizes[] = {1, 7, 600001}; /* the last spans 2 to 10 chunks */

/* A small value per rank and index that every type holds exactly. */
static double value(int rank, size_t i, pipe_op op)
{
    if (op == PIPE_PROD)
        return (double)(1 + (int)((i + (size_t)rank) % 2)); /* 1 or 2: products stay small */
    return (double)(int)((i * 7 + (size_t)rank * 3) % 11);
}

static void store(void *buf, pipe_dtype t, size_t i, double v)
{
    switch (t) {
    case PIPE_F32: ((float *)buf)[i] = (float)v; break;
    case PIPE_F64: ((double *)buf)[i] = v; break;
    case PIPE_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case PIPE_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case PIPE_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case PIPE_F16: { /* small integers are exact in binary16: build the bits */
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        uint16_t h = 0;
        if (f != 0) {
            int e = (int)((bits >> 23) & 0xff) - 127 + 15;
            h = (uint16_t)(((bits >> 16) & 0x8000) | (uint32_t)(e << 10) | ((bits & 0x7fffff) >> 13));
        }
        ((uint16_t *)buf)[i] = h;
        break;
    }
    case PIPE_BF16: {
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        ((uint16_t *)buf)[i] = (uint16_t)(bits >> 16);
        break;
    }
    }
}

static double load(const void *buf, pipe_dtype t, size_t i)
{
    switch (t) {
    case PIPE_F32: return ((const float *)buf)[i];
    case PIPE_F64: return ((const double *)buf)[i];
    case PIPE_I32: return ((const int32_t *)buf)[i];
    case PIPE_I64: return (double)((const int64_t *)buf)[i];
    case PIPE_U8: return ((const uint8_t *)buf)[i];
    case PIPE_F16: {
        uint16_t h = ((const uint16_t *)buf)[i];
        if (!(h & 0x7fff))
            return 0;
        uint32_t bits = ((uint32_t)(h & 0x8000) << 16) | ((uint32_t)(((h >> 10) & 0x1f) - 15 + 127) << 23) |
                        ((uint32_t)(h & 0x3ff) << 13);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    case PIPE_BF16: {
        uint32_t bits = (uint32_t)((const uint16_t *)buf)[i] << 16;
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    }
    return 0;
}

static double expected(int world, size_t i, pipe_op op, pipe_dtype t)
{
    double acc = value(0, i, op);
    for (int r = 1; r < world; r++) {
        double v = value(r, i, op);
        acc = op == PIPE_MAX ? fmax(acc, v) : op == PIPE_MIN ? fmin(acc, v) : op == PIPE_PROD ? acc * v : acc + v;
    }
    if (op == PIPE_AVG) {
        acc /= world;
        if (t == PIPE_I32 || t == PIPE_I64 || t == PIPE_U8)
            acc = floor(acc);
    }
    if (t == PIPE_U8)
        acc = fmod(acc, 256);
    return acc;
}

/* A float32 sum whose rounding depends on the order: every rank must get
   the same bits, those of adding the ranks of each machine in rank order,
   then the machines in order (the order coll_cpu.c promises), over more
   than one chunk. */
static int ordered_sum(pipe_coll *coll, int world)
{
    int local = atoi(getenv("LOCAL_WORLD_SIZE")), failures = 0;
    size_t n = 300007;
    float *buf = malloc(n * sizeof *buf);
    for (size_t i = 0; i < n; i++)
        buf[i] = 0.1f * (float)(coll->rank + 1) + (float)i * 1e-3f + (coll->rank % 2 ? 1e7f : 0);
    if (pipe_coll_cpu_backend.allreduce(coll, buf, n, PIPE_F32, PIPE_SUM) != 0)
        failures++;
    for (size_t i = 0; i < n && !failures; i++) {
        volatile float total = 0;
        for (int m = 0; m < world / local; m++) {
            volatile float part = 0;
            for (int r = m * local; r < (m + 1) * local; r++) {
                float v = 0.1f * (float)(r + 1) + (float)i * 1e-3f + (r % 2 ? 1e7f : 0);
                part = r == m * local ? v : part + v;
            }
            total = m == 0 ? part : total + part;
        }
        if (memcmp(&buf[i], (const void *)&total, sizeof total) != 0) {
            fprintf(stderr, "rank %d: ordered sum [%zu]: got %.9g want %.9g\n", coll->rank, i, (double)buf[i],
                    (double)total);
            failures++;
        }
    }
    free(buf);
    return failures;
}

/* One rank: every collective, every dtype and op; the exit status counts failures. */
static int rank_main(int world)
{
    pipe_coll coll;
    memset(&coll, 0, sizeof coll);
    char err[512];
    if (pipe_coll_cpu_backend.init(&coll, err, sizeof err) != 0) {
        fprintf(stderr, "init: %s\n", err);
        return 100;
    }
    const char *rank_env = getenv("RANK");
    coll.rank = atoi(rank_env);
    coll.world_size = world;
    int failures = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        void *buf = malloc(n * 8);
        for (size_t ti = 0; ti < sizeof dtypes / sizeof dtypes[0]; ti++) {
            for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
                pipe_dtype t = dtypes[ti];
                pipe_op op = ops[oi];
                if ((t == PIPE_F16 || t == PIPE_BF16 || t == PIPE_U8) && op == PIPE_PROD && world > 7)
                    continue; /* 2^8 leaves their exact range */
                for (size_t i = 0; i < n; i++)
                    store(buf, t, i, value(coll.rank, i, op));
                if (pipe_coll_cpu_backend.allreduce(&coll, buf, n, t, op) != 0) {
                    failures++;
                    continue;
                }
                for (size_t i = 0; i < n; i++) {
                    double want = expected(world, i, op, t), got = load(buf, t, i);
                    double tol = (t == PIPE_F16 || t == PIPE_BF16) ? fabs(want) * 0.01 + 0.01 : t == PIPE_F32 ? fabs(want) * 1e-6 : 1e-9;
                    if (fabs(got - want) > tol) {
                        if (failures < 5)
                            fprintf(stderr, "rank %d: dtype %d op %d n %zu [%zu]: got %g want %g\n", coll.rank, t, op,
                                    n, i, got, want);
                        failures++;
                        break;
                    }
                }
            }
        }
        /* broadcast from the last rank, allgather of ranks. */
        int64_t *v = buf;
        for (size_t i = 0; i < n; i++)
            v[i] = coll.rank == world - 1 ? (int64_t)i * 3 : -1;
        if (pipe_coll_cpu_backend.broadcast(&coll, v, n, PIPE_I64, world - 1) != 0)
            failures++;
        for (size_t i = 0; i < n; i++)
            if (v[i] != (int64_t)i * 3) {
                failures++;
                break;
            }
        free(buf);
    }
    failures += ordered_sum(&coll, world);
    int32_t mine[3] = {coll.rank, coll.rank * 10, -coll.rank}, all[3 * 8];
    if (pipe_coll_cpu_backend.allgather(&coll, mine, all, 3, PIPE_I32) != 0)
        failures++;
    for (int r = 0; r < world; r++)
        if (all[3 * r] != r || all[3 * r + 1] != r * 10 || all[3 * r + 2] != -r)
            failures++;
    if (pipe_coll_cpu_backend.barrier(&coll) != 0)
        failures++;
    pipe_coll_cpu_backend.destroy(&coll);
    return failures > 99 ? 99 : failures;
}

/* Starts machines x local ranks, all on this host, and checks every exit
   status. shm: one machine whose ranks meet in the shared memory
   (PIPE_RDZV_PORT=0, no server), as the launcher starts CPU collectives on
   one machine; each rank's slot must say it joined. */
static void run_world(int machines, int local, bool shm)
{
    int world = machines * local, port = 0;
    char err[256], token[] = "test-token";
    pipe_rdzv_server *server = NULL;
    pipe_rdzv_server_config cfg = {.bind_addr = "127.0.0.1", .token = token, .peers = world};
    if (!shm)
        CHECK_EQ_INT(pipe_rdzv_server_start(&cfg, &server, &port, err, sizeof err), 0);
    void *watch = NULL;
    pid_t pids[16];
    int npids = 0;
    for (int m = 0; m < machines; m++) {
        int shm_fd;
        CHECK_EQ_INT(pipe_coll_shm_create(local, &shm_fd, err, sizeof err), 0);
        if (shm)
            watch = mmap(NULL, pipe_coll_watch_bytes(local), PROT_READ, MAP_SHARED, shm_fd, 0);
        for (int lr = 0; lr < local; lr++) {
            pid_t pid = fork();
            if (pid == 0) {
                char b[32];
#define SETI(name, v) (snprintf(b, sizeof b, "%d", (v)), setenv(name, b, 1))
                SETI("RANK", m * local + lr);
                SETI("WORLD_SIZE", world);
                SETI("LOCAL_RANK", lr);
                SETI("LOCAL_WORLD_SIZE", local);
                SETI("PIPE_MACHINE_RANK", m);
                SETI("PIPE_NUM_MACHINES", machines);
                SETI("PIPE_RDZV_PORT", port);
                SETI("PIPE_SHM_FD", shm_fd);
                setenv("MASTER_ADDR", "127.0.0.1", 1);
                setenv("PIPE_RDZV_TOKEN", token, 1);
                setenv("PIPE_RDZV_TIMEOUT_MS", "20000", 1);
                _exit(rank_main(world));
            }
            pids[npids++] = pid;
        }
        close(shm_fd);
    }
    for (int i = 0; i < npids; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        CHECK(WIFEXITED(status));
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            fprintf(stderr, "world %dx%d: rank %d exited %d\n", machines, local, i, WEXITSTATUS(status));
        CHECK_EQ_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
    }
    if (watch && watch != MAP_FAILED) {
        for (int lr = 0; lr < local; lr++)
            CHECK_EQ_INT(atomic_load(&pipe_coll_watch_slots(watch)[lr].joined), 1);
        munmap(watch, pipe_coll_watch_bytes(local));
    } else if (shm) {
        CHECK(!"the shared memory could not be mapped");
    }
    if (server)
        pipe_rdzv_server_stop(server);
}

int main(void)
{
    for (int local = 1; local <= 8; local *= 2)
        run_world(1, local, false);
    run_world(1, 3, false);
    run_world(2, 2, false);
    for (int local = 2; local <= 8; local *= 2)
        run_world(1, local, true);
    run_world(1, 3, true);
    return check_summary();
}
