/* Group commit of a local run (docs/reliability.md, "Group commit";
   private). A supervisor that the runner forks writes its outputs and its
   step.yaml without fsync; the runner, the only committer, makes them
   durable together with one syncfs(2) of the store's file system, at most
   every PIPE_COMMIT_INTERVAL_MS and always before the run ends. Until the
   run ends, STORE/RUN/unsynced (made durable before the first supervisor
   starts) lists the invocations whose records a commit covered; a record
   of that run not listed there was written after the last durable point,
   and whoever trusts it from outside the live run (a later run's cache
   look-up, a `step` reading its inputs) reads its outputs again and
   compares their digests first. */
#ifndef PIPE_COMMIT_H
#define PIPE_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

/* How long the runner lets writes wait for a commit, at most (the default
   of PIPE_COMMIT_INTERVAL_MS in the environment). */
#define PIPE_COMMIT_INTERVAL_DEFAULT_MS 50

/* The store calls that write take `deferred`: true in a supervisor forked
   by the runner and in what it forks (pipe_step_options.commit_deferred,
   the worker's pipe_ctx_config), whose writes skip fsync because the
   runner commits them; false everywhere else. */

/* fsync(fd), or nothing when deferred. 0, or -1 with errno. */
int pipe_commit_fsync(int fd, bool deferred);
/* The same for the file or folder at path (opened with flags). */
int pipe_commit_fsync_path(const char *path, int flags, bool deferred);

/* The runner's side. pipe_commit_begin makes STORE/RUN/unsynced durable
   (the file and its folder) before any deferred write; pipe_commit_point
   makes every write so far durable (syncfs) and then lists the n
   invocations whose supervisors had ended before it began;
   pipe_commit_end makes everything durable and removes the list. 0 or
   PIPE_EIO with a message. */
typedef struct pipe_commit {
    char *store;
    char *path;  /* STORE/RUN/unsynced */
    int store_fd; /* the run's folder, for syncfs */
    double last; /* pipe_now() of the last commit */
    unsigned interval_ms;
} pipe_commit;

int pipe_commit_begin(pipe_commit *c, const char *store, const char *run_id, char *err, size_t errsize);
/* Whether the interval since the last commit has passed; how many ms of
   it are left (0 when it has). */
bool pipe_commit_due(const pipe_commit *c);
double pipe_commit_ms_left(const pipe_commit *c);
int pipe_commit_point(pipe_commit *c, const char *const *durable, size_t n, char *err, size_t errsize);
int pipe_commit_end(pipe_commit *c, char *err, size_t errsize);
void pipe_commit_free(pipe_commit *c);

/* Whether run_id's record of invocation may be trusted as it is: the run
   has no STORE/RUN/unsynced (it ended, or its writes were durable when
   made), or the list names the invocation. False when the list cannot be
   read. */
bool pipe_commit_durable(const char *store, const char *run_id, const char *invocation);

/* STORE/RUN/unsynced's text when it is whole (its run's line first, `end`
   last), in *text (malloc'ed); false without a list (*text NULL), true
   with one (*text NULL when it is not whole: it lists nothing). */
bool pipe_commit_list_read(const char *store, const char *run_id, char **text);
/* Whether a whole list's text names invocation. */
bool pipe_commit_listed(const char *text, const char *invocation);

/* Recovery of a run whose runner died before its end (the sweep calls it
   with the run's lock): every record that the list does not name and that
   says done or cached has its outputs read again; one whose outputs do
   not all have their digests is taken back (step.yaml and outputs/
   removed: the invocation did not finish). Then everything is made
   durable and the list removed. *dropped: how many were taken back. 0, or
   PIPE_EIO (the list stays, and a later sweep tries again).
   (commit_recover.c) */
int pipe_commit_recover(const char *store, const char *run_id, size_t *dropped, char *err, size_t errsize);

#endif
