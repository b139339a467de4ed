/* A whole file into memory: the runtime's manifests and records, pipec's
   copies of the steps' sources. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "pipe/base.h"
#include "pipe/error.h"

/* fopen for reading, close-on-exec; NULL with *rc and the message. */
static FILE *open_read(const char *path, int *rc, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rbe");
    if (!f) {
        int e = errno;
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(e));
        *rc = e == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    return f;
}

/* Closes f and hands out buf (n bytes, NUL-terminated) unless reading failed. */
static int finish_read(FILE *f, char *buf, size_t n, const char *path, char **data, size_t *len, char *err,
                       size_t errsize)
{
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        pipe_errf(err, errsize, "cannot read %s", path);
        free(buf);
        return PIPE_EIO;
    }
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

int pipe_read_file(const char *path, char **data, size_t *len, char *err, size_t errsize)
{
    return pipe_read_file_max(path, SIZE_MAX - 1, data, len, err, errsize);
}

int pipe_read_file_max(const char *path, size_t max, char **data, size_t *len, char *err, size_t errsize)
{
    int rc = 0;
    FILE *f = open_read(path, &rc, err, errsize);
    if (!f)
        return rc;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return PIPE_ENOMEM;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
        if (n > max) { /* a huge file, or one that never ends (/dev/zero) */
            fclose(f);
            free(buf);
            pipe_errf(err, errsize, "%s is larger than %zu bytes", path, max);
            return PIPE_EFORMAT;
        }
        if (n + 1 >= cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    return finish_read(f, buf, n, path, data, len, err, errsize);
}

int pipe_read_file_tail(const char *path, size_t max, char **data, size_t *len, char *err, size_t errsize)
{
    int rc = 0;
    FILE *f = open_read(path, &rc, err, errsize);
    if (!f)
        return rc;
    /* A regular file: from max bytes before its end; anything else (a pipe)
       is read from where it is, up to max. */
    if (fseeko(f, 0, SEEK_END) == 0) {
        off_t end = ftello(f);
        if (end > (off_t)max)
            fseeko(f, end - (off_t)max, SEEK_SET);
        else
            rewind(f);
    }
    char *buf = malloc(max + 1);
    if (!buf) {
        fclose(f);
        return PIPE_ENOMEM;
    }
    size_t n = fread(buf, 1, max, f);
    return finish_read(f, buf, n, path, data, len, err, errsize);
}
