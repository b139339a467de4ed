/* One run as `show`, `show --json`, `logs` and the report see it: run.yaml,
   each invocation's step record, metrics, profile and log tail, the graph
   and the root cause of a failure. Private to the runtime. */
#ifndef PIPE_RUN_VIEW_H
#define PIPE_RUN_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "observe/metrics.h"
#include "pipe/manifest.h"
#include "observe/profile_read.h"
#include "store/run_state.h"
#include "store/stepfile.h"
#include "store/store.h"

/* What to read besides the step records. */
enum { PIPE_VIEW_METRICS = 1, PIPE_VIEW_PROFILE = 2, PIPE_VIEW_LOGS = 4 };

/* How many lines of each log the view keeps. */
#define PIPE_VIEW_LOG_LINES 40

typedef struct pipe_view_invocation {
    char *id;
    char *step;             /* NULL when neither the manifest nor a record names it */
    size_t *needs;          /* indices of the invocations it needs */
    size_t nneeds;
    int world;              /* its ranks (the manifest's), 1 when unknown */
    uint64_t profile_interval_ms; /* the manifest's; 0 when not profiled or unknown */
    char *dir;              /* STORE/RUN/ID */
    pipe_step_record *rec;  /* NULL: not run (or no step.yaml yet) */
    char *rec_error;        /* why step.yaml could not be read, or NULL */
    pipe_metrics metrics;   /* its metrics.csv; for a cached one, the original's */
    char *metrics_from;     /* "RUN/ID" when the metrics are a cached invocation's original ones */
    pipe_profile profile;
    bool running;           /* no record yet, a log, and the run is running */
    char *log_tail;         /* the last lines of log, or NULL */
    size_t log_lines;       /* how many lines the whole log has */
} pipe_view_invocation;

typedef struct pipe_run_view {
    char *store, *run_id, *run_dir;
    pipe_run_info *info;
    pipe_run_state state;
    double duration_s; /* started to finished (or now, while running); NaN when unknown */
    pipe_view_invocation *inv;
    size_t n;
    bool from_manifest; /* the invocations are the manifest's (the run is of this pipeline) */
    long root_cause;    /* the invocation that failed first, -1 when none did */
} pipe_run_view;

/* Loads run_id (an exact id; see run_ref.h) from store. m is this
   executable's manifest: when the run is of its pipeline, its invocations
   (also those not run) and edges are used; otherwise the folders that hold
   a step.yaml, with edges from the inputs' paths. PIPE_ENOENT, PIPE_EFORMAT
   (run.yaml), PIPE_ENOMEM with the message in err. */
int pipe_run_view_load(const char *store, const char *run_id, const pipe_manifest *m, unsigned what,
                       pipe_run_view **out, char *err, size_t errsize);
void pipe_run_view_free(pipe_run_view *v);

/* Index of an invocation by id, -1 when absent. */
long pipe_run_view_find(const pipe_run_view *v, const char *id);
/* "done", "cached", "failed", "running", "unreadable" or "not run". */
const char *pipe_view_status(const pipe_view_invocation *inv);
/* The invocation an input came from, by its path (STORE/RUN/ID/outputs/NAME):
   the index, -1 when it is not one of this run's. */
long pipe_run_view_producer(const pipe_run_view *v, const char *path, const char **output);
/* Bytes of a file, or of everything in a folder; -1 when it is missing. */
long long pipe_path_size(const char *path);
/* "2026-11-22T10:15:00.123Z" to seconds since the epoch; -1 when malformed. */
double pipe_parse_iso8601(const char *s);

#endif
