/* A local run of the whole pipeline (docs/runtime.md, "Process model"):
   what `run` does once its command line and --config are read
   (cmd/run.c). Private to the runtime. */
#ifndef PIPE_RUN_H
#define PIPE_RUN_H

#include <stdbool.h>

#include "format/params.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"

typedef struct pipe_run_options {
    const pipe_param_values *params; /* every parameter's value (pipe_params_check_complete passed) */
    const char *store;               /* the artifact store */
    const char *run_id;              /* the new run's id; NULL: UTC time and 6 random hex digits */
    long jobs;                       /* at most this many invocations at once; 0: as the machine allows */
    bool no_cache;                   /* run every invocation, even when an earlier result matches */
    bool verify;                     /* hash every input and cached output again */
    bool strict;                     /* refuse to run when this machine cannot meet a request */
} pipe_run_options;

/* Creates the run (its id, run.lock, run.yaml), runs its invocations in
   DAG order as the machine allows, prints the progress and the summary,
   and writes the run's status. Messages go to stderr. Returns the exit
   status: 0 every invocation succeeded or was cached, 1 one failed, 2 a
   usage or configuration error, 128 + the signal that stopped it. */
int pipe_run(const pipe_program *prog, const pipe_manifest *m, const pipe_run_options *o);

#endif
