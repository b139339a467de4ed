/* The invocation directory and its step.yaml (supervisor.h): what an
   execution starts from, what an attempt leaves, and the record of the
   result. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/artifact.h"
#include "cmd/commands.h"
#include "store/digest_note.h"
#include "observe/metrics.h"
#include "pipe/error.h"
#include "pipe/base.h"
#include "supervisor.h"
#include "util/util.h"

/* An empty outputs/ for the ranks to write into. */
static int clean_outputs(pipe_supervisor *s, char *err, size_t errsize)
{
    int rc = pipe_remove_tree(s->outdir, err, errsize);
    if (rc == 0)
        rc = pipe_mkdirs(s->outdir, err, errsize);
    return rc;
}

/* The error files of this machine's ranks (pipe_store_error_file). */
static void remove_error_files(const pipe_supervisor *s)
{
    int first = s->machine_rank * s->nlocal;
    for (int r = first; r < first + (s->nlocal > 0 ? s->nlocal : 1); r++) {
        char *path = pipe_store_error_file(s->dir, r, s->world);
        if (path)
            unlink(path);
        free(path);
    }
}

int pipe_supervisor_prepare_dir(pipe_supervisor *s, char *err, size_t errsize)
{
    int rc;
    if (!(s->dir = pipe_store_invocation_dir(s->store, s->o.run_id, s->inv->id)) ||
        !(s->outdir = pipe_asprintf("%s/outputs", s->dir)) ||
        !(s->metrics_path = pipe_asprintf("%s/metrics.csv", s->dir)) ||
        !(s->step_path = pipe_store_step_file(s->store, s->o.run_id, s->inv->id)))
        return PIPE_ENOMEM;
    if (s->machine_rank > 0)
        s->log_path = pipe_asprintf("%s/log.machine-%d", s->dir, s->machine_rank);
    else
        s->log_path = pipe_asprintf("%s/log", s->dir);
    if (!s->log_path)
        return PIPE_ENOMEM;
    if ((rc = pipe_mkdirs(s->dir, err, errsize)) != 0)
        return rc;
    remove_error_files(s);
    if (s->machine_rank == 0) {
        /* Not finished (again) until this execution says so. */
        if (unlink(s->step_path) != 0 && errno != ENOENT) {
            pipe_errf(err, errsize, "cannot remove %s: %s", s->step_path, strerror(errno));
            return PIPE_EIO;
        }
        unlink(s->metrics_path);
        char *profile = pipe_asprintf("%s/profile", s->dir);
        rc = profile ? pipe_remove_tree(profile, err, errsize) : PIPE_ENOMEM;
        free(profile);
        if (rc != 0 || (rc = clean_outputs(s, err, errsize)) != 0)
            return rc;
    } else if ((rc = pipe_mkdirs(s->outdir, err, errsize)) != 0) {
        return rc;
    }
    s->log_fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (s->log_fd < 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", s->log_path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

int pipe_supervisor_finish_record(pipe_supervisor *s, pipe_step_status status, char *err, size_t errsize)
{
    char stamp[40];
    pipe_iso8601(stamp, sizeof stamp);
    s->rec->status = status;
    free(s->rec->finished);
    s->rec->finished = pipe_strdup(stamp);
    s->rec->duration_s = pipe_now() - s->t0;
    if (s->machine_rank > 0)
        return 0; /* machine 0 speaks for the invocation */
    return pipe_step_record_write(s->step_path, s->rec, err, errsize);
}

void pipe_supervisor_clear_outputs(pipe_step_record *r)
{
    for (size_t i = 0; i < r->noutputs; i++) {
        free(r->outputs[i].name);
        free(r->outputs[i].path);
        free(r->outputs[i].sha256);
    }
    r->noutputs = 0;
}

int pipe_supervisor_fail(pipe_supervisor *s, const char *why)
{
    char err[1024];
    free(s->rec->error);
    s->rec->error = pipe_strdup(why);
    /* The log gets the cause's first line (the rest is a tail of the log
       itself). Under the runner (--echo) it is not echoed: the runner's
       summary shows the whole cause once; alone, stderr gets it once. */
    int first = (int)strcspn(why, "\n");
    if (s->o.echo)
        pipe_supervisor_note_log_only(s, "failed: %.*s", first, why);
    else
        pipe_supervisor_note(s, "failed: %.*s", first, why);
    /* A failed invocation has no outputs/ at all, not even the temporary
       files of a worker that was killed while writing. */
    if (s->machine_rank == 0 && s->outdir && pipe_remove_tree(s->outdir, err, sizeof err) != 0)
        pipe_supervisor_note(s, "%s", err);
    pipe_supervisor_clear_outputs(s->rec);
    if (pipe_supervisor_finish_record(s, PIPE_STEP_FAILED, err, sizeof err) != 0) {
        pipe_supervisor_report(s, err);
        pipe_supervisor_report(s, why); /* no step.yaml: the runner has only this */
    } else if (!s->o.echo) {
        pipe_supervisor_report(s, why);
    }
    return PIPE_EXIT_FAILED;
}

void pipe_supervisor_read_metrics(pipe_supervisor *s)
{
    pipe_metrics m;
    if (pipe_metrics_read(s->metrics_path, &m, NULL, 0) != 0)
        return;
    for (size_t i = 0; i < m.n; i++)
        if (m.series[i].n > 0)
            pipe_step_record_set_metric(s->rec, m.series[i].name, m.series[i].points[m.series[i].n - 1].value);
    pipe_metrics_free(&m);
}

char *pipe_supervisor_collect_outputs(pipe_supervisor *s)
{
    char err[1024];
    for (size_t i = 0; i < s->ms->noutputs; i++) {
        const char *name = s->output_names[i];
        char *path = pipe_store_output_path(s->store, s->o.run_id, s->inv->id, name);
        char hex[PIPE_SHA256_HEX_SIZE];
        if (!path)
            return pipe_strdup("out of memory");
        /* The digest the worker computed while writing, when its note still
           matches the file; else one read of the file. */
        int rc = pipe_digest_note_take(path, hex) ? 0 : pipe_artifact_digest(path, hex, err, sizeof err);
        if (rc == PIPE_ENOENT) {
            free(path);
            return pipe_asprintf("step `%s` returned 0 but did not write output `%s` (pipe_output_open or "
                                 "pipe_output_path)",
                                 s->ms->name, name);
        }
        if (rc == 0 && (rc = pipe_step_record_add_output(s->rec, name, path, hex)) == 0)
            pipe_step_artifact_stamp(&s->rec->outputs[s->rec->noutputs - 1], path);
        free(path);
        if (rc != 0)
            return pipe_asprintf("output `%s`: %s", name, rc == PIPE_ENOMEM ? "out of memory" : err);
    }
    return NULL;
}

void pipe_supervisor_reset_attempt(pipe_supervisor *s)
{
    char err[512];
    remove_error_files(s);
    if (s->machine_rank == 0) {
        unlink(s->metrics_path);
        clean_outputs(s, err, sizeof err);
    }
    pipe_supervisor_clear_outputs(s->rec);
    for (size_t i = 0; i < s->rec->nmetrics; i++)
        free(s->rec->metrics[i].name);
    s->rec->nmetrics = 0;
}
