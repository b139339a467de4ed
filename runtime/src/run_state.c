/* The state of a run (run_state.h). */
#include "run_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "stepfile.h"
#include "util.h"

const char *pipe_run_state_name(pipe_run_state s)
{
    switch (s) {
    case PIPE_RUN_SUCCEEDED: return "succeeded";
    case PIPE_RUN_FAILED: return "failed";
    case PIPE_RUN_INTERRUPTED: return "interrupted";
    case PIPE_RUN_RUNNING: break;
    }
    return "running";
}

static char *lock_path(const char *store, const char *run_id)
{
    return pipe_asprintf("%s/%s/run.lock", store, run_id);
}

int pipe_run_lock_take(const char *store, const char *run_id, int *fd, char *err, size_t errsize)
{
    char *path = lock_path(store, run_id);
    *fd = -1;
    if (!path)
        return PIPE_ENOMEM;
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    int rc = 0;
    if (f < 0 || flock(f, LOCK_EX | LOCK_NB) != 0) {
        pipe_errf(err, errsize, "cannot lock %s: %s", path, strerror(errno));
        if (f >= 0)
            close(f);
        rc = PIPE_EIO;
    } else {
        *fd = f;
    }
    free(path);
    return rc;
}

/* 1: someone holds it; 0: nobody; -1: there is no lock file. */
static int lock_held(const char *store, const char *run_id)
{
    char *path = lock_path(store, run_id);
    if (!path)
        return 1; /* out of memory: claim nothing */
    int f = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (f < 0)
        return errno == ENOENT ? -1 : 1;
    int held = 0;
    if (flock(f, LOCK_SH | LOCK_NB) != 0)
        held = errno == EWOULDBLOCK ? 1 : 0;
    close(f);
    return held;
}

static pipe_run_state from_records(const char *store, const char *run_id, const pipe_manifest *m)
{
    bool all = true;
    for (size_t i = 0; i < m->ninvocations; i++) {
        char *path = pipe_store_step_file(store, run_id, m->invocations[i].id);
        pipe_step_record *rec = NULL;
        char err[256];
        int rc = path ? pipe_step_record_read(path, &rec, err, sizeof err) : PIPE_ENOMEM;
        free(path);
        if (rc != 0) {
            all = false;
            continue;
        }
        bool failed = rec->status == PIPE_STEP_FAILED;
        pipe_step_record_free(rec);
        if (failed)
            return PIPE_RUN_FAILED;
    }
    return all ? PIPE_RUN_SUCCEEDED : PIPE_RUN_RUNNING;
}

pipe_run_state pipe_run_state_of(const char *store, const char *run_id, const pipe_run_info *info,
                                 const pipe_manifest *m)
{
    const char *status = info && info->status ? info->status : "running";
    if (strcmp(status, "done") == 0)
        return PIPE_RUN_SUCCEEDED;
    if (strcmp(status, "failed") == 0)
        return PIPE_RUN_FAILED;
    if (strcmp(status, "interrupted") == 0)
        return PIPE_RUN_INTERRUPTED;
    int held = lock_held(store, run_id);
    if (held == 0)
        return PIPE_RUN_INTERRUPTED;
    if (held < 0 && m && info && info->pipeline && strcmp(info->pipeline, m->pipeline) == 0)
        return from_records(store, run_id, m);
    return PIPE_RUN_RUNNING;
}
