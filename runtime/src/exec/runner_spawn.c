/* How a local run starts its invocations (runner_spawn.h). */
#include "runner_spawn.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipe/error.h"
#include "proc/procs.h"
#include "step/step.h"
#include "step/stop.h"
#include "step/threads.h"
#include "store/stepfile.h"
#include "store/store.h"
#include "step/sweep.h"
#include "util/util.h"

extern char **environ;

/* The longest a wait lasts before the scheduler looks again. */
#define POLL_MAX_MS 250

typedef struct run_slot {
    pipe_run_spawner *owner;
    size_t index;           /* the invocation's */
    pipe_child_group child; /* `EXE step ID`, alone in its group */
    pipe_step_record *record;
    /* Its supervisor was killed while a process it started still holds the
       invocation's lock (a rank saving a checkpoint after the SIGTERM its
       parent's death sent it): the end is reported once the lock is free,
       or at drain_until, when what holds it is killed. 0: not draining. */
    double drain_until;
    int wstatus; /* the supervisor's, while draining */
    long reserve_range; /* lent to its supervisor (store/reserve.h), or -1 */
} run_slot;

/* ---- the environment ---- */

static bool env_overridden(const char *entry, const char *const *keys, size_t nkeys)
{
    for (size_t i = 0; i < nkeys; i++) {
        size_t n = strlen(keys[i]);
        if (strncmp(entry, keys[i], n) == 0 && entry[n] == '=')
            return true;
    }
    return false;
}

static void free_strings(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The child's environment: ours, with CUDA_VISIBLE_DEVICES (its GPUs),
   OMP_NUM_THREADS (unless the user set it: pipe_omp_threads_default of
   its CPUs and local ranks, as the supervisor computes it under `step`
   alone), the step's
   environment map and PIPE_STORE, PIPE_RUN_ID, PIPE_INVOCATION. */
static int build_env(const pipe_run_spawner *sp, size_t i, const pipe_pool *pool, const pipe_grant *grant,
                     char ***envp, size_t *nenv)
{
    const pipe_minvocation *inv = &sp->m->invocations[i];
    const pipe_mstep *step = &sp->m->steps[inv->step];
    size_t nours = 0, cap = 6 + step->nenvironment;
    char **ours = calloc(cap, sizeof *ours);
    const char **keys = calloc(cap, sizeof *keys);
    char **env = NULL;
    size_t ninherited = 0, k = 0;
    int rc = PIPE_ENOMEM;
    if (!ours || !keys)
        goto fail;

#define ADD(key, ...)                                                                                              \
    do {                                                                                                           \
        keys[nours] = key;                                                                                         \
        if (!(ours[nours++] = pipe_asprintf(__VA_ARGS__)))                                                         \
            goto fail;                                                                                             \
    } while (0)
    if (pool->local->ngpus > 0) {
        char list[1024];
        pipe_grant_gpu_list(pool, grant, list, sizeof list);
        ADD("CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES=%s", list);
        /* The numbers are NVML's indices: CUDA numbers the same way only in bus order. */
        ADD("CUDA_DEVICE_ORDER", "CUDA_DEVICE_ORDER=PCI_BUS_ID");
    }
    int64_t ranks = inv->accelerate.num_processes / inv->accelerate.num_machines; /* 1 / 1 without the decorator */
    long threads = pipe_omp_threads_default(step, inv->resources.cpu > 0 ? grant->cpu : 0, ranks);
    if (threads > 0)
        ADD("OMP_NUM_THREADS", "OMP_NUM_THREADS=%ld", threads);
    for (size_t e = 0; e < step->nenvironment; e++)
        ADD(step->environment[e].key, "%s=%s", step->environment[e].key, step->environment[e].value);
    ADD("PIPE_STORE", "PIPE_STORE=%s", sp->store);
    ADD("PIPE_RUN_ID", "PIPE_RUN_ID=%s", sp->run_id);
    ADD("PIPE_INVOCATION", "PIPE_INVOCATION=%s", inv->id);
#undef ADD

    for (char **e = environ; *e; e++)
        ninherited++;
    if (!(env = calloc(ninherited + nours + 1, sizeof *env)))
        goto fail;
    for (char **e = environ; *e; e++)
        if (!env_overridden(*e, keys, nours) && !(env[k++] = pipe_strdup(*e)))
            goto fail;
    for (size_t j = 0; j < nours; j++) {
        env[k++] = ours[j];
        ours[j] = NULL;
    }
    *envp = env;
    *nenv = k;
    env = NULL;
    rc = 0;
fail:
    free_strings(env, k);
    free_strings(ours, nours);
    free(keys);
    return rc;
}

/* ---- starting ---- */

/* What the forked supervisor needs: `step`'s options and environment. */
typedef struct step_call {
    const pipe_run_spawner *sp;
    pipe_step_options opts; /* `step ID --run-id RUN --store STORE --echo`'s */
    char **env;
    long reserve_range;
} step_call;

/* In the child (child.c's fn): what `EXE step ...` does after its start.
   The runner is single-threaded, so the child may run anything; it drops
   the run lock (the runner's alone) and takes its environment. */
static int run_step_here(void *arg)
{
    const step_call *c = arg;
    if (c->sp->lock_fd >= 0)
        close(c->sp->lock_fd);
    if (c->sp->reserve.fd >= 0)
        close(c->sp->reserve.fd); /* the runner's; a range is given back by its path */
    environ = c->env;
    return pipe_step_run(c->sp->prog, c->sp->m, &c->opts);
}

/* Starts the supervisor of invocation i (what `EXE step ID ...` runs), in a
   process group of its own. */
static int start(void *arg, size_t i, const pipe_pool *pool, const pipe_grant *grant, char *err, size_t errsize)
{
    pipe_run_spawner *sp = arg;
    const pipe_minvocation *inv = &sp->m->invocations[i];
    char **env = NULL;
    size_t nenv = 0;
    int rc = build_env(sp, i, pool, grant, &env, &nenv);
    if (rc != 0) {
        pipe_errf(err, errsize, "out of memory");
        return rc;
    }
    /* The supervisor runs in a fork of this process, as `EXE step ...` would
       run it but without executing the bundle again: no dynamic loading and
       no manifest parse per invocation (docs/performance.md). */
    long range = pipe_reserve_pool_lend(&sp->reserve);
    step_call call = {.sp = sp,
                      .opts = {.invocation = inv->id,
                               .run_id = sp->run_id,
                               .store = sp->store,
                               .echo = true,
                               .no_cache = sp->no_cache,
                               .verify = sp->verify,
                               .launch = {.machine_rank = -1},
                               /* Its writes wait for the runner's next commit point. */
                               .commit_deferred = sp->commit.path != NULL,
                               .reserve_lent = {range >= 0 ? sp->reserve.path : NULL,
                                                range >= 0 ? (long long)range * PIPE_STEP_RESERVE_BYTES : 0}},
                      .env = env,
                      .reserve_range = range};
    pipe_child_spec spec = {.fn = run_step_here, .arg = &call, .what = "the supervisor of an invocation"};
    char why[512];
    sp->slots[i].reserve_range = range;
    if ((rc = pipe_child_spawn(&sp->slots[i].child, &spec, why, sizeof why)) != 0) {
        pipe_errf(err, errsize, "cannot start %s: %s", inv->id, why);
        pipe_reserve_pool_return(&sp->reserve, range, false);
        sp->slots[i].reserve_range = -1;
    }
    free_strings(env, nenv);
    return rc;
}

/* Each line a child wrote, between the progress lines; the supervisor's
   word that its step really started (not cached) shows it running, with
   why it runs again when it succeeded before ("running again: code
   changed"). */
static void on_child_line(void *arg, int child, const char *line, size_t len)
{
    (void)child;
    run_slot *s = arg;
    pipe_progress *p = s->owner->progress;
    size_t plen = strlen(PIPE_RUNNER_STATE_PREFIX);
    if (len >= plen && memcmp(line, PIPE_RUNNER_STATE_PREFIX, plen) == 0) {
        const char *state = line + plen;
        size_t n = len - plen;
        while (n > 0 && (state[n - 1] == '\n' || state[n - 1] == '\r'))
            n--;
        size_t word = 0;
        while (word < n && state[word] != ' ')
            word++;
        if (word == strlen("running") && memcmp(state, "running", word) == 0 &&
            p->items[s->index].state == PIPE_PS_STARTING) {
            char *why = word + 1 < n ? pipe_asprintf("again: %.*s", (int)(n - word - 1), state + word + 1) : NULL;
            pipe_progress_set(p, s->index, PIPE_PS_RUNNING, why);
            free(why);
        }
        return;
    }
    pipe_progress_line(p, line, len);
}

/* ---- ends ---- */

/* Why an invocation failed, from its record or, without one, how its
   supervisor ended; the cause is kept for the summary, the event gets the
   status only. */
static void failure(pipe_run_spawner *sp, size_t i, const pipe_step_record *rec, int wstatus, int rc,
                    const char *err)
{
    bool exited = WIFEXITED(wstatus);
    int code = exited ? WEXITSTATUS(wstatus) : -1;
    char how[128];
    if (rec && rec->has_exit_code)
        snprintf(how, sizeof how, "exit %d", rec->exit_code);
    else if (rec && rec->signal)
        snprintf(how, sizeof how, "%s", rec->signal);
    else if (!exited)
        snprintf(how, sizeof how, "signal %d", WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
    else
        snprintf(how, sizeof how, "exit %d", code);
    const char *why = NULL;
    if (rec && rec->error)
        why = rec->error;
    else if (!rec && exited && code == 127)
        why = "the bundle executable could not be started";
    else if (!rec && exited && code == 0)
        why = "the step exited 0 without writing its step record";
    else if (!rec && rc != PIPE_ENOENT && err[0])
        why = err;
    else if (!rec)
        why = "it wrote no step record (see its output above)";
    /* The cause once, in the summary; here only the status. */
    snprintf(sp->detail, sizeof sp->detail, "(%s)", how);
    char *log = pipe_asprintf("%s/%s/log", sp->run_dir, sp->m->invocations[i].id);
    pipe_progress_cause(sp->progress, i, why ? why : how, rec ? log : NULL);
    free(log);
}

/* Invocation i's supervisor exited with wstatus: what its record says. */
static void finish(pipe_run_spawner *sp, size_t i, int wstatus, pipe_sched_event *ev)
{
    run_slot *s = &sp->slots[i];
    const pipe_minvocation *inv = &sp->m->invocations[i];
    char err[1024] = "";
    pipe_child_group_drain(&s->child);
    char *path = pipe_store_step_file(sp->store, sp->run_id, inv->id);
    int rc = path ? pipe_step_record_read(path, &s->record, err, sizeof err) : PIPE_ENOMEM;
    free(path);
    const pipe_step_record *rec = rc == 0 ? s->record : NULL;

    bool exited = WIFEXITED(wstatus);
    /* A child that died before it finished its record (killed, or it lost
       its way) leaves its scratch folder and temporary outputs: remove them,
       waiting a moment for its ranks, which die with it. */
    if (!exited || !rec)
        pipe_sweep_invocation(sp->store, sp->run_id, inv->id, 2000);
    sp->detail[0] = '\0';
    ev->kind = PIPE_SCHED_FINISHED;
    ev->invocation = i;
    ev->detail = sp->detail;
    if (exited && WEXITSTATUS(wstatus) == 0 && rec && pipe_step_status_succeeded(rec->status)) {
        ev->outcome = rec->status == PIPE_STEP_CACHED ? PIPE_SCHED_CACHED : PIPE_SCHED_DONE;
        if (ev->outcome == PIPE_SCHED_CACHED && rec->cached_from)
            snprintf(sp->detail, sizeof sp->detail, "(from %s)", rec->cached_from);
    } else if (rec && rec->status == PIPE_STEP_INTERRUPTED) {
        ev->outcome = PIPE_SCHED_INTERRUPTED; /* not a failure: its record and log say by what */
    } else {
        ev->outcome = PIPE_SCHED_FAILED;
        failure(sp, i, rec, wstatus, rc, err);
    }
    if (rec)
        pipe_progress_metrics(sp->progress, i, rec->metrics, rec->nmetrics);
    /* Its room, given back to the disk unless it ended well. */
    bool ended_well = ev->outcome == PIPE_SCHED_DONE || ev->outcome == PIPE_SCHED_CACHED;
    pipe_reserve_pool_return(&sp->reserve, s->reserve_range, !ended_well);
    s->reserve_range = -1;
    /* Its writes are all made: the next commit point covers them. */
    if (sp->ended)
        sp->ended[sp->nended++] = inv->id;
    pipe_run_spawner_commit(sp, false);
}

void pipe_run_spawner_commit(pipe_run_spawner *sp, bool final)
{
    /* After a failed commit the run fails: only the last one is tried. */
    if (!sp->commit.path || (!final && (sp->commit_error[0] || !pipe_commit_due(&sp->commit))))
        return;
    char err[1024] = "";
    size_t n = sp->nended;
    int rc = final ? pipe_commit_end(&sp->commit, err, sizeof err)
                   : pipe_commit_point(&sp->commit, sp->ended, n, err, sizeof err);
    if (rc == 0)
        sp->ncommitted = n;
    if (rc != 0 && !sp->commit_error[0])
        snprintf(sp->commit_error, sizeof sp->commit_error, "%s", err[0] ? err : "out of memory");
}

/* The supervisors that still run: spared when orphans are killed. */
static size_t live_supervisors(const pipe_run_spawner *sp, pid_t *pids, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sp->m->ninvocations && n < max; i++) {
        const pipe_child_group *g = &sp->slots[i].child;
        if (g->n > 0 && !g->children[0].exited)
            pids[n++] = g->children[0].pid;
    }
    return n;
}

/* A killed supervisor's leftovers: true when its lock is free, or when the
   drain's time is up and what held it (the ranks, and the orphans this
   runner adopted) was killed. */
static bool drained(pipe_run_spawner *sp, size_t i, double now)
{
    const char *id = sp->m->invocations[i].id;
    if (!pipe_sweep_held(sp->store, sp->run_id, id))
        return true;
    if (now < sp->slots[i].drain_until && !sp->killing)
        return false;
    pipe_sweep_kill_holders(sp->store, sp->run_id, id);
    pid_t live[256];
    size_t n = live_supervisors(sp, live, sizeof live / sizeof live[0]);
    if (n < sizeof live / sizeof live[0]) /* else some would be taken for orphans */
        pipe_procs_kill_descendants(live, n, 2000);
    return true;
}

/* An invocation whose supervisor exited (and, killed, whose processes let
   go of its lock), else a stop signal. */
static bool next_event(pipe_run_spawner *sp, pipe_sched_event *ev)
{
    double now = pipe_now();
    for (size_t i = 0; i < sp->m->ninvocations; i++) {
        run_slot *s = &sp->slots[i];
        if (s->drain_until > 0) {
            if (!drained(sp, i, now))
                continue;
            s->drain_until = 0;
            finish(sp, i, s->wstatus, ev);
            return true;
        }
        if (pipe_child_group_take_exit(&s->child) < 0)
            continue;
        int wstatus = s->child.children[0].status;
        if (WIFSIGNALED(wstatus) && pipe_sweep_held(sp->store, sp->run_id, sp->m->invocations[i].id)) {
            s->wstatus = wstatus;
            s->drain_until = now + (double)pipe_stop_grace_ms(&sp->m->invocations[i]) / 1000.0;
            continue;
        }
        finish(sp, i, wstatus, ev);
        return true;
    }
    int sig = pipe_child_signal_take();
    if (!sig)
        return false;
    ev->kind = PIPE_SCHED_SIGNAL;
    ev->sig = sig;
    return true;
}

/* Waits for output, an exit, a signal or the progress's next tick. */
static bool wait_event(void *arg, int timeout_ms, pipe_sched_event *ev)
{
    pipe_run_spawner *sp = arg;
    size_t n = sp->m->ninvocations;
    double now = pipe_now();
    for (size_t i = 0; i < n; i++)
        pipe_child_group_enforce(&sp->slots[i].child, now);
    if (next_event(sp, ev))
        return true;
    int most = (int)(pipe_progress_next_tick(sp->progress) * 1000) + 1;
    if (most > POLL_MAX_MS)
        most = POLL_MAX_MS;
    /* Writes of ended steps wait at most the commit interval, even while
       the next step runs for hours. */
    if (sp->commit.path && !sp->commit_error[0] && sp->nended > sp->ncommitted) {
        pipe_run_spawner_commit(sp, false);
        int left = (int)pipe_commit_ms_left(&sp->commit) + 1;
        if (sp->nended > sp->ncommitted && left < most)
            most = left;
    }
    char err[256];
    pipe_child_wait(sp->groups, n, timeout_ms < 0 || timeout_ms > most ? most : timeout_ms, err,
                    sizeof err); /* a failed poll: the next turn tries again */
    pipe_progress_tick(sp->progress);
    return next_event(sp, ev);
}

/* SIGINT or SIGTERM to every child's group, SIGKILL after its grace
   (stop.h); SIGKILL at once. */
static void stop(void *arg, int sig)
{
    pipe_run_spawner *sp = arg;
    sp->killing |= sig == SIGKILL;
    for (size_t i = 0; i < sp->m->ninvocations; i++)
        pipe_child_group_stop(&sp->slots[i].child, sig,
                              sig == SIGKILL ? 0 : pipe_stop_supervisor_grace_ms(&sp->m->invocations[i]));
}

int pipe_run_spawner_init(pipe_run_spawner *sp)
{
    size_t n = sp->m->ninvocations;
    sp->slots = calloc(n + 1, sizeof *sp->slots);
    sp->groups = calloc(n + 1, sizeof *sp->groups);
    sp->ended = calloc(n + 1, sizeof *sp->ended);
    if (!sp->slots || !sp->groups || !sp->ended) {
        free(sp->slots);
        free(sp->groups);
        free(sp->ended);
        sp->slots = NULL;
        sp->groups = NULL;
        sp->ended = NULL;
        return PIPE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        sp->slots[i].owner = sp;
        sp->slots[i].index = i;
        sp->slots[i].reserve_range = -1;
        pipe_child_group_init(&sp->slots[i].child, PIPE_CHILD_LINE_MAX, on_child_line, &sp->slots[i]);
        sp->groups[i] = &sp->slots[i].child;
    }
    pipe_reserve_pool_open(&sp->reserve, sp->run_dir);
    return 0;
}

void pipe_run_spawner_free(pipe_run_spawner *sp)
{
    for (size_t i = 0; sp->slots && i < sp->m->ninvocations; i++) {
        pipe_child_group_free(&sp->slots[i].child);
        pipe_step_record_free(sp->slots[i].record);
    }
    pipe_procs_kill_descendants(NULL, 0, 2000);
    pipe_commit_free(&sp->commit); /* after a failed start: the list stays, and says verify */
    pipe_reserve_pool_close(&sp->reserve);
    free(sp->slots);
    free(sp->groups);
    free(sp->ended);
    sp->slots = NULL;
    sp->groups = NULL;
    sp->ended = NULL;
}

pipe_spawner pipe_run_spawner_of(pipe_run_spawner *sp)
{
    return (pipe_spawner){.arg = sp, .start = start, .wait = wait_event, .stop = stop};
}
