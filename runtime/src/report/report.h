/* The HTML report (docs/report.md): one run as a self-contained page
   (report.c), or several side by side (report_compare.c). Private to the
   runtime. */
#ifndef PIPE_REPORT_H
#define PIPE_REPORT_H

#include <stddef.h>

#include "view/run_view.h"

/* The runs one comparison takes at most. */
#define PIPE_REPORT_COMPARE_MAX 8

/* v, loaded with its metrics, profiles and logs, as one page written to
   path (`-`: standard output; NULL: RUN_DIR/report.html) atomically, and
   a line saying where. Returns the exit status: 0; 1 when the file could
   not be written, 2 out of memory (each said on stderr). */
int pipe_report_write(const pipe_run_view *v, const char *path);
/* The n views (2 to PIPE_REPORT_COMPARE_MAX, loaded with their metrics) on
   one page comparing them, written to path (NULL:
   STORE/compare-ID1-ID2....html). Returns the exit status. */
int pipe_report_compare_write(const pipe_run_view *const *views, size_t n, const char *path);

#endif
