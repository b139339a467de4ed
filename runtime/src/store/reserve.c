/* Room for the records on a full disk (reserve.h). fallocate(2), with
   which a lent range is freed and allocated again, is Linux's: declared
   for _GNU_SOURCE. */
#define _GNU_SOURCE
#include "reserve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* Zeros, for a file system where posix_fallocate fails otherwise than for
   want of room. 0 or the errno. */
static int fill(int fd, size_t bytes)
{
    static const char zeros[4096];
    while (bytes > 0) {
        ssize_t w = write(fd, zeros, bytes < sizeof zeros ? bytes : sizeof zeros);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        bytes -= (size_t)w;
    }
    return fsync(fd) == 0 ? 0 : errno;
}

int pipe_reserve_take(const char *dir, const char *name, size_t bytes, char **path)
{
    *path = pipe_asprintf("%s/%s", dir, name);
    if (!*path)
        return ENOMEM;
    int fd = open(*path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int rc = fd < 0 ? errno : posix_fallocate(fd, 0, (off_t)bytes);
    if (fd >= 0 && rc != 0 && rc != ENOSPC && rc != EDQUOT)
        rc = fill(fd, bytes);
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = errno;
    if (rc != 0) {
        unlink(*path);
        free(*path);
        *path = NULL;
    }
    return rc;
}

void pipe_reserve_release(char **path)
{
    if (*path)
        unlink(*path);
    free(*path);
    *path = NULL;
}

enum { RANGE_FREE, RANGE_LENT, RANGE_EMPTY };

static int alloc_range(int fd, size_t r)
{
    return fallocate(fd, 0, (off_t)(r * PIPE_STEP_RESERVE_BYTES), PIPE_STEP_RESERVE_BYTES) == 0 ? 0 : errno;
}

static int free_range(int fd, long long offset)
{
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, PIPE_STEP_RESERVE_BYTES) == 0
               ? 0
               : errno;
}

void pipe_reserve_pool_open(pipe_reserve_pool *p, const char *run_dir)
{
    memset(p, 0, sizeof *p);
    p->fd = -1;
    p->path = pipe_asprintf("%s/.reserve.steps", run_dir);
    p->state = malloc(1);
    if (!p->path || !p->state)
        return;
    p->fd = open(p->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    /* Lent only where a range can be allocated, freed and allocated again. */
    if (p->fd >= 0 && (alloc_range(p->fd, 0) != 0 || free_range(p->fd, 0) != 0 || alloc_range(p->fd, 0) != 0)) {
        close(p->fd);
        p->fd = -1;
        unlink(p->path);
    }
    if (p->fd >= 0) {
        p->n = 1;
        p->state[0] = RANGE_FREE;
    }
}

long pipe_reserve_pool_lend(pipe_reserve_pool *p)
{
    if (p->fd < 0)
        return -1;
    for (size_t r = 0; r < p->n; r++)
        if (p->state[r] == RANGE_FREE) {
            p->state[r] = RANGE_LENT;
            return (long)r;
        }
    /* A range the disk had no room for: tried again before the file
       grows, and while the disk stays full the file does not grow. */
    bool full = false;
    for (size_t r = 0; r < p->n; r++)
        if (p->state[r] == RANGE_EMPTY) {
            if (alloc_range(p->fd, r) == 0) {
                p->state[r] = RANGE_LENT;
                return (long)r;
            }
            full = true;
        }
    if (full)
        return -1;
    unsigned char *grown = realloc(p->state, p->n + 1);
    if (!grown)
        return -1;
    p->state = grown;
    p->state[p->n] = alloc_range(p->fd, p->n) == 0 ? RANGE_LENT : RANGE_EMPTY;
    p->n++;
    return p->state[p->n - 1] == RANGE_LENT ? (long)(p->n - 1) : -1;
}

void pipe_reserve_pool_return(pipe_reserve_pool *p, long r, bool given_back)
{
    if (p->fd < 0 || r < 0 || (size_t)r >= p->n)
        return;
    p->state[r] = !given_back || alloc_range(p->fd, (size_t)r) == 0 ? RANGE_FREE : RANGE_EMPTY;
}

void pipe_reserve_pool_close(pipe_reserve_pool *p)
{
    if (p->fd >= 0) {
        close(p->fd);
        unlink(p->path);
    }
    free(p->path);
    free(p->state);
    memset(p, 0, sizeof *p);
    p->fd = -1;
}

void pipe_reserve_lease_give_back(const char *path, long long offset)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)free_range(fd, offset);
        close(fd);
    }
}

/* The mount point of the file system that holds path (or its nearest
   existing parent): the last folder up from it on the same device. */
static void mount_point(const char *path, char *out, size_t size)
{
    char dir[PATH_MAX];
    struct stat st, up;
    snprintf(dir, sizeof dir, "%s", path);
    while (stat(dir, &st) != 0) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            snprintf(out, size, "/");
            return;
        }
        *slash = '\0';
    }
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            if (stat("/", &up) == 0 && up.st_dev == st.st_dev)
                snprintf(dir, sizeof dir, "/");
            break;
        }
        *slash = '\0';
        if (stat(dir, &up) != 0 || up.st_dev != st.st_dev) {
            *slash = '/';
            break;
        }
    }
    snprintf(out, size, "%s", dir);
}

char *pipe_disk_error(const char *path, int errnum)
{
    if (errnum != ENOSPC && errnum != EDQUOT)
        return pipe_asprintf("cannot write %s: %s", path, strerror(errnum));
    char mount[PATH_MAX];
    mount_point(path, mount, sizeof mount);
    return pipe_asprintf("%s writing %s (the store's disk, mounted at %s, is full)",
                         errnum == EDQUOT ? "disk quota exceeded" : "no space left on device", path, mount);
}
