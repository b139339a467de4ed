/* A log printed in bounded memory (`logs`, docs/runtime.md): read and
   written in chunks, never whole, with --rank's filter on its lines; and
   followed, as `tail -f` does, while its invocation runs. Private to the
   runtime. */
#ifndef PIPE_LOG_STREAM_H
#define PIPE_LOG_STREAM_H

#include <stdbool.h>

/* Which lines are printed: every one (rank < 0), or rank's of a world of
   ranks (the "[rank N] " tags of step/supervisor_log.c). */
typedef struct pipe_log_filter {
    long rank;
    int world;
} pipe_log_filter;

/* The file at path onto stdout. 0; or -1 after printing why it cannot be
   read. */
int pipe_log_stream(const char *path, const pipe_log_filter *f);
/* The log at path onto stdout as it grows, while the invocation whose lock
   is lock_path runs (someone holds it), then the rest. A log that is not
   there yet is waited for while the run's lock (run_lock_path) is held.
   0; 1 when there never was a log; 130 after SIGINT (nothing printed
   about it); -1 after printing why. */
int pipe_log_follow(const char *path, const char *lock_path, const char *run_lock_path, const pipe_log_filter *f);

#endif
