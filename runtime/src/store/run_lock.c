#include "run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe/error.h"
#include "store/store.h"
#include "util/util.h"

/* A record is a few short lines; more is not ours. */
#define RECORD_MAX 4096

char *pipe_run_lock_path(const char *store, const char *run_id)
{
    return pipe_asprintf("%s/%s/run.lock", store, run_id);
}

char *pipe_invocation_lock_path(const char *store, const char *run_id, const char *invocation, int machine_rank)
{
    if (machine_rank > 0)
        return pipe_asprintf("%s/%s/%s/step.lock.machine-%d", store, run_id, invocation, machine_rank);
    return pipe_asprintf("%s/%s/%s/step.lock", store, run_id, invocation);
}

/* The record in fd, malloc'ed; NULL when empty or unreadable. */
static char *read_record(int fd)
{
    char buf[RECORD_MAX + 1];
    ssize_t n = pread(fd, buf, RECORD_MAX, 0);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return pipe_strndup(buf, strlen(buf));
}

bool pipe_lock_record_field(const char *record, const char *key, char *out, size_t size)
{
    size_t klen = strlen(key);
    for (const char *line = record; line && *line;) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
            const char *v = line + klen + 1;
            size_t n = strcspn(v, "\n");
            if (n >= size)
                return false;
            memcpy(out, v, n);
            out[n] = '\0';
            return true;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return false;
}

/* "pid 12 on host h, since T" from a record; a holder of this host that
   is gone let a process it started keep the lock (they inherit it). */
static void describe_holder(const char *record, char *out, size_t size)
{
    char pid[32] = "?", host[256] = "?", since[64] = "?", here[256] = "";
    if (!record || !pipe_lock_record_field(record, "pid", pid, sizeof pid)) {
        snprintf(out, size, "a process that has not said who it is");
        return;
    }
    pipe_lock_record_field(record, "host", host, sizeof host);
    pipe_lock_record_field(record, "since", since, sizeof since);
    gethostname(here, sizeof here - 1);
    long p = atol(pid);
    bool gone = strcmp(host, here) == 0 && p > 0 && kill((pid_t)p, 0) != 0 && errno == ESRCH;
    snprintf(out, size, "pid %s on host %s, since %s%s", pid, host, since,
             gone ? ", which has exited while a process it started still holds the lock" : "");
}

void pipe_lock_describe(int fd, char *out, size_t size)
{
    char *rec = read_record(fd);
    describe_holder(rec, out, size);
    free(rec);
}

/* Whether path still names the file open as fd: a sweeper removes a lock
   file while it holds it (an unborn run's run.lock), so a lock taken on a
   file that was opened before the removal is a lock on nothing. */
static bool still_linked(int fd, const char *path)
{
    struct stat held, named;
    return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

int pipe_lock_take(const char *path, unsigned wait_ms, int *fd, char **prev, char *holder, size_t holdersize,
                   char *err, size_t errsize)
{
    if (prev)
        *prev = NULL;
    double until = pipe_now() + wait_ms / 1000.0;
    for (int reopened = 0;; reopened++) {
        int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (f < 0) {
            int e = errno;
            pipe_errf(err, errsize, "cannot open the lock %s: %s", path, strerror(e));
            errno = e; /* ENOENT: its folder was swept away; the caller may make it again */
            return PIPE_EIO;
        }
        for (;;) {
            if (flock(f, LOCK_EX | LOCK_NB) == 0)
                break;
            if (errno == EINTR)
                continue;
            if (errno != EWOULDBLOCK) {
                pipe_errf(err, errsize, "cannot lock %s: %s", path, strerror(errno));
                close(f);
                return PIPE_EIO;
            }
            if (pipe_now() >= until) {
                if (holder)
                    pipe_lock_describe(f, holder, holdersize);
                close(f);
                pipe_errf(err, errsize, "%s is held by another process", path);
                return PIPE_ESTATE;
            }
            pipe_sleep_ms(20);
        }
        if (still_linked(f, path)) {
            if (prev)
                *prev = read_record(f);
            *fd = f;
            return 0;
        }
        close(f); /* removed under us: the lock is the file the path names now */
        if (reopened >= 100) {
            pipe_errf(err, errsize, "the lock %s keeps being removed by another process", path);
            return PIPE_ESTATE;
        }
    }
}

int pipe_lock_record(int fd, const char *extra)
{
    char host[256] = "?", since[40];
    gethostname(host, sizeof host - 1);
    pipe_iso8601(since, sizeof since);
    char *text = pipe_asprintf("pid %ld\nhost %s\nsince %s\n%s", (long)getpid(), host, since, extra ? extra : "");
    if (!text)
        return PIPE_ENOMEM;
    /* The new record first, then the old tail cut: a crash in between leaves
       the new record readable. */
    size_t len = strlen(text);
    ssize_t w = pwrite(fd, text, len, 0);
    free(text);
    if (w != (ssize_t)len || ftruncate(fd, (off_t)len) != 0)
        return PIPE_EIO;
    return 0;
}

void pipe_lock_release(int fd)
{
    if (fd < 0)
        return;
    if (ftruncate(fd, 0) != 0) {
        /* The record stays: a later sweep finds nothing of ours left to remove. */
    }
    close(fd);
}

int pipe_run_lock_hold(const char *store, const char *run_id, int *fd, char *err, size_t errsize)
{
    char *dir = pipe_store_run_dir(store, run_id), *path = pipe_run_lock_path(store, run_id);
    char holder[512];
    int rc = !dir || !path ? PIPE_ENOMEM : PIPE_EIO;
    /* Another runner's sweep removes a run folder that holds nothing but a
       free run.lock: when it took this one's folder between the mkdir and
       the lock, the folder is made again. A sweeper looking at the run
       holds the lock for a moment: wait for it. */
    for (int tries = 0; dir && path && tries < 10; tries++) {
        if ((rc = pipe_mkdirs(dir, err, errsize)) != 0 ||
            (rc = pipe_lock_take(path, 2000, fd, NULL, holder, sizeof holder, err, errsize)) != PIPE_EIO ||
            errno != ENOENT)
            break;
    }
    if (rc == PIPE_ESTATE)
        pipe_errf(err, errsize, "run %s is in use by another process (%s)", run_id, holder);
    if (rc == 0 && (rc = pipe_lock_record(*fd, NULL)) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        close(*fd);
    }
    free(dir);
    free(path);
    return rc;
}

static bool recorded_running(const char *store, const char *run_id)
{
    pipe_run_info *info = NULL;
    bool running = pipe_run_info_read(store, run_id, &info, NULL, 0) == 0 && info->status &&
                   strcmp(info->status, "running") == 0;
    pipe_run_info_free(info);
    return running;
}

bool pipe_run_interrupted(const char *store, const char *run_id)
{
    if (!recorded_running(store, run_id))
        return false;
    char *path = pipe_run_lock_path(store, run_id);
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
    free(path);
    if (fd < 0)
        return false; /* no runner ever: run.yaml says what is known */
    bool free_lock = flock(fd, LOCK_SH | LOCK_NB) == 0;
    /* Read again under the lock: a runner that just finished wrote its
       final status before letting go. */
    bool gone = free_lock && recorded_running(store, run_id);
    close(fd);
    return gone;
}

bool pipe_run_has_runner(const char *store, const char *run_id)
{
    char *path = pipe_run_lock_path(store, run_id);
    bool has = path && access(path, F_OK) == 0;
    free(path);
    return has;
}
