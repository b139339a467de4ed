#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util/util.h"

int pipe_dist_join(const pipe_dist_env *env, pipe_rdzv_client **out, char *err, size_t errsize)
{
    pipe_rdzv_client *c = NULL;
    double started = pipe_now();
    /* Every step retries until rdzv_timeout: the server may not be up yet,
       may have no room while strangers crowd it, or may drop a connection. */
    int rc = pipe_rdzv_connect(env->master_addr, env->rdzv_port, env->token, env->rdzv_timeout_ms, &c, err,
                               errsize);
    if (rc != 0)
        return rc;
    char key[64], host[256] = "?";
    gethostname(host, sizeof host - 1);
    snprintf(key, sizeof key, "rank/%d", env->rank);
    if ((rc = pipe_rdzv_join(c, key, host, strlen(host), NULL, err, errsize)) != 0)
        goto fail;
    uint64_t spent = (uint64_t)((pipe_now() - started) * 1000.0);
    uint64_t left = env->rdzv_timeout_ms > spent ? env->rdzv_timeout_ms - spent : 1;
    rc = pipe_rdzv_wait_ge(c, "joined", env->world_size, left, err, errsize);
    if (rc == PIPE_ETIMEOUT) {
        pipe_errf(err, errsize, "rank %d: not every rank joined the rendezvous at %s:%d within %.0f s", env->rank,
                  env->master_addr, env->rdzv_port, (double)env->rdzv_timeout_ms / 1000.0);
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
