/* O_TMPFILE (an unnamed file) is Linux's, declared for _GNU_SOURCE. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipe/error.h"

char *pipe_strdup(const char *s) { return s ? pipe_strndup(s, strlen(s)) : NULL; }

char *pipe_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *pipe_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* mkdir of p (a copy the caller owns), making missing parents first: from
   the folder itself upwards only as far as needed, so that a new folder in
   an existing one is one mkdir (each step makes two, and a walk from / was
   ten system calls a step). */
static int mkdirs_from_leaf(char *p, char *err, size_t errsize)
{
    if (mkdir(p, 0777) == 0)
        return 0;
    int e = errno;
    struct stat st;
    if (e == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    char *slash = strrchr(p, '/');
    if (e == ENOENT && slash && slash != p) {
        *slash = '\0';
        int rc = mkdirs_from_leaf(p, err, errsize);
        *slash = '/';
        if (rc != 0)
            return rc;
        if (mkdir(p, 0777) == 0 || (errno == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
            return 0;
        e = errno;
    }
    pipe_errf(err, errsize, "cannot create directory %s: %s", p, strerror(e == EEXIST ? ENOTDIR : e));
    return PIPE_EIO;
}

int pipe_mkdirs(const char *path, char *err, size_t errsize)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0; /* the common case: one call */
    char *p = pipe_strdup(path);
    if (!p)
        return PIPE_ENOMEM;
    /* Trailing slashes would make the last component look empty. */
    for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
        p[n - 1] = '\0';
    int rc = mkdirs_from_leaf(p, err, errsize);
    free(p);
    return rc;
}

/* All of data to fd; 0, or -1 with errno. */
static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A file with no name yet (O_TMPFILE) in path's folder, holding data
   (fsynced when durable): the fd, or -1 with errno; errno EOPNOTSUPP where
   the file system or the kernel has no unnamed files. Written unnamed, a
   file a process is killed while writing leaves nothing behind. */
static int unnamed_file(const char *path, const void *data, size_t len, bool durable)
{
#ifdef O_TMPFILE
    const char *slash = strrchr(path, '/');
    char *dir = slash ? pipe_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : pipe_strdup(".");
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    int saved = errno;
    free(dir);
    if (fd < 0) {
        errno = saved == EISDIR || saved == EINVAL ? EOPNOTSUPP : saved;
        return -1;
    }
    if (write_all(fd, data, len) != 0 || (durable && fsync(fd) != 0)) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
#else
    (void)path, (void)data, (void)len, (void)durable;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* Gives the unnamed file fd the name path (AT_EMPTY_PATH needs a
   privilege; /proc/self/fd does not). 0, or -1 with errno. */
static int name_file(int fd, const char *path)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

/* data named path at once where nothing has that name, else written to
   PATH.tmp.PID and renamed to path: readers see the old or the new bytes,
   never a mix. The bytes are written and synced while the file
   has no name where the file system allows, so a kill leaves a temporary
   file only between its naming and the rename (two system calls). */
static int write_replace(const char *path, const void *data, size_t len, bool durable, char *err, size_t errsize)
{
    char *tmp = pipe_asprintf("%s.tmp.%ld", path, (long)getpid());
    if (!tmp)
        return PIPE_ENOMEM;
    int fd = unnamed_file(path, data, len, durable);
    /* Nothing at path yet (a first record, a new cache entry): the whole
       file takes the name at once, one change to the folder where a
       temporary name and a rename are two. */
    if (fd >= 0 && name_file(fd, path) == 0) {
        int rc = 0;
        if (close(fd) != 0) {
            pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(errno));
            unlink(path); /* this call's file, its bytes in doubt */
            rc = PIPE_EIO;
        }
        unlink(tmp); /* what a dead process with this PID may have left (below) */
        free(tmp);
        return rc;
    }
    if (fd >= 0 && errno != EEXIST) {
        pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        free(tmp);
        return PIPE_EIO;
    }
    bool named = fd >= 0 && name_file(fd, tmp) == 0;
    /* PATH.tmp.PID already there: what a dead process with this PID (reused)
       left between naming and renaming; this process writes one file at a
       time, so it is nobody's now. */
    if (fd >= 0 && !named && errno == EEXIST && unlink(tmp) == 0)
        named = name_file(fd, tmp) == 0;
    if (fd >= 0 && !named) {
        pipe_errf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        free(tmp);
        return PIPE_EIO;
    }
    if (fd < 0 && errno != EOPNOTSUPP) {
        pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return PIPE_EIO;
    }
    if (fd < 0) { /* no unnamed files: the bytes go to the named file */
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0 || write_all(fd, data, len) != 0 || (durable && fsync(fd) != 0)) {
            pipe_errf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
            if (fd >= 0)
                close(fd);
            unlink(tmp);
            free(tmp);
            return PIPE_EIO;
        }
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return PIPE_EIO;
    }
    free(tmp);
    return 0;
}

int pipe_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errsize)
{
    return write_replace(path, data, len, true, err, errsize);
}

int pipe_write_file_replace(const char *path, const void *data, size_t len, bool durable, char *err, size_t errsize)
{
    return write_replace(path, data, len, durable, err, errsize);
}

/* Unsynced, and never under a temporary name: the unnamed file takes the
   name in place of the old file (unlinked first; a reader in between finds
   none, which for a hint is a miss). */
int pipe_write_file_hint(const char *path, const void *data, size_t len, char *err, size_t errsize)
{
    int fd = unnamed_file(path, data, len, false);
    if (fd < 0 && errno == EOPNOTSUPP)
        return write_replace(path, data, len, false, err, errsize);
    int rc = fd >= 0 ? 0 : -1;
    for (int tries = 0; rc == 0 && name_file(fd, path) != 0; tries++)
        if (errno != EEXIST || tries == 8 || (unlink(path) != 0 && errno != ENOENT))
            rc = -1;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (rc != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(saved));
        return PIPE_EIO;
    }
    return 0;
}

bool pipe_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool pipe_dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int pipe_fsync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return r;
}

void pipe_malloc_fast_bins(bool on)
{
#ifdef __GLIBC__
    mallopt(M_MXFAST, on ? (int)(64 * sizeof(size_t) / 4) : 0); /* glibc's DEFAULT_MXFAST */
#else
    (void)on;
#endif
}

double pipe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pipe_iso8601(char *buf, size_t size)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

void pipe_sleep_ms(uint64_t ms)
{
    struct timespec req = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L}, rem;
    while (nanosleep(&req, &rem) != 0 && errno == EINTR)
        req = rem;
}

size_t pipe_descriptors_left(size_t reserve)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    size_t open = 64; /* a guess where /proc is missing */
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        open = 0;
        while (readdir(d))
            open++;
        closedir(d);
        open = open > 3 ? open - 3 : 0; /* ".", ".." and the directory's own descriptor */
    }
    size_t used = open + reserve;
    return rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
}
