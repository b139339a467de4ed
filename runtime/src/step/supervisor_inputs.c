/* The invocation's arguments and inputs, and the cache (supervisor_parts.h):
   values from the manifest and run.yaml, inputs from their producers'
   step.yaml, the cache key over both, and a hit's outputs reused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/artifact.h"
#include "store/cache.h"
#include "store/cache_key.h"
#include "store/commit.h"
#include "pipe/error.h"
#include "pipe/base.h"
#include "supervisor_parts.h"
#include "util/util.h"

/* A pipeline parameter's value: run.yaml's, else its default; NULL when
   it has neither. */
static const char *param_value(const pipe_step_ident *id, const char *name)
{
    const char *value = pipe_run_info_param(id->run, name);
    for (size_t p = 0; !value && p < id->m->nparams; p++)
        if (strcmp(id->m->params[p].name, name) == 0)
            value = id->m->params[p].default_value;
    return value;
}

/* The digest of input pname at opath: as its producer recorded it when the
   file is unchanged (or has no stamp) and the record can be trusted, else
   read again. A supervisor under the live runner of the run trusts the
   run's records (a crash would have ended both); anyone else only those
   made durable (store/commit.h). */
static int input_digest(const pipe_step_ident *id, pipe_step_log *log, const char *pname, const char *producer,
                        const pipe_step_artifact *out, const char *opath, char hex[PIPE_SHA256_HEX_SIZE], char *err,
                        size_t errsize)
{
    char rerr[1024];
    bool trusted = id->o.commit_deferred || pipe_commit_durable(id->store, id->o.run_id, producer);
    if (out && out->sha256 && !id->o.verify && trusted && (pipe_step_artifact_unchanged(out, opath) || out->size < 0)) {
        /* As recorded: the file has its recorded size and time,
           or is a folder (or an older record) with no stamp. */
        snprintf(hex, PIPE_SHA256_HEX_SIZE, "%s", out->sha256);
    } else if (pipe_artifact_digest(opath, hex, rerr, sizeof rerr) != 0) {
        pipe_errf(err, errsize, "input `%s` of `%s`: %s", pname, id->inv->id, rerr);
        return PIPE_ESTEP;
    } else if (out && out->sha256 && strcmp(hex, out->sha256) != 0) {
        pipe_supervisor_note(log, "input `%s` changed since `%s` recorded it: using its bytes as they are now",
                             pname, producer);
    }
    return 0;
}

/* Input pname, argument a: its producer's output, which must be recorded
   done and be there, into the record with its digest; its path
   (malloc'ed) in *path. PIPE_EUSAGE when a names no output; PIPE_ESTEP
   when the input is not available. */
static int resolve_input(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, const pipe_marg *a,
                         const char *pname, char **path, char *err, size_t errsize)
{
    const pipe_manifest *m = id->m;
    if (a->producer < 0 || (size_t)a->producer >= m->ninvocations) {
        pipe_errf(err, errsize, "input `%s` of `%s` names no invocation", pname, id->inv->id);
        return PIPE_EUSAGE;
    }
    const pipe_minvocation *prod = &m->invocations[a->producer];
    const pipe_mstep *pstep = &m->steps[prod->step];
    if (a->output < 0 || (size_t)a->output >= pstep->noutputs) {
        pipe_errf(err, errsize, "input `%s` of `%s` names no output of `%s`", pname, id->inv->id, prod->id);
        return PIPE_EUSAGE;
    }
    const char *oname = pstep->outputs[a->output].name;
    char *pfile = pipe_store_step_file(id->store, id->o.run_id, prod->id);
    char *opath = pipe_store_output_path(id->store, id->o.run_id, prod->id, oname);
    pipe_step_record *pr = NULL;
    char rerr[1024];
    int rc = pfile && opath ? pipe_step_record_read(pfile, &pr, rerr, sizeof rerr) : PIPE_ENOMEM;
    if (rc == PIPE_ENOENT || (rc == 0 && !pipe_step_status_succeeded(pr->status))) {
        pipe_errf(err, errsize, "input `%s` of `%s` comes from `%s`, which %s in run `%s`", pname, id->inv->id,
                  prod->id,
                  rc != 0                                  ? "has not finished"
                  : pr->status == PIPE_STEP_INTERRUPTED ? "was interrupted"
                                                           : "failed",
                  id->o.run_id);
        rc = PIPE_ESTEP;
    } else if (rc == PIPE_ENOMEM) {
        /* as is */
    } else if (rc != 0) {
        pipe_errf(err, errsize, "input `%s` of `%s`: cannot read the record of `%s`: %s", pname, id->inv->id,
                  prod->id, rerr);
        rc = PIPE_ESTEP;
    } else if (!pipe_artifact_exists(opath)) {
        pipe_errf(err, errsize, "input `%s` of `%s` is output `%s` of `%s`, which is missing: %s", pname,
                  id->inv->id, oname, prod->id, opath);
        rc = PIPE_ESTEP;
    } else {
        char hex[PIPE_SHA256_HEX_SIZE] = "";
        rc = input_digest(id, log, pname, prod->id, pipe_step_record_output(pr, oname), opath, hex, err, errsize);
        if (rc == 0 && (rc = pipe_step_record_add_input(rec, pname, opath, hex)) == 0)
            pipe_step_artifact_stamp(&rec->inputs[rec->ninputs - 1], opath);
    }
    pipe_step_record_free(pr);
    free(pfile);
    if (rc != 0) {
        free(opath);
        return rc;
    }
    *path = opath;
    return 0;
}

int pipe_supervisor_resolve_args(pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, char *err,
                                 size_t errsize)
{
    size_t n = id->ms->nparams;
    if (!(id->values = calloc(n + 1, sizeof *id->values)) ||
        !(id->output_names = calloc(id->ms->noutputs + 1, sizeof *id->output_names)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < id->ms->noutputs; i++)
        id->output_names[i] = id->ms->outputs[i].name;
    for (size_t i = 0; i < n; i++) {
        const pipe_marg *a = &id->inv->args[i];
        const char *pname = id->ms->params[i].name;
        const char *value = NULL;
        int rc;
        switch (a->kind) {
        case PIPE_ARG_DEFAULT:
        case PIPE_ARG_VALUE:
            value = a->value;
            break;
        case PIPE_ARG_PARAM:
            if (!(value = param_value(id, a->value))) {
                pipe_errf(err, errsize,
                          "argument `%s` of `%s` is pipeline parameter `%s`, which has no value in run `%s`", pname,
                          id->inv->id, a->value ? a->value : "?", id->o.run_id);
                return PIPE_EUSAGE;
            }
            break;
        case PIPE_ARG_ARTIFACT:
            if ((rc = resolve_input(id, log, rec, a, pname, &id->values[i], err, errsize)) != 0)
                return rc;
            continue;
        }
        if (!value) {
            pipe_errf(err, errsize, "argument `%s` of `%s` has no value", pname, id->inv->id);
            return PIPE_EUSAGE;
        }
        if (!(id->values[i] = pipe_strdup(value)) || (rc = pipe_step_record_add_param(rec, pname, value)) != 0)
            return PIPE_ENOMEM;
    }
    return 0;
}

int pipe_supervisor_cache_key(const pipe_step_ident *id, const char *device, pipe_step_record *rec)
{
    const pipe_mstep *ms = id->ms;
    char key[PIPE_SHA256_HEX_SIZE];
    int rc = pipe_cache_key_parts(ms, id->inv, device, rec);
    if (rc != 0)
        return rc;
    pipe_cache_key_input in = {
        .code_digest = ms->code_digest,
        .step = ms->name,
        .entry = ms->entry,
        .params = rec->params,
        .nparams = rec->nparams,
        .inputs = rec->inputs,
        .ninputs = rec->ninputs,
        .parts = rec->key_parts,
        .nparts = rec->nkey_parts,
    };
    pipe_cache_key(&in, key);
    rec->cache_key = pipe_strdup(key);
    return rec->cache_key ? 0 : PIPE_ENOMEM;
}

/* A miss: why the look-up found nothing, in the log. When the invocation
   succeeded before, why it runs again into the record and the log: why
   the entry of this very key cannot be reused (its output is gone or
   changed), else what differs from its last success's key. */
static void explain_miss(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, const char *why)
{
    pipe_step_record *last = NULL;
    char *from = pipe_cache_entry(id->store, rec->cache_key), reason[1024] = "";
    if (!from && (pipe_cache_last(id->store, id->m->pipeline, id->inv->id, &last, &from) != 0 || !last)) {
        pipe_supervisor_note(log, "cache miss: %s", why);
        return;
    }
    if (!last) {
        /* This very key's entry cannot be reused: why is why it runs again. */
        pipe_supervisor_note(log, "cache miss: %s", why);
        snprintf(reason, sizeof reason, "%s", why);
    } else if (!last->code_digest) {
        snprintf(reason, sizeof reason, "the cache key covers more than when %s was recorded", from);
    } else if (pipe_cache_key_diff(rec, last, reason, sizeof reason) == 0) {
        snprintf(reason, sizeof reason, "the cache key changed");
    }
    free(rec->rerun);
    free(rec->rerun_of);
    rec->rerun = pipe_strdup(reason);
    rec->rerun_of = from;
    if (last)
        pipe_supervisor_note(log, "re-running %s: %s (earlier success: %s)", id->inv->id, reason, from);
    pipe_step_record_free(last);
}

bool pipe_supervisor_try_cache(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec)
{
    pipe_cache_hit *hit = NULL;
    char why[1024] = "", err[1024] = "";
    int rc = pipe_cache_lookup(id->store, rec->cache_key, id->output_names, id->ms->noutputs, id->o.verify, &hit, why,
                               sizeof why, err, sizeof err);
    if (rc != 0) {
        pipe_supervisor_note(log, "cache look-up failed: %s", err);
        return false;
    }
    if (!hit) {
        explain_miss(id, log, rec, why);
        return false;
    }
    bool result = false;
    for (size_t i = 0; i < id->ms->noutputs; i++) {
        const char *name = id->output_names[i];
        const pipe_step_artifact *src = pipe_step_record_output(hit->record, name);
        char *dst = pipe_store_output_path(id->store, id->o.run_id, id->inv->id, name);
        if (!dst || pipe_link_or_copy(src->path, dst, id->o.commit_deferred, err, sizeof err) != 0 ||
            pipe_step_record_add_output(rec, name, dst, src->sha256) != 0) {
            pipe_supervisor_note(log, "cannot reuse %s: %s", hit->from, dst ? err : "out of memory");
            free(dst);
            goto fail;
        }
        /* A link has the source's size and time, a copy its own: both hold the verified bytes. */
        pipe_step_artifact_stamp(&rec->outputs[rec->noutputs - 1], dst);
        free(dst);
    }
    for (size_t i = 0; i < hit->record->nmetrics; i++)
        pipe_step_record_set_metric(rec, hit->record->metrics[i].name, hit->record->metrics[i].value);
    rec->cached_from = pipe_strdup(hit->from);
    rec->attempts = 0;
    pipe_supervisor_note(log, "cached: reusing the outputs of %s", hit->from);
    if (pipe_supervisor_finish_record(id, rec, PIPE_STEP_CACHED, err, sizeof err) != 0) {
        pipe_supervisor_report(log, err);
        goto fail;
    }
    result = true;
fail:
    if (!result) {
        /* Start clean: nothing half-reused stays in outputs/. */
        for (size_t i = 0; i < rec->noutputs; i++)
            unlink(rec->outputs[i].path);
        pipe_supervisor_clear_outputs(rec);
        free(rec->cached_from);
        rec->cached_from = NULL;
    }
    pipe_cache_hit_free(hit);
    return result;
}
