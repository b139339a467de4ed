/* The environment every rank of an invocation gets (supervisor.h), native
   or command step alike: in a file of its own, so that both kinds use it
   and the attempt that starts them uses neither's code. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "dist/rank_env.h"
#include "supervisor.h"

void pipe_supervisor_rank_env(pipe_supervisor *s, int local_rank)
{
    const pipe_step_ident *id = &s->id;
    if (s->log.fd >= 0)
        close(s->log.fd);
    if (s->log.cap.ring_fd >= 0)
        close(s->log.cap.ring_fd);
    pipe_launch_close_in_child(&s->launch);
    /* The invocation's lock, held by the rank and whatever it starts, even
       across exec (a command step's program): while any of them lives, no
       second execution of the invocation begins (run_lock.h). */
    if (s->lock_fd >= 0)
        fcntl(s->lock_fd, F_SETFD, 0);
    if (s->ckpt.lock_fd >= 0)
        fcntl(s->ckpt.lock_fd, F_SETFD, 0);
    for (size_t i = 0; i < id->ms->nenvironment; i++)
        setenv(id->ms->environment[i].key, id->ms->environment[i].value, 1);
    if (s->omp_threads)
        setenv("OMP_NUM_THREADS", s->omp_threads, 1);
    setenv("PIPE_STORE", id->store, 1);
    setenv("PIPE_RUN_ID", id->o.run_id, 1);
    setenv("PIPE_INVOCATION", id->inv->id, 1);
    setenv("PIPE_SCRATCH_ROOT", s->scratch_root, 1);
    /* @checkpoint's folder and its newest complete checkpoint; neither
       from elsewhere (an outer run's) without it. */
    unsetenv("PIPE_CHECKPOINT_DIR");
    unsetenv("PIPE_CHECKPOINT_LATEST");
    if (s->ckpt.lock_fd >= 0)
        setenv("PIPE_CHECKPOINT_DIR", s->ckpt.dir, 1);
    if (s->ckpt.lock_fd >= 0 && s->ckpt.latest)
        setenv("PIPE_CHECKPOINT_LATEST", s->ckpt.latest, 1);
    const pipe_accelerate *acc = &id->inv->accelerate;
    if (acc->enabled && acc->mixed_precision)
        setenv("PIPE_MIXED_PRECISION", acc->mixed_precision, 1);
    pipe_rank_env_set(&s->launch, local_rank, acc->enabled);
}
