#include "worker.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ctx.h"
#include "crash_trace.h"
#include "pipe/error.h"
#include "store/store.h"
#include "util/util.h"

static int convert(const pipe_field *f, const char *value, void *slot, char *err, size_t errsize)
{
    char *end;
    switch (f->type) {
    case PIPE_TYPE_INT: {
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (!*value || *end || errno) {
            pipe_errf(err, errsize, "argument `%s`: `%s` is not an integer", f->name, value);
            return PIPE_EINVAL;
        }
        int64_t x = (int64_t)v;
        memcpy(slot, &x, sizeof x);
        return 0;
    }
    case PIPE_TYPE_FLOAT: {
        errno = 0;
        double v = strtod(value, &end);
        if (!*value || *end || errno == ERANGE) {
            pipe_errf(err, errsize, "argument `%s`: `%s` is not a number", f->name, value);
            return PIPE_EINVAL;
        }
        memcpy(slot, &v, sizeof v);
        return 0;
    }
    case PIPE_TYPE_BOOL: {
        bool v;
        if (strcmp(value, "true") == 0)
            v = true;
        else if (strcmp(value, "false") == 0)
            v = false;
        else {
            pipe_errf(err, errsize, "argument `%s`: `%s` is not true or false", f->name, value);
            return PIPE_EINVAL;
        }
        memcpy(slot, &v, sizeof v);
        return 0;
    }
    case PIPE_TYPE_STRING:
    case PIPE_TYPE_ARTIFACT:
        memcpy(slot, &value, sizeof value);
        return 0;
    }
    pipe_errf(err, errsize, "argument `%s` has an unknown type %d", f->name, (int)f->type);
    return PIPE_EABI;
}

int pipe_worker_build_args(const pipe_step_impl *impl, const pipe_mstep *mstep, const char *const *values,
                           void **args, char *err, size_t errsize)
{
    int rc = 0;
    *args = NULL;
    /* One byte at least, so that a step without parameters gets a pointer. */
    char *buf = calloc(1, impl->args_size ? impl->args_size : 1);
    if (!buf)
        return PIPE_ENOMEM;
    if (impl->nfields != mstep->nparams) {
        pipe_errf(err, errsize, "step `%s`: the driver has %zu argument fields but the manifest %zu parameters",
                  impl->name, impl->nfields, mstep->nparams);
        rc = PIPE_EABI;
        goto fail;
    }
    for (size_t i = 0; i < impl->nfields; i++) {
        const pipe_field *f = &impl->fields[i];
        size_t p = 0;
        while (p < mstep->nparams && strcmp(mstep->params[p].name, f->name) != 0)
            p++;
        size_t size = pipe_type_size(f->type);
        if (p == mstep->nparams || size == 0 || f->offset > impl->args_size ||
            size > impl->args_size - f->offset) {
            pipe_errf(err, errsize, "step `%s`: argument field `%s` does not match the manifest", impl->name,
                      f->name);
            rc = PIPE_EABI;
            goto fail;
        }
        bool field_artifact = f->type == PIPE_TYPE_ARTIFACT,
             param_artifact = mstep->params[p].type == PIPE_TYPE_ARTIFACT;
        if (field_artifact != param_artifact) {
            pipe_errf(err, errsize, "step `%s`: argument `%s` is %s in the driver but %s in the manifest",
                      impl->name, f->name, field_artifact ? "an artifact" : "a value",
                      param_artifact ? "an artifact" : "a value");
            rc = PIPE_EABI;
            goto fail;
        }
        if (!values[p]) {
            pipe_errf(err, errsize, "step `%s`: argument `%s` has no value", impl->name, f->name);
            rc = PIPE_EINVAL;
            goto fail;
        }
        if ((rc = convert(f, values[p], buf + f->offset, err, errsize)) != 0)
            goto fail;
    }
    *args = buf;
    return 0;
fail:
    free(buf);
    return rc;
}

/* The rank's error file, unless pipe_fail already wrote it. */
static void explain(const pipe_worker_spec *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void explain(const pipe_worker_spec *spec, const char *fmt, ...)
{
    char *path = pipe_store_error_file(spec->dir, spec->rank, spec->world);
    if (!path)
        return;
    if (!pipe_file_exists(path)) {
        char msg[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        pipe_write_file_atomic(path, msg, strlen(msg), NULL, 0);
    }
    free(path);
}

int pipe_worker_run(const pipe_worker_spec *spec)
{
    char err[1024] = "";
    void *args = NULL;
    pipe_ctx *ctx = NULL;
    const char **input_names = NULL, **input_paths = NULL;
    int status = 1, rc;
    const pipe_mstep *ms = spec->mstep;

    if ((rc = pipe_worker_build_args(spec->impl, ms, spec->values, &args, err, sizeof err)) != 0) {
        explain(spec, "cannot start step `%s`: %s", ms->name, err);
        goto fail;
    }
    size_t ninputs = 0;
    input_names = calloc(ms->nparams + 1, sizeof *input_names);
    input_paths = calloc(ms->nparams + 1, sizeof *input_paths);
    if (!input_names || !input_paths) {
        explain(spec, "cannot start step `%s`: out of memory", ms->name);
        goto fail;
    }
    for (size_t i = 0; i < ms->nparams; i++)
        if (ms->params[i].type == PIPE_TYPE_ARTIFACT) {
            input_names[ninputs] = ms->params[i].name;
            input_paths[ninputs++] = spec->values[i];
        }
    pipe_ctx_config cfg = {
        .invocation = spec->invocation,
        .run_id = spec->run_id,
        .dir = spec->dir,
        .input_names = input_names,
        .input_paths = input_paths,
        .ninputs = ninputs,
        .output_names = spec->output_names,
        .noutputs = spec->noutputs,
        .writes_deferred = spec->writes_deferred,
    };
    if ((rc = pipe_ctx_create(&cfg, &ctx, err, sizeof err)) != 0) {
        explain(spec, "cannot start step `%s`: %s", ms->name, err);
        goto fail;
    }
    if (spec->use_gpu && spec->cuda && spec->cuda->select_device &&
        (rc = spec->cuda->select_device(ctx->local_rank, err, sizeof err)) != 0) {
        explain(spec, "rank %d cannot select its GPU: %s", ctx->rank, err);
        goto fail;
    }
    if (spec->use_gpu && spec->cleanup_memory && spec->cuda && spec->cuda->release_caches) {
        size_t freed = 0;
        if ((rc = spec->cuda->release_caches(&freed, err, sizeof err)) != 0)
            pipe_log(ctx, "cleanup_memory: %s", err);
        else
            pipe_log(ctx, "cleanup_memory: released %zu bytes of CUDA caches", freed);
    }

    char *error_file = pipe_store_error_file(spec->dir, spec->rank, spec->world);
    pipe_crash_trace_install(error_file);
    free(error_file);
    pipe_step_fn entry = *spec->impl->fn;
    pipe_malloc_fast_bins(true); /* the step's code allocates as it would anywhere */
    if (entry)
        rc = entry(ctx, args);
    else
        rc = pipe_fail(ctx, "step `%s` needs its CUDA sources, and this bundle was built without a CUDA compiler",
                       ms->name);

    /* Before the outputs are committed: what the step printed. */
    fflush(stdout);
    fflush(stderr);
    if (rc != 0) {
        if (rc < 0 && rc >= PIPE_ESTATE)
            explain(spec, "step `%s` returned %d (%s)", ms->name, rc, pipe_strerror(rc));
        else
            explain(spec, "step `%s` returned %d", ms->name, rc);
        pipe_ctx_finish(ctx, rc, NULL, 0);
        status = rc > 0 && rc < 256 ? rc : 1;
        goto fail;
    }
    if (pipe_ctx_finish(ctx, 0, err, sizeof err) != 0) {
        explain(spec, "%s", err);
        goto fail;
    }
    status = 0;
fail:
    fflush(stdout);
    fflush(stderr);
    pipe_ctx_destroy(ctx);
    free(input_names);
    free(input_paths);
    free(args);
    return status;
}
