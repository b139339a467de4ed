/* The rank environment's reader (rank_env.h): the step context's ranks and
   the collectives' world, read in the rank. The writer is
   rank_env_write.c. */
#include "rank_env.h"

#include "pipe/settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"

/* name as an integer from lo to hi, fallback when unset or empty; false
   when it is something else (the callers word the message). */
static bool env_int(const char *name, long lo, long hi, int fallback, int *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = fallback;
        return true;
    }
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return false;
    *out = (int)n;
    return true;
}

/* The step context's wording: a lower bound only. */
static bool id_var(const char *name, int fallback, int min, int *out, char *err, size_t errsize)
{
    if (env_int(name, min, INT_MAX, fallback, out))
        return true;
    pipe_errf(err, errsize, "%s=%s is not an integer of at least %d", name, getenv(name), min);
    return false;
}

int pipe_rank_env_read_ids(pipe_rank_ids *ids, char *err, size_t errsize)
{
    if (!id_var("WORLD_SIZE", 1, 1, &ids->world_size, err, errsize) ||
        !id_var("RANK", 0, 0, &ids->rank, err, errsize) ||
        !id_var("LOCAL_WORLD_SIZE", ids->world_size, 1, &ids->local_world_size, err, errsize) ||
        !id_var("LOCAL_RANK", ids->rank % ids->local_world_size, 0, &ids->local_rank, err, errsize))
        return PIPE_EINVAL;
    if (ids->rank >= ids->world_size || ids->local_rank >= ids->local_world_size ||
        ids->local_world_size > ids->world_size) {
        pipe_errf(err, errsize, "inconsistent ranks: RANK=%d WORLD_SIZE=%d LOCAL_RANK=%d LOCAL_WORLD_SIZE=%d",
                  ids->rank, ids->world_size, ids->local_rank, ids->local_world_size);
        return PIPE_EINVAL;
    }
    return 0;
}

/* The collectives' wording: the whole range. */
static bool dist_var(const char *name, long lo, long hi, long fallback, int *out, char *err, size_t errsize)
{
    if (env_int(name, lo, hi, (int)fallback, out))
        return true;
    pipe_errf(err, errsize, "environment variable %s=\"%s\" is not an integer from %ld to %ld", name, getenv(name),
              lo, hi);
    return false;
}

int pipe_dist_env_read(pipe_dist_env *env, char *err, size_t errsize)
{
    memset(env, 0, sizeof *env);
    int timeout_s = 0;
    if (!dist_var("WORLD_SIZE", 1, 1 << 20, 1, &env->world_size, err, errsize) ||
        !dist_var("RANK", 0, env->world_size - 1, 0, &env->rank, err, errsize) ||
        !dist_var("LOCAL_WORLD_SIZE", 1, env->world_size, env->world_size, &env->local_world_size, err, errsize) ||
        !dist_var("LOCAL_RANK", 0, env->local_world_size - 1, env->rank % env->local_world_size, &env->local_rank, err,
                  errsize) ||
        !dist_var("PIPE_NUM_MACHINES", 1, 1 << 16, env->world_size / env->local_world_size, &env->num_machines, err,
                  errsize) ||
        !dist_var("PIPE_MACHINE_RANK", 0, env->num_machines - 1, env->rank / env->local_world_size,
                  &env->machine_rank, err, errsize) ||
        !dist_var("PIPE_RDZV_PORT", 0, 65535, 29501, &env->rdzv_port, err, errsize) ||
        !dist_var("PIPE_SHM_FD", -1, 1 << 20, -1, &env->shm_fd, err, errsize) ||
        !dist_var("PIPE_RDZV_TIMEOUT_S", 1, 1 << 24, 300, &timeout_s, err, errsize))
        return PIPE_EINVAL;
    if (env->num_machines * env->local_world_size != env->world_size) {
        pipe_errf(err, errsize, "WORLD_SIZE=%d is not PIPE_NUM_MACHINES=%d times LOCAL_WORLD_SIZE=%d",
                  env->world_size, env->num_machines, env->local_world_size);
        return PIPE_EINVAL;
    }
    env->rdzv_timeout_ms = (uint64_t)timeout_s * 1000;
    const char *ms = getenv("PIPE_RDZV_TIMEOUT_MS");
    if (ms && *ms)
        env->rdzv_timeout_ms = strtoull(ms, NULL, 10);
    env->collective_timeout_ms = pipe_option_default_ms(PIPE_DEC_ACCELERATE, PIPE_ACC_COLLECTIVE_TIMEOUT);
    const char *coll = getenv("PIPE_COLL_TIMEOUT_MS");
    if (coll && *coll) {
        char *end;
        unsigned long long v = strtoull(coll, &end, 10);
        if (*end || v < PIPE_COLLECTIVE_TIMEOUT_MIN_MS) {
            pipe_errf(err, errsize, "environment variable PIPE_COLL_TIMEOUT_MS=\"%s\" is not a number of "
                      "milliseconds of at least %u", coll, PIPE_COLLECTIVE_TIMEOUT_MIN_MS);
            return PIPE_EINVAL;
        }
        env->collective_timeout_ms = v;
    }
    const char *addr = getenv("PIPE_RDZV_ADDR");
    if (!addr || !*addr)
        addr = getenv("MASTER_ADDR");
    snprintf(env->master_addr, sizeof env->master_addr, "%s", addr && *addr ? addr : "127.0.0.1");
    const char *token = getenv("PIPE_RDZV_TOKEN");
    snprintf(env->token, sizeof env->token, "%s", token ? token : "");
    return 0;
}
