#include "rank_env.h"

#include "pipe/settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"

/* ---- written by the supervisor ---- */

static void set_int(const char *name, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    setenv(name, buf, 1);
}

/* The rank's entry of a comma-separated CUDA_VISIBLE_DEVICES, when the list
   has one per local rank. */
static void narrow_devices(int local_rank, int nlocal)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (!cvd || nlocal <= 1)
        return;
    char *copy = pipe_strdup(cvd);
    if (!copy)
        return;
    char *items[4096];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && n < 4096; t = strtok_r(NULL, ",", &save))
        items[n++] = t;
    if (n >= nlocal)
        setenv("CUDA_VISIBLE_DEVICES", items[local_rank], 1);
    free(copy);
}

/* What torchrun's agent (torch/distributed/elastic/agent/server/
   local_elastic_agent.py) and `accelerate launch` (accelerate/utils/
   launch.py) give each process, so that an unchanged PyTorch or Accelerate
   script runs; the list is in docs/command-steps.md. */
static void set_framework_env(const pipe_launch *l, int rank)
{
    set_int("GROUP_RANK", l->machine_rank);
    set_int("GROUP_WORLD_SIZE", l->num_machines);
    set_int("ROLE_RANK", rank);
    set_int("ROLE_WORLD_SIZE", l->world);
    setenv("ROLE_NAME", "default", 1);
    set_int("TORCHELASTIC_RESTART_COUNT", l->restarts);
    set_int("TORCHELASTIC_MAX_RESTARTS", l->max_restarts);
    setenv("TORCHELASTIC_RUN_ID", l->run_id, 1);
    /* Set, it would send init_process_group to an agent's store: there is none. */
    unsetenv("TORCHELASTIC_USE_AGENT_STORE");
    setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1", 0);
    setenv("ACCELERATE_MIXED_PRECISION", l->mixed_precision, 1);
    if (l->cpu_only)
        setenv("ACCELERATE_USE_CPU", "true", 1);
    setenv("ACCELERATE_DYNAMO_BACKEND", "NO", 0);
    setenv("ACCELERATE_DYNAMO_MODE", "default", 0);
    setenv("ACCELERATE_DYNAMO_USE_FULLGRAPH", "False", 0);
    setenv("ACCELERATE_DYNAMO_USE_DYNAMIC", "False", 0);
}

void pipe_rank_env_set(const pipe_launch *l, int local_rank, bool accelerated)
{
    int rank = l->machine_rank * l->nlocal + local_rank;
    set_int("RANK", rank);
    set_int("WORLD_SIZE", l->world);
    set_int("LOCAL_RANK", local_rank);
    set_int("LOCAL_WORLD_SIZE", l->nlocal);
    if (!accelerated)
        return;
    set_framework_env(l, rank);
    set_int("PIPE_NUM_MACHINES", l->num_machines);
    set_int("PIPE_MACHINE_RANK", l->machine_rank);
    set_int("NODE_RANK", l->machine_rank);
    setenv("MASTER_ADDR", l->master_addr, 1);
    set_int("MASTER_PORT", l->master_port);
    if (l->pipe_rendezvous) {
        setenv("PIPE_RDZV_ADDR", pipe_launch_rdzv_addr(l), 1);
        set_int("PIPE_RDZV_PORT", l->rdzv_port);
        setenv("PIPE_RDZV_TOKEN", l->token, 1);
        /* Machine 0's launcher watches the rendezvous and names the missing
           ranks; its own ranks wait a little longer so that it speaks first. */
        set_int("PIPE_RDZV_TIMEOUT_MS", (long long)(l->rdzv_timeout_ms + (l->machine_rank == 0 ? 5000 : 0)));
        setenv("PIPE_COLL_BACKEND", l->backend, 1);
        set_int("PIPE_COLL_TIMEOUT_MS", (long long)l->collective_timeout_ms);
        if (l->shm_fd >= 0)
            set_int("PIPE_SHM_FD", l->shm_fd);
    }
    if (l->cpu_only) {
        /* cpu = true wins over any GPU count: no rank sees a GPU. */
        setenv("CUDA_VISIBLE_DEVICES", "", 1);
        return;
    }
    /* gpu_ids narrows the machine's GPUs before each rank takes its own. */
    if (l->gpu_ids[0])
        setenv("CUDA_VISIBLE_DEVICES", l->gpu_ids, 1);
    if (l->gpu_per_rank)
        narrow_devices(local_rank, l->nlocal);
}

/* ---- read by the rank ---- */

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
        !dist_var("PIPE_RDZV_PORT", 1, 65535, 29501, &env->rdzv_port, err, errsize) ||
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
