/* A log printed in bounded memory, and followed (log_stream.h). */
#include "log_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/cli.h"

enum {
    CHUNK = 64 << 10,   /* read at a time */
    KEPT = 64 << 10,    /* of a line, to decide whose it is; the rest passes as that start went */
    POLL_MS = 200,      /* --follow: how often the log and the lock are looked at */
};

/* Whether a log line is rank's: tagged "[rank N] "; in a one-rank world an
   untagged line that is not the supervisor's "[pipe]" is rank 0's too. */
static bool rank_line(const char *line, size_t len, long rank, int world)
{
    char tag[32];
    int n = snprintf(tag, sizeof tag, "[rank %ld] ", rank);
    for (size_t i = 0; i + (size_t)n <= len; i++)
        if (memcmp(line + i, tag, (size_t)n) == 0)
            return true;
    if (world > 1 || rank != 0)
        return false;
    for (size_t i = 0; i + 7 <= len; i++)
        if (memcmp(line + i, "[pipe] ", 7) == 0 || memcmp(line + i, "[rank ", 6) == 0)
            return false;
    return true;
}

/* What is read, onto stdout, line by line when filtered. */
typedef struct streamer {
    const pipe_log_filter *f;
    char *buf;      /* CHUNK for reading */
    char *line;     /* KEPT: the line being read */
    size_t len;
    int rest;       /* of a line longer than KEPT: 1 print its rest, -1 skip it, 0 none */
    char last;      /* the last byte printed (unfiltered) */
} streamer;

static int out(const char *p, size_t n) { return n == 0 || fwrite(p, 1, n, stdout) == n ? 0 : -1; }

static int feed(streamer *s, const char *p, size_t n)
{
    if (s->f->rank < 0) {
        if (n > 0)
            s->last = p[n - 1];
        return out(p, n);
    }
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) + 1 : n;
        if (s->rest) {
            if (s->rest > 0 && out(p, take) != 0)
                return -1;
            if (nl)
                s->rest = 0;
        } else if (s->len + take > KEPT) {
            size_t fit = KEPT - s->len;
            memcpy(s->line + s->len, p, fit);
            bool mine = rank_line(s->line, KEPT, s->f->rank, s->f->world);
            if (mine && out(s->line, KEPT) != 0)
                return -1;
            s->len = 0;
            s->rest = mine ? 1 : -1;
            take = fit;
        } else {
            memcpy(s->line + s->len, p, take);
            s->len += take;
            if (nl) {
                if (rank_line(s->line, s->len - 1, s->f->rank, s->f->world) && out(s->line, s->len) != 0)
                    return -1;
                s->len = 0;
            }
        }
        p += take;
        n -= take;
    }
    return 0;
}

/* The end of the file: a last line without its newline gets one. */
static int feed_end(streamer *s)
{
    int rc = 0;
    if (s->f->rank < 0) {
        if (s->last != '\0' && s->last != '\n')
            rc = out("\n", 1);
    } else if (s->rest > 0) {
        rc = out("\n", 1);
    } else if (s->len > 0 && rank_line(s->line, s->len, s->f->rank, s->f->world)) {
        rc = out(s->line, s->len) == 0 ? out("\n", 1) : -1;
    }
    s->len = 0;
    s->rest = 0;
    s->last = '\0';
    return rc;
}

static int streamer_init(streamer *s, const pipe_log_filter *f)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->buf = malloc(CHUNK);
    s->line = malloc(KEPT);
    return s->buf && s->line ? 0 : -1;
}

static void streamer_free(streamer *s)
{
    free(s->buf);
    free(s->line);
}

/* What fd holds from where it is to its end. 0; -1 when it cannot be
   read (errno) or printed (errno 0). */
static int drain(int fd, streamer *s)
{
    for (;;) {
        ssize_t n = read(fd, s->buf, CHUNK);
        if (n < 0 && errno == EINTR)
            return -1;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        if (feed(s, s->buf, (size_t)n) != 0) {
            errno = 0;
            return -1;
        }
    }
}

int pipe_log_stream(const char *path, const pipe_log_filter *f)
{
    streamer s;
    if (streamer_init(&s, f) != 0) {
        streamer_free(&s);
        pipe_cli_error("out of memory");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 ? -1 : drain(fd, &s);
    int saved = errno;
    if (rc == 0)
        rc = feed_end(&s);
    if (fd >= 0)
        close(fd);
    streamer_free(&s);
    if (rc != 0 && saved != 0)
        pipe_cli_error("cannot read %s: %s", path, strerror(saved));
    return rc;
}

/* Whether someone holds the lock at path (flock, run_lock.h). */
static bool lock_held(const char *path)
{
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* lets go of the shared lock, if it was taken */
    return held;
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

int pipe_log_follow(const char *path, const char *lock_path, const char *run_lock_path, const pipe_log_filter *f)
{
    streamer s;
    if (streamer_init(&s, f) != 0) {
        streamer_free(&s);
        pipe_cli_error("out of memory");
        return -1;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint; /* no SA_RESTART: a read, a write or the nap ends at once */
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    int fd = -1, rc = 0;
    off_t at = 0;
    for (;;) {
        /* Looked at before the log is read: once the holder let go, all it
           wrote is there, and this read is the last. */
        bool live = lock_held(lock_path);
        bool waiting = !live && fd < 0 && lock_held(run_lock_path);
        if (fd < 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno != ENOENT) {
            pipe_cli_error("cannot read %s: %s", path, strerror(errno));
            rc = -1;
            break;
        }
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size < at) /* a new execution began it again */
            at = lseek(fd, 0, SEEK_SET);
        if (fd >= 0 && drain(fd, &s) != 0) {
            if (!interrupted && errno != 0)
                pipe_cli_error("cannot read %s: %s", path, strerror(errno));
            rc = interrupted ? 130 : -1;
            break;
        }
        if (fd >= 0)
            at = lseek(fd, 0, SEEK_CUR);
        fflush(stdout);
        if (interrupted) {
            rc = 130;
            break;
        }
        if (!live && !waiting) {
            rc = fd >= 0 ? feed_end(&s) : 1;
            break;
        }
        struct timespec nap = {0, POLL_MS * 1000000L};
        nanosleep(&nap, NULL);
    }
    fflush(stdout);
    if (fd >= 0)
        close(fd);
    sigaction(SIGINT, &old, NULL);
    streamer_free(&s);
    return rc;
}
