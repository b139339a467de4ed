#include "checkpoint_folder.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/child.h"
#include "pipe/error.h"
#include "proc/procs.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "util/util.h"

/* How often a waiter tries the lock, and how long the holders get to die
   once they were killed. */
#define POLL_MS 50
#define KILL_LIMIT_MS 2000

int pipe_checkpoint_folder_init(pipe_checkpoint_folder *c, const char *store, const char *pipeline,
                                const char *invocation, const char *key, int machine_rank)
{
    memset(c, 0, sizeof *c);
    c->lock_fd = -1;
    char *cache = pipe_store_cache_dir(store);
    c->dir = cache ? pipe_asprintf("%s/checkpoints/%s/%s-%s", cache, pipeline, invocation, key) : NULL;
    free(cache);
    if (c->dir)
        c->lock_path = machine_rank > 0 ? pipe_asprintf("%s.lock.machine-%d", c->dir, machine_rank)
                                        : pipe_asprintf("%s.lock", c->dir);
    return c->dir && c->lock_path ? 0 : PIPE_ENOMEM;
}

/* The folder that holds the checkpoint folder and its lock, malloc'ed. */
static char *parent_of(const char *path)
{
    char *parent = pipe_strdup(path);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (slash)
        *slash = '\0';
    return parent;
}

/* The lock once: 1 taken (into c->lock_fd), 0 held by another, PIPE_EIO.
   A lock on a file that was unlinked meanwhile (its execution succeeded
   and removed it) is not the lock: the file is opened again, and so is
   one whose folder was removed as it was emptied. */
static int try_lock(pipe_checkpoint_folder *c, char *err, size_t errsize)
{
    for (int tries = 0;; tries++) {
        int fd = open(c->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0 && errno == ENOENT && tries < 10) {
            char *parent = parent_of(c->lock_path);
            int rc = parent ? pipe_mkdirs(parent, err, errsize) : PIPE_ENOMEM;
            free(parent);
            if (rc != 0)
                return rc;
            continue;
        }
        if (fd < 0) {
            pipe_errf(err, errsize, "cannot open the checkpoint lock %s: %s", c->lock_path, strerror(errno));
            return PIPE_EIO;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK || e == EINTR)
                return 0;
            pipe_errf(err, errsize, "cannot lock %s: %s", c->lock_path, strerror(e));
            return PIPE_EIO;
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(c->lock_path, &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
            c->lock_fd = fd;
            return 1;
        }
        close(fd);
    }
}

int pipe_checkpoint_folder_lock(pipe_checkpoint_folder *c, uint64_t grace_ms, char **waited, char *err,
                                size_t errsize)
{
    *waited = NULL;
    char *parent = parent_of(c->dir);
    int rc = parent ? pipe_mkdirs(parent, err, errsize) : PIPE_ENOMEM;
    free(parent);
    if (rc != 0)
        return rc;
    double start = pipe_now(), until = start + (double)grace_ms / 1000.0;
    size_t killed = 0;
    bool tried_kill = false;
    while ((rc = try_lock(c, err, errsize)) == 0) {
        int sig = pipe_child_signal_pending();
        if (sig)
            return sig;
        if (pipe_now() >= until && !tried_kill) {
            /* Its grace is over: what still holds it goes. */
            killed = pipe_procs_kill_holders(c->lock_path, KILL_LIMIT_MS);
            tried_kill = true;
            until = pipe_now() + KILL_LIMIT_MS / 1000.0;
            continue;
        }
        if (pipe_now() >= until) {
            char holder[512] = "a process that has not said who it is";
            int fd = open(c->lock_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
            if (fd >= 0) {
                pipe_lock_describe(fd, holder, sizeof holder);
                close(fd);
            }
            pipe_errf(err, errsize,
                      "the checkpoint folder %s is still in use by an earlier execution (%s) after its grace, and "
                      "no process of it could be stopped from this host",
                      c->dir, holder);
            return PIPE_ESTATE;
        }
        char ignored[64];
        pipe_child_wait(NULL, 0, POLL_MS, ignored, sizeof ignored); /* a signal wakes it */
    }
    if (rc < 0)
        return rc;
    if (pipe_lock_record(c->lock_fd, NULL) != 0 || pipe_mkdirs(c->dir, err, errsize) != 0) {
        if (!err[0])
            pipe_errf(err, errsize, "cannot write %s: %s", c->lock_path, strerror(errno));
        return PIPE_EIO;
    }
    double took = pipe_now() - start;
    if (killed > 0)
        *waited = pipe_asprintf("killed %zu process%s of an earlier execution that still used the checkpoint folder "
                                "after its grace",
                                killed, killed == 1 ? "" : "es");
    else if (took >= 0.1)
        *waited = pipe_asprintf("waited %.1f s for an earlier execution's processes to let go of the checkpoint "
                                "folder",
                                took);
    return 0;
}

int pipe_checkpoint_folder_prepare(pipe_checkpoint_folder *c, bool clean, char *err, size_t errsize)
{
    free(c->latest);
    c->latest = NULL;
    int rc = 0;
    if (clean) {
        DIR *d = opendir(c->dir);
        if (!d) {
            pipe_errf(err, errsize, "cannot read the checkpoint folder %s: %s", c->dir, strerror(errno));
            return PIPE_EIO;
        }
        struct dirent *e;
        while (rc == 0 && (e = readdir(d)) != NULL) {
            if (e->d_name[0] != '.' || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *path = pipe_asprintf("%s/%s", c->dir, e->d_name);
            rc = path ? pipe_remove_tree(path, err, errsize) : PIPE_ENOMEM;
            free(path);
        }
        closedir(d);
    }
    if (rc == 0)
        c->latest = pipe_checkpoint_find_latest(c->dir);
    return rc;
}

int pipe_checkpoint_folder_remove(pipe_checkpoint_folder *c, char *err, size_t errsize)
{
    int rc = pipe_remove_tree(c->dir, err, errsize);
    if (rc == 0 && c->lock_fd >= 0 && unlink(c->lock_path) != 0 && errno != ENOENT) {
        pipe_errf(err, errsize, "cannot remove %s: %s", c->lock_path, strerror(errno));
        rc = PIPE_EIO;
    }
    /* The pipeline's folder and checkpoints/, when nothing else is there. */
    char *parent = rc == 0 ? parent_of(c->dir) : NULL;
    char *grandparent = parent ? parent_of(parent) : NULL;
    if (parent && rmdir(parent) == 0 && grandparent)
        rmdir(grandparent);
    free(parent);
    free(grandparent);
    return rc;
}

void pipe_checkpoint_folder_forget(pipe_checkpoint_folder *c)
{
    if (c->lock_fd >= 0)
        unlink(c->lock_path);
}

void pipe_checkpoint_folder_free(pipe_checkpoint_folder *c)
{
    pipe_lock_release(c->lock_fd);
    free(c->dir);
    free(c->lock_path);
    free(c->latest);
    memset(c, 0, sizeof *c);
    c->lock_fd = -1;
}

/* ---- natural order ---- */

int pipe_checkpoint_name_compare(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    while (*p && *q) {
        if (isdigit(*p) && isdigit(*q)) {
            while (*p == '0')
                p++;
            while (*q == '0')
                q++;
            size_t n = 0, m = 0;
            while (isdigit(p[n]))
                n++;
            while (isdigit(q[m]))
                m++;
            if (n != m)
                return n < m ? -1 : 1;
            int c = memcmp(p, q, n);
            if (c != 0)
                return c;
            p += n;
            q += m;
            continue;
        }
        if (*p != *q)
            return *p < *q ? -1 : 1;
        p++;
        q++;
    }
    if (*p || *q)
        return *p ? 1 : -1;
    return strcmp(a, b); /* "step_01" and "step_1": by their bytes */
}

char *pipe_checkpoint_find_latest(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *best = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || (best && pipe_checkpoint_name_compare(e->d_name, best) <= 0))
            continue;
        char *name = pipe_strdup(e->d_name);
        if (!name)
            continue; /* out of memory: the best so far */
        free(best);
        best = name;
    }
    closedir(d);
    char *path = best ? pipe_asprintf("%s/%s", dir, best) : NULL;
    free(best);
    return path;
}
