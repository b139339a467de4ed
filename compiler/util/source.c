#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "utf8.h"

void source_set_init(source_set *set) { memset(set, 0, sizeof *set); }

void source_set_free(source_set *set)
{
    for (size_t i = 0; i < set->len; i++) {
        free(set->files[i]->path);
        free(set->files[i]->text);
        free(set->files[i]->line_starts);
        free(set->files[i]);
    }
    free(set->files);
    memset(set, 0, sizeof *set);
}

static void index_lines(source_file *f)
{
    size_t cap = 64, n = 0;
    uint32_t *starts = xmalloc(cap * sizeof *starts);
    starts[n++] = 0;
    for (size_t i = 0; i < f->len; i++) {
        if (f->text[i] == '\n') {
            if (n == cap) {
                cap *= 2;
                starts = xrealloc(starts, cap * sizeof *starts);
            }
            starts[n++] = (uint32_t)(i + 1);
        }
    }
    f->line_starts = starts;
    f->nlines = n;
}

int source_add(source_set *set, const char *path, const char *text, size_t len)
{
    source_file *f = xcalloc(1, sizeof *f);
    f->path = xstrdup(path);
    f->text = xmalloc(len + 1);
    memcpy(f->text, text, len);
    f->text[len] = '\0';
    f->len = len;
    /* A line ends at LF, CRLF or a CR alone. A lone CR becomes LF in place,
       so that every offset still names the same byte of the file and the
       rest of the compiler knows one line break; CRLF needs nothing (CR is
       whitespace before the LF). */
    for (size_t i = 0; i < len; i++) {
        if (f->text[i] == '\r' && (i + 1 == len || f->text[i + 1] != '\n')) {
            f->text[i] = '\n';
            f->lone_cr = true;
        }
    }
    index_lines(f);
    if (set->len == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 8;
        set->files = xrealloc(set->files, set->cap * sizeof *set->files);
    }
    set->files[set->len] = f;
    return (int)set->len++;
}

int source_load(source_set *set, const char *path, char *err, size_t errsize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errsize, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errsize, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errsize, "is a directory, not a .pipe file");
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errsize, "is not a regular file");
        close(fd);
        return -1;
    }
    if ((size_t)st.st_size > SOURCE_MAX_BYTES) {
        snprintf(err, errsize, "is too large (%lld bytes; the limit is %zu MiB)",
                 (long long)st.st_size, SOURCE_MAX_BYTES >> 20);
        close(fd);
        return -1;
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            if (cap > SOURCE_MAX_BYTES) {
                snprintf(err, errsize, "is too large (the limit is %zu MiB)", SOURCE_MAX_BYTES >> 20);
                free(buf);
                close(fd);
                return -1;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + len, cap - len - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errsize, "%s", strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    int idx = source_add(set, path, buf, len);
    free(buf);
    return idx;
}

void source_position(const source_file *f, uint32_t offset, unsigned *line, unsigned *col)
{
    if (offset > f->len)
        offset = (uint32_t)f->len;
    size_t lo = 0, hi = f->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    *line = (unsigned)(lo + 1);
    *col = (unsigned)(utf8_count(f->text + f->line_starts[lo], offset - f->line_starts[lo]) + 1);
}

void source_line_range(const source_file *f, unsigned line, uint32_t *start, uint32_t *end)
{
    if (line == 0 || line > f->nlines) {
        *start = *end = (uint32_t)f->len;
        return;
    }
    *start = f->line_starts[line - 1];
    uint32_t e = line < f->nlines ? f->line_starts[line] - 1 : (uint32_t)f->len;
    if (e > *start && f->text[e - 1] == '\r')
        e--;
    *end = e;
}
