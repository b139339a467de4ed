/* Group commit of a local run (commit.h). */
#define _GNU_SOURCE /* syncfs */
#include "commit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "store/store.h"
#include "util/util.h"

int pipe_commit_fsync(int fd, bool deferred) { return deferred ? 0 : fsync(fd); }

int pipe_commit_fsync_path(const char *path, int flags, bool deferred)
{
    return deferred ? 0 : pipe_fsync_path(path, flags);
}

/* The list's text: the run it belongs to first and a last line, so that a
   file that a crash left with other bytes than written (zeros, an older
   file's blocks) lists nothing, and everything in the run is verified. */
static char *list_text(const char *run_id, const char *const *durable, size_t n)
{
    size_t len = strlen("run: \n") + strlen(run_id) + strlen("end\n") + 1;
    for (size_t i = 0; i < n; i++)
        len += strlen("durable: \n") + strlen(durable[i]);
    char *text = malloc(len);
    if (!text)
        return NULL;
    size_t used = (size_t)snprintf(text, len, "run: %s\n", run_id);
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, len - used, "durable: %s\n", durable[i]);
    snprintf(text + used, len - used, "end\n");
    return text;
}

/* path's new text through PATH.tmp.PID and a rename, durable or not: a
   reader (and a crash) finds the old list or the new one, never none. */
static int write_list(const char *path, const char *text, bool durable, char *err, size_t errsize)
{
    char *tmp = pipe_asprintf("%s.tmp.%ld", path, (long)getpid());
    if (!tmp)
        return PIPE_ENOMEM;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t len = strlen(text);
    bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len && (!durable || fsync(fd) == 0);
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(saved));
    }
    free(tmp);
    return ok ? 0 : PIPE_EIO;
}

int pipe_commit_begin(pipe_commit *c, const char *store, const char *run_id, char *err, size_t errsize)
{
    memset(c, 0, sizeof *c);
    c->store_fd = -1;
    char *run_dir = pipe_store_run_dir(store, run_id);
    c->path = run_dir ? pipe_asprintf("%s/unsynced", run_dir) : NULL;
    char *text = list_text(run_id, NULL, 0);
    if (!(c->store = pipe_strdup(store)) || !c->path || !text) {
        free(run_dir);
        free(text);
        return PIPE_ENOMEM;
    }
    const char *env = getenv("PIPE_COMMIT_INTERVAL_MS");
    char *end = NULL;
    long ms = env && *env ? strtol(env, &end, 10) : -1;
    c->interval_ms = end && *end == '\0' && ms >= 0 && ms <= 86400000L ? (unsigned)ms : PIPE_COMMIT_INTERVAL_DEFAULT_MS;
    c->last = pipe_now();
    /* Durable, name and all, before any write that skips its fsync: a
       record that outlives a crash is never without the list. */
    int rc = write_list(c->path, text, true, err, errsize);
    free(text);
    if (rc == 0 && pipe_fsync_path(run_dir, O_RDONLY | O_DIRECTORY) != 0) {
        pipe_errf(err, errsize, "cannot sync %s: %s", run_dir, strerror(errno));
        rc = PIPE_EIO;
    }
    /* The run's folder's file system: where its steps write. */
    if (rc == 0 && (c->store_fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        pipe_errf(err, errsize, "cannot open %s: %s", run_dir, strerror(errno));
        rc = PIPE_EIO;
    }
    free(run_dir);
    return rc;
}

bool pipe_commit_due(const pipe_commit *c) { return c->path && pipe_commit_ms_left(c) <= 0; }

double pipe_commit_ms_left(const pipe_commit *c)
{
    double left = c->interval_ms - (pipe_now() - c->last) * 1000.0;
    return left > 0 ? left : 0;
}

/* Every write on the store's file system so far, durable. */
static int sync_store(pipe_commit *c, char *err, size_t errsize)
{
    if (syncfs(c->store_fd) != 0) {
        pipe_errf(err, errsize, "cannot make the writes in %s durable (syncfs): %s", c->store, strerror(errno));
        return PIPE_EIO;
    }
    c->last = pipe_now();
    return 0;
}

int pipe_commit_point(pipe_commit *c, const char *const *durable, size_t n, char *err, size_t errsize)
{
    if (!c->path)
        return 0;
    int rc = sync_store(c, err, errsize);
    if (rc != 0)
        return rc;
    /* The run's id is the folder's name. */
    const char *slash = strrchr(c->path, '/');
    const char *start = slash;
    while (start > c->path && start[-1] != '/')
        start--;
    char *run_id = pipe_strndup(start, (size_t)(slash - start));
    char *text = run_id ? list_text(run_id, durable, n) : NULL;
    free(run_id);
    if (!text)
        return PIPE_ENOMEM;
    /* Not synced: losing it in a crash only means verifying more. */
    rc = write_list(c->path, text, false, err, errsize);
    free(text);
    return rc;
}

int pipe_commit_end(pipe_commit *c, char *err, size_t errsize)
{
    if (!c->path)
        return 0;
    int rc = sync_store(c, err, errsize);
    if (rc == 0 && unlink(c->path) != 0 && errno != ENOENT) {
        pipe_errf(err, errsize, "cannot remove %s: %s", c->path, strerror(errno));
        rc = PIPE_EIO;
    }
    pipe_commit_free(c);
    return rc;
}

void pipe_commit_free(pipe_commit *c)
{
    if (c->path && c->store_fd >= 0)
        close(c->store_fd);
    free(c->store);
    free(c->path);
    memset(c, 0, sizeof *c);
    c->store_fd = -1;
}

bool pipe_commit_list_read(const char *store, const char *run_id, char **text)
{
    *text = NULL;
    char *run_dir = pipe_store_run_dir(store, run_id);
    char *path = run_dir ? pipe_asprintf("%s/unsynced", run_dir) : NULL;
    char *head = pipe_asprintf("run: %s\n", run_id);
    free(run_dir);
    char *data = NULL;
    size_t len = 0;
    int rc = path && head ? pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &data, &len, NULL, 0) : PIPE_ENOMEM;
    free(path);
    if (rc == PIPE_ENOENT) {
        free(head);
        return false;
    }
    size_t hlen = head ? strlen(head) : 0;
    if (rc == 0 && len >= hlen + 4 && strlen(data) == len && memcmp(data, head, hlen) == 0 &&
        strcmp(data + len - 4, "end\n") == 0 && data[len - 5] == '\n')
        *text = data;
    else
        free(data);
    free(head);
    return true;
}

bool pipe_commit_listed(const char *text, const char *invocation)
{
    char *line = text ? pipe_asprintf("\ndurable: %s\n", invocation) : NULL;
    bool found = line && strstr(text, line) != NULL;
    free(line);
    return found;
}

bool pipe_commit_durable(const char *store, const char *run_id, const char *invocation)
{
    char *text = NULL;
    if (!pipe_commit_list_read(store, run_id, &text))
        return true;
    bool found = pipe_commit_listed(text, invocation);
    free(text);
    return found;
}
