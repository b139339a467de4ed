/* @checkpoint in the supervisor (supervisor.h; docs/checkpoints.md): the
   invocation's checkpoint folder (checkpoint_folder.h) locked before the
   first attempt, prepared before each (its ranks find it in
   PIPE_CHECKPOINT_DIR and the newest complete checkpoint in
   PIPE_CHECKPOINT_LATEST: supervisor_env.c), removed after success unless
   keep = true. A failed or interrupted execution keeps it: the next one
   resumes. */
#include <stdlib.h>

#include "pipe/error.h"
#include "supervisor.h"

int pipe_supervisor_checkpoint_open(pipe_supervisor *s, char *err, size_t errsize)
{
    const pipe_step_ident *id = &s->id;
    if (!id->inv->checkpoint.enabled)
        return 0;
    int rc = pipe_checkpoint_folder_init(&s->ckpt, id->store, id->m->pipeline, id->inv->id, s->rec->cache_key,
                                         id->machine_rank);
    if (rc != 0)
        return rc;
    char *waited = NULL;
    if ((rc = pipe_checkpoint_folder_lock(&s->ckpt, s->grace_ms, &waited, err, errsize)) == 0 && waited)
        pipe_supervisor_note(&s->log, "%s", waited);
    free(waited);
    return rc;
}

int pipe_supervisor_checkpoint_attempt(pipe_supervisor *s, char *err, size_t errsize)
{
    if (s->ckpt.lock_fd < 0)
        return 0;
    /* The folder is the store's: machine 0 cleans it for all. */
    int rc = pipe_checkpoint_folder_prepare(&s->ckpt, s->id.machine_rank == 0, err, errsize);
    if (rc != 0)
        return rc;
    if (s->ckpt.latest)
        pipe_supervisor_note(&s->log, "checkpoint: resuming from %s", s->ckpt.latest);
    else
        pipe_supervisor_note(&s->log, "checkpoint: none yet in %s", s->ckpt.dir);
    return 0;
}

void pipe_supervisor_checkpoint_done(pipe_supervisor *s)
{
    char err[1024];
    if (s->ckpt.lock_fd < 0 || s->id.inv->checkpoint.keep)
        return;
    if (s->id.machine_rank > 0) {
        pipe_checkpoint_folder_forget(&s->ckpt);
        return;
    }
    if (pipe_checkpoint_folder_remove(&s->ckpt, err, sizeof err) != 0)
        pipe_supervisor_note(&s->log, "checkpoint: cannot remove the folder: %s", err);
}
