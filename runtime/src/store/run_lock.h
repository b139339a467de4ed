/* Who is alive in the store (private; docs/reliability.md): advisory locks
   (flock) that a process holds for as long as it works on a run or an
   invocation. The kernel drops a lock when its holder dies, however it
   dies, so a free lock on a run that says `running` is a runner that is
   gone, without guessing from process ids.

     STORE/RUN/run.lock              held by the local runner (`run`)
     STORE/RUN/INV/step.lock         held by the supervisor (`step`) of machine 0,
     STORE/RUN/INV/step.lock.machine-N    and of machine N; its ranks inherit it

   A lock file holds a short record of its holder ("pid 12 host h since T"
   and, for an invocation, the scratch folder it made). A holder that ends
   normally empties the record; a record left in a free lock is what a dead
   holder left, and sweep.c removes it. Every descriptor is close-on-exec:
   a program a step executes does not hold its supervisor's lock. */
#ifndef PIPE_RUN_LOCK_H
#define PIPE_RUN_LOCK_H

#include <stdbool.h>
#include <stddef.h>

/* STORE/RUN/run.lock and the invocation's lock file (malloc'ed). */
char *pipe_run_lock_path(const char *store, const char *run_id);
char *pipe_invocation_lock_path(const char *store, const char *run_id, const char *invocation, int machine_rank);

/* Takes the lock at path (creating the file), waiting up to wait_ms for a
   holder that is about to let go (0: not at all). 0 with *fd;
   PIPE_ESTATE when another process holds it, described in holder ("pid 12
   on host h, since T"); PIPE_EIO naming the file. The previous record, when prev is
   not NULL, is returned malloc'ed (NULL when empty): what a dead holder
   left. */
int pipe_lock_take(const char *path, unsigned wait_ms, int *fd, char **prev, char *holder, size_t holdersize,
                   char *err, size_t errsize);
/* Replaces the record: "pid P host H since T" plus extra lines (NULL: none). */
int pipe_lock_record(int fd, const char *extra);
/* The value of a "key value" line of a record ("pid", "host", "since",
   "scratch"), copied into out; false when absent or too long. */
bool pipe_lock_record_field(const char *record, const char *key, char *out, size_t size);
/* Who holds the lock open as fd, from its record: "pid 12 on host h, since T". */
void pipe_lock_describe(int fd, char *out, size_t size);
/* Empties the record and lets go (the normal end of a holder). */
void pipe_lock_release(int fd);

/* The runner's lock on its run: taken before run.yaml is written. */
int pipe_run_lock_hold(const char *store, const char *run_id, int *fd, char *err, size_t errsize);

/* Whether a run that run.yaml calls `running` has lost its runner: it has a
   run.lock and nobody holds it (runs made by `step` alone, under Slurm or
   Kubernetes, have no runner and keep what run.yaml says). `runs` and
   `show` print such a run as `interrupted`. */
bool pipe_run_interrupted(const char *store, const char *run_id);
/* Whether the run was started by a runner (it has a run.lock), live or not;
   runs made by `step` alone have none. */
bool pipe_run_has_runner(const char *store, const char *run_id);

#endif
