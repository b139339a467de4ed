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
#include "run_lock.h"
#include "store/stepfile.h"
#include "util/util.h"

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

static pipe_run_state from_records(const char *store, const char *run_id, const pipe_manifest *m)
{
    bool all = true, interrupted = false;
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
        interrupted |= rec->status == PIPE_STEP_INTERRUPTED;
        pipe_step_record_free(rec);
        if (failed)
            return PIPE_RUN_FAILED;
    }
    return interrupted ? PIPE_RUN_INTERRUPTED : all ? PIPE_RUN_SUCCEEDED : PIPE_RUN_RUNNING;
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
    if (pipe_run_interrupted(store, run_id))
        return PIPE_RUN_INTERRUPTED;
    if (!pipe_run_has_runner(store, run_id) && m && info && info->pipeline && strcmp(info->pipeline, m->pipeline) == 0)
        return from_records(store, run_id, m);
    return PIPE_RUN_RUNNING;
}
