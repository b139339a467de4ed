/* The parts of an invocation's supervisor (private; supervisor.h holds the
   whole): each file of the supervisor takes the parts it works on.

     pipe_step_ident   which invocation, its step and code, its arguments'
                       values, this machine's ranks, its paths in the store
     pipe_step_log     the invocation's log (supervisor_log.c)
     pipe_step_record  step.yaml as this execution will write it
                       (store/stepfile.h; supervisor_record.c,
                       supervisor_inputs.c)
     pipe_launch       the ranks' world (dist/launcher.h; the hung-rank
                       check, supervisor_watch.c, reads it)

   and what works on them: the log, the invocation directory and record,
   the inputs and the cache, why an attempt failed, and hung ranks. */
#ifndef PIPE_SUPERVISOR_PARTS_H
#define PIPE_SUPERVISOR_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/child.h"
#include "dist/launcher.h"
#include "log_cap.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "step.h"
#include "store/stepfile.h"
#include "store/store.h"

/* What this process executes and where: set up once (supervisor.c, then
   the paths by pipe_supervisor_prepare_dir and the values by
   pipe_supervisor_resolve_args), read only after. */
typedef struct pipe_step_ident {
    const pipe_program *prog;
    const pipe_manifest *m;
    pipe_step_options o;
    const pipe_minvocation *inv;
    const pipe_mstep *ms;
    const pipe_step_impl *impl; /* NULL for a command step */
    bool command;               /* the step is a program (pipe_step_is_command) */
    int nlocal, world, machine_rank; /* this machine's ranks, as the launch decided */
    double t0;                  /* pipe_now() at the start: step.yaml's duration and time_s count from it */
    pipe_run_info *run;         /* run.yaml */
    char **values;              /* per step parameter: canonical text or input path */
    const char **output_names;
    char *store; /* absolute */
    char *dir;   /* STORE/RUN/INV */
    char *outdir, *metrics_path, *step_path;
} pipe_step_ident;

/* The invocation's log: the supervisor's own lines and its ranks'. */
typedef struct pipe_step_log {
    int fd;           /* -1 until the invocation directory is prepared */
    char *path;       /* log, or log.machine-N on machine N > 0 */
    const char *id;   /* the invocation, for echoed lines; NULL before it is known */
    bool echo;        /* --echo: lines to stderr too, as "[ID] line" */
    int world;        /* ranks of the step: one untagged rank, or several tagged "[rank N] " */
    bool command;     /* a program's lines are always tagged */
    long long attempt_start; /* where this attempt's lines begin in the log */
    char *bundle;     /* a command step's bundle folder: its copies' paths are mapped back (bundle_inputs.h) */
    pipe_log_cap cap; /* its bound (PIPE_LOG_MAX_SIZE) */
    int io_errno;     /* a write to it failed (ENOSPC: the disk is full): nothing more is written */
    char *io_path;    /* what could not be written: the log or its ring */
    char *reserve;    /* room kept on the disk for the record of a failure (store/reserve.h) */
    long long reserve_offset; /* of the range the runner lent (reserve is its file), or -1: a file of its own */
} pipe_step_log;

typedef struct pipe_attempt_result {
    bool ok;
    bool timed_out;
    int interrupted;  /* the signal that stopped the supervisor, or 0 */
    int rank;         /* the rank whose status decides the attempt */
    int status;       /* its wait status */
    int lost_machine; /* 1 + the machine that rank's collective lost contact with (coll_watch.h); 0: none */
    char *rendezvous; /* why the ranks never met (malloc'ed), or NULL */
    char *collective; /* which ranks never entered a collective (malloc'ed), or NULL */
    char *disk;       /* the log could not be written: which disk is full (malloc'ed), or NULL */
} pipe_attempt_result;

/* ---- supervisor_log.c ---- */

/* One line, ending with '\n', into the log and, with --echo, to stderr as
   "[ID] line". */
void pipe_supervisor_emit(pipe_step_log *log, const char *line, size_t n);
/* A rank's line: as it is when it already names its rank (pipe_log's
   "[rank N]") or a native step's world is one rank, else with "[rank N] "
   in front. */
void pipe_supervisor_emit_rank(pipe_step_log *log, int rank, const char *line, size_t n);
/* "TIMESTAMP [pipe] ..." of the supervisor's own. */
void pipe_supervisor_note(pipe_step_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A note into the log only (what the runner reports itself). */
void pipe_supervisor_note_log_only(pipe_step_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* With --echo, a line for the runner alone (not shown): PIPE_RUNNER_STATE_PREFIX
   then the state, "running" when the step starts for real (not cached),
   and detail, when not NULL, after a space (why it runs again). */
void pipe_supervisor_tell_runner(const pipe_step_log *log, const char *state, const char *detail);
/* "error: MSG" (with --echo "[ID] error: MSG") on stderr. */
void pipe_supervisor_report(const pipe_step_log *log, const char *msg);
/* The last lines of one rank in the log (as torchrun's error summary shows
   them; for a one-rank step, the step's lines), malloc'ed, or NULL when it
   printed nothing. */
char *pipe_supervisor_log_tail(const pipe_step_log *log, int rank);
/* Where the next line begins in the log's stream (as if nothing were cut). */
long long pipe_supervisor_log_offset(const pipe_step_log *log);
/* "step NAME: no space left on device writing PATH (the store's disk, ...)"
   when a write to the log failed, malloc'ed; else NULL. */
char *pipe_supervisor_log_failure(const pipe_step_ident *id, const pipe_step_log *log);
/* The end of the log: the lines kept of what went past its bound, after
   the line that says what was cut (log_cap.h). */
void pipe_supervisor_log_finish(pipe_step_log *log);

/* ---- supervisor_tfevents.c ---- */

/* The scalars of the TensorBoard event files (events.out.tfevents.*) under
   the nroots folders, each written or changed at or after since (seconds
   since the epoch), into w; time_s counts from since. One log line per file
   that had corrupt or cut records, one that says what was read. */
struct pipe_metrics_writer;
void pipe_supervisor_import_tfevents(pipe_step_log *log, const char *const *roots, size_t nroots, double since,
                                     struct pipe_metrics_writer *w);

/* ---- supervisor_record.c ---- */

/* The invocation directory's paths into id, the directory and its log
   (log's path, fd and bound), removing what an earlier execution left
   (step.yaml, outputs/, error, metrics.csv, profile/), and the room kept
   for the record of a failure (log->reserve; a disk without it fails the
   step at once, naming the disk). */
int pipe_supervisor_prepare_dir(pipe_step_ident *id, pipe_step_log *log, char *err, size_t errsize);
/* Stamps the record finished with status and writes step.yaml (machine 0
   only: it speaks for the invocation). */
int pipe_supervisor_finish_record(const pipe_step_ident *id, pipe_step_record *rec, pipe_step_status status,
                                  char *err, size_t errsize);
void pipe_supervisor_clear_outputs(pipe_step_record *r);
/* The room kept for the record: given back to the disk (give_back: a
   record of a failure is next), or only let go at the end (the runner's
   lent range stays allocated for the next supervisor). */
void pipe_supervisor_reserve_release(pipe_step_log *log, bool give_back);
/* Records a failure, returning the exit status 1. The room kept on the
   disk is given back first: the record fits on a full disk. */
int pipe_supervisor_fail(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, const char *why);
/* Output name as the step left it at path, before it is kept
   (pipe_artifact_check: no link leading out of it, no hard link to a file
   outside): NULL, or why not (malloc'ed), naming the step, the output and
   the path at fault. */
char *pipe_supervisor_check_output(const pipe_step_ident *id, const char *name, const char *path);
/* Records that SIGINT or SIGTERM (sig) stopped the invocation: step.yaml
   says `interrupted` ("interrupted by SIGTERM"), no outputs are kept;
   returns the exit status 128 + sig, as a shell reports a process that
   such a signal ended. */
int pipe_supervisor_interrupted(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, int sig);
/* Checks and hashes the outputs into the record; NULL when all are there,
   else why not (malloc'ed). */
char *pipe_supervisor_collect_outputs(const pipe_step_ident *id, pipe_step_record *rec);
/* metrics.csv into the record: the last value of each name; a row that
   cannot be read is a warning in the log naming the file and line. */
void pipe_supervisor_read_metrics(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec);
/* Removes what an attempt leaves in outputs/ and the per-attempt files. */
void pipe_supervisor_reset_attempt(const pipe_step_ident *id, pipe_step_record *rec);

/* ---- supervisor_inputs.c ---- */

/* The arguments' values (into id) and the inputs' digests into the
   record. 0; PIPE_EUSAGE for a parameter without a value; PIPE_ESTEP with
   the reason in err when an input is not available. */
int pipe_supervisor_resolve_args(pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, char *err,
                                 size_t errsize);
/* The record's key parts (store/cache_key.h: the settings, the step's
   environment, the device) and its cache key. 0 or PIPE_ENOMEM. */
int pipe_supervisor_cache_key(const pipe_step_ident *id, const char *device, pipe_step_record *rec);
/* True when the invocation was satisfied from the cache. Otherwise, when
   the invocation succeeded before (STORE/cache/last), the record says why
   it runs again (rerun, rerun_of) and the log says it. */
bool pipe_supervisor_try_cache(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec);

/* ---- supervisor_failure.c ---- */

/* Why an attempt failed, malloc'ed: the rendezvous, the timeout, the
   signal, else the rank that failed first, its status, its own account
   (its error file) and its last lines. The first line says it all; the
   others are the tail. */
char *pipe_supervisor_describe_failure(const pipe_step_ident *id, pipe_step_log *log,
                                       const pipe_attempt_result *r);
/* "rank R (machine M, host H) exited with status N" or "... was killed by
   SIGX" (no rank part for a one-rank step). */
void pipe_supervisor_describe_exit(const pipe_step_ident *id, int rank, int status, char *buf, size_t size);

/* ---- supervisor_machines.c ---- */

/* Whether the step's ranks run on several machines. */
bool pipe_supervisor_spans_machines(const pipe_step_ident *id);
/* This machine's failure (why, as pipe_supervisor_describe_failure says
   it) into STORE/RUN/INV/failure.machine-N, for the other machines, whose
   ranks see only that they lost contact with this one. Nothing on one
   machine. */
void pipe_supervisor_post_failure(const pipe_step_ident *id, pipe_step_log *log, const char *why);
/* Removes this machine's failure record (a new execution or attempt). */
void pipe_supervisor_forget_failure(const pipe_step_ident *id);
/* The cause when this machine's rank failed only because it lost contact
   with machine lost: that machine's record (or another's), waiting a few
   seconds for it; else "machine 1 (ranks 2-3) lost contact: ...".
   Malloc'ed. */
char *pipe_supervisor_remote_cause(const pipe_step_ident *id, pipe_step_log *log, int rank, int lost);

/* ---- supervisor_watch.c ---- */

/* Polled while the local ranks of l run as g: a malloc'ed message when some
   local rank has not entered a pipe collective that another has waited in
   for collective_timeout (naming the missing ranks and their process
   state), else NULL; *first_missing gets the first of those ranks. */
char *pipe_supervisor_check_collectives(const pipe_launch *l, const pipe_child_group *g, int *first_missing);

#endif
