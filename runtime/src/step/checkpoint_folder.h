/* An invocation's checkpoint folder (@checkpoint; private; docs/checkpoints.md):

     STORE/cache/checkpoints/PIPELINE/INVOCATION-KEY/        the folder
     STORE/cache/checkpoints/PIPELINE/INVOCATION-KEY.lock    its lock (.lock.machine-N on machine N)

   named from the invocation and its cache key (computed with --no-cache
   too), so that a retry, an interrupted execution and a later run with the
   same key find it; under the store, so that every rank shares it, on
   every machine when the store is shared. A checkpoint is complete once
   its folder has a name that does not start with '.'.

   The supervisor holds the lock from before its first attempt to its end,
   and its ranks inherit it with whatever they start: while any process of
   an execution lives, the next one waits for it, up to the step's grace
   (it may be saving a checkpoint after a SIGTERM), then kills what holds
   it (procs.h). Before each attempt, entries whose name starts with '.'
   (what a killed writer left) are removed and the newest complete
   checkpoint, by natural order (step_9 < step_10), is found. */
#ifndef PIPE_CHECKPOINT_FOLDER_H
#define PIPE_CHECKPOINT_FOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pipe_checkpoint_folder {
    char *dir;       /* the folder */
    char *lock_path; /* its lock, this machine's */
    int lock_fd;     /* -1 until taken */
    char *latest;    /* the newest complete checkpoint as the attempt began, NULL when none */
} pipe_checkpoint_folder;

/* The paths (no I/O). PIPE_ENOMEM. */
int pipe_checkpoint_folder_init(pipe_checkpoint_folder *c, const char *store, const char *pipeline,
                                const char *invocation, const char *key, int machine_rank);

/* Takes the lock, creating the folder: at once when nobody holds it, else
   after waiting up to grace_ms for the earlier execution's processes to
   end, then killing them. 0; the signal (SIGINT or SIGTERM) that stopped
   the wait, as a positive number; PIPE_ESTATE when the holders could not
   be killed (another host's, on a shared store), PIPE_EIO naming the file,
   with the message in err. waited tells how it went, for the log: NULL,
   or a malloc'ed line. */
int pipe_checkpoint_folder_lock(pipe_checkpoint_folder *c, uint64_t grace_ms, char **waited, char *err,
                                size_t errsize);

/* Before an attempt: what a killed writer left (entries starting with '.')
   removed when clean (machine 0: the folder is shared), and c->latest
   found. PIPE_EIO naming what could not be removed. */
int pipe_checkpoint_folder_prepare(pipe_checkpoint_folder *c, bool clean, char *err, size_t errsize);

/* After the step succeeded: the folder removed, and its lock file (still
   held: a waiter that opened it sees it was unlinked and takes the new
   one). */
int pipe_checkpoint_folder_remove(pipe_checkpoint_folder *c, char *err, size_t errsize);

/* This machine's lock file removed (another machine's part of a success). */
void pipe_checkpoint_folder_forget(pipe_checkpoint_folder *c);

/* Lets go of the lock and frees the paths. */
void pipe_checkpoint_folder_free(pipe_checkpoint_folder *c);

/* Natural order: runs of digits compare as numbers ("step_9" < "step_10"),
   the rest byte by byte; names equal so ("step_01", "step_1") by their
   bytes. <0, 0, >0. */
int pipe_checkpoint_name_compare(const char *a, const char *b);

/* The complete checkpoint of dir with the greatest name (a folder or file
   whose name does not start with '.'), malloc'ed as DIR/NAME; NULL when
   there is none. */
char *pipe_checkpoint_find_latest(const char *dir);

#endif
