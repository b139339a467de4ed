/* pipe_run (run.h), what `run` does: the local runner (docs/runtime.md, "Process model"). Resolves the
   parameters (manifest defaults, --config, --param), creates the run, then
   hands the invocations to the scheduler (scheduler.h), which starts one
   child per invocation — `EXE step ID --run-id RUN --store STORE --echo`,
   forked by runner_spawn.c — in DAG order, as many at once as the
   machine's CPUs, memory and GPUs and --jobs allow. Each child runs in its
   own process group; SIGINT and SIGTERM to the runner are forwarded to
   every group. The children's output comes through a pipe, line by line,
   so that it never tears the progress lines.

   pipe_run goes: the run's beginning, the scheduler's loop, the end; its
   options come from `run`'s command line and --config (cmd/run.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep_store.h"
#include "proc/child.h"
#include "util/cli.h"
#include "util/followup.h"
#include "step/crash_trace.h"
#include "progress.h"
#include "run.h"
#include "resources.h"
#include "store/run_lock.h"
#include "runner_spawn.h"
#include "scheduler.h"
#include "store/reserve.h"
#include "store/store.h"
#include "step/sweep.h"
#include "util/util.h"

/* Each running child costs the runner one descriptor (its output pipe);
   this many stay spare for reading records and for starting the next. */
#define FD_RESERVE 16
/* create_run: the run could not start and is recorded as failed (exit 1). */
#define RUN_FAILED (-2)

typedef struct runner {
    const pipe_program *prog;
    const pipe_manifest *m;
    const pipe_run_options *o;
    const char *store;
    char run_id[PIPE_RUN_ID_SIZE + 128];
    char *run_dir;
    pipe_local_resources local;
    pipe_sched sched;
    pipe_run_spawner spawner;
    pipe_progress progress;
    pipe_kv *kv;         /* run.yaml's parameters */
    char started[40];
    pipe_run_info info;  /* run.yaml */
    int lock_fd;         /* run.lock, held while the runner lives (run_lock.h) */
    char *reserve;       /* room kept on the disk for run.yaml's last status (store/reserve.h) */
    bool sched_ready, spawner_ready, progress_ready, signals_set;
} runner;

/* ---- what the scheduler decides, shown ---- */

static pipe_pstate shown_state(pipe_sched_state st)
{
    switch (st) {
    case PIPE_SCHED_QUEUED: return PIPE_PS_QUEUED;
    case PIPE_SCHED_STARTED: return PIPE_PS_STARTING; /* running once its supervisor says so (runner_spawn.c) */
    case PIPE_SCHED_DONE: return PIPE_PS_DONE;
    case PIPE_SCHED_CACHED: return PIPE_PS_CACHED;
    case PIPE_SCHED_FAILED: return PIPE_PS_FAILED;
    case PIPE_SCHED_SKIPPED: return PIPE_PS_SKIPPED;
    case PIPE_SCHED_INTERRUPTED: return PIPE_PS_INTERRUPTED;
    }
    return PIPE_PS_FAILED;
}

static void on_state(void *arg, size_t i, pipe_sched_state st, const char *detail)
{
    pipe_progress_set(arg, i, shown_state(st), detail);
}

static void on_note(void *arg, const char *line) { pipe_progress_line(arg, line, strlen(line)); }

/* Warns about (or, strict, refuses) a request this machine cannot meet. */
static void on_unmet(void *arg, const char *invocation, const char *what, bool refused)
{
    (void)arg;
    if (refused)
        pipe_cli_error("invocation %s requests %s, and --strict-resources refuses to run it", invocation, what);
    else
        pipe_cli_warning("invocation %s requests %s; it will run alone, with what this machine has", invocation,
                         what);
}

/* ---- the run's beginning ---- */

/* This machine, and the scheduler over it. 0; -1 after a message (a
   request refused); PIPE_ENOMEM. */
static int plan(runner *r)
{
    char err[1024] = "";
    if (pipe_local_resources_detect(&r->local, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        return -1;
    }
    /* At most as many children at once as the open-file limit leaves room
       for; the others wait their turn. */
    pipe_sched_config cfg = {
        .m = r->m,
        .local = &r->local,
        .jobs = r->o->jobs,
        .max_children = pipe_descriptors_left(FD_RESERVE),
        .spawner = pipe_run_spawner_of(&r->spawner),
        .observer = {.arg = &r->progress, .changed = on_state, .note = on_note},
    };
    if (pipe_sched_init(&r->sched, &cfg) != 0)
        return PIPE_ENOMEM;
    r->sched_ready = true;
    return pipe_sched_check_requests(&r->sched, r->o->strict, on_unmet, NULL) != 0 ? -1 : 0;
}

/* The run's id and folder, what killed runs left swept away, run.lock
   held, and run.yaml created (the steps read their parameters from it). 0;
   -1 after a message; PIPE_ENOMEM. */
static int create_run(runner *r)
{
    const pipe_manifest *m = r->m;
    char err[1024] = "";
    if (r->o->run_id) {
        if (pipe_run_id_check(r->o->run_id, err, sizeof err) != 0) {
            pipe_cli_error("--run-id: %s", err);
            return -1;
        }
        snprintf(r->run_id, sizeof r->run_id, "%s", r->o->run_id);
    } else if (pipe_run_id_new(r->run_id, sizeof r->run_id, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        return -1;
    }
    if (!(r->run_dir = pipe_store_run_dir(r->store, r->run_id)))
        return PIPE_ENOMEM;
    if (pipe_dir_exists(r->run_dir)) {
        pipe_cli_error("run %s already exists in %s", r->run_id, r->store);
        return -1;
    }
    /* What killed runs and steps left in this store goes first. */
    pipe_sweep_store(r->store);
    if (pipe_run_lock_hold(r->store, r->run_id, &r->lock_fd, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        return -1;
    }
    /* run.yaml: created here, first. */
    pipe_iso8601(r->started, sizeof r->started);
    if (m->nparams > 0 && !(r->kv = calloc(m->nparams, sizeof *r->kv)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < m->nparams; i++) {
        r->kv[i].key = m->params[i].name;
        r->kv[i].value = r->o->params->values[i];
    }
    r->info.run_id = r->run_id;
    r->info.pipeline = m->pipeline;
    r->info.params = r->kv;
    r->info.nparams = m->nparams;
    r->info.started = r->started;
    r->info.status = "running";
    /* Room for run.yaml's last status; without it the run fails at once,
       recorded as failed while run.yaml still fits. */
    int full = pipe_reserve_take(r->run_dir, ".reserve", PIPE_RUN_RESERVE_BYTES, &r->reserve);
    char finished[40];
    if (full != 0) {
        pipe_iso8601(finished, sizeof finished);
        r->info.status = "failed";
        r->info.finished = finished;
    }
    bool created = false;
    int rc = pipe_run_info_write(r->store, r->run_id, &r->info, PIPE_RUN_WRITE_CREATE, &created, err, sizeof err);
    r->info.finished = NULL;
    if (full != 0) {
        char *path = pipe_asprintf("%s/.reserve", r->run_dir);
        char *why = path ? pipe_disk_error(path, full) : NULL;
        pipe_cli_error("run %s cannot start: %s", r->run_id, why ? why : strerror(full));
        free(why);
        free(path);
        return RUN_FAILED;
    }
    if (rc != 0) {
        pipe_cli_error("%s", err);
        return -1;
    }
    if (!created) {
        pipe_cli_error("run %s already exists in %s", r->run_id, r->store);
        return -1;
    }
    return 0;
}

/* The children's slots, the progress lines and the signal handlers; then
   the run's first lines. */
static int start_run(runner *r)
{
    const pipe_manifest *m = r->m;
    char err[1024] = "";
    r->spawner = (pipe_run_spawner){
        .prog = r->prog,
        .m = m,
        .store = r->store,
        .run_id = r->run_id,
        .run_dir = r->run_dir,
        .no_cache = r->o->no_cache,
        .verify = r->o->verify,
        .lock_fd = r->lock_fd,
        .progress = &r->progress,
    };
    if (pipe_run_spawner_init(&r->spawner) != 0)
        return PIPE_ENOMEM;
    r->spawner_ready = true;
    /* Without the list of what is durable, every supervisor fsyncs its
       own writes, as under `step` alone. */
    if (pipe_commit_begin(&r->spawner.commit, r->store, r->run_id, err, sizeof err) != 0) {
        pipe_cli_warning("%s: each step's writes are made durable one by one", err);
        pipe_commit_free(&r->spawner.commit);
        err[0] = '\0';
    }
    const char **ids = calloc(m->ninvocations + 1, sizeof *ids);
    if (!ids)
        return PIPE_ENOMEM;
    for (size_t i = 0; i < m->ninvocations; i++)
        ids[i] = m->invocations[i].id;
    int rc = pipe_progress_init(&r->progress, stdout, isatty(STDOUT_FILENO), ids, m->ninvocations);
    free(ids); /* the ids themselves are the manifest's */
    if (rc != 0)
        return PIPE_ENOMEM;
    r->progress_ready = true;
    if (pipe_child_signals_install(err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        return -1;
    }
    r->signals_set = true;
    /* The ranks and daemons of a supervisor that is killed come to the
       runner, which ends them (runner_spawn.c); without, init takes them. */
    pipe_child_adopt_orphans(err, sizeof err);
    printf("pipeline %s: run %s, %zu invocation%s, store %s\n", m->pipeline, r->run_id, m->ninvocations,
           m->ninvocations == 1 ? "" : "s", r->store);
    pipe_progress_start(&r->progress);
    return 0;
}

/* ---- the end ---- */

/* run.yaml's final status, the lock given back, the summary; the exit
   status. */
static int end_run(runner *r, int rc)
{
    char err[1024] = "";
    /* Every write of the run durable before its end is recorded. */
    pipe_run_spawner_commit(&r->spawner, true);
    if (r->spawner.commit_error[0])
        pipe_cli_error("%s", r->spawner.commit_error);
    bool failed = rc != 0 || pipe_sched_failed(&r->sched) || r->spawner.commit_error[0];
    int stop = r->sched.stop_signal;
    int status = stop ? 128 + stop : failed ? PIPE_EXIT_FAILED : PIPE_EXIT_OK;

    char finished[40];
    pipe_iso8601(finished, sizeof finished);
    r->info.finished = finished;
    r->info.status = status == PIPE_EXIT_OK ? "done" : stop ? "interrupted" : "failed";
    pipe_reserve_release(&r->reserve); /* a full disk still takes run.yaml */
    if (pipe_run_info_write(r->store, r->run_id, &r->info, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err) != 0)
        pipe_cli_warning("%s", err);
    r->info.finished = NULL;
    pipe_lock_release(r->lock_fd); /* after the final status: nobody sees `interrupted` in between */
    r->lock_fd = -1;
    pipe_progress_summary(&r->progress, r->run_id, r->run_dir, status);
    /* What to type next, with this run's --store (followup.h). */
    for (size_t i = 0; i < r->progress.n; i++) {
        if (r->progress.items[i].state != PIPE_PS_FAILED)
            continue;
        char *logs = pipe_followup(r->store, "logs", r->run_id, r->progress.items[i].id, (char *)NULL);
        printf("logs: `%s`\n", logs ? logs : "logs");
        free(logs);
    }
    char *report = pipe_followup(r->store, "report", r->run_id, (char *)NULL);
    printf("report: `%s` writes %s/report.html\n", report ? report : "report", r->run_dir);
    free(report);
    return status;
}

static void runner_free(runner *r)
{
    pipe_reserve_release(&r->reserve);
    if (r->lock_fd >= 0)
        close(r->lock_fd); /* an early failure: run.yaml was not written, or says why */
    if (r->signals_set)
        pipe_child_signals_restore();
    if (r->spawner_ready)
        pipe_run_spawner_free(&r->spawner);
    if (r->sched_ready)
        pipe_sched_free(&r->sched);
    if (r->progress_ready)
        pipe_progress_free(&r->progress);
    pipe_local_resources_free(&r->local);
    free(r->kv);
    free(r->run_dir);
}

int pipe_run(const pipe_program *prog, const pipe_manifest *m, const pipe_run_options *o)
{
    runner r;
    memset(&r, 0, sizeof r);
    r.prog = prog;
    r.m = m;
    r.o = o;
    r.store = o->store;
    r.lock_fd = -1;

    int rc = plan(&r);
    if (rc == 0)
        rc = create_run(&r);
    if (rc == 0)
        rc = start_run(&r);
    pipe_crash_trace_prepare(); /* inherited by every supervisor it forks */
    int status;
    if (rc == 0)
        status = end_run(&r, pipe_sched_run(&r.sched));
    else if (rc == RUN_FAILED)
        status = PIPE_EXIT_FAILED;
    else {
        if (rc == PIPE_ENOMEM)
            pipe_cli_error("out of memory");
        status = PIPE_EXIT_USAGE;
    }
    runner_free(&r);
    return status;
}
