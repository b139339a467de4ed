/* The logs of a run as `logs` prints them (docs/runtime.md, "Logs"):
   each invocation's log, then its other machines' (log.machine-N), read
   and written in pieces (log_stream.h). Private to the runtime. */
#ifndef PIPE_LOGS_H
#define PIPE_LOGS_H

#include <stdbool.h>

#include "view/run_view.h"

/* One invocation's logs onto stdout, only rank's lines when rank >= 0;
   with header, under "==> ID (status) <==". 0, or 1 when it has none (said
   on stderr unless header) or one could not be read. */
int pipe_logs_print(const pipe_view_invocation *inv, long rank, bool header);
/* Every invocation of v that started, one after the other, with headers.
   Returns the exit status (0). */
int pipe_logs_print_all(const pipe_run_view *v, long rank);
/* --follow: machine 0's log while the invocation runs (its step.lock is
   held) or waits to (the run's runner holds run.lock), then the rest.
   Returns the exit status: 0, 1 (no log, or it could not be read), 130
   after SIGINT. */
int pipe_logs_follow(const pipe_run_view *v, const pipe_view_invocation *inv, long rank);

#endif
