/* `report RUN1 RUN2 ...`: several runs side by side on one page
   (report_compare.c; docs/report.md, "Comparing runs"). Private to the
   runtime. */
#ifndef PIPE_REPORT_COMPARE_H
#define PIPE_REPORT_COMPARE_H

#include "cmd/run_cmd.h"
#include "pipe/manifest.h"

/* Loads the runs a->positional[] name (two or more) and writes the page to
   a->output, else STORE/compare-ID1-ID2....html. Returns the exit status. */
int pipe_report_compare(const pipe_manifest *m, const pipe_run_args *a);

#endif
