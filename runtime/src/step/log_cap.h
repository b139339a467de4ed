/* The bound on an invocation's log (docs/runtime.md, "Logs"): at most
   PIPE_LOG_MAX_SIZE bytes (100 MiB by default; 0: no bound). The first half
   goes into the log as it comes; once it is full, the rest goes round a
   ring file of the other half beside it (.log.tail), and at the end of the
   invocation the ring's lines are appended to the log after a line that
   says what was cut:

     [pipe: 312.4 MiB of output cut here (lines 10233-981230); the log keeps
     the first 50.0 MiB and the last 50.0 MiB]

   The log only ever grows, so `logs --follow` reads it as it is written. */
#ifndef PIPE_EXEC_LOG_CAP_H
#define PIPE_EXEC_LOG_CAP_H

#include <stddef.h>
#include <stdint.h>

#define PIPE_LOG_MAX_DEFAULT (100u << 20)
#define PIPE_LOG_MAX_MIN (64u << 10) /* smaller values are taken as this: a line fits either half */

typedef struct pipe_log_cap {
    uint64_t max;        /* 0: the log is not bounded */
    uint64_t head_max;   /* the log's first part */
    uint64_t ring_size;  /* its last part */
    uint64_t head;       /* bytes in the log file itself */
    uint64_t head_lines;
    uint64_t ring_total; /* bytes that went round the ring */
    uint64_t ring_lines;
    int ring_fd;         /* -1 until the first part is full */
    char *ring_path;     /* LOG's folder/.LOGNAME.tail */
} pipe_log_cap;

/* The bound for the log at log_path, from PIPE_LOG_MAX_SIZE (bytes, or a
   size with a unit: 512MiB). 0, or PIPE_EUSAGE with why in err (the value
   is not a size); PIPE_ENOMEM. */
int pipe_log_cap_init(pipe_log_cap *c, const char *log_path, char *err, size_t errsize);
/* One line (ending with '\n') into the log (fd, opened O_APPEND) or the
   ring. 0, or the errno of the write that failed, with the path written
   in *path. */
int pipe_log_cap_write(pipe_log_cap *c, int fd, const char *line, size_t n, const char **path);
/* Bytes of the whole stream so far, as if nothing were cut. */
uint64_t pipe_log_cap_offset(const pipe_log_cap *c);
/* The last (at most) max bytes of the stream, malloc'ed and NUL-ended, and
   where they begin in it (pipe_log_cap_offset's count). 0 or -1. */
int pipe_log_cap_tail(const pipe_log_cap *c, const char *log_path, size_t max, char **text, size_t *len,
                      uint64_t *start);
/* The end: the ring's lines, after the line that says what was cut, onto
   the log; the ring file removed. 0, or the errno of the write that failed
   (with *path). */
int pipe_log_cap_finish(pipe_log_cap *c, int fd, const char **path);
/* Closes and frees; the ring file, if pipe_log_cap_finish did not take
   it (a write failed: the disk is full), is removed. */
void pipe_log_cap_free(pipe_log_cap *c);

#endif
