/* The invocation's log (supervisor_parts.h): the supervisor's own lines and
   its ranks' lines go into `log` (with --echo also to stderr), within its
   bound (log_cap.h), and the failure summary reads a rank's last lines back
   by their "[rank N] " tag. A write that fails (a full disk) stops the
   writing and fails the step, naming the disk and the file. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle_inputs.h"
#include "step.h"
#include "store/reserve.h"
#include "supervisor_parts.h"
#include "util/cli.h"
#include "util/util.h"

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Into the log, until a write fails. */
static void to_log(pipe_step_log *log, const char *line, size_t n)
{
    if (log->fd < 0 || log->io_errno)
        return;
    const char *path;
    int rc = pipe_log_cap_write(&log->cap, log->fd, line, n, &path);
    if (rc != 0) {
        log->io_errno = rc;
        log->io_path = pipe_strdup(path ? path : log->path);
    }
}

static void emit(pipe_step_log *log, const char *line, size_t n, bool echo)
{
    to_log(log, line, n);
    if (echo && log->echo) {
        char *p = pipe_asprintf("[%s] %.*s", log->id, (int)n, line);
        if (p) {
            write_all(STDERR_FILENO, p, strlen(p));
            free(p);
        }
    }
}

void pipe_supervisor_emit(pipe_step_log *log, const char *line, size_t n) { emit(log, line, n, true); }

/* Whether needle occurs in the first n bytes of p. */
static bool contains(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, needle, k) == 0)
            return true;
    return false;
}

void pipe_supervisor_emit_rank(pipe_step_log *log, int rank, const char *line, size_t n)
{
    /* A traceback or a compiler's error names the user's file, not the
       bundle's copy of it. */
    char *mapped = log->command ? pipe_bundle_map_line(log->bundle, line, n) : NULL;
    if (mapped) {
        char *bundle = log->bundle;
        log->bundle = NULL;
        pipe_supervisor_emit_rank(log, rank, mapped, strlen(mapped));
        log->bundle = bundle;
        free(mapped);
        return;
    }
    size_t head = n < 48 ? n : 48;
    /* A program's lines carry their rank always, so that a failure can
       show the last ones; pipe_log's name theirs already. */
    if ((log->world <= 1 && !log->command) || contains(line, head, "[rank ")) {
        pipe_supervisor_emit(log, line, n);
        return;
    }
    char *p = pipe_asprintf("[rank %d] %.*s", rank, (int)n, line);
    if (p) {
        pipe_supervisor_emit(log, p, strlen(p));
        free(p);
    }
}

static void vnote(pipe_step_log *log, bool echo, const char *fmt, va_list ap)
{
    char msg[2048], stamp[40];
    vsnprintf(msg, sizeof msg, fmt, ap);
    pipe_iso8601(stamp, sizeof stamp);
    char *line = pipe_asprintf("%s [pipe] %s\n", stamp, msg);
    if (line) {
        emit(log, line, strlen(line), echo);
        free(line);
    }
}

void pipe_supervisor_note(pipe_step_log *log, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(log, true, fmt, ap);
    va_end(ap);
}

void pipe_supervisor_note_log_only(pipe_step_log *log, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(log, false, fmt, ap);
    va_end(ap);
}

void pipe_supervisor_tell_runner(const pipe_step_log *log, const char *state, const char *detail)
{
    if (!log->echo)
        return;
    /* One line whatever the detail holds. */
    char line[1024];
    if (detail && !*detail)
        detail = NULL;
    int n = snprintf(line, sizeof line, "%s%s%s%.*s\n", PIPE_RUNNER_STATE_PREFIX, state, detail ? " " : "",
                     detail ? (int)strcspn(detail, "\n") : 0, detail ? detail : "");
    if (n > 0 && (size_t)n >= sizeof line) {
        line[sizeof line - 2] = '\n';
        n = (int)sizeof line - 1;
    }
    if (n > 0)
        write_all(STDERR_FILENO, line, (size_t)n);
}

void pipe_supervisor_report(const pipe_step_log *log, const char *msg)
{
    if (log->echo && log->id)
        fprintf(stderr, "[%s] error: %s\n", log->id, msg);
    else
        fprintf(stderr, "error: %s\n", msg);
}

char *pipe_supervisor_log_tail(const pipe_step_log *log, int rank)
{
    enum { TAIL_LINES = 8 };
    char *text = NULL;
    size_t size = 0;
    uint64_t tail_start;
    if (pipe_log_cap_tail(&log->cap, log->path, PIPE_LOG_TAIL_BYTES, &text, &size, &tail_start) != 0)
        return NULL;
    /* This attempt's lines only: the tail read starts at tail_start in the log. */
    size_t from = 0;
    if (log->attempt_start > 0 && (uint64_t)log->attempt_start > tail_start)
        from = (size_t)((uint64_t)log->attempt_start - tail_start);
    if (from > size)
        from = size;
    char tag[32];
    snprintf(tag, sizeof tag, "[rank %d] ", rank);
    const char *lines[TAIL_LINES];
    size_t lens[TAIL_LINES], n = 0;
    for (char *p = text + from; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        /* One rank of several: its tagged lines; a one-rank step: all but
           the supervisor's own. */
        bool mine = log->world > 1 ? contains(p, len, tag) : !contains(p, len, " [pipe] ");
        if (mine && len > 0) {
            lines[n % TAIL_LINES] = p;
            lens[n % TAIL_LINES] = len;
            n++;
        }
        p += len + (nl ? 1 : 0);
    }
    char *out = NULL;
    if (n > 0) {
        size_t first = n > TAIL_LINES ? n - TAIL_LINES : 0, total = 0;
        for (size_t i = first; i < n; i++)
            total += lens[i % TAIL_LINES] + 5;
        out = malloc(total + 1);
        if (out) {
            size_t o = 0;
            for (size_t i = first; i < n; i++) {
                o += (size_t)sprintf(out + o, "    %.*s\n", (int)lens[i % TAIL_LINES], lines[i % TAIL_LINES]);
            }
            while (o > 0 && out[o - 1] == '\n')
                out[--o] = '\0';
        }
    }
    free(text);
    return out;
}


long long pipe_supervisor_log_offset(const pipe_step_log *log) { return (long long)pipe_log_cap_offset(&log->cap); }

char *pipe_supervisor_log_failure(const pipe_step_ident *id, const pipe_step_log *log)
{
    if (!log->io_errno)
        return NULL;
    char *why = pipe_disk_error(log->io_path ? log->io_path : log->path, log->io_errno);
    char *msg = why ? pipe_asprintf("step %s: %s", id->ms->name, why) : NULL;
    free(why);
    return msg ? msg : pipe_strdup("out of memory");
}

void pipe_supervisor_log_finish(pipe_step_log *log)
{
    if (log->fd < 0 || log->io_errno)
        return;
    const char *path;
    int rc = pipe_log_cap_finish(&log->cap, log->fd, &path);
    if (rc != 0) {
        log->io_errno = rc;
        log->io_path = pipe_strdup(path ? path : log->path);
    }
}
