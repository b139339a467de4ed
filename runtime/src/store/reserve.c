/* Room for the records on a full disk (reserve.h). */
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
