/* The run's graph for the report (report.c): invocations as boxes in
   dependency layers, coloured by status, edges as arrows; left to right
   for short pipelines, top to bottom for long ones. In a large run (more
   than 40 invocations, or a layer of more than 10) the invocations of one
   step in one layer are drawn as one box, "shard x198", with the counts of
   their statuses, so that the picture stays readable. Private to the
   runtime. */
#ifndef PIPE_REPORT_GRAPH_H
#define PIPE_REPORT_GRAPH_H

#include "view/run_view.h"
#include "util/textbuf.h"

/* "done", "cached", "failed", "running" or "notrun": the CSS class of a status. */
const char *pipe_report_status_class(const pipe_view_invocation *inv);

/* Appends the graph as <svg>. */
void pipe_report_graph(pipe_textbuf *b, const pipe_run_view *v);

#endif
