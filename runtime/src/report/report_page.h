/* What the run's report (report.c) and the comparison of runs
   (report_compare.c) share: the style sheet, the series colours, a
   metric's points in step order and writing the page. Private to the
   runtime. */
#ifndef PIPE_REPORT_PAGE_H
#define PIPE_REPORT_PAGE_H

#include <stddef.h>

#include "observe/metrics.h"
#include "store/stepfile.h"
#include "util/textbuf.h"

extern const char pipe_report_css[];
/* Series colours; the first few are told apart by people with the common
   colour-vision deficiencies. */
extern const char *const pipe_report_palette[];
#define PIPE_REPORT_PALETTE_N 6

/* Metric charts an invocation gets at most (each is at most ~2 points a
   pixel column): a metrics.csv of a million names makes a page of
   megabytes, not gigabytes. The rest is named by count. */
#define PIPE_REPORT_MAX_CHARTS 500

/* The points of a series as arrays (malloc'ed), in step order (the order
   written when steps repeat); PIPE_ENOMEM. */
int pipe_report_metric_arrays(const pipe_metric_series *s, double **x, double **y);

/* What the status of an invocation's record adds below its badge: `from
   RUN/ID` (cached), `re-run: WHY` (it ran though an earlier success
   existed), the exit status or signal of a failure, the attempts. r may
   be NULL (not run). */
void pipe_report_status_notes(pipe_textbuf *b, const pipe_step_record *r);

/* Writes the page (taken from page, which is left empty) to path (`-`
   standard output; NULL: there was no memory for its name) atomically.
   Returns the exit status: 0; 1 when it could not be written, 2 out of
   memory (each said on stderr). */
int pipe_report_publish(pipe_textbuf *page, const char *path);

#endif
