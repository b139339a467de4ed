/* The invocation directory and its step.yaml (supervisor_parts.h): what an
   execution starts from, what an attempt leaves, and the record of the
   result. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/artifact.h"
#include "store/digest_note.h"
#include "store/reserve.h"
#include "observe/metrics.h"
#include "pipe/error.h"
#include "pipe/base.h"
#include "supervisor_parts.h"
#include "util/cli.h"
#include "util/util.h"

/* An empty outputs/ for the ranks to write into. */
static int clean_outputs(const pipe_step_ident *id, char *err, size_t errsize)
{
    int rc = pipe_remove_tree(id->outdir, err, errsize);
    if (rc == 0)
        rc = pipe_mkdirs(id->outdir, err, errsize);
    return rc;
}

/* The temporary files of this machine's ranks' error files
   (ERROR.tmp.PID, pipe_write_file_atomic's): a rank stopped or killed
   between naming one and renaming it leaves it. Once the ranks are gone. */
static void remove_error_temporaries(const pipe_step_ident *id)
{
    int first = id->machine_rank * id->nlocal;
    DIR *d = id->dir ? opendir(id->dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        for (int r = first; r < first + (id->nlocal > 0 ? id->nlocal : 1); r++) {
            char *path = pipe_store_error_file(id->dir, r, id->world);
            const char *base = path ? strrchr(path, '/') + 1 : NULL;
            size_t n = base ? strlen(base) : 0;
            if (base && strncmp(e->d_name, base, n) == 0 && strncmp(e->d_name + n, ".tmp.", 5) == 0)
                unlinkat(dirfd(d), e->d_name, 0);
            free(path);
        }
    }
    if (d)
        closedir(d);
}

/* The error files of this machine's ranks (pipe_store_error_file), their
   temporary files and this machine's failure record. */
static void remove_error_files(const pipe_step_ident *id)
{
    int first = id->machine_rank * id->nlocal;
    for (int r = first; r < first + (id->nlocal > 0 ? id->nlocal : 1); r++) {
        char *path = pipe_store_error_file(id->dir, r, id->world);
        if (path)
            unlink(path);
        free(path);
    }
    remove_error_temporaries(id);
    pipe_supervisor_forget_failure(id);
}

int pipe_supervisor_prepare_dir(pipe_step_ident *id, pipe_step_log *log, char *err, size_t errsize)
{
    int rc;
    if (!(id->dir = pipe_store_invocation_dir(id->store, id->o.run_id, id->inv->id)) ||
        !(id->outdir = pipe_asprintf("%s/outputs", id->dir)) ||
        !(id->metrics_path = pipe_asprintf("%s/metrics.csv", id->dir)) ||
        !(id->step_path = pipe_store_step_file(id->store, id->o.run_id, id->inv->id)))
        return PIPE_ENOMEM;
    if (id->machine_rank > 0)
        log->path = pipe_asprintf("%s/log.machine-%d", id->dir, id->machine_rank);
    else
        log->path = pipe_asprintf("%s/log", id->dir);
    if (!log->path)
        return PIPE_ENOMEM;
    if ((rc = pipe_mkdirs(id->dir, err, errsize)) != 0)
        return rc;
    remove_error_files(id);
    if (id->machine_rank == 0) {
        /* Not finished (again) until this execution says so. */
        if (unlink(id->step_path) != 0 && errno != ENOENT) {
            pipe_errf(err, errsize, "cannot remove %s: %s", id->step_path, strerror(errno));
            return PIPE_EIO;
        }
        unlink(id->metrics_path);
        char *profile = pipe_asprintf("%s/profile", id->dir);
        rc = profile ? pipe_remove_tree(profile, err, errsize) : PIPE_ENOMEM;
        free(profile);
        if (rc != 0 || (rc = clean_outputs(id, err, errsize)) != 0)
            return rc;
    }
    /* Other machines write no outputs (rank 0 does, on machine 0): an
       outputs/ made here would outlive a failure that machine 0 cleared. */
    /* Room for the record of a failure, before the log can fill the disk. */
    char reserve_name[64] = ".reserve";
    log->reserve_offset = -1;
    if (id->machine_rank == 0 && id->o.reserve_lent.path) {
        if (!(log->reserve = pipe_strdup(id->o.reserve_lent.path)))
            return PIPE_ENOMEM;
        log->reserve_offset = id->o.reserve_lent.offset;
    } else if (id->machine_rank > 0) {
        snprintf(reserve_name, sizeof reserve_name, ".reserve.machine-%d", id->machine_rank);
    }
    int e = log->reserve ? 0 : pipe_reserve_take(id->dir, reserve_name, PIPE_STEP_RESERVE_BYTES, &log->reserve);
    if (e != 0) {
        char *path = pipe_asprintf("%s/%s", id->dir, reserve_name);
        char *why = path ? pipe_disk_error(path, e) : NULL;
        free(path);
        pipe_errf(err, errsize, "step %s: %s", id->ms->name, why ? why : strerror(e));
        free(why);
        return e == ENOMEM ? PIPE_ENOMEM : PIPE_EIO;
    }
    if ((rc = pipe_log_cap_init(&log->cap, log->path, err, errsize)) != 0)
        return rc;
    unlink(log->cap.ring_path); /* a killed execution's */
    log->fd = open(log->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (log->fd < 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", log->path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

int pipe_supervisor_finish_record(const pipe_step_ident *id, pipe_step_record *rec, pipe_step_status status,
                                  char *err, size_t errsize)
{
    char stamp[40];
    pipe_iso8601(stamp, sizeof stamp);
    rec->status = status;
    free(rec->finished);
    rec->finished = pipe_strdup(stamp);
    rec->duration_s = pipe_now() - id->t0;
    if (id->machine_rank > 0)
        return 0; /* machine 0 speaks for the invocation */
    return pipe_step_record_write(id->step_path, rec, id->o.commit_deferred, err, errsize);
}

void pipe_supervisor_reserve_release(pipe_step_log *log, bool give_back)
{
    if (log->reserve && log->reserve_offset >= 0) {
        if (give_back)
            pipe_reserve_lease_give_back(log->reserve, log->reserve_offset);
        free(log->reserve); /* the runner's file: it takes the range back */
        log->reserve = NULL;
    } else {
        pipe_reserve_release(&log->reserve);
    }
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

/* The end of an invocation that did not succeed (failed or interrupted):
   no outputs, the record with why. */
static void record_unsuccessful(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, const char *why,
                                pipe_step_status status)
{
    char err[1024];
    free(rec->error);
    rec->error = pipe_strdup(why);
    pipe_supervisor_reserve_release(log, true);
    /* A failed invocation has no outputs/ at all, not even the temporary
       files of a worker that was killed while writing. */
    if (id->machine_rank == 0 && id->outdir && pipe_remove_tree(id->outdir, err, sizeof err) != 0)
        pipe_supervisor_note(log, "%s", err);
    pipe_supervisor_clear_outputs(rec);
    remove_error_temporaries(id);
    if (pipe_supervisor_finish_record(id, rec, status, err, sizeof err) != 0) {
        pipe_supervisor_report(log, err);
        pipe_supervisor_report(log, why); /* no step.yaml: the runner has only this */
    } else if (!log->echo && status == PIPE_STEP_FAILED) {
        pipe_supervisor_report(log, why);
    }
}

int pipe_supervisor_fail(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, const char *why)
{
    /* The log gets the cause's first line (the rest is a tail of the log
       itself). Under the runner (--echo) it is not echoed: the runner's
       summary shows the whole cause once; alone, stderr gets it once. */
    int first = (int)strcspn(why, "\n");
    if (log->echo)
        pipe_supervisor_note_log_only(log, "failed: %.*s", first, why);
    else
        pipe_supervisor_note(log, "failed: %.*s", first, why);
    record_unsuccessful(id, log, rec, why, PIPE_STEP_FAILED);
    return PIPE_EXIT_FAILED;
}

int pipe_supervisor_interrupted(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec, int sig)
{
    char name[32], why[64];
    pipe_signal_text(sig, name, sizeof name);
    snprintf(why, sizeof why, "interrupted by %s", name);
    pipe_supervisor_note(log, "%s", why);
    record_unsuccessful(id, log, rec, why, PIPE_STEP_INTERRUPTED);
    return 128 + sig;
}

static void warn_line(void *log, const char *line) { pipe_supervisor_note(log, "warning: %s", line); }

void pipe_supervisor_read_metrics(const pipe_step_ident *id, pipe_step_log *log, pipe_step_record *rec)
{
    pipe_metrics m;
    if (pipe_metrics_read(id->metrics_path, &m, NULL, 0) != 0)
        return;
    pipe_metrics_warn(&m, id->metrics_path, warn_line, log);
    for (size_t i = 0; i < m.n; i++)
        if (m.series[i].n > 0)
            pipe_step_record_set_metric(rec, m.series[i].name, m.series[i].points[m.series[i].n - 1].value);
    pipe_metrics_free(&m);
}

char *pipe_supervisor_check_output(const pipe_step_ident *id, const char *name, const char *path)
{
    char err[1024];
    int rc = pipe_artifact_check(path, name, err, sizeof err);
    if (rc == 0)
        return NULL;
    if (rc == PIPE_ENOMEM)
        return pipe_strdup("out of memory");
    return pipe_asprintf("step `%s`: output `%s` cannot be kept: %s", id->ms->name, name, err);
}

char *pipe_supervisor_collect_outputs(const pipe_step_ident *id, pipe_step_record *rec)
{
    char err[1024];
    for (size_t i = 0; i < id->ms->noutputs; i++) {
        const char *name = id->output_names[i];
        char *path = pipe_store_output_path(id->store, id->o.run_id, id->inv->id, name);
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
                                 id->ms->name, name);
        }
        if (rc == 0 && (rc = pipe_step_record_add_output(rec, name, path, hex)) == 0)
            pipe_step_artifact_stamp(&rec->outputs[rec->noutputs - 1], path);
        free(path);
        if (rc != 0)
            return pipe_asprintf("output `%s`: %s", name, rc == PIPE_ENOMEM ? "out of memory" : err);
    }
    return NULL;
}

void pipe_supervisor_reset_attempt(const pipe_step_ident *id, pipe_step_record *rec)
{
    char err[512];
    remove_error_files(id);
    if (id->machine_rank == 0) {
        unlink(id->metrics_path);
        clean_outputs(id, err, sizeof err);
    }
    pipe_supervisor_clear_outputs(rec);
    for (size_t i = 0; i < rec->nmetrics; i++)
        free(rec->metrics[i].name);
    rec->nmetrics = 0;
}
