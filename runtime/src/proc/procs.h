/* Processes found through /proc (private; docs/reliability.md): the
   descendants of this process and the holders of a file, and their end.

   The supervisor of an invocation is a child subreaper
   (pipe_child_adopt_orphans), so that every process its ranks start stays
   its descendant: a daemon that called setsid, one whose parent exited (a
   double fork). When an attempt ends, what is left below the supervisor is
   found in one pass over /proc and killed; a machine has a few hundred
   processes, and the pass is skipped when this process has no child at
   all. The holders of a lock file (every process with a descriptor on it)
   are how a waiting attempt finds what an earlier one left running.

   Killing by pid cannot race with a reuse of the pid for this process's
   own children (they are not reaped before they are killed); a deeper
   descendant that exits and whose pid is taken by an unrelated process in
   the microseconds between the pass and the kill is the one risk left, as
   with pkill. On systems without /proc nothing is found. */
#ifndef PIPE_PROCS_H
#define PIPE_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct pipe_pid_list {
    pid_t *pids;
    size_t n, cap;
} pipe_pid_list;

void pipe_pid_list_free(pipe_pid_list *l);

/* The live descendants of this process (zombies left out), except the
   processes of spare and their own descendants: into out (emptied first).
   PIPE_ENOMEM. */
int pipe_procs_descendants(const pid_t *spare, size_t nspare, pipe_pid_list *out);

/* Every process but this one that has a descriptor on the file at path (a
   lock file: those that hold its lock, or inherited it), into out
   (emptied first). Only processes whose /proc/PID/fd this user may read
   are seen: the runtime's own. PIPE_ENOMEM. */
int pipe_procs_holding(const char *path, pipe_pid_list *out);

/* SIGKILL to the descendants of this process except spare's (as
   pipe_procs_descendants), again while any is left (a process may fork
   while the others die), reaping those that became this process's
   children; for at most limit_ms. How many were killed. */
size_t pipe_procs_kill_descendants(const pid_t *spare, size_t nspare, unsigned limit_ms);

/* SIGKILL to every process holding path (pipe_procs_holding), again while
   any is left, for at most limit_ms. How many were killed. */
size_t pipe_procs_kill_holders(const char *path, unsigned limit_ms);

#endif
