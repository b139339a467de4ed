#include "rpc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/arena.h"

void rpc_reader_init(rpc_reader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
}

void rpc_reader_free(rpc_reader *r) { free(r->buf); }

/* Reads more bytes; false at end of input. */
static bool fill(rpc_reader *r)
{
    if (r->eof)
        return false;
    if (r->start > 0 && r->start == r->len)
        r->start = r->len = 0;
    if (r->len == r->cap) {
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->len - r->start);
            r->len -= r->start;
            r->start = 0;
        }
        if (r->len == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 65536;
            r->buf = xrealloc(r->buf, r->cap);
        }
    }
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->eof = true;
            return false;
        }
        r->len += (size_t)n;
        return true;
    }
}

/* Drops n unread bytes, reading them first where they have not come yet. */
static bool skip(rpc_reader *r, size_t n)
{
    while (n > 0) {
        if (r->start == r->len && !fill(r))
            return false;
        size_t k = r->len - r->start < n ? r->len - r->start : n;
        r->start += k;
        n -= k;
    }
    return true;
}

static const char *find_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 < n; i++)
        if (s[i] == '\r' && s[i + 1] == '\n' && s[i + 2] == '\r' && s[i + 3] == '\n')
            return s + i;
    return NULL;
}

/* The Content-Length of a header block, or -1 when it has none that reads. */
static long long content_length(const char *h, size_t n)
{
    long long value = -1;
    const char *end = h + n;
    while (h < end) {
        const char *eol = memchr(h, '\n', (size_t)(end - h));
        size_t line = eol ? (size_t)(eol - h) : (size_t)(end - h);
        static const char name[] = "content-length:";
        if (line > sizeof name - 1 && strncasecmp(h, name, sizeof name - 1) == 0) {
            const char *p = h + sizeof name - 1, *e = h + line;
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            long long v = 0;
            const char *digits = p;
            for (; p < e && *p >= '0' && *p <= '9'; p++)
                if (v <= (long long)RPC_MAX_BODY) /* past it only "too large" matters */
                    v = v * 10 + (*p - '0');
            while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
            value = p == e && p > digits ? v : -2;
        }
        h += line + 1;
    }
    return value == -2 ? -1 : value;
}

rpc_status rpc_read(rpc_reader *r, const char **body, size_t *len, char *err, size_t errsize)
{
    const char *blank;
    while (!(blank = r->buf ? find_blank_line(r->buf + r->start, r->len - r->start) : NULL)) {
        if (r->len - r->start > RPC_MAX_HEADER) {
            /* Not a header: drop it, keeping the last bytes in case a real
               header block starts among them. */
            r->start = r->len - 3;
            snprintf(err, errsize, "no header block in the first %d bytes", RPC_MAX_HEADER);
            return RPC_BAD_FRAME;
        }
        if (!fill(r)) {
            if (r->len > r->start) {
                r->start = r->len;
                snprintf(err, errsize, "input ended inside a header block");
                return RPC_BAD_FRAME;
            }
            return RPC_EOF;
        }
    }
    size_t hlen = (size_t)(blank - (r->buf + r->start));
    long long n = content_length(r->buf + r->start, hlen);
    r->start += hlen + 4;
    if (n < 0) {
        snprintf(err, errsize, "a header block without a valid Content-Length");
        return RPC_BAD_FRAME;
    }
    if ((size_t)n > RPC_MAX_BODY) {
        snprintf(err, errsize, "a message of %lld bytes (the limit is %zu MiB)", n, RPC_MAX_BODY >> 20);
        skip(r, (size_t)n);
        return RPC_BAD_FRAME;
    }
    while (r->len - r->start < (size_t)n) {
        if (r->start > 0 && r->cap - r->start < (size_t)n) {
            memmove(r->buf, r->buf + r->start, r->len - r->start);
            r->len -= r->start;
            r->start = 0;
        }
        if (r->cap < (size_t)n + 1) {
            r->cap = (size_t)n + 1;
            r->buf = xrealloc(r->buf, r->cap);
        }
        if (!fill(r)) {
            r->start = r->len;
            snprintf(err, errsize, "input ended inside a message");
            return RPC_BAD_FRAME;
        }
    }
    *body = r->buf + r->start;
    *len = (size_t)n;
    r->start += (size_t)n;
    return RPC_MESSAGE;
}

bool rpc_pending(const rpc_reader *r)
{
    if (r->len > r->start)
        return true;
    if (r->eof)
        return false;
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

static bool write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        s += w;
        n -= (size_t)w;
    }
    return true;
}

bool rpc_write(int fd, const char *body, size_t len)
{
    char head[64];
    int h = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
    return write_all(fd, head, (size_t)h) && write_all(fd, body, len);
}
