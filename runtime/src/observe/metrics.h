/* metrics.csv: the one writer and the one reader of an invocation's
   metrics (docs/runtime.md, "Metrics"). Private to the runtime.

     name,step,value,time_s
     loss,0,2.3026,0.412
     loss,1,1.8145,0.815

   pipe_metric and pipe_metric_at (api.c) write through a writer; so does
   whatever turns a command step's PIPE_METRICS lines into metrics: one
   writer per process, so that the step indices of a name stay one sequence.
   Readers: the supervisor (the last value of each name, for step.yaml),
   `show` and the report. */
#ifndef PIPE_METRICS_H
#define PIPE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PIPE_METRICS_HEADER "name,step,value,time_s"
/* The longest metric name, in bytes. */
#define PIPE_METRIC_NAME_MAX 200

/* 0 for a usable name: non-empty, at most PIPE_METRIC_NAME_MAX bytes, no
   comma, quote, control byte or space at either end (it is a CSV field
   and the name of a chart); else PIPE_EINVAL with the reason in err. */
int pipe_metric_name_check(const char *name, char *err, size_t errsize);

typedef struct pipe_metric_index {
    char *name;
    int64_t next; /* the step a value without one gets */
} pipe_metric_index;

typedef struct pipe_metrics_writer {
    char *path;
    FILE *file;   /* opened on the first record */
    double t0;    /* pipe_now() at the invocation's start: time_s counts from it */
    pipe_metric_index *names;
    size_t nnames, cap;
} pipe_metrics_writer;

/* path is copied; nothing is opened until the first record. */
int pipe_metrics_writer_init(pipe_metrics_writer *w, const char *path, double t0);
/* Appends one row. step < 0: the name's next index (0 for a new name, else
   one past the last index given for it); time_s < 0: now, from t0. The file
   gets its header row when it is empty. Each row is flushed. PIPE_EINVAL for
   a bad name (the message names it), PIPE_EIO naming the file. */
int pipe_metrics_writer_record(pipe_metrics_writer *w, const char *name, int64_t step, double value, double time_s,
                               char *err, size_t errsize);
void pipe_metrics_writer_close(pipe_metrics_writer *w);

/* ---- reading ---- */

typedef struct pipe_metric_point {
    int64_t step;
    double value; /* may be NaN or infinite: a diverged loss is recorded as it was */
    double time_s;
} pipe_metric_point;

typedef struct pipe_metric_series {
    char *name;
    pipe_metric_point *points; /* in the order written */
    size_t n, cap;
} pipe_metric_series;

/* How many skipped rows a reader keeps the line of (to name them). */
#define PIPE_METRICS_SKIPPED_SHOWN 5

typedef struct pipe_metrics_skip {
    size_t line;     /* 1 for the file's first line */
    const char *why; /* a static string: "the step is not ..." */
} pipe_metrics_skip;

typedef struct pipe_metrics {
    pipe_metric_series *series; /* in the order each name first appears; each name once */
    size_t n, cap;
    size_t *slots, nslots; /* the names hashed: index + 1, 0 for none (a file of a million names) */
    size_t skipped; /* rows that did not parse */
    pipe_metrics_skip skips[PIPE_METRICS_SKIPPED_SHOWN]; /* the first of them */
} pipe_metrics;

/* Reads metrics.csv: the header row name,step,value,time_s; the older
   time_s,name,value files are read too (a step is then each name's row
   count). Rows that do not parse are counted and left out, the first
   few kept by line and reason (pipe_metrics_warn). Any step from 0 to
   INT64_MAX and any double (subnormal, +-1e308, nan, inf) reads back as
   written. PIPE_ENOENT when there is no file; PIPE_EIO, PIPE_ENOMEM. */
int pipe_metrics_read(const char *path, pipe_metrics *out, char *err, size_t errsize);
/* The same, from text in memory. */
int pipe_metrics_parse(const char *text, pipe_metrics *out);
/* Calls say(arg, line) for each skipped row kept, then for the rest as one
   line ("and N more"): "PATH line N skipped (WHY)". */
void pipe_metrics_warn(const pipe_metrics *m, const char *path, void (*say)(void *arg, const char *line),
                       void *arg);
/* The series of a name, NULL when absent (hashed: constant time). */
const pipe_metric_series *pipe_metrics_find(const pipe_metrics *m, const char *name);
void pipe_metrics_free(pipe_metrics *m);

#endif
