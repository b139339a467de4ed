/* The artifact store (docs/runtime.md, "Artifact store"): directory layout,
   run ids and run.yaml. Private to the runtime.

     STORE/RUN_ID/run.yaml
     STORE/RUN_ID/INVOCATION/{outputs/NAME, step.yaml, log, metrics.csv, error}
     STORE/cache/KEY

   Path helpers return malloc'ed strings (NULL only when memory runs out).
   Every other function returns 0 or a negative PIPE_E* code with a message
   naming the file at fault in err. */
#ifndef PIPE_STORE_H
#define PIPE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/manifest.h"

/* "YYYYMMDD-HHMMSS-XXXXXX" plus the terminating NUL. */
#define PIPE_RUN_ID_SIZE 23

/* The store directory: flag (--store) if not NULL, else $PIPE_STORE if set
   and non-empty, else fallback (a config file's `store`) if not NULL, else
   ".pipe". malloc'ed. */
char *pipe_store_resolve(const char *flag, const char *fallback);

/* A fresh run id: UTC time now plus 6 random hex digits (from /dev/urandom,
   falling back to time and pid). buf must hold PIPE_RUN_ID_SIZE bytes. */
int pipe_run_id_new(char *buf, size_t size, char *err, size_t errsize);
/* True for the shape YYYYMMDD-HHMMSS-xxxxxx (lower-case hex). Run ids given
   by users (--run-id) only need to be a safe single path component, see
   pipe_run_id_check. */
bool pipe_run_id_is_generated(const char *id);
/* PIPE_EUSAGE unless id is a usable run id: non-empty, at most 128 bytes of
   [A-Za-z0-9_-], not starting with '-' (it would read as an option), not
   "cache" (the cache's folder) or "latest" (the newest run, for commands
   that take a RUN). */
int pipe_run_id_check(const char *id, char *err, size_t errsize);

/* STORE/RUN, STORE/RUN/INV, STORE/RUN/INV/outputs/NAME,
   STORE/RUN/INV/step.yaml, STORE/RUN/run.yaml, STORE/cache. */
char *pipe_store_run_dir(const char *store, const char *run_id);
char *pipe_store_invocation_dir(const char *store, const char *run_id, const char *invocation);
char *pipe_store_output_path(const char *store, const char *run_id, const char *invocation, const char *output);
char *pipe_store_step_file(const char *store, const char *run_id, const char *invocation);
char *pipe_store_run_file(const char *store, const char *run_id);
char *pipe_store_cache_dir(const char *store);
/* Where a rank puts its own account of a failure (pipe_fail, or the worker
   when the step returns non-zero): DIR/error for a one-rank step, else
   DIR/error.rank-N, one file per rank, so that the supervisor reports the
   account of the rank that failed first, not of the last one to write. */
char *pipe_store_error_file(const char *invocation_dir, int rank, int world);

/* run.yaml */
typedef struct pipe_run_info {
    char *run_id;   /* informational; the directory name is what counts */
    char *pipeline;
    pipe_kv *params; /* name -> canonical value, in the manifest's order; required
                        parameters without a value are left out */
    size_t nparams;
    char *started;  /* "2026-11-22T10:15:00.123Z" */
    char *finished; /* NULL while running */
    char *status;   /* "running", "done" or "failed" */
} pipe_run_info;

typedef enum {
    PIPE_RUN_WRITE_REPLACE, /* write (atomically: temp file + fsync + rename) */
    PIPE_RUN_WRITE_CREATE   /* create only when absent: first writer wins (link(2)) */
} pipe_run_write_mode;

/* Writes STORE/RUN/run.yaml, creating STORE/RUN. With PIPE_RUN_WRITE_CREATE,
   *created (may be NULL) tells whether this call created the file; when
   another writer was first the file is left alone and 0 is returned. */
int pipe_run_info_write(const char *store, const char *run_id, const pipe_run_info *info,
                        pipe_run_write_mode mode, bool *created, char *err, size_t errsize);
/* PIPE_ENOENT when the run (or its run.yaml) does not exist, PIPE_EFORMAT
   for a malformed file. */
int pipe_run_info_read(const char *store, const char *run_id, pipe_run_info **out, char *err, size_t errsize);
void pipe_run_info_free(pipe_run_info *info);
/* The value of a run parameter, NULL when absent. */
const char *pipe_run_info_param(const pipe_run_info *info, const char *name);

/* Names of the run directories in STORE (those holding a run.yaml),
   sorted ascending (generated ids sort by time). A missing store is an
   empty list. Free with pipe_store_free_list. */
int pipe_store_list_runs(const char *store, char ***ids, size_t *n, char *err, size_t errsize);
void pipe_store_free_list(char **ids, size_t n);

/* rm -rf that never follows symbolic links; a missing path is not an error.
   Read-only folders (committed artifacts) are made writable by their owner
   first. */
int pipe_remove_tree(const char *path, char *err, size_t errsize);

/* The temporary entries of dir, those named PREFIX...INFIX or
   PREFIX...INFIX.... (".model.tmp", ".data.tmp.42", "step.yaml.tmp.42"),
   removed (a folder with what it holds): what a dead process left
   (step/sweep.h). 0, or PIPE_EIO when one could not be. */
int pipe_remove_temporaries(const char *dir, const char *prefix, const char *infix);
/* DIR/NAME when it is there: what a dead holder kept for itself alone
   (the room for its record, store/reserve.h; its log's ring, log_cap.h). */
void pipe_remove_entry(const char *dir, const char *name);

#endif
