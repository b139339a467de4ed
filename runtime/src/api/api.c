/* The step API (pipe.h) over struct pipe_ctx (ctx.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctx.h"
#include "ctx_error.h"
#include "store/commit.h"
#include "store/digest_note.h"
#include "store/hashed_stream.h"
#include "observe/metrics.h"
#include "store/store.h"
#include "pipe/pipe.h"
#include "pipe/settings.h"
#include "dist/rank_env.h"
#include "store/stepfile.h"
#include "util/util.h"

void pipe_ctx_destroy(pipe_ctx *ctx)
{
    if (!ctx)
        return;
    if (!ctx->finished)
        pipe_ctx_finish(ctx, 1, NULL, 0);
    pipe_coll_close(&ctx->coll);
    for (size_t i = 0; i < ctx->ninputs; i++) {
        free(ctx->inputs[i].name);
        free(ctx->inputs[i].path);
    }
    free(ctx->inputs);
    for (size_t i = 0; i < ctx->noutputs; i++) {
        free(ctx->outputs[i].name);
        free(ctx->outputs[i].final_path);
        free(ctx->outputs[i].tmp_path);
        pipe_hashed_stream_free(ctx->outputs[i].hashed);
    }
    free(ctx->outputs);
    free(ctx->invocation);
    free(ctx->run_id);
    free(ctx->dir);
    free(ctx->error_path);
    pipe_metrics_writer_close(&ctx->metrics);
    free(ctx->mixed_precision);
    free(ctx->scratch_root);
    free(ctx->scratch_dir);
    free(ctx->checkpoint_dir);
    free(ctx->checkpoint_latest);
    free(ctx->checkpoint_tmp);
    free(ctx);
}
/* The precision of a step without @run_with_accelerate, as the settings
   table gives it: a context made outside the launcher (which always sets
   PIPE_MIXED_PRECISION) has it. */
static const char *precision_none(void)
{
    return pipe_option_get(PIPE_DEC_ACCELERATE, PIPE_ACC_MIXED_PRECISION)->absent_text;
}


int pipe_ctx_create(const pipe_ctx_config *cfg, pipe_ctx **out, char *err, size_t errsize)
{
    int rc = 0;
    pipe_ctx *ctx = calloc(1, sizeof *ctx);
    *out = NULL;
    if (!ctx)
        return PIPE_ENOMEM;
    ctx->started = pipe_now();
    ctx->writes_deferred = cfg->writes_deferred;
    pipe_rank_ids ids;
    if ((rc = pipe_rank_env_read_ids(&ids, err, errsize)) != 0)
        goto fail;
    ctx->rank = ids.rank;
    ctx->world_size = ids.world_size;
    ctx->local_rank = ids.local_rank;
    ctx->local_world_size = ids.local_world_size;
    const char *mp = getenv("PIPE_MIXED_PRECISION");
    const char *scratch = cfg->scratch_root ? cfg->scratch_root : getenv("PIPE_SCRATCH_ROOT");
    ctx->invocation = pipe_strdup(cfg->invocation ? cfg->invocation : "");
    ctx->run_id = pipe_strdup(cfg->run_id ? cfg->run_id : "");
    ctx->dir = pipe_strdup(cfg->dir ? cfg->dir : ".");
    ctx->mixed_precision = pipe_strdup(mp && *mp ? mp : precision_none());
    if (!ctx->invocation || !ctx->run_id || !ctx->dir || !ctx->mixed_precision) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    ctx->error_path = pipe_store_error_file(ctx->dir, ctx->rank, ctx->world_size);
    char *metrics_path = pipe_asprintf("%s/metrics.csv", ctx->dir);
    int mrc = metrics_path ? pipe_metrics_writer_init(&ctx->metrics, metrics_path, ctx->started) : PIPE_ENOMEM;
    free(metrics_path);
    ctx->scratch_root = scratch && *scratch ? pipe_strdup(scratch) : pipe_asprintf("%s/scratch", ctx->dir);
    if (!ctx->error_path || mrc != 0 || !ctx->scratch_root) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    const char *ckpt = getenv("PIPE_CHECKPOINT_DIR"), *latest = getenv("PIPE_CHECKPOINT_LATEST");
    if ((ckpt && *ckpt && !(ctx->checkpoint_dir = pipe_strdup(ckpt))) ||
        (ctx->checkpoint_dir && latest && *latest && !(ctx->checkpoint_latest = pipe_strdup(latest)))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    if (cfg->ninputs > 0 && !(ctx->inputs = calloc(cfg->ninputs, sizeof *ctx->inputs))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    for (; ctx->ninputs < cfg->ninputs; ctx->ninputs++) {
        pipe_ctx_input *in = &ctx->inputs[ctx->ninputs];
        in->name = pipe_strdup(cfg->input_names[ctx->ninputs]);
        in->path = pipe_strdup(cfg->input_paths[ctx->ninputs]);
        if (!in->name || !in->path) {
            ctx->ninputs++;
            rc = PIPE_ENOMEM;
            goto fail;
        }
    }
    if (cfg->noutputs > 0 && !(ctx->outputs = calloc(cfg->noutputs, sizeof *ctx->outputs))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    for (; ctx->noutputs < cfg->noutputs; ctx->noutputs++) {
        pipe_ctx_output *o = &ctx->outputs[ctx->noutputs];
        const char *name = cfg->output_names[ctx->noutputs];
        o->name = pipe_strdup(name);
        o->fd = -1;
        o->final_path = pipe_asprintf("%s/outputs/%s", ctx->dir, name);
        /* Other ranks write nowhere that counts: a file in their scratch. */
        o->tmp_path = ctx->rank == 0 ? pipe_asprintf("%s/outputs/.%s.tmp.%ld", ctx->dir, name, (long)getpid())
                                     : pipe_asprintf("%s/rank-%d/discarded-%s", ctx->scratch_root, ctx->rank, name);
        if (!o->name || !o->final_path || !o->tmp_path) {
            ctx->noutputs++;
            rc = PIPE_ENOMEM;
            goto fail;
        }
    }
    ctx->coll = (pipe_coll){.rank = ctx->rank,
                            .world_size = ctx->world_size,
                            .local_rank = ctx->local_rank,
                            .local_world_size = ctx->local_world_size,
                            .error = ctx->last_error,
                            .errsize = sizeof ctx->last_error};
    if ((rc = pipe_coll_open(&ctx->coll, err, errsize)) != 0)
        goto fail;
    *out = ctx;
    return 0;
fail:
    ctx->finished = true;
    pipe_ctx_destroy(ctx);
    return rc;
}

int pipe_ctx_finish(pipe_ctx *ctx, int rc, char *err, size_t errsize)
{
    int result = 0;
    if (!ctx || ctx->finished)
        return 0;
    ctx->finished = true;
    if (ctx->metrics.file) {
        fclose(ctx->metrics.file);
        ctx->metrics.file = NULL;
    }
    bool renamed = false;
    for (size_t i = 0; i < ctx->noutputs; i++) {
        pipe_ctx_output *o = &ctx->outputs[i];
        bool written = o->stream != NULL || o->path_given;
        struct stat st;
        bool noted = false; /* the stream's digest, to be noted once the file is in place */
        char hex[PIPE_SHA256_HEX_SIZE];
        if (o->stream) {
            bool bad = fflush(o->stream) != 0 || ferror(o->stream);
            if (!bad && rc == 0 && o->fd >= 0) {
                if (pipe_commit_fsync(o->fd, ctx->writes_deferred) != 0 || fstat(o->fd, &st) != 0)
                    bad = true;
                else
                    o->fd_synced = true;
            }
            int saved = errno;
            if (fclose(o->stream) != 0)
                bad = true;
            else
                errno = saved;
            o->stream = NULL;
            if (o->fd >= 0 && close(o->fd) != 0 && !bad) {
                bad = true;
                saved = errno;
            }
            o->fd = -1;
            uint64_t size = 0;
            /* Not when the path was handed out too: bytes may have come that way. */
            noted = !bad && rc == 0 && o->fd_synced && !o->path_given && o->hashed &&
                    pipe_hashed_stream_digest(o->hashed, hex, &size) && size == (uint64_t)st.st_size;
            if (bad && rc == 0 && result == 0) {
                pipe_errf(err, errsize, "cannot write output `%s` (%s): %s", o->name, o->tmp_path, strerror(errno));
                result = PIPE_EIO;
            }
        }
        if (ctx->rank != 0 || !written)
            continue;
        if (rc != 0 || result != 0) {
            unlink(o->tmp_path);
            continue;
        }
        if (!pipe_file_exists(o->tmp_path))
            continue; /* pipe_output_path was asked for but nothing was written: the supervisor reports it */
        /* A stream's file was fsynced through its descriptor above (a path handed out
           may have been replaced, so that one is synced by name). Under the
           runner, its group commit makes them durable (store/commit.h). */
        bool sync_by_name = !o->fd_synced || o->path_given;
        if ((sync_by_name && pipe_commit_fsync_path(o->tmp_path, O_RDONLY, ctx->writes_deferred) != 0) ||
            rename(o->tmp_path, o->final_path) != 0) {
            pipe_errf(err, errsize, "cannot commit output `%s` to %s: %s", o->name, o->final_path, strerror(errno));
            unlink(o->tmp_path);
            result = PIPE_EIO;
            continue;
        }
        if (noted)
            pipe_digest_note_write(o->final_path, hex, &st); /* a hint: without it the supervisor reads the file */
        o->committed = renamed = true;
    }
    if (result != 0) {
        /* Nothing of a failed commit may look complete. */
        for (size_t i = 0; i < ctx->noutputs && ctx->rank == 0; i++) {
            unlink(ctx->outputs[i].tmp_path);
            if (ctx->outputs[i].committed)
                unlink(ctx->outputs[i].final_path);
            ctx->outputs[i].committed = false;
        }
    } else if (renamed) {
        char *outdir = pipe_asprintf("%s/outputs", ctx->dir);
        if (outdir && pipe_commit_fsync_path(outdir, O_RDONLY | O_DIRECTORY, ctx->writes_deferred) != 0) {
            pipe_errf(err, errsize, "cannot sync %s: %s", outdir, strerror(errno));
            result = PIPE_EIO;
        }
        free(outdir);
    }
    return result;
}

static pipe_ctx_output *find_output(pipe_ctx *ctx, const char *fn, const char *name)
{
    if (!name) {
        pipe_ctx_error(ctx, PIPE_EINVAL, "%s: the output name is NULL", fn);
        return NULL;
    }
    for (size_t i = 0; i < ctx->noutputs; i++)
        if (strcmp(ctx->outputs[i].name, name) == 0)
            return &ctx->outputs[i];
    char list[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < ctx->noutputs && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s`%s`", i ? ", " : "", ctx->outputs[i].name);
    if (ctx->noutputs == 0)
        pipe_ctx_error(ctx, PIPE_ENOENT, "%s: step `%s` declares no outputs, so there is no `%s`", fn,
                       ctx->invocation, name);
    else
        pipe_ctx_error(ctx, PIPE_ENOENT, "%s: `%s` is not an output of `%s` (its outputs: %s)", fn, name,
                       ctx->invocation, list);
    return NULL;
}

const char *pipe_input_path(pipe_ctx *ctx, const char *name)
{
    if (!ctx)
        return NULL;
    if (!name) {
        pipe_ctx_error(ctx, PIPE_EINVAL, "pipe_input_path: the input name is NULL");
        return NULL;
    }
    for (size_t i = 0; i < ctx->ninputs; i++)
        if (strcmp(ctx->inputs[i].name, name) == 0)
            return ctx->inputs[i].path;
    pipe_ctx_error(ctx, PIPE_ENOENT, "pipe_input_path: `%s` is not an artifact input of `%s`", name,
                   ctx->invocation);
    return NULL;
}

/* The scratch root, made on first use (the supervisor names it and leaves
   it to the ranks, step/sweep.h): private to this user, as the supervisor
   makes a command step's. A folder already there is taken only when it is
   this user's, not a link and closed to others: the name is in a shared
   TMPDIR. 0, or PIPE_EIO with err. */
static int make_scratch_root(const char *root, char *err, size_t errsize)
{
    if (mkdir(root, 0700) == 0)
        return 0;
    if (errno == ENOENT) /* no supervisor made its parent: a test's folder */
        return pipe_mkdirs(root, err, errsize);
    struct stat st;
    if (errno == EEXIST && lstat(root, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
        (st.st_mode & 077) == 0)
        return 0;
    pipe_errf(err, errsize, "cannot make the scratch folder %s: %s", root,
              errno == EEXIST ? "something else has that name" : strerror(errno));
    return PIPE_EIO;
}

/* SCRATCH_ROOT/rank-N, created. */
static const char *ensure_scratch(pipe_ctx *ctx)
{
    if (!ctx->scratch_dir && !(ctx->scratch_dir = pipe_asprintf("%s/rank-%d", ctx->scratch_root, ctx->rank))) {
        pipe_ctx_error(ctx, PIPE_ENOMEM, "out of memory");
        return NULL;
    }
    if (pipe_dir_exists(ctx->scratch_dir))
        return ctx->scratch_dir;
    char err[512];
    if (make_scratch_root(ctx->scratch_root, err, sizeof err) != 0 ||
        pipe_mkdirs(ctx->scratch_dir, err, sizeof err) != 0) {
        pipe_ctx_error(ctx, PIPE_EIO, "pipe_scratch_dir: %s", err);
        return NULL;
    }
    return ctx->scratch_dir;
}

FILE *pipe_output_open(pipe_ctx *ctx, const char *name)
{
    if (!ctx)
        return NULL;
    pipe_ctx_output *o = find_output(ctx, "pipe_output_open", name);
    if (!o)
        return NULL;
    if (o->stream)
        return o->stream;
    if (ctx->finished) {
        pipe_ctx_error(ctx, PIPE_ESTATE, "pipe_output_open: the step has already returned");
        return NULL;
    }
    const char *path = ctx->rank == 0 ? o->tmp_path : "/dev/null";
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        pipe_ctx_error(ctx, PIPE_EIO, "pipe_output_open: cannot create %s for output `%s`: %s", path, name,
                       strerror(errno));
        return NULL;
    }
    /* Rank 0's bytes are hashed on their way to the file (hashed_stream.h). */
    o->stream = ctx->rank == 0 ? pipe_hashed_stream_open(fd, &o->hashed) : fdopen(fd, "wb");
    if (!o->stream) {
        pipe_ctx_error(ctx, PIPE_ENOMEM, "pipe_output_open: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (ctx->rank == 0)
        o->fd = fd;
    return o->stream;
}

const char *pipe_output_path(pipe_ctx *ctx, const char *name)
{
    if (!ctx)
        return NULL;
    pipe_ctx_output *o = find_output(ctx, "pipe_output_path", name);
    if (!o)
        return NULL;
    if (ctx->finished) {
        pipe_ctx_error(ctx, PIPE_ESTATE, "pipe_output_path: the step has already returned");
        return NULL;
    }
    if (ctx->rank != 0 && !ensure_scratch(ctx))
        return NULL;
    o->path_given = true;
    return o->tmp_path;
}

int pipe_rank(const pipe_ctx *ctx) { return ctx ? ctx->rank : 0; }
int pipe_world_size(const pipe_ctx *ctx) { return ctx ? ctx->world_size : 1; }
int pipe_local_rank(const pipe_ctx *ctx) { return ctx ? ctx->local_rank : 0; }
int pipe_local_world_size(const pipe_ctx *ctx) { return ctx ? ctx->local_world_size : 1; }
const char *pipe_invocation_id(const pipe_ctx *ctx) { return ctx ? ctx->invocation : NULL; }
const char *pipe_run_id(const pipe_ctx *ctx) { return ctx ? ctx->run_id : NULL; }
const char *pipe_mixed_precision(const pipe_ctx *ctx) { return ctx ? ctx->mixed_precision : precision_none(); }

const char *pipe_scratch_dir(const pipe_ctx *cctx)
{
    /* The API takes a const context; the lazily created path is the
       context's own cache. */
    pipe_ctx *ctx = (pipe_ctx *)cctx;
    return ctx ? ensure_scratch(ctx) : NULL;
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* One write(2) per line, so lines of concurrent ranks do not interleave. */
static void write_line(const char *prefix, const char *msg)
{
    size_t len = strlen(msg);
    while (len > 0 && msg[len - 1] == '\n')
        len--;
    char *line = pipe_asprintf("%s%.*s\n", prefix, (int)len, msg);
    if (!line)
        return;
    size_t left = strlen(line);
    const char *p = line;
    while (left > 0) {
        ssize_t w = write(STDERR_FILENO, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    free(line);
}

static void log_text(pipe_ctx *ctx, const char *msg)
{
    char stamp[40], prefix[80];
    pipe_iso8601(stamp, sizeof stamp);
    snprintf(prefix, sizeof prefix, "%s [rank %d] ", stamp, ctx ? ctx->rank : 0);
    write_line(prefix, msg);
}

void pipe_log(pipe_ctx *ctx, const char *fmt, ...)
{
    if (!fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    log_text(ctx, msg ? msg : fmt);
    free(msg);
}

/* pipe_metric and pipe_metric_at: step < 0 takes the name's next index. */
static int record_metric(pipe_ctx *ctx, const char *fn, const char *name, int64_t step, double value)
{
    char err[512];
    if (!ctx)
        return PIPE_EINVAL;
    if (pipe_metric_name_check(name, err, sizeof err) != 0)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "%s: %s (non-empty, at most %d bytes, no comma, quote or control "
                              "character)", fn, err, PIPE_METRIC_NAME_MAX);
    if (ctx->finished)
        return pipe_ctx_error(ctx, PIPE_ESTATE, "%s: the step has already returned", fn);
    if (ctx->rank != 0)
        return 0; /* rank 0 speaks for the step */
    int rc = pipe_metrics_writer_record(&ctx->metrics, name, step, value, -1, err, sizeof err);
    return rc ? pipe_ctx_error(ctx, rc, "%s: %s", fn, err) : 0;
}

int pipe_metric(pipe_ctx *ctx, const char *name, double value)
{
    return record_metric(ctx, "pipe_metric", name, -1, value);
}

int pipe_metric_at(pipe_ctx *ctx, const char *name, int64_t step, double value)
{
    if (ctx && step < 0)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "pipe_metric_at: step %lld of `%s` is negative (steps count from 0)",
                              (long long)step, name ? name : "(null)");
    return record_metric(ctx, "pipe_metric_at", name, step, value);
}

int pipe_fail(pipe_ctx *ctx, const char *fmt, ...)
{
    if (!ctx || !fmt)
        return 1;
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    const char *text = msg ? msg : fmt;
    /* The rank's own file: the supervisor names the rank. */
    char err[512];
    if (pipe_write_file_atomic(ctx->error_path, text, strlen(text), err, sizeof err) != 0)
        pipe_ctx_error(ctx, PIPE_EIO, "pipe_fail: %s", err);
    char *logged = pipe_asprintf("error: %s", text);
    log_text(ctx, logged ? logged : text);
    free(logged);
    free(msg);
    return 1;
}
