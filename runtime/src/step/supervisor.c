/* pipe_step_run (step.h): the supervisor of one invocation
   (docs/runtime.md, "Process model"). It reads or creates run.yaml, resolves
   the inputs from the producers' step.yaml, checks the cache, runs the
   attempts (each forks one worker per local rank), enforces @retry and
   max_restarts, verifies the outputs and writes step.yaml. The parts are
   listed in supervisor.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/cache.h"
#include "store/digest_note.h"
#include "store/reserve.h"
#include "proc/child.h"
#include "format/params.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "proc/procs.h"
#include "store/run_lock.h"
#include "stop.h"
#include "supervisor.h"
#include "sweep.h"
#include "threads.h"
#include "util/cli.h"
#include "util/util.h"

static void unknown_invocation(const pipe_manifest *m, const char *id, char *err, size_t errsize)
{
    const char *best = NULL;
    size_t limit = strlen(id) / 3 + 1;
    const char **ids = calloc(m->ninvocations + 1, sizeof *ids);
    if (ids) { /* out of memory: no suggestion */
        for (size_t i = 0; i < m->ninvocations; i++)
            ids[i] = m->invocations[i].id;
        best = pipe_closest_name(id, ids, m->ninvocations, limit < 2 ? 2 : limit);
        free(ids);
    }
    if (best) {
        pipe_errf(err, errsize, "pipeline `%s` has no invocation `%s`; did you mean `%s`?", m->pipeline, id, best);
        return;
    }
    char list[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < m->ninvocations && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", m->invocations[i].id);
    pipe_errf(err, errsize, "pipeline `%s` has no invocation `%s` (its invocations: %s)", m->pipeline, id, list);
}

/* ---- setup: invocation, store, run.yaml ---- */

static const pipe_step_impl *find_impl(const pipe_program *prog, const char *name)
{
    for (size_t i = 0; i < prog->nsteps; i++)
        if (strcmp(prog->steps[i].name, name) == 0)
            return &prog->steps[i];
    return NULL;
}

/* The run's parameters: run.yaml when it exists (checking that --param
   agrees), else defaults plus --param, written as run.yaml (first writer
   wins). */
static int load_run(pipe_step_ident *id, char *err, size_t errsize)
{
    pipe_param_values pv = {0};
    pipe_run_info info = {0};
    int rc = pipe_run_info_read(id->store, id->o.run_id, &id->run, err, errsize);
    if (rc != 0 && rc != PIPE_ENOENT)
        return rc == PIPE_ENOMEM ? rc : PIPE_EUSAGE;
    if ((rc = pipe_params_init(id->m, &pv)) != 0)
        goto fail;
    if ((rc = pipe_params_assign_all(id->m, &pv, id->o.params, id->o.nparams, err, errsize)) != 0)
        goto fail;
    if (!id->run) {
        if ((rc = pipe_params_check_complete(id->m, &pv, err, errsize)) != 0)
            goto fail;
        char started[40];
        pipe_iso8601(started, sizeof started);
        if (id->m->nparams > 0 && !(info.params = calloc(id->m->nparams, sizeof *info.params))) {
            rc = PIPE_ENOMEM;
            goto fail;
        }
        for (size_t i = 0; i < id->m->nparams; i++)
            if (pv.values[i]) {
                info.params[info.nparams].key = id->m->params[i].name;
                info.params[info.nparams++].value = pv.values[i];
            }
        info.run_id = (char *)id->o.run_id;
        info.pipeline = id->m->pipeline;
        info.started = started;
        info.status = "running";
        if ((rc = pipe_run_info_write(id->store, id->o.run_id, &info, PIPE_RUN_WRITE_CREATE, NULL, err, errsize)) != 0)
            goto fail;
        /* Whoever won, run.yaml now exists: read what it says. */
        if ((rc = pipe_run_info_read(id->store, id->o.run_id, &id->run, err, errsize)) != 0) {
            rc = rc == PIPE_ENOMEM ? rc : PIPE_EUSAGE;
            goto fail;
        }
    }
    if (id->run->pipeline && strcmp(id->run->pipeline, id->m->pipeline) != 0) {
        pipe_errf(err, errsize, "run `%s` in %s belongs to pipeline `%s`, not `%s`", id->o.run_id, id->store,
                  id->run->pipeline, id->m->pipeline);
        rc = PIPE_EUSAGE;
        goto fail;
    }
    /* --param must agree with a run that already exists. */
    for (size_t i = 0; i < id->o.nparams; i++) {
        size_t n = strcspn(id->o.params[i], "=");
        for (size_t p = 0; p < id->m->nparams; p++) {
            const char *name = id->m->params[p].name;
            if (strlen(name) != n || strncmp(name, id->o.params[i], n) != 0)
                continue;
            const char *have = pipe_run_info_param(id->run, name);
            if (!have || strcmp(have, pv.values[p]) != 0) {
                pipe_errf(err, errsize,
                          "parameter `%s` is %s%s%s in run `%s`, but --param %s disagrees (a run's parameters are "
                          "fixed when it starts)",
                          name, have ? "`" : "", have ? have : "unset", have ? "`" : "", id->o.run_id, id->o.params[i]);
                rc = PIPE_EUSAGE;
                goto fail;
            }
        }
    }
    rc = 0;
fail:
    free(info.params);
    pipe_params_free(&pv);
    return rc;
}

/* --param values, checked before anything is written: a bad one touches
   nothing (load_run checks them again against the run). */
static int check_params(const pipe_step_ident *id, char *err, size_t errsize)
{
    pipe_param_values pv = {0};
    int rc = pipe_params_init(id->m, &pv);
    for (size_t i = 0; rc == 0 && i < id->o.nparams; i++)
        rc = pipe_params_assign(id->m, &pv, id->o.params[i], err, errsize);
    pipe_params_free(&pv);
    return rc;
}

/* Takes the invocation's lock, or refuses (PIPE_ESTATE) naming who holds
   it. What a dead holder left is swept first (its scratch folder; the
   outputs are cleaned by prepare_dir as for any new execution). */
static int lock_invocation(pipe_supervisor *s, char *err, size_t errsize)
{
    const pipe_step_ident *id = &s->id;
    char *dir = pipe_store_invocation_dir(id->store, id->o.run_id, id->inv->id);
    char *path = pipe_invocation_lock_path(id->store, id->o.run_id, id->inv->id, id->machine_rank);
    char *prev = NULL, holder[512];
    int rc = !dir || !path ? PIPE_ENOMEM : pipe_mkdirs(dir, err, errsize);
    /* A sweeper may hold the lock for a moment: wait a little for it. */
    if (rc == 0)
        rc = pipe_lock_take(path, 500, &s->lock_fd, &prev, holder, sizeof holder, err, errsize);
    if (rc == PIPE_ESTATE)
        pipe_errf(err, errsize,
                  "invocation `%s` of run %s is being executed by another process (%s); this step leaves it "
                  "alone",
                  id->inv->id, id->o.run_id, holder);
    if (rc == 0) {
        pipe_sweep_record(prev);
        if (pipe_lock_record(s->lock_fd, NULL) != 0) {
            pipe_errf(err, errsize, "cannot write %s: %s", path, strerror(errno));
            rc = PIPE_EIO;
        }
    }
    free(prev);
    free(path);
    free(dir);
    return rc;
}

/* The invocation and its step in the manifest, and the step's code. */
static int find_invocation(pipe_step_ident *id, char *err, size_t errsize)
{
    const pipe_manifest *m = id->m;
    int idx = pipe_manifest_find_invocation(m, id->o.invocation);
    if (idx < 0) {
        unknown_invocation(m, id->o.invocation, err, errsize);
        return PIPE_EUSAGE;
    }
    id->inv = &m->invocations[idx];
    if (id->inv->step < 0 || (size_t)id->inv->step >= m->nsteps) {
        pipe_errf(err, errsize, "invocation `%s` names no step of the manifest", id->inv->id);
        return PIPE_EUSAGE;
    }
    id->ms = &m->steps[id->inv->step];
    id->command = pipe_step_is_command(id->ms);
    if (!id->command && (!(id->impl = find_impl(id->prog, id->ms->name)) || !id->impl->fn)) {
        pipe_errf(err, errsize, "this executable has no code for step `%s`: the driver and its manifest disagree",
                  id->ms->name);
        return PIPE_EUSAGE;
    }
    if (id->inv->nargs != id->ms->nparams) {
        pipe_errf(err, errsize, "invocation `%s` has %zu arguments but step `%s` %zu parameters", id->inv->id,
                  id->inv->nargs, id->ms->name, id->ms->nparams);
        return PIPE_EUSAGE;
    }
    return 0;
}

/* The store, made when missing, as an absolute path. */
static int open_store(pipe_step_ident *id, char *err, size_t errsize)
{
    char *store = pipe_store_resolve(id->o.store, NULL);
    if (!store)
        return PIPE_ENOMEM;
    int rc = pipe_mkdirs(store, err, errsize);
    if (rc == 0) {
        id->store = realpath(store, NULL);
        if (!id->store) {
            pipe_errf(err, errsize, "cannot resolve the store %s: %s", store, strerror(errno));
            rc = PIPE_EIO;
        }
    }
    free(store);
    return rc;
}

/* The ranks on this machine and where they meet; the log's view of them. */
static int plan_ranks(pipe_supervisor *s, char *err, size_t errsize)
{
    pipe_step_ident *id = &s->id;
    bool gpu_step = !pipe_invocation_cpu_only(id->inv) && (id->ms->needs_cuda || id->inv->resources.gpu > 0);
    int rc = pipe_launch_setup(&s->launch, id->inv, id->o.run_id, gpu_step, id->command, &id->o.launch, err,
                               errsize);
    if (rc != 0)
        return rc;
    id->world = s->launch.world;
    id->nlocal = s->launch.nlocal;
    id->machine_rank = s->launch.machine_rank;
    s->log.world = id->world;
    s->log.command = id->command;
    s->kind = id->command ? &pipe_command_step : &pipe_native_step;
    return 0;
}

/* OMP_NUM_THREADS for the ranks (pipe_omp_threads_default: unless the user
   set it) and the
   grace between SIGTERM and SIGKILL (stop.h). */
static int attempt_settings(pipe_supervisor *s)
{
    const pipe_minvocation *inv = s->id.inv;
    long threads = pipe_omp_threads_default(s->id.ms, inv->resources.cpu, s->id.nlocal);
    if (threads > 0 && !(s->omp_threads = pipe_asprintf("%ld", threads)))
        return PIPE_ENOMEM;
    s->grace_ms = pipe_stop_grace_ms(inv);
    return 0;
}

static int setup(pipe_supervisor *s, char *err, size_t errsize)
{
    int rc;
    rc = find_invocation(&s->id, err, errsize);
    s->log.id = s->id.inv ? s->id.inv->id : NULL; /* errors name it from here on */
    if (rc != 0)
        return rc;
    if ((rc = pipe_run_id_check(s->id.o.run_id, err, errsize)) != 0 || (rc = open_store(&s->id, err, errsize)) != 0 ||
        (rc = plan_ranks(s, err, errsize)) != 0)
        return rc;
    /* One process executes an invocation at a time: before anything of the
       run or the invocation is read or written. */
    if ((rc = check_params(&s->id, err, errsize)) != 0 || (rc = lock_invocation(s, err, errsize)) != 0)
        return rc;
    if ((rc = load_run(&s->id, err, errsize)) != 0)
        return rc;
    return attempt_settings(s);
}

/* ---- the attempts ---- */

/* One attempt in a scratch folder of its own: 0 with res, or why it could
   not run in err. */
static int attempt_once(pipe_supervisor *s, int64_t restarts, pipe_attempt_result *res, char *err, size_t errsize)
{
    int rc = pipe_scratch_make(s->lock_fd, s->id.inv->id, s->id.command, &s->scratch_root, err, errsize);
    s->launch.restarts = (int)restarts;
    if (rc == 0)
        rc = pipe_supervisor_checkpoint_attempt(s, err, errsize);
    pipe_digest_board_open(); /* the ranks' digest notes, in memory (store/digest_note.h) */
    if (rc == 0)
        rc = pipe_supervisor_run_attempt(s, res, err, errsize);
    if (s->scratch_root) {
        pipe_scratch_remove(s->lock_fd, s->scratch_root);
        free(s->scratch_root);
        s->scratch_root = NULL;
    }
    return rc;
}

/* The wait status of the rank that decided the attempt, into the record. */
static void record_exit(pipe_step_record *rec, int status)
{
    rec->has_exit_code = WIFEXITED(status);
    rec->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    free(rec->signal);
    rec->signal = NULL;
    if (WIFSIGNALED(status)) {
        char sig[32];
        pipe_signal_text(WTERMSIG(status), sig, sizeof sig);
        rec->signal = pipe_strdup(sig);
    }
}

/* Every rank exited 0, on machine 0: the kind's commit, the outputs, the
   metrics, step.yaml and the cache entry. NULL with the exit status in
   *status; or why the outputs are not right (malloc'ed). */
static char *record_success(pipe_supervisor *s, int *status)
{
    const pipe_step_ident *id = &s->id;
    char err[1024];
    char *why = s->kind->commit ? s->kind->commit(s) : NULL;
    if (!why)
        why = pipe_supervisor_collect_outputs(id, s->rec);
    if (why)
        return why;
    pipe_supervisor_read_metrics(id, &s->log, s->rec);
    if (pipe_supervisor_finish_record(id, s->rec, PIPE_STEP_DONE, err, sizeof err) != 0) {
        /* A full disk: the record of the failure, in the room kept for it. */
        int e = errno;
        char *disk = e == ENOSPC || e == EDQUOT ? pipe_disk_error(id->step_path, e) : NULL;
        char *failure = pipe_asprintf("step %s: %s", id->ms->name, disk ? disk : err);
        *status = pipe_supervisor_fail(id, &s->log, s->rec, failure ? failure : err);
        free(failure);
        free(disk);
        return NULL;
    }
    if (pipe_cache_record(id->store, s->rec->cache_key, id->o.run_id, id->inv->id, err, sizeof err) != 0 ||
        pipe_cache_record_last(id->store, id->m->pipeline, id->o.run_id, id->inv->id, err, sizeof err) != 0)
        pipe_supervisor_note(&s->log, "cannot record the cache entry: %s", err);
    pipe_supervisor_checkpoint_done(s);
    pipe_supervisor_note(&s->log, "done in %.3f s", s->rec->duration_s);
    *status = PIPE_EXIT_OK;
    return NULL;
}

/* @retry's delay, cut short by SIGINT/SIGTERM: the signal, or 0. */
static int wait_retry(uint64_t delay_ms)
{
    char err[1024];
    double until = pipe_now() + (double)delay_ms / 1000.0;
    while (!pipe_child_signal_pending()) {
        double left = until - pipe_now();
        if (left <= 0)
            break;
        pipe_child_wait(NULL, 0, (int)(left * 1000.0) + 1, err, sizeof err);
    }
    return pipe_child_signal_pending();
}

static int fail(pipe_supervisor *s, const char *why) { return pipe_supervisor_fail(&s->id, &s->log, s->rec, why); }

/* The attempts: max_restarts of the whole group first, then @retry;
   returns the exit status. */
static int run_attempts(pipe_supervisor *s)
{
    const pipe_minvocation *inv = s->id.inv;
    pipe_step_record *rec = s->rec;
    char err[1024];
    int64_t max = 1 + (inv->retry_max > 0 ? inv->retry_max : 0), restarts = 0;
    for (int64_t attempt = 1;; attempt++) {
        pipe_attempt_result res;
        char *why = NULL;
        rec->attempts = (int)attempt;
        if (attempt > 1)
            pipe_supervisor_reset_attempt(&s->id, rec);
        if (max > 1)
            pipe_supervisor_note(&s->log, "attempt %lld of %lld", (long long)attempt, (long long)max);
        if (attempt_once(s, restarts, &res, err, sizeof err) != 0) {
            rec->has_exit_code = false;
            return fail(s, err);
        }
        record_exit(rec, res.status);
        if (res.disk && !res.interrupted) { /* no retry can write on a full disk */
            free(res.rendezvous);
            free(res.collective);
            free(rec->signal); /* the SIGTERM that stopped the ranks is not the cause */
            rec->signal = NULL;
            rec->has_exit_code = false;
            int status = fail(s, res.disk);
            free(res.disk);
            return status;
        }
        free(res.disk);
        res.disk = NULL;
        if (res.ok && s->id.machine_rank == 0) {
            int status;
            if (!(why = record_success(s, &status)))
                return status;
            rec->has_exit_code = true;
        } else if (res.ok) {
            pipe_supervisor_checkpoint_done(s);
            return PIPE_EXIT_OK;
        } else {
            why = pipe_supervisor_describe_failure(&s->id, &s->log, &res);
        }
        if (!why)
            why = pipe_strdup("the step failed");
        pipe_supervisor_read_metrics(&s->id, &s->log, rec);
        free(res.rendezvous);
        free(res.collective);
        res.rendezvous = res.collective = NULL;
        /* max_restarts: the whole group again at once, before any @retry. */
        if (!res.interrupted && s->launch.distributed && restarts < inv->accelerate.max_restarts) {
            restarts++;
            pipe_supervisor_note(&s->log, "%.*s; restarting the %d ranks (restart %lld of %lld)",
                                 (int)strcspn(why, "\n"), why, s->id.world, (long long)restarts,
                                 (long long)inv->accelerate.max_restarts);
            free(why);
            pipe_supervisor_reset_attempt(&s->id, rec);
            attempt--;
            continue;
        }
        if (res.interrupted) {
            free(why);
            return pipe_supervisor_interrupted(&s->id, &s->log, rec, res.interrupted);
        }
        if (attempt >= max) {
            int status = fail(s, why ? why : "the step failed");
            free(why);
            return status;
        }
        char d[64];
        pipe_format_duration(inv->retry_delay_ms, d, sizeof d);
        pipe_supervisor_note(&s->log, "attempt %lld failed: %.*s; retrying%s%s", (long long)attempt,
                             (int)strcspn(why, "\n"), why, inv->retry_delay_ms ? " in " : "",
                             inv->retry_delay_ms ? d : "");
        free(why);
        int sig = wait_retry(inv->retry_delay_ms);
        if (sig)
            return pipe_supervisor_interrupted(&s->id, &s->log, rec, sig);
    }
}

static void profile_note(void *arg, const char *msg) { pipe_supervisor_note(arg, "%s", msg); }

/* @gpu_profile around the attempts: machine 0 in profile/, the others in
   profile/machine-N/ (a shared store holds them all). */
static int execute(pipe_supervisor *s)
{
    const pipe_step_ident *id = &s->id;
    if (id->inv->profile_interval_ms > 0) {
        char err[1024];
        char *dir = id->machine_rank > 0 ? pipe_asprintf("%s/profile/machine-%d", id->dir, id->machine_rank)
                                         : pipe_asprintf("%s/profile", id->dir);
        pipe_profiler_config cfg = {
            .dir = dir,
            .interval_ms = id->inv->profile_interval_ms,
            .t0 = id->t0,
            .gpus = getenv("CUDA_VISIBLE_DEVICES"),
            .neuron_devices = (int)(id->inv->resources.trainium + id->inv->resources.inferentia),
            .note = profile_note,
            .note_arg = &s->log,
        };
        if (!dir)
            pipe_supervisor_note(&s->log, "gpu_profile: out of memory; not sampling");
        else if (pipe_profiler_start(&s->profiler, &cfg, err, sizeof err) != 0)
            pipe_supervisor_note(&s->log, "gpu_profile: %s; not sampling", err); /* the step runs all the same */
        free(dir);
    }
    int status = run_attempts(s);
    pipe_profiler_stop(s->profiler);
    s->profiler = NULL;
    return status;
}

static void supervisor_free(pipe_supervisor *s)
{
    pipe_step_ident *id = &s->id;
    if (s->kind && s->kind->free)
        s->kind->free(s);
    pipe_supervisor_log_finish(&s->log);
    if (s->log.fd >= 0)
        close(s->log.fd);
    pipe_log_cap_free(&s->log.cap);
    free(s->log.io_path);
    pipe_supervisor_reserve_release(&s->log, false);
    pipe_procs_kill_descendants(NULL, 0, 2000); /* none after an attempt's end; nothing may hold the lock on */
    pipe_checkpoint_folder_free(&s->ckpt);
    pipe_lock_release(s->lock_fd); /* last: what this execution made is gone or recorded */
    pipe_child_signals_restore();
    for (size_t i = 0; id->values && id->ms && i < id->ms->nparams; i++)
        free(id->values[i]);
    free(id->values);
    free(id->output_names);
    pipe_step_record_free(s->rec);
    pipe_run_info_free(id->run);
    free(id->store);
    free(id->dir);
    free(id->outdir);
    free(s->log.path);
    free(s->log.bundle);
    free(id->metrics_path);
    free(id->step_path);
    free(s->omp_threads);
    free(s->scratch_root);
}

/* step.yaml's record as the execution starts. */
static int new_record(pipe_supervisor *s)
{
    char started[40];
    pipe_iso8601(started, sizeof started);
    if (!(s->rec = calloc(1, sizeof *s->rec)) || !(s->rec->invocation = pipe_strdup(s->id.inv->id)) ||
        !(s->rec->step = pipe_strdup(s->id.ms->name)) || !(s->rec->run_id = pipe_strdup(s->id.o.run_id)) ||
        !(s->rec->started = pipe_strdup(started)))
        return PIPE_ENOMEM;
    return 0;
}

int pipe_step_run(const pipe_program *prog, const pipe_manifest *m, const pipe_step_options *o)
{
    pipe_supervisor s;
    memset(&s, 0, sizeof s);
    s.id.prog = prog;
    s.id.m = m;
    s.id.t0 = pipe_now();
    s.log.fd = -1;
    s.log.cap.ring_fd = -1;
    s.lock_fd = -1;
    s.ckpt.lock_fd = -1;
    char err[2048] = "";
    int status = PIPE_EXIT_USAGE;
    s.id.o = *o;
    s.log.echo = o->echo;
    int rc = o->invocation && o->run_id ? setup(&s, err, sizeof err) : PIPE_EUSAGE;
    if (!o->invocation || !o->run_id)
        snprintf(err, sizeof err, "a step needs the id of its invocation and of its run");
    if (rc != 0) {
        pipe_supervisor_report(&s.log, rc == PIPE_ENOMEM ? "out of memory" : err);
        status = rc == PIPE_EUSAGE ? PIPE_EXIT_USAGE : PIPE_EXIT_FAILED;
        goto done;
    }
    if ((rc = pipe_supervisor_prepare_dir(&s.id, &s.log, err, sizeof err)) != 0 ||
        (rc = pipe_child_signals_install(err, sizeof err)) != 0) {
        pipe_supervisor_report(&s.log, rc == PIPE_ENOMEM ? "out of memory" : err);
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    /* Whatever the ranks start stays below this process (procs.h). */
    if (pipe_child_adopt_orphans(err, sizeof err) != 0)
        pipe_supervisor_note(&s.log, "%s: a daemon a rank starts may outlive the step", err);
    if (new_record(&s) != 0) {
        pipe_supervisor_report(&s.log, "out of memory");
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    pipe_supervisor_note(&s.log, "step `%s` of run %s", s.id.inv->id, s.id.o.run_id);
    rc = pipe_supervisor_resolve_args(&s.id, &s.log, s.rec, err, sizeof err);
    if (rc == PIPE_EUSAGE || rc == PIPE_ENOMEM) {
        pipe_supervisor_report(&s.log, rc == PIPE_ENOMEM ? "out of memory" : err);
        status = rc == PIPE_EUSAGE ? PIPE_EXIT_USAGE : PIPE_EXIT_FAILED;
        goto done;
    }
    if (rc != 0) {
        status = fail(&s, err);
        goto done;
    }
    /* Where it runs is part of its key. */
    pipe_supervisor_choose_device(&s);
    if (pipe_supervisor_cache_key(&s.id, s.device, s.rec) != 0) {
        pipe_supervisor_report(&s.log, "out of memory");
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    if (s.id.ms->cache && !s.id.o.no_cache && s.id.machine_rank == 0 &&
        pipe_supervisor_try_cache(&s.id, &s.log, s.rec)) {
        status = PIPE_EXIT_OK;
        goto done;
    }
    /* What it runs on: the program and the GPUs, checked once before it starts. */
    rc = s.kind->prepare ? s.kind->prepare(&s, err, sizeof err) : 0;
    if (rc == 0)
        rc = pipe_supervisor_check_device(&s, err, sizeof err);
    if (rc != 0) {
        status = rc == PIPE_ENOMEM ? (pipe_supervisor_report(&s.log, "out of memory"), PIPE_EXIT_FAILED)
                                   : fail(&s, err);
        goto done;
    }
    pipe_supervisor_tell_runner(&s.log, "running", s.rec->rerun);
    rc = pipe_supervisor_checkpoint_open(&s, err, sizeof err);
    if (rc > 0) { /* stopped while it waited for an earlier execution */
        status = pipe_supervisor_interrupted(&s.id, &s.log, s.rec, rc);
        goto done;
    }
    if (rc != 0) {
        status = rc == PIPE_ENOMEM ? (pipe_supervisor_report(&s.log, "out of memory"), PIPE_EXIT_FAILED)
                                   : fail(&s, err);
        goto done;
    }
    status = execute(&s);
done:
    supervisor_free(&s);
    return status;
}
