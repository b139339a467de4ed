/* What the executable tells the person who started it: "error: ..." and
   "warning: ..." lines on stderr, and its exit statuses. The commands
   (cmd/), the run (exec/), the sweep and the report all speak so; the
   options themselves are parsed in cmd/ (cmd/cliopt.h). Private to the
   runtime. */
#ifndef PIPE_CLI_H
#define PIPE_CLI_H

/* Exit statuses shared by every command (a run stopped by a signal: 128 +
   the signal). */
enum { PIPE_EXIT_OK = 0, PIPE_EXIT_FAILED = 1, PIPE_EXIT_USAGE = 2 };

/* "error: ..." and "warning: ..." on stderr. */
void pipe_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pipe_cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
