/* An invocation's metrics.csv (private): the one writer behind pipe_metric
   (a native step's rank 0) and a command step's PIPE_METRICS lines (read by
   its supervisor), so both record metrics alike (docs/runtime.md). */
#ifndef PIPE_METRICS_H
#define PIPE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pipe_metrics_file {
    const char *path; /* DIR/metrics.csv (not owned) */
    FILE *f;          /* opened for appending on the first record */
    double started;   /* pipe_now() that the records' times count from */
} pipe_metrics_file;

/* Non-empty, at most 200 bytes, no comma, quote, CR or LF. */
bool pipe_metric_name_ok(const char *name);

/* Appends one value of name, flushed at once. step is the caller's index
   for it, or -1 for the next one after the name's last; the file keeps it
   where its format has room. PIPE_EIO naming the file. */
int pipe_metrics_record(pipe_metrics_file *mf, const char *name, int64_t step, double value, char *err,
                        size_t errsize);
void pipe_metrics_close(pipe_metrics_file *mf);

#endif
