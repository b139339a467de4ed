#include "dist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util.h"

static int int_var(const char *name, long lo, long hi, long fallback, int *out, char *err, size_t errsize)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = (int)fallback;
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < lo || n > hi) {
        pipe_errf(err, errsize, "environment variable %s=\"%s\" is not an integer from %ld to %ld", name, v, lo, hi);
        return PIPE_EINVAL;
    }
    *out = (int)n;
    return 0;
}

int pipe_dist_env_read(pipe_dist_env *env, char *err, size_t errsize)
{
    memset(env, 0, sizeof *env);
    int timeout_s = 0;
    int rc;
    if ((rc = int_var("WORLD_SIZE", 1, 1 << 20, 1, &env->world_size, err, errsize)) ||
        (rc = int_var("RANK", 0, env->world_size - 1, 0, &env->rank, err, errsize)) ||
        (rc = int_var("LOCAL_WORLD_SIZE", 1, env->world_size, env->world_size, &env->local_world_size, err,
                      errsize)) ||
        (rc = int_var("LOCAL_RANK", 0, env->local_world_size - 1, env->rank % env->local_world_size,
                      &env->local_rank, err, errsize)) ||
        (rc = int_var("PIPE_NUM_MACHINES", 1, 1 << 16, env->world_size / env->local_world_size,
                      &env->num_machines, err, errsize)) ||
        (rc = int_var("PIPE_MACHINE_RANK", 0, env->num_machines - 1, env->rank / env->local_world_size,
                      &env->machine_rank, err, errsize)) ||
        (rc = int_var("MASTER_PORT", 0, 65535, 29500, &env->master_port, err, errsize)) ||
        (rc = int_var("PIPE_SHM_FD", -1, 1 << 20, -1, &env->shm_fd, err, errsize)) ||
        (rc = int_var("PIPE_RDZV_TIMEOUT_S", 1, 1 << 24, 300, &timeout_s, err, errsize)))
        return rc;
    if (env->num_machines * env->local_world_size != env->world_size) {
        pipe_errf(err, errsize, "WORLD_SIZE=%d is not PIPE_NUM_MACHINES=%d times LOCAL_WORLD_SIZE=%d",
                  env->world_size, env->num_machines, env->local_world_size);
        return PIPE_EINVAL;
    }
    env->rdzv_timeout_ms = (uint64_t)timeout_s * 1000;
    const char *ms = getenv("PIPE_RDZV_TIMEOUT_MS");
    if (ms && *ms)
        env->rdzv_timeout_ms = strtoull(ms, NULL, 10);
    const char *addr = getenv("MASTER_ADDR");
    snprintf(env->master_addr, sizeof env->master_addr, "%s", addr && *addr ? addr : "127.0.0.1");
    const char *token = getenv("PIPE_RDZV_TOKEN");
    snprintf(env->token, sizeof env->token, "%s", token ? token : "");
    return 0;
}

int pipe_dist_join(const pipe_dist_env *env, pipe_rdzv_client **out, char *err, size_t errsize)
{
    pipe_rdzv_client *c = NULL;
    double started = pipe_now();
    int rc = pipe_rdzv_connect(env->master_addr, env->master_port, env->token, env->rdzv_timeout_ms, &c, err,
                               errsize);
    if (rc != 0)
        return rc;
    char key[64], host[256] = "?";
    gethostname(host, sizeof host - 1);
    snprintf(key, sizeof key, "rank/%d", env->rank);
    int64_t joined = 0;
    if ((rc = pipe_rdzv_set(c, key, host, strlen(host), err, errsize)) != 0 ||
        (rc = pipe_rdzv_add(c, "joined", 1, &joined, err, errsize)) != 0)
        goto fail;
    uint64_t spent = (uint64_t)((pipe_now() - started) * 1000.0);
    uint64_t left = env->rdzv_timeout_ms > spent ? env->rdzv_timeout_ms - spent : 1;
    rc = pipe_rdzv_wait_ge(c, "joined", env->world_size, left, err, errsize);
    if (rc == PIPE_ETIMEOUT) {
        pipe_errf(err, errsize, "rank %d: not every rank joined the rendezvous at %s:%d within %.0f s", env->rank,
                  env->master_addr, env->master_port, (double)env->rdzv_timeout_ms / 1000.0);
        goto fail;
    }
    if (rc != 0)
        goto fail;
    *out = c;
    return 0;
fail:
    pipe_rdzv_close(c);
    return rc;
}
