/* What dead processes leave, and its removal (private;
   docs/reliability.md). A supervisor killed with SIGKILL leaves its
   attempt's scratch folder ($TMPDIR/pipe-INV-XXXXXX) and the outputs'
   temporary files (outputs/.NAME.tmp.PID); a runner killed so leaves its
   run `running`. The scratch folder is named in the invocation's lock
   record (run_lock.h) before it is made, so that whoever finds the lock
   free with a record in it knows what to remove:

     - the runner, when a child dies without finishing its step.yaml;
     - the next `step` of the same invocation;
     - the next `run` on the store, for every run and invocation
       (exec/sweep_store.h). */
#ifndef PIPE_SWEEP_H
#define PIPE_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

/* Names $TMPDIR/pipe-INV-XXXXXX, recording it in the lock first, and with
   create makes it (mode 0700). A native step's ranks make it themselves
   when they first need it (pipe_scratch_dir, api.c),
   so that a step that never uses scratch costs no folder on the disk.
   *path is malloc'ed. PIPE_EIO naming the folder. */
int pipe_scratch_make(int lock_fd, const char *invocation, bool create, char **path, char *err, size_t errsize);
/* Removes it, if it was made, and takes it out of the record. */
void pipe_scratch_remove(int lock_fd, const char *path);

/* What a dead holder's record names on this host: its scratch folder. 0,
   or PIPE_EIO when it could not be removed. */
int pipe_sweep_record(const char *record);

/* One invocation folder whose holder died: the record's scratch, the
   outputs' temporary files and folders, outputs/ itself unless step.yaml
   says done or cached, step.yaml's temporary files (for a machine N > 0's
   lock, step.lock.machine-N: its ranks' error files' temporary files);
   then the record is
   emptied, unless a removal failed: a later sweep tries again. Waits up
   to wait_ms for a holder that is dying (its ranks die with it). 1 when
   something was swept, 0 when the lock is held, holds no record, or what
   it names could not all be removed. */
int pipe_sweep_invocation(const char *store, const char *run_id, const char *invocation, unsigned wait_ms);

/* Whether a process holds one of the invocation's locks (its supervisor,
   or, the supervisor dead, a rank or what a rank started: they inherit
   it). */
bool pipe_sweep_held(const char *store, const char *run_id, const char *invocation);
/* SIGKILL to every process that holds one of the invocation's locks
   (procs.h); how many. */
size_t pipe_sweep_kill_holders(const char *store, const char *run_id, const char *invocation);

#endif
