#include "write_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

int make_dirs_noting(const char *path, void (*made)(void *arg, const char *dir), void *arg, char *err,
                     size_t errsize)
{
    char *p = xstrdup(path);
    for (char *c = p + 1; ; c++) {
        if (*c == '/' || *c == '\0') {
            char saved = *c;
            *c = '\0';
            if (mkdir(p, 0777) == 0) {
                if (made)
                    made(arg, p);
            } else if (errno != EEXIST) {
                snprintf(err, errsize, "cannot create directory %s: %s", p, strerror(errno));
                free(p);
                return -1;
            }
            *c = saved;
            if (saved == '\0')
                break;
        }
    }
    free(p);
    return 0;
}

int make_dirs(const char *path, char *err, size_t errsize) { return make_dirs_noting(path, NULL, NULL, err, errsize); }

bool file_has_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "rbe");
    if (!f)
        return false;
    bool same = true;
    char buf[65536];
    size_t off = 0, r;
    while (same && (r = fread(buf, 1, sizeof buf, f)) > 0) {
        if (off + r > len || memcmp(buf, (const char *)data + off, r) != 0)
            same = false;
        off += r;
    }
    fclose(f);
    return same && off == len;
}

/* Temp file + rename: readers see the old bytes or the new, never a mix.
   durable adds an fsync before the rename (for the user's own files). */
static int write_file_replace(const char *path, const void *data, size_t len, bool durable, char *err,
                              size_t errsize)
{
    size_t n = strlen(path) + 32;
    char *tmp = xmalloc(n);
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errsize, "%s", strerror(errno));
        free(tmp);
        return -1;
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errsize, "%s", strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if ((durable && fsync(fd) != 0) || close(fd) != 0) {
        snprintf(err, errsize, "%s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    /* Keep the mode of a file being replaced (fmt rewrites user files). */
    struct stat st;
    if (stat(path, &st) == 0)
        chmod(tmp, st.st_mode & 07777);
    if (rename(tmp, path) != 0) {
        snprintf(err, errsize, "%s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errsize)
{
    return write_file_replace(path, data, len, true, err, errsize);
}

int write_file_if_changed(const char *path, const void *data, size_t len, bool *changed, char *err,
                          size_t errsize)
{
    *changed = false;
    if (file_has_bytes(path, data, len))
        return 0;
    *changed = true;
    /* Generated files can be made again: no fsync (a bundle has thousands). */
    return write_file_replace(path, data, len, false, err, errsize);
}

int chmod_executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    return chmod(path, (st.st_mode & 07777) | 0111);
}
