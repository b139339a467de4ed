/* step.yaml: the record the supervisor writes for one invocation of a run
   (docs/runtime.md, "step.yaml"). Written with libyaml's emitter, read with
   its parser. Private to the runtime.

   Readers: the runner reads a finished invocation's status and error, `show`
   prints the record, the supervisor of a consumer reads its producers'
   outputs, and the cache reads the record a cache entry points to. */
#ifndef PIPE_STEPFILE_H
#define PIPE_STEPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/manifest.h"

/* interrupted: SIGINT or SIGTERM stopped it (a Ctrl-C, a preemption); its
   checkpoint folder is kept, and it is not a failure of the step. */
typedef enum { PIPE_STEP_DONE, PIPE_STEP_CACHED, PIPE_STEP_FAILED, PIPE_STEP_INTERRUPTED } pipe_step_status;

/* An input or output: its path and the SHA-256 (64 lower-case hex digits) of
   its bytes; sha256 is NULL when unknown (a failed step's missing output).
   A file's size and modification time (nanoseconds since the epoch) when
   it was hashed, -1 when not known (a folder, an older record): a file that
   still has both is not hashed again unless asked (`run --verify`). */
typedef struct pipe_step_artifact {
    char *name;
    char *path;
    char *sha256;
    int64_t size;
    int64_t mtime_ns;
} pipe_step_artifact;

typedef struct pipe_step_metric {
    char *name;
    double value; /* the last value logged */
} pipe_step_metric;

typedef struct pipe_step_record {
    char *invocation;
    char *step;
    char *run_id;
    pipe_step_status status;
    bool has_exit_code; /* false when killed by a signal, cached, or never started */
    int exit_code;      /* of the last attempt */
    char *signal;       /* "SIGKILL" when the last attempt was killed by a signal, else NULL */
    char *error;        /* why it failed; NULL when it did not */
    int attempts;       /* 0 for cached and for failures before the worker started */
    char *started;      /* "2026-11-22T10:15:00.123Z" */
    char *finished;
    double duration_s;
    char *cache_key;    /* SHA-256 hex; NULL when it was never computed */
    char *cached_from;  /* "RUN_ID/INVOCATION", status cached only */
    char *code_digest;  /* the step's, as its key covered it; NULL in older records */
    pipe_kv *key_parts; /* the rest of the key besides code, params and inputs: name -> canonical
                           text (store/cache_key.h) */
    size_t nkey_parts;
    char *rerun;        /* why it ran though an earlier success of it exists ("code changed"), or NULL */
    char *rerun_of;     /* that success, "RUN_ID/INVOCATION" */
    pipe_kv *params;    /* the step's non-artifact arguments: name -> canonical text */
    size_t nparams;
    pipe_step_artifact *inputs;
    size_t ninputs;
    pipe_step_artifact *outputs;
    size_t noutputs;
    pipe_step_metric *metrics;
    size_t nmetrics;
} pipe_step_record;

const char *pipe_step_status_name(pipe_step_status status); /* "done", "cached", "failed", "interrupted" */
/* 0 and *out for "done", "cached", "failed", "interrupted"; PIPE_EFORMAT otherwise. */
int pipe_step_status_parse(const char *text, pipe_step_status *out);
/* done or cached: the invocation finished and its outputs can be used. */
bool pipe_step_status_succeeded(pipe_step_status status);

/* Renders the record as YAML into a malloc'ed string. */
int pipe_step_record_format(const pipe_step_record *r, char **text, size_t *len, char *err, size_t errsize);
/* Writes path atomically (temp file, fsync, rename; without the fsync when
   deferred: a supervisor under the runner, whose group commit makes it
   durable, commit.h). */
int pipe_step_record_write(const char *path, const pipe_step_record *r, bool deferred, char *err, size_t errsize);
/* Parses step.yaml text. Unknown keys are ignored; a missing `invocation` or
   `status`, or a bad value, is PIPE_EFORMAT naming the key; so is a record
   that says done or cached but is not whole (its last line or its last
   key, `metrics`, missing): it is not done for consumers nor the cache. */
int pipe_step_record_parse(const char *text, size_t len, pipe_step_record **out, char *err, size_t errsize);
/* The same, naming the file as `what` in messages. */
int pipe_step_record_parse_named(const char *text, size_t len, const char *what, pipe_step_record **out, char *err,
                                 size_t errsize);
/* PIPE_ENOENT when the file does not exist (the invocation has not finished). */
int pipe_step_record_read(const char *path, pipe_step_record **out, char *err, size_t errsize);
void pipe_step_record_free(pipe_step_record *r);

/* Lookups by name; NULL when absent. */
const pipe_step_artifact *pipe_step_record_output(const pipe_step_record *r, const char *name);
const pipe_step_artifact *pipe_step_record_input(const pipe_step_record *r, const char *name);

/* Adds to a record being built (the strings are copied). */
int pipe_step_record_add_param(pipe_step_record *r, const char *name, const char *value);
int pipe_step_record_add_key_part(pipe_step_record *r, const char *name, const char *value);
int pipe_step_record_add_input(pipe_step_record *r, const char *name, const char *path, const char *sha256);
int pipe_step_record_add_output(pipe_step_record *r, const char *name, const char *path, const char *sha256);
/* Records the size and modification time path has now (a regular file;
   -1 otherwise) as those of a, which was just hashed. */
void pipe_step_artifact_stamp(pipe_step_artifact *a, const char *path);
/* Whether the file at path still has a's recorded size and modification
   time (false when a has none, or path is not a regular file). */
bool pipe_step_artifact_unchanged(const pipe_step_artifact *a, const char *path);
/* Sets a metric, replacing an earlier value of the same name. */
int pipe_step_record_set_metric(pipe_step_record *r, const char *name, double value);


#endif
