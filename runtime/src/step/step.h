/* One invocation, run by this process (docs/runtime.md, "Process model"):
   what `EXE step ID --run-id RUN` does, and what each supervisor the
   runner forks does. Its parts are listed in supervisor.h. Private to the
   runtime. */
#ifndef PIPE_STEP_H
#define PIPE_STEP_H

#include <stdbool.h>
#include <stddef.h>

#include "dist/launcher.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "store/reserve.h"

/* A supervisor started with `echo` tells the runner, on a line of its own
   that the runner consumes, when the step really starts: a cached
   invocation is never shown as running. The prefix cannot start a line of
   the step's output, which reaches the runner tagged "[ID] ". */
#define PIPE_RUNNER_STATE_PREFIX "\x1epipe-state "

typedef struct pipe_step_options {
    const char *invocation;
    const char *run_id;
    const char *store;   /* NULL: $PIPE_STORE, else .pipe */
    const char **params; /* "NAME=VALUE" from --param */
    size_t nparams;
    bool no_cache;
    bool echo;   /* lines to stderr too, as "[ID] line", and the state for the runner */
    bool verify; /* hash inputs and cached outputs again, whatever their size and time say */
    pipe_launch_options launch; /* --machine-rank (-1: not given), --main-process-ip */
    /* Set by the runner for the supervisors it forks (never by `step`): */
    bool commit_deferred;          /* the store's writes skip fsync: the runner commits them (store/commit.h) */
    pipe_reserve_lease reserve_lent; /* room on the disk for the record of a failure (store/reserve.h) */
} pipe_step_options;

/* Runs the invocation: the store and run.yaml, the inputs, the cache, the
   attempts, step.yaml. Messages go to stderr and the invocation's log.
   Returns the exit status: 0 done or cached, 1 failed, 2 a usage or
   configuration error, 128 + a signal that stopped it. */
int pipe_step_run(const pipe_program *prog, const pipe_manifest *m, const pipe_step_options *o);

#endif
