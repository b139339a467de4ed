/* The supervisor of one invocation (`EXE step`, private; docs/runtime.md,
   "Process model"), in parts that depend one way only:
     supervisor_log.c      the invocation's log: its own lines, the ranks'
                           lines with their tag, a rank's last lines
     supervisor_record.c   the invocation directory and step.yaml
     supervisor_inputs.c   arguments, inputs, the cache key and the cache
     supervisor_failure.c  why an attempt failed: the root-cause text
     supervisor_watch.c    ranks that never entered a collective (collective_timeout)
   (those take the parts of supervisor_parts.h they work on), and
     supervisor_device.c   where the ranks run: the CPU or which GPUs
     supervisor_env.c      the environment every rank gets
     supervisor_native.c   the step kind of a native step: the worker in a fork
     supervisor_command.c  the step kind of a command step: its folder,
                           program, arguments, environment, outputs and
                           metrics file
     supervisor_ranks.c    one attempt: the local ranks as child processes,
                           started through the step kind
     supervisor_checkpoint.c  @checkpoint: the folder locked before the
                           first attempt, prepared before each, removed
                           after success
     supervisor.c          options, setup, the attempts, the command */
#ifndef PIPE_SUPERVISOR_H
#define PIPE_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checkpoint_folder.h"
#include "proc/child.h"
#include "dist/launcher.h"
#include "observe/profiler.h"
#include "supervisor_parts.h"

struct pipe_step_kind;

typedef struct pipe_supervisor {
    pipe_step_ident id;     /* what runs, where */
    pipe_step_log log;
    pipe_step_record *rec;  /* step.yaml as this execution will write it */
    pipe_launch launch;     /* this machine's ranks and where they meet */
    const struct pipe_step_kind *kind; /* native or command, chosen at setup */
    void *kind_state;                  /* the kind's own (a command step's folder, program, metrics) */
    /* The attempts. */
    char *omp_threads;  /* OMP_NUM_THREADS for the ranks, NULL: leave alone */
    char *scratch_root; /* the attempt's scratch folder, NULL between attempts */
    uint64_t grace_ms;  /* SIGTERM to SIGKILL */
    pipe_profiler *profiler; /* @gpu_profile, over all attempts; NULL without */
    int lock_fd; /* the invocation's lock (run_lock.h), held from setup to the end; -1 before */
    char device[256]; /* where the ranks run, as the cache key names it: "cpu", "gpu: 2 x MODEL" */
    char no_gpu[1024]; /* why the GPUs asked for are not there, "" when they are (supervisor_device.c) */
    pipe_checkpoint_folder ckpt; /* @checkpoint: its folder, locked while the attempts run (lock_fd -1 before) */
} pipe_supervisor;

/* What differs between the kinds of step: a native step's ranks run the
   worker in a fork (supervisor_native.c), a command step's exec its
   program (supervisor_command.c). The attempt (supervisor_ranks.c) calls
   only these; the NULL ones have nothing to do for that kind. */
typedef struct pipe_step_kind {
    /* Once, before the first attempt: what the ranks will run. PIPE_EUSAGE
       naming what is missing. */
    int (*prepare)(pipe_supervisor *s, char *err, size_t errsize);
    /* Before each attempt's ranks start. */
    int (*begin)(pipe_supervisor *s, char *err, size_t errsize);
    /* The attempt's first notes: how many ranks, where they meet. */
    void (*announce)(pipe_supervisor *s);
    /* Starts local rank local_rank in g; err says why not. */
    int (*spawn)(pipe_supervisor *s, pipe_child_group *g, int local_rank, char *err, size_t errsize);
    /* While the ranks run (final false), and once after they all ended. */
    void (*follow)(pipe_supervisor *s, bool final);
    /* After the ranks exited 0 on machine 0, before the outputs are
       hashed: each output checked (pipe_supervisor_check_output), made
       read-only and in place; NULL, or why not (malloc'ed). */
    char *(*commit)(pipe_supervisor *s);
    /* Frees kind_state. */
    void (*free)(pipe_supervisor *s);
} pipe_step_kind;

extern const pipe_step_kind pipe_native_step;
extern const pipe_step_kind pipe_command_step;

/* ---- supervisor_ranks.c ---- */

/* Runs one attempt: starts the local ranks through s->kind, copies their
   output into the log, enforces @timeout, stops them all when one fails,
   when the rendezvous times out or at SIGINT/SIGTERM, and reaps them. */
int pipe_supervisor_run_attempt(pipe_supervisor *s, pipe_attempt_result *res, char *err, size_t errsize);

/* ---- supervisor_device.c ---- */

/* Where the ranks run, into s->device, before the cache key: the CPU, or
   the GPUs they are given. When a step asks for GPUs on a machine without
   a usable one, s->no_gpu says so in one line (what it asked for, NVML's
   reason) and, unless it is a native step built with CUDA (whose ranks
   would each fail to select their device), its ranks get the launch of
   cpu = true (pipe_launch_use_cpu), so that they still form one process
   group. */
void pipe_supervisor_choose_device(pipe_supervisor *s);
/* Once the step is to run (not cached): PIPE_ERESOURCE with s->no_gpu in
   err for a native step built with CUDA, else s->no_gpu as one warning. */
int pipe_supervisor_check_device(pipe_supervisor *s, char *err, size_t errsize);

/* ---- supervisor_checkpoint.c ---- */

/* @checkpoint, before the first attempt: the folder of the invocation's
   key, locked (waiting for an earlier execution, then killing it, after
   the grace). 0 (also without @checkpoint); the signal that interrupted
   the wait (> 0); or a PIPE_E* code with the reason in err. */
int pipe_supervisor_checkpoint_open(pipe_supervisor *s, char *err, size_t errsize);
/* Before each attempt: what a killed writer left removed, the newest
   complete checkpoint found and said in the log. */
int pipe_supervisor_checkpoint_attempt(pipe_supervisor *s, char *err, size_t errsize);
/* After the step succeeded: the folder removed unless keep (machine 0;
   another machine drops its lock file). */
void pipe_supervisor_checkpoint_done(pipe_supervisor *s);

/* ---- supervisor_env.c ---- */

/* The environment a rank gets before it runs the step, in the forked rank:
   the step's environment, OMP_NUM_THREADS, PIPE_STORE, PIPE_RUN_ID,
   PIPE_INVOCATION, PIPE_SCRATCH_ROOT, PIPE_MIXED_PRECISION,
   PIPE_CHECKPOINT_DIR and PIPE_CHECKPOINT_LATEST (@checkpoint) and the
   rank's world (dist/rank_env.h); and the invocation's and the checkpoint
   folder's locks, kept across exec. */
void pipe_supervisor_rank_env(pipe_supervisor *s, int local_rank);

#endif
