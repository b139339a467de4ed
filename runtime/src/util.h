/* Small helpers shared by the runtime's files (private); pipe/base.h has
   those pipec needs too (pipe_errf, pipe_read_file, SHA-256, ...). Library
   code returns errors; it never exits. */
#ifndef PIPE_UTIL_H
#define PIPE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/base.h"

/* malloc'ed copies; NULL only when memory runs out. */
char *pipe_strdup(const char *s);
char *pipe_strndup(const char *s, size_t n);
char *pipe_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* mkdir -p. 0 or PIPE_EIO with a message naming the directory. */
int pipe_mkdirs(const char *path, char *err, size_t errsize);
/* Temp file + fsync + rename: readers see the old or the new bytes, never a mix. */
int pipe_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errsize);
bool pipe_file_exists(const char *path);
bool pipe_dir_exists(const char *path);

/* Monotonic seconds, and wall-clock time as "2026-11-22T10:15:00.123Z". */
double pipe_now(void);
void pipe_iso8601(char *buf, size_t size);

/* Sleeps ms milliseconds, resuming after signals. */
void pipe_sleep_ms(uint64_t ms);

#endif
