/* Whether a run is running, succeeded, failed or was interrupted
   (docs/runtime.md, "Artifact store"). run.yaml says `running` until its
   runner writes the end; a runner that is killed never does, so the runner
   holds a lock on STORE/RUN/run.lock while it lives and a reader tells a
   live run from an abandoned one by trying it (run_lock.h). Private to the
   runtime. */
#ifndef PIPE_RUN_STATE_H
#define PIPE_RUN_STATE_H

#include <stddef.h>

#include "pipe/manifest.h"
#include "store/store.h"

typedef enum { PIPE_RUN_RUNNING, PIPE_RUN_SUCCEEDED, PIPE_RUN_FAILED, PIPE_RUN_INTERRUPTED } pipe_run_state;

/* "running", "succeeded", "failed", "interrupted". */
const char *pipe_run_state_name(pipe_run_state s);

/* The run's state. run.yaml's `done` and `failed` are final; `interrupted`
   too. `running` is checked: with a run.lock nobody holds, the runner is
   gone (interrupted). A run without a run.lock was started invocation by
   invocation (`step`, as Slurm, Kubernetes and SkyPilot run them): when m is
   the run's pipeline, its step records tell (any failed: failed; else any
   interrupted: interrupted; all finished: succeeded; else running). */
pipe_run_state pipe_run_state_of(const char *store, const char *run_id, const pipe_run_info *info,
                                 const pipe_manifest *m);

#endif
