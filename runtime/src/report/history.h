/* The history kept in the artifact store as `runs` and `show` print it
   (history.c: text; history_json.c: --json; history_summary.c: what both
   and the report summarize). Private to the runtime. */
#ifndef PIPE_HISTORY_H
#define PIPE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/manifest.h"
#include "util/textbuf.h"
#include "view/run_ref.h"
#include "view/run_view.h"

/* The --metric columns of `runs`, at most. */
#define PIPE_RUNS_METRICS_MAX 8

/* `runs`: every run of store, newest first, onto stdout: id, pipeline,
   status, start, duration and a column per metric (the last value of the
   last invocation that recorded it); or the same as JSON. m is this
   executable's manifest (a run of its pipeline is read with its graph).
   Returns the exit status: 0, or 2 after printing the error. */
int pipe_runs_print(const char *store, const pipe_manifest *m, const char *const *metrics, size_t nmetrics, bool json);
/* `show`: one run onto stdout, invocation by invocation, with the root
   cause of a failure; or the same as JSON. Returns the exit status. */
int pipe_show_print(const pipe_run_view *v, bool json);

/* `runs --json` and `show --json` (docs/runtime.md, "JSON output"). */
/* `runs --json`; with --metric names (nmetrics > 0) each run carries
   "metrics": {NAME: {"value": V, "invocation": ID, "invocations": N} or null}. */
void pipe_runs_json(pipe_textbuf *b, const char *store, const pipe_run_entry *runs, size_t n,
                    const pipe_manifest *m, const char *const *metrics, size_t nmetrics);
void pipe_show_json(pipe_textbuf *b, const pipe_run_view *v);

/* Summaries shared by the text, the JSON and the report. */
typedef struct pipe_metric_summary {
    size_t points;       /* rows */
    double last, min, max; /* over the finite values; NaN when none */
    long long first_step, last_step;
} pipe_metric_summary;
void pipe_metric_summarize(const pipe_metric_series *s, pipe_metric_summary *out);

/* A run's value of a metric for `runs --metric NAME`: the last value
   (step.yaml's) of the invocation that comes last in the run's order among
   those that recorded NAME. 0 with *value, *invocation (within v) and
   *count (how many invocations recorded it); -1 when none did. */
int pipe_run_metric_value(const pipe_run_view *v, const char *name, double *value, const char **invocation,
                          size_t *count);

/* An artifact's size for people ("1.2 MiB"), or "missing" when PATH is NULL or gone. */
void pipe_artifact_size_text(const char *path, char *buf, size_t size);

#endif
