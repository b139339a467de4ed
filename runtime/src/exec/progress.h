/* What a local run prints while it goes: one line per state change of an
   invocation (ids aligned), the lines its supervisor echoes, a status line
   redrawn every 0.5 s on a terminal (a "still running" line every 30 s
   elsewhere), and the summary. Private to the runtime. */
#ifndef PIPE_PROGRESS_H
#define PIPE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store/stepfile.h"

typedef enum {
    PIPE_PS_QUEUED,
    PIPE_PS_STARTING, /* started, not shown: it may turn out cached */
    PIPE_PS_RUNNING,
    PIPE_PS_DONE,
    PIPE_PS_CACHED,
    PIPE_PS_FAILED,
    PIPE_PS_SKIPPED,
    PIPE_PS_INTERRUPTED
} pipe_pstate;

typedef struct pipe_progress_item {
    const char *id;
    pipe_pstate state;
    double started, finished; /* pipe_now(); 0 when not yet */
    char *detail;             /* "(exit 3)", "needs x, which failed" */
    char *cause;              /* a failure's root cause, for the summary */
    char *log;                /* where its log is, shown with the cause */
    const pipe_step_metric *metrics; /* borrowed from the step record */
    size_t nmetrics;
} pipe_progress_item;

typedef struct pipe_progress {
    FILE *out;
    bool tty;
    int width;              /* the widest id */
    pipe_progress_item *items;
    size_t n;
    double run_started;
    double last_draw;       /* tty: when the status line was drawn */
    double last_still;      /* no tty: when "still running" was printed */
    double still_interval;  /* seconds; PIPE_PROGRESS_INTERVAL or 30 */
    bool status_shown;      /* tty: a status line is on screen */
} pipe_progress;

/* ids: the invocations, in manifest order (borrowed). tty: whether out is a
   terminal. */
int pipe_progress_init(pipe_progress *p, FILE *out, bool tty, const char *const *ids, size_t n);
void pipe_progress_free(pipe_progress *p);

/* Prints "  ID  queued" for every invocation. */
void pipe_progress_start(pipe_progress *p);
/* A state change; detail (copied, may be NULL) follows the state word.
   PIPE_PS_STARTING is recorded and not printed. */
void pipe_progress_set(pipe_progress *p, size_t i, pipe_pstate state, const char *detail);
/* A failed invocation's root cause (several lines: the first says it all,
   the others are a log tail) and its log's path, printed once, in the
   summary (copied; either may be NULL). */
void pipe_progress_cause(pipe_progress *p, size_t i, const char *cause, const char *log);
/* The final metrics of an invocation for the summary (borrowed). */
void pipe_progress_metrics(pipe_progress *p, size_t i, const pipe_step_metric *metrics, size_t n);
/* A line of text (an echoed log line, a notice): the status line is cleared first. */
void pipe_progress_line(pipe_progress *p, const char *text, size_t len);
/* Call often: redraws the status line or prints "still running". */
void pipe_progress_tick(pipe_progress *p);
/* Seconds until the next tick has something to do. */
double pipe_progress_next_tick(const pipe_progress *p);
/* Counts, wall time, each invocation's status and duration, metrics, and
   the exit status. */
void pipe_progress_summary(pipe_progress *p, const char *run_id, const char *run_dir, int exit_status);

const char *pipe_pstate_name(pipe_pstate s);

#endif
