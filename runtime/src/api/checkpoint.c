/* Checkpoints from a native step (pipe.h; docs/checkpoints.md). The folder
   and its newest complete checkpoint come from the supervisor
   (PIPE_CHECKPOINT_DIR, PIPE_CHECKPOINT_LATEST: pipe_ctx_create reads
   them); saving one is a temporary folder that every rank writes into and
   rank 0 renames once they all have. Both calls are collectives, so that
   rank 0 renames nothing a rank is still writing, and every rank gets
   rank 0's result. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctx.h"
#include "ctx_error.h"
#include "pipe/pipe.h"
#include "store/artifact.h"
#include "store/store.h"
#include "util/util.h"

/* A checkpoint's name: a file name, not hidden (those are temporary). */
#define NAME_MAX_BYTES 200

const char *pipe_checkpoint_dir(const pipe_ctx *ctx) { return ctx ? ctx->checkpoint_dir : NULL; }

const char *pipe_checkpoint_latest(const pipe_ctx *ctx) { return ctx ? ctx->checkpoint_latest : NULL; }

/* What every rank checks alike before a collective: the same answer on
   all, so that none waits for the others in vain. */
static int check_call(pipe_ctx *ctx, const char *fn, const char *name)
{
    if (!ctx->checkpoint_dir)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "%s: step `%s` has no @checkpoint, so it has no checkpoint folder", fn,
                              ctx->invocation);
    if (!name || !*name || name[0] == '.' || strchr(name, '/') || strlen(name) > NAME_MAX_BYTES)
        return pipe_ctx_error(ctx, PIPE_EINVAL,
                              "%s: `%s` is not a checkpoint name (a file name that does not start with '.', at most "
                              "%d bytes)",
                              fn, name ? name : "(null)", NAME_MAX_BYTES);
    if (ctx->finished)
        return pipe_ctx_error(ctx, PIPE_ESTATE, "%s: the step has already returned", fn);
    return 0;
}

/* Rank 0's rc on every rank; its message stays in rank 0's log. */
static int agree(pipe_ctx *ctx, const char *fn, const char *name, int rc)
{
    if (ctx->world_size <= 1)
        return rc;
    int32_t v = rc;
    int brc = pipe_broadcast(ctx, &v, 1, PIPE_I32, 0);
    if (brc != 0)
        return brc;
    if (v != 0 && ctx->rank != 0)
        pipe_ctx_error(ctx, v, "%s: rank 0 could not %s checkpoint `%s` (its log says why)", fn,
                       strcmp(fn, "pipe_checkpoint_begin") == 0 ? "begin" : "commit", name);
    return (int)v;
}

const char *pipe_checkpoint_begin(pipe_ctx *ctx, const char *name)
{
    static const char fn[] = "pipe_checkpoint_begin";
    if (!ctx || check_call(ctx, fn, name) != 0)
        return NULL;
    char *tmp = pipe_asprintf("%s/.%s.tmp", ctx->checkpoint_dir, name);
    int rc = tmp ? 0 : pipe_ctx_error(ctx, PIPE_ENOMEM, "%s: out of memory", fn);
    if (rc == 0 && ctx->rank == 0) {
        /* Empty: what an earlier try of this attempt wrote is not part of it. */
        char err[1024];
        if (pipe_remove_tree(tmp, err, sizeof err) != 0)
            rc = pipe_ctx_error(ctx, PIPE_EIO, "%s: %s", fn, err);
        else if (mkdir(tmp, 0777) != 0)
            rc = pipe_ctx_error(ctx, PIPE_EIO, "%s: cannot create %s: %s", fn, tmp, strerror(errno));
    }
    /* The others start writing once the folder is there. */
    if ((rc = agree(ctx, fn, name, rc)) != 0) {
        free(tmp);
        return NULL;
    }
    free(ctx->checkpoint_tmp);
    ctx->checkpoint_tmp = tmp;
    return tmp;
}

/* Rank 0's part of a commit: tmp synced, renamed to final, the folder synced. */
static int commit_here(pipe_ctx *ctx, const char *tmp, const char *final, const char *name)
{
    static const char fn[] = "pipe_checkpoint_commit";
    char err[1024];
    struct stat st;
    if (lstat(tmp, &st) != 0 || !S_ISDIR(st.st_mode))
        return pipe_ctx_error(ctx, PIPE_ESTATE, "%s: there is no %s to commit (call pipe_checkpoint_begin(ctx, \"%s\") "
                              "first)",
                              fn, tmp, name);
    if (lstat(final, &st) == 0)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "%s: checkpoint `%s` exists already in %s", fn, name,
                              ctx->checkpoint_dir);
    if (pipe_artifact_sync(tmp, err, sizeof err) != 0)
        return pipe_ctx_error(ctx, PIPE_EIO, "%s: %s", fn, err);
    if (rename(tmp, final) != 0)
        return pipe_ctx_error(ctx, PIPE_EIO, "%s: cannot rename %s to %s: %s", fn, tmp, final, strerror(errno));
    if (pipe_fsync_path(ctx->checkpoint_dir, O_RDONLY | O_DIRECTORY) != 0)
        return pipe_ctx_error(ctx, PIPE_EIO, "%s: cannot sync %s: %s", fn, ctx->checkpoint_dir, strerror(errno));
    return 0;
}

int pipe_checkpoint_commit(pipe_ctx *ctx, const char *name)
{
    static const char fn[] = "pipe_checkpoint_commit";
    if (!ctx)
        return PIPE_EINVAL;
    int rc = check_call(ctx, fn, name);
    if (rc != 0)
        return rc;
    /* Every rank has written its part. */
    if ((rc = pipe_barrier(ctx)) != 0)
        return rc;
    char *tmp = pipe_asprintf("%s/.%s.tmp", ctx->checkpoint_dir, name);
    char *final = pipe_asprintf("%s/%s", ctx->checkpoint_dir, name);
    if (!tmp || !final)
        rc = pipe_ctx_error(ctx, PIPE_ENOMEM, "%s: out of memory", fn);
    else if (ctx->rank == 0)
        rc = commit_here(ctx, tmp, final, name);
    free(tmp);
    free(final);
    return agree(ctx, fn, name, rc);
}
