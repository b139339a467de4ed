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

/* The largest inputs read whole (docs/reliability.md, "Limits"): a bad
   file gets a clear error, not all of memory. */
#define PIPE_CONFIG_MAX_BYTES (4u << 20)  /* run --config FILE */
#define PIPE_RECORD_MAX_BYTES (16u << 20) /* run.yaml, step.yaml, a cache entry, a step's error file */
#define PIPE_LOG_TAIL_BYTES (1u << 20)    /* what is read of a log for its last lines */

/* malloc'ed copies; NULL only when memory runs out. */
char *pipe_strdup(const char *s);
char *pipe_strndup(const char *s, size_t n);
char *pipe_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* mkdir -p. 0 or PIPE_EIO with a message naming the directory. */
int pipe_mkdirs(const char *path, char *err, size_t errsize);
/* Temp file + fsync + rename: readers see the old or the new bytes, never a
   mix (the bytes written while the file has no name, where the file system
   allows: a kill leaves a temporary file only between two system calls). */
int pipe_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errsize);
/* The same, fsynced only when durable (a record whose durability a group
   commit sees to: store/commit.h). */
int pipe_write_file_replace(const char *path, const void *data, size_t len, bool durable, char *err, size_t errsize);
/* For a file whose loss or damage in a crash only costs time (a cache
   entry: a look-up checks what it names): no fsync, and written as an
   unnamed file named once whole, so a kill leaves no temporary file (a
   reader may find none while it is replaced). */
int pipe_write_file_hint(const char *path, const void *data, size_t len, char *err, size_t errsize);
bool pipe_file_exists(const char *path);
bool pipe_dir_exists(const char *path);
/* fsync of the file or folder at path, opened with flags (O_RDONLY, or
   O_RDONLY | O_DIRECTORY); 0, or -1 with errno. */
int pipe_fsync_path(const char *path, int flags);

/* Monotonic seconds, and wall-clock time as "2026-11-22T10:15:00.123Z". */
double pipe_now(void);

/* glibc's fast bins off (on: false) or back to its default. A runtime
   process forks children that go on running its code (a supervisor per
   invocation, a rank per process); with fast bins, a child's first larger
   malloc merges every freed small chunk it inherited, writing to pages all
   over the heap, each then copied (a fifth of a step's page faults).
   A rank turns them back on before the step's own code runs. */
void pipe_malloc_fast_bins(bool on);
void pipe_iso8601(char *buf, size_t size);

/* Sleeps ms milliseconds, resuming after signals. */
void pipe_sleep_ms(uint64_t ms);

/* How many more descriptors this process may open (RLIMIT_NOFILE less the
   ones open now, from /proc/self/fd), keeping reserve spare; SIZE_MAX
   when unlimited. */
size_t pipe_descriptors_left(size_t reserve);

#endif
