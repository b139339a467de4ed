/* What the run's report (report.c) and the comparison of runs
   (report_compare.c) share: the style sheet, the series colours, a
   metric's points in step order and writing the page. Private to the
   runtime. */
#ifndef PIPE_REPORT_PAGE_H
#define PIPE_REPORT_PAGE_H

#include <stddef.h>

#include "observe/metrics.h"

extern const char pipe_report_css[];
/* Series colours; the first few are told apart by people with the common
   colour-vision deficiencies. */
extern const char *const pipe_report_palette[];
#define PIPE_REPORT_PALETTE_N 6

/* The points of a series as arrays (malloc'ed), in step order (the order
   written when steps repeat); PIPE_ENOMEM. */
int pipe_report_metric_arrays(const pipe_metric_series *s, double **x, double **y);

/* Writes the page to path (`-` standard output) atomically; -1 after
   printing the error. */
int pipe_report_write(const char *path, const char *text, size_t len);

#endif
