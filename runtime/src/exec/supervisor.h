/* The supervisor of one invocation (`EXE step`, private; docs/runtime.md,
   "Process model"), in parts that depend one way only:
     supervisor_log.c      the invocation's log: its own lines, the ranks'
                           lines with their tag, a rank's last lines
     supervisor_record.c   the invocation directory and step.yaml
     supervisor_inputs.c   arguments, inputs, the cache key and the cache
     supervisor_ranks.c    one attempt: the local ranks as child processes
     supervisor_command.c  a command step: its folder, program, arguments,
                           environment, outputs and metrics file
     supervisor_failure.c  why an attempt failed: the root-cause text
     supervisor_watch.c    ranks that never entered a collective (collective_timeout)
     supervisor.c          options, setup, the attempts, the command */
#ifndef PIPE_SUPERVISOR_H
#define PIPE_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "child.h"
#include "dist/launcher.h"
#include "observe/metrics.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "observe/profiler.h"
#include "store/stepfile.h"
#include "store/store.h"

typedef struct pipe_step_options {
    const char *invocation;
    const char *run_id;
    const char *store;
    const char **params; /* "NAME=VALUE" from --param */
    size_t nparams;
    bool no_cache, echo;
    bool verify; /* --verify: hash inputs and cached outputs again, whatever their size and time say */
    pipe_launch_options launch; /* --machine-rank, --main-process-ip */
} pipe_step_options;

typedef struct pipe_supervisor {
    const pipe_program *prog;
    const pipe_manifest *m;
    pipe_step_options o;
    const pipe_minvocation *inv;
    const pipe_mstep *ms;
    const pipe_step_impl *impl; /* NULL for a command step */
    char *store; /* absolute */
    char *dir;   /* STORE/RUN/INV */
    char *outdir;
    char *log_path, *metrics_path, *step_path;
    pipe_run_info *run;
    char **values; /* per step parameter: canonical text or input path */
    const char **output_names;
    pipe_step_record *rec;
    int log_fd;
    long long attempt_log_start; /* where this attempt's lines begin in the log */
    double t0;
    uint64_t grace_ms;
    int nlocal, world, machine_rank;
    pipe_launch launch;
    char *omp_threads; /* OMP_NUM_THREADS for the worker, NULL: leave alone */
    char *scratch_root;
    pipe_profiler *profiler; /* @gpu_profile, over all attempts; NULL without */
    int lock_fd; /* the invocation's lock (run_lock.h), held from setup to the end; -1 before */
    /* A command step (supervisor_command.c). */
    char *workdir;               /* BUNDLE/WORKDIR: where its program runs */
    char *program;               /* the file its first argument names */
    int metrics_fd;              /* rank 0's PIPE_METRICS file while it runs, -1 when none */
    char *metrics_line;          /* an unfinished line of it */
    size_t metrics_len, metrics_lineno;
    int metrics_complaints;
    pipe_metrics_writer metrics_out; /* metrics.csv */
} pipe_supervisor;

typedef struct pipe_attempt_result {
    bool ok;
    bool timed_out;
    int interrupted;  /* the signal that stopped the supervisor, or 0 */
    int rank;         /* the rank whose status decides the attempt */
    int status;       /* its wait status */
    char *rendezvous; /* why the ranks never met (malloc'ed), or NULL */
    char *collective; /* which ranks never entered a collective (malloc'ed), or NULL */
} pipe_attempt_result;

/* ---- supervisor_log.c ---- */

/* One line, ending with '\n', into the log and, with --echo, to stderr as
   "[ID] line". */
void pipe_supervisor_emit(pipe_supervisor *s, const char *line, size_t n);
/* A rank's line: as it is when it already names its rank (pipe_log's
   "[rank N]") or a native step's world is one rank, else with "[rank N] "
   in front. */
void pipe_supervisor_emit_rank(pipe_supervisor *s, int rank, const char *line, size_t n);
/* "TIMESTAMP [pipe] ..." of the supervisor's own. */
void pipe_supervisor_note(pipe_supervisor *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A note into the log only (what the runner reports itself). */
void pipe_supervisor_note_log_only(pipe_supervisor *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* With --echo, a line for the runner alone (not shown): PIPE_RUNNER_STATE_PREFIX
   then the state, "running" when the step starts for real (not cached). */
void pipe_supervisor_tell_runner(const pipe_supervisor *s, const char *state);
/* "error: MSG" (with --echo "[ID] error: MSG") on stderr. */
void pipe_supervisor_report(const pipe_supervisor *s, const char *msg);
/* The last lines of one rank in the log (as torchrun's error summary shows
   them; for a one-rank step, the step's lines), malloc'ed, or NULL when it
   printed nothing. */
char *pipe_supervisor_log_tail(const pipe_supervisor *s, int rank);

/* ---- supervisor_record.c ---- */

/* Creates the invocation directory and its log, removing what an earlier
   execution left (step.yaml, outputs/, error, metrics.csv, profile/). */
int pipe_supervisor_prepare_dir(pipe_supervisor *s, char *err, size_t errsize);
/* Stamps the record finished with status and writes step.yaml (machine 0
   only: it speaks for the invocation). */
int pipe_supervisor_finish_record(pipe_supervisor *s, pipe_step_status status, char *err, size_t errsize);
void pipe_supervisor_clear_outputs(pipe_step_record *r);
/* Records a failure, returning the exit status 1. */
int pipe_supervisor_fail(pipe_supervisor *s, const char *why);
/* Checks and hashes the outputs into the record; NULL when all are there,
   else why not (malloc'ed). */
char *pipe_supervisor_collect_outputs(pipe_supervisor *s);
/* metrics.csv into the record: the last value of each name. */
void pipe_supervisor_read_metrics(pipe_supervisor *s);
/* Removes what an attempt leaves in outputs/ and the per-attempt files. */
void pipe_supervisor_reset_attempt(pipe_supervisor *s);

/* ---- supervisor_inputs.c ---- */

/* The arguments' values and the inputs' digests into the record. 0;
   PIPE_EUSAGE for a parameter without a value; PIPE_ESTEP with the reason
   in err when an input is not available. */
int pipe_supervisor_resolve_args(pipe_supervisor *s, char *err, size_t errsize);
/* The record's cache key (NULL when memory ran out). */
void pipe_supervisor_cache_key(pipe_supervisor *s);
/* True when the invocation was satisfied from the cache. */
bool pipe_supervisor_try_cache(pipe_supervisor *s);

/* ---- supervisor_ranks.c ---- */

/* Runs one attempt: forks the local ranks, copies their output into the
   log, enforces @timeout, stops them all when one fails, when the
   rendezvous times out or at SIGINT/SIGTERM, and reaps them. */
int pipe_supervisor_run_attempt(pipe_supervisor *s, pipe_attempt_result *res, char *err, size_t errsize);

/* ---- supervisor_watch.c ---- */

/* Polled while the ranks of g run: a malloc'ed message when some local rank
   has not entered a pipe collective that another has waited in for
   collective_timeout (naming the missing ranks and their process state),
   else NULL. */
struct pipe_child_group;
char *pipe_supervisor_check_collectives(pipe_supervisor *s, const struct pipe_child_group *g);

/* The environment a rank gets before it runs the step, in the forked rank:
   the step's environment, OMP_NUM_THREADS, PIPE_STORE, PIPE_RUN_ID,
   PIPE_INVOCATION, PIPE_SCRATCH_ROOT, PIPE_MIXED_PRECISION and the rank's
   world (rank_env.h). */
void pipe_supervisor_rank_env(pipe_supervisor *s, int local_rank);

/* ---- supervisor_command.c ---- */

/* The folder a command step runs in (the bundle's copy of its .pipe file's
   folder) and its program, found as execvp would. PIPE_EUSAGE naming the
   step and the folder or program when one is missing. */
int pipe_supervisor_command_setup(pipe_supervisor *s, char *err, size_t errsize);
/* Before an attempt: each rank's folders (scratch, outputs of ranks other
   than 0) and rank 0's empty PIPE_METRICS file. */
int pipe_supervisor_command_begin(pipe_supervisor *s, char *err, size_t errsize);
/* Starts local rank r's program: its arguments expanded, the environment
   of a command step (PIPE_PARAM_*, PIPE_INPUT_*, PIPE_OUTPUT_*, PIPE_METRICS,
   PIPE_SCRATCH_DIR) set in the child, in the step's folder. */
int pipe_supervisor_command_spawn(pipe_supervisor *s, pipe_child_group *g, int local_rank, char *err, size_t errsize);
/* Rank 0's new PIPE_METRICS lines into metrics.csv; final: the last line
   too, and the file closed (end of the attempt). */
void pipe_supervisor_command_metrics(pipe_supervisor *s, bool final);
/* After the ranks exited 0: every output rank 0 wrote is synced and moved
   into outputs/. NULL, or why not (malloc'ed): an output missing, naming
   it. */
char *pipe_supervisor_command_commit(pipe_supervisor *s);
void pipe_supervisor_command_free(pipe_supervisor *s);

/* ---- supervisor_failure.c ---- */

/* Why an attempt failed, malloc'ed: the rendezvous, the timeout, the
   signal, else the rank that failed first, its status, its own account
   (its error file) and its last lines. The first line says it all; the
   others are the tail. */
char *pipe_supervisor_describe_failure(const pipe_supervisor *s, const pipe_attempt_result *r);
/* "rank R (machine M, host H) exited with status N" or "... was killed by
   SIGX" (no rank part for a one-rank step). */
void pipe_supervisor_describe_exit(const pipe_supervisor *s, int rank, int status, char *buf, size_t size);

#endif
