/* The bound on an invocation's log (log_cap.h). */
#include "log_cap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/util.h"

enum { CHUNK = 64 << 10 };

int pipe_log_cap_init(pipe_log_cap *c, const char *log_path, char *err, size_t errsize)
{
    memset(c, 0, sizeof *c);
    c->ring_fd = -1;
    c->max = PIPE_LOG_MAX_DEFAULT;
    const char *env = getenv("PIPE_LOG_MAX_SIZE");
    if (env && *env && pipe_parse_size(env, strlen(env), PIPE_SIZE_BYTES, &c->max) != PIPE_UNIT_OK) {
        pipe_errf(err, errsize, "PIPE_LOG_MAX_SIZE: `%s` is not a size in bytes (or with a unit: 100MiB; 0: no bound)",
                  env);
        return PIPE_EUSAGE;
    }
    if (c->max > 0 && c->max < PIPE_LOG_MAX_MIN)
        c->max = PIPE_LOG_MAX_MIN;
    c->head_max = c->max / 2;
    c->ring_size = c->max - c->head_max;
    const char *slash = strrchr(log_path, '/');
    c->ring_path = slash ? pipe_asprintf("%.*s/.%s.tail", (int)(slash - log_path), log_path, slash + 1)
                         : pipe_asprintf(".%s.tail", log_path);
    return c->ring_path ? 0 : PIPE_ENOMEM;
}

/* All n bytes at off, or at the file's position (appending) when off is
   AT_POSITION. 0 or the errno. */
#define AT_POSITION UINT64_MAX
static int put_all(int fd, const char *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t w = off == AT_POSITION ? write(fd, p, n) : pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
        if (off != AT_POSITION)
            off += (uint64_t)w;
    }
    return 0;
}

int pipe_log_cap_write(pipe_log_cap *c, int fd, const char *line, size_t n, const char **path)
{
    *path = NULL;
    if (c->ring_fd < 0 && (c->max == 0 || c->head + n <= c->head_max)) {
        int rc = put_all(fd, line, n, AT_POSITION);
        if (rc == 0) {
            c->head += n;
            c->head_lines++;
        }
        return rc;
    }
    if (c->ring_fd < 0 &&
        (c->ring_fd = open(c->ring_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        *path = c->ring_path;
        return errno;
    }
    if (n > c->ring_size) { /* cannot be: a line is far shorter than PIPE_LOG_MAX_MIN / 2 */
        line += n - c->ring_size;
        n = (size_t)c->ring_size;
    }
    uint64_t off = c->ring_total % c->ring_size;
    size_t first = n < c->ring_size - off ? n : (size_t)(c->ring_size - off);
    int rc = put_all(c->ring_fd, line, first, off);
    if (rc == 0)
        rc = put_all(c->ring_fd, line + first, n - first, 0);
    if (rc != 0) {
        *path = c->ring_path;
        return rc;
    }
    c->ring_total += n;
    c->ring_lines++;
    return 0;
}

uint64_t pipe_log_cap_offset(const pipe_log_cap *c) { return c->head + c->ring_total; }

/* What the ring holds, oldest first: its length, and where it begins in
   the file. */
static uint64_t ring_kept(const pipe_log_cap *c, uint64_t *begin)
{
    *begin = c->ring_total > c->ring_size ? c->ring_total % c->ring_size : 0;
    return c->ring_total < c->ring_size ? c->ring_total : c->ring_size;
}

/* n bytes of the ring's content from at (0: its oldest byte) into buf. */
static int ring_read(const pipe_log_cap *c, uint64_t at, char *buf, size_t n)
{
    uint64_t begin;
    ring_kept(c, &begin);
    while (n > 0) {
        uint64_t pos = (begin + at) % c->ring_size;
        size_t take = n < c->ring_size - pos ? n : (size_t)(c->ring_size - pos);
        ssize_t r = pread(c->ring_fd, buf, take, (off_t)pos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        buf += r;
        n -= (size_t)r;
        at += (uint64_t)r;
    }
    return 0;
}

int pipe_log_cap_tail(const pipe_log_cap *c, const char *log_path, size_t max, char **text, size_t *len,
                      uint64_t *start)
{
    *text = NULL;
    *len = 0;
    if (c->ring_fd < 0) {
        if (pipe_read_file_tail(log_path, max, text, len, NULL, 0) != 0)
            return -1;
        *start = c->head > *len ? c->head - *len : 0;
        return 0;
    }
    uint64_t begin, kept = ring_kept(c, &begin);
    size_t k = kept < max ? (size_t)kept : max;
    if (!(*text = malloc(k + 1)))
        return -1;
    if (ring_read(c, kept - k, *text, k) != 0) {
        free(*text);
        *text = NULL;
        return -1;
    }
    (*text)[k] = '\0';
    *len = k;
    *start = c->head + (c->ring_total - k);
    return 0;
}

/* "312.4 MiB" */
static void human(uint64_t n, char *buf, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(buf, size, "%llu bytes", (unsigned long long)n);
        return;
    }
    double v = (double)n / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.1f %s", v, units[u]);
}

int pipe_log_cap_finish(pipe_log_cap *c, int fd, const char **path)
{
    *path = NULL;
    if (c->ring_fd < 0)
        return 0;
    char *buf = malloc(CHUNK);
    if (!buf)
        return ENOMEM;
    uint64_t begin, kept = ring_kept(c, &begin), skip = 0, kept_lines = 0;
    bool cut = c->ring_total > c->ring_size;
    int rc = 0;
    /* The lines kept: after the first newline when the ring went round
       (its first line lost its start), and how many they are. */
    for (uint64_t at = 0; at < kept && rc == 0;) {
        size_t n = kept - at < CHUNK ? (size_t)(kept - at) : CHUNK;
        if (ring_read(c, at, buf, n) != 0) {
            rc = EIO;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            if (buf[i] != '\n')
                continue;
            if (cut && skip == 0)
                skip = at + i + 1;
            else
                kept_lines++;
        }
        at += n;
    }
    if (rc == 0 && cut) {
        char gone[32], first[32], last[32], line[256];
        uint64_t cut_lines = c->ring_lines - kept_lines;
        human(c->ring_total - (kept - skip), gone, sizeof gone);
        human(c->head, first, sizeof first);
        human(kept - skip, last, sizeof last);
        int n = snprintf(line, sizeof line,
                         "[pipe: %s of output cut here (lines %llu-%llu); "
                         "the log keeps the first %s and the last %s]\n",
                         gone, (unsigned long long)c->head_lines + 1,
                         (unsigned long long)(c->head_lines + cut_lines), first, last);
        rc = put_all(fd, line, (size_t)n, AT_POSITION);
        if (rc == 0)
            c->head += (uint64_t)n;
    }
    for (uint64_t at = skip; at < kept && rc == 0;) {
        size_t n = kept - at < CHUNK ? (size_t)(kept - at) : CHUNK;
        rc = ring_read(c, at, buf, n) != 0 ? EIO : put_all(fd, buf, n, AT_POSITION);
        at += n;
        c->head += n;
    }
    free(buf);
    if (rc != 0) {
        *path = NULL; /* the log */
        return rc;
    }
    close(c->ring_fd);
    c->ring_fd = -1;
    unlink(c->ring_path);
    c->ring_total = c->ring_lines = 0;
    c->max = 0; /* what comes after the end (a last note) goes in as it is */
    return 0;
}

void pipe_log_cap_free(pipe_log_cap *c)
{
    if (c->ring_fd >= 0) {
        close(c->ring_fd);
        unlink(c->ring_path);
    }
    c->ring_fd = -1;
    free(c->ring_path);
    c->ring_path = NULL;
}
