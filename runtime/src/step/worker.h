/* The worker: the process the supervisor forks for each rank of an
   invocation. It builds the step's argument struct from the driver's field
   table, calls the step, commits or discards its outputs and reports the
   step's return value as its exit status. Private to the runtime. */
#ifndef PIPE_WORKER_H
#define PIPE_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/driver.h"
#include "pipe/manifest.h"

typedef struct pipe_worker_spec {
    const pipe_step_impl *impl;
    const pipe_mstep *mstep;
    const pipe_cuda_hooks *cuda; /* NULL without CUDA */
    bool use_gpu;                /* the step needs CUDA or the invocation asks for GPUs */
    bool cleanup_memory;
    const char *invocation;
    const char *run_id;
    const char *dir; /* STORE/RUN/INVOCATION */
    int rank, world; /* which error file is this rank's (pipe_store_error_file) */
    /* One per step parameter (mstep->params order): canonical text, or for
       an artifact the input's path. */
    const char *const *values;
    const char *const *output_names;
    size_t noutputs;
    bool writes_deferred; /* its outputs without fsync: the runner commits them (store/commit.h) */
} pipe_worker_spec;

/* Fills a malloc'ed argument struct of impl->args_size bytes. Each field of
   impl->fields takes the value of the manifest parameter of the same name,
   converted by the field's type (int64_t, double, bool, const char *);
   strings point into values. PIPE_EABI when the field table and the
   manifest disagree, PIPE_EINVAL when a value does not convert. */
int pipe_worker_build_args(const pipe_step_impl *impl, const pipe_mstep *mstep, const char *const *values,
                           void **args, char *err, size_t errsize);

/* Runs the step in this process and returns the exit status for it: 0 when
   the step returned 0 and its outputs were committed; the step's value when
   it is 1..255; 1 otherwise. Failures are explained in DIR/error (unless
   pipe_fail already did). Environment: RANK, WORLD_SIZE, ... (see
   pipe_ctx_create). The forked worker calls _exit() with it. */
int pipe_worker_run(const pipe_worker_spec *spec);

#endif
