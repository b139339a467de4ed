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

int pipe_read_file(const char *path, char **data, size_t *len, char *err, size_t errsize)
{
    return pipe_read_file_max(path, SIZE_MAX - 1, data, len, err, errsize);
}

int pipe_read_file_max(const char *path, size_t max, char **data, size_t *len, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rbe"); /* e: close-on-exec */
    if (!f) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
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
        if (n > max) {
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

int pipe_read_file_tail(const char *path, size_t max, char **data, size_t *len, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rbe");
    if (!f) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    /* A regular file: from max bytes before its end; anything else (a pipe)
       is read whole, up to max. */
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
