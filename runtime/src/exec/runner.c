/* `run`: the local runner (docs/runtime.md, "Process model"). Resolves the
   parameters (manifest defaults, --config, --param), creates the run, then
   schedules one child per invocation — `EXE step ID --run-id RUN --store
   STORE --echo` — in DAG order, as many at once as the machine's CPUs,
   memory and GPUs and --jobs allow. Each child runs in its own process
   group; SIGINT and SIGTERM to the runner are forwarded to every group.
   The children's output comes through a pipe, line by line, so that it
   never tears the progress lines. */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "cmd/cliopt.h"
#include "cmd/commands.h"
#include "params.h"
#include "progress.h"
#include "resources.h"
#include "cmd/run_config.h"
#include "run_lock.h"
#include "run_state.h"
#include "store/stepfile.h"
#include "store/store.h"
#include "sweep.h"
#include "util/util.h"
#include "format/yaml_tree.h"

extern char **environ;

/* The longest the loop waits before it looks at its children again. */
#define POLL_MAX_MS 250
/* Each running child costs the runner one descriptor (its output pipe);
   this many stay spare for reading records and for starting the next. */
#define FD_RESERVE 16
/* Out of descriptors or processes with nothing running to free them: give
   up after this long. */
#define STARVED_LIMIT_S 30.0

typedef struct slot {
    struct runner *owner;
    size_t index;           /* the invocation's */
    pipe_child_group child; /* `EXE step ID`, alone in its group */
    pipe_grant grant;
    bool granted;
    pipe_step_record *record;
} slot;

typedef struct runner {
    const pipe_manifest *m;
    const char *store;
    char run_id[PIPE_RUN_ID_SIZE + 128];
    char *run_dir;
    char exe[4096];       /* readlink /proc/self/exe: named in the closing hint */
    const pipe_program *prog;
    bool no_cache;
    bool verify; /* --verify, passed to each invocation */
    long jobs;
    pipe_local_resources local;
    pipe_pool pool;
    slot *slots;
    pipe_child_group **groups; /* each slot's child, for pipe_child_wait */
    pipe_progress progress;
    size_t running;
    int stop_signal;  /* the first SIGINT/SIGTERM, 0 when none */
    int signals_seen;
    int lock_fd; /* run.lock, held while the runner lives (run_lock.h) */
    size_t max_children;    /* what the open-file limit allows at once */
    double spawn_retry_at;  /* out of descriptors or processes: try again then (0: none) */
    double starved_since;   /* when starting failed with nothing running */
    unsigned spawn_backoff_ms;
    bool waiting_noted;
} runner;

/* ---- options and configuration ---- */

static void run_usage(FILE *out)
{
    fputs("usage: EXE run [--param NAME=VALUE ...] [--config FILE] [--store DIR] [--no-cache]\n"
          "               [--verify] [--strict-resources] [--jobs N] [--run-id ID]\n"
          "\n"
          "  --param NAME=VALUE   set a pipeline parameter (repeatable; overrides --config)\n"
          "  --config FILE        YAML: params: {NAME: VALUE}, store, jobs, no_cache, strict_resources\n"
          "  --store DIR          the artifact store (default $PIPE_STORE, else .pipe)\n"
          "  --no-cache           run every invocation, even when an earlier result matches\n"
          "  --verify             hash every input and cached output again, even files whose\n"
          "                       size and modification time are those recorded\n"
          "  --strict-resources   refuse to run when this machine cannot meet a request\n"
          "  --jobs N             at most N invocations at once\n"
          "  --run-id ID          name the run (default: UTC time and 6 random hex digits)\n",
          out);
}

/* ---- children ---- */

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
   OMP_NUM_THREADS (when unset: its CPUs per local rank, rounded up, as the
   supervisor computes it), the step's
   environment map and PIPE_STORE, PIPE_RUN_ID, PIPE_INVOCATION. */
static int build_env(runner *r, size_t i, char ***envp, size_t *nenv)
{
    const pipe_minvocation *inv = &r->m->invocations[i];
    const pipe_mstep *step = &r->m->steps[inv->step];
    const slot *s = &r->slots[i];
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
    if (r->local.ngpus > 0) {
        char list[1024];
        pipe_grant_gpu_list(&r->pool, &s->grant, list, sizeof list);
        ADD("CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES=%s", list);
        /* The numbers are NVML's indices: CUDA numbers the same way only in bus order. */
        ADD("CUDA_DEVICE_ORDER", "CUDA_DEVICE_ORDER=PCI_BUS_ID");
    }
    if (!getenv("OMP_NUM_THREADS") && inv->resources.cpu > 0) {
        int64_t ranks = inv->accelerate.enabled && inv->accelerate.num_machines > 0
                            ? inv->accelerate.num_processes / inv->accelerate.num_machines
                            : 1;
        long threads = (long)ceil(s->grant.cpu / (double)(ranks > 0 ? ranks : 1));
        ADD("OMP_NUM_THREADS", "OMP_NUM_THREADS=%ld", threads > 0 ? threads : 1L);
    }
    for (size_t e = 0; e < step->nenvironment; e++)
        ADD(step->environment[e].key, "%s=%s", step->environment[e].key, step->environment[e].value);
    ADD("PIPE_STORE", "PIPE_STORE=%s", r->store);
    ADD("PIPE_RUN_ID", "PIPE_RUN_ID=%s", r->run_id);
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

/* What the forked supervisor needs: `step`'s arguments and environment. */
typedef struct step_call {
    const runner *r;
    int argc;
    char **argv; /* "step", INVOCATION, options */
    char **env;
} step_call;

/* In the child (child.c's fn): what `EXE step ...` does after its start.
   The runner is single-threaded, so the child may run anything; it drops
   the run lock (the runner's alone) and takes its environment. */
static int run_step_here(void *arg)
{
    const step_call *c = arg;
    if (c->r->lock_fd >= 0)
        close(c->r->lock_fd);
    environ = c->env;
    return pipe_cmd_step(c->r->prog, c->r->m, c->argc, c->argv);
}

/* Starts the supervisor of invocation i (what `EXE step ID ...` runs), in a
   process group of its own. */
static int spawn(runner *r, size_t i, char *err, size_t errsize)
{
    const pipe_minvocation *inv = &r->m->invocations[i];
    char **env = NULL;
    size_t nenv = 0;
    const char *args[12];
    size_t na = 0;
    args[na++] = "step";
    args[na++] = inv->id;
    args[na++] = "--run-id";
    args[na++] = r->run_id;
    args[na++] = "--store";
    args[na++] = r->store;
    args[na++] = "--echo";
    if (r->no_cache)
        args[na++] = "--no-cache";
    if (r->verify)
        args[na++] = "--verify";
    args[na] = NULL;

    int rc = build_env(r, i, &env, &nenv);
    if (rc != 0) {
        pipe_errf(err, errsize, "out of memory");
        return rc;
    }
    /* The supervisor runs in a fork of this process, as `EXE step ...` would
       run it but without executing the bundle again: no dynamic loading and
       no manifest parse per invocation (docs/performance.md). */
    step_call call = {.r = r, .argc = (int)na, .argv = (char **)args, .env = env};
    pipe_child_spec spec = {.fn = run_step_here, .arg = &call, .what = "the supervisor of an invocation"};
    char why[512];
    if ((rc = pipe_child_spawn(&r->slots[i].child, &spec, why, sizeof why)) != 0)
        pipe_errf(err, errsize, "cannot start %s: %s", inv->id, why);
    free_strings(env, nenv);
    return rc;
}

/* Each line a child wrote, between the progress lines; the supervisor's
   word that its step really started (not cached) shows it running. */
static void on_child_line(void *arg, int child, const char *line, size_t len)
{
    (void)child;
    slot *s = arg;
    runner *r = s->owner;
    size_t plen = strlen(PIPE_RUNNER_STATE_PREFIX);
    if (len >= plen && memcmp(line, PIPE_RUNNER_STATE_PREFIX, plen) == 0) {
        if (r->progress.items[s->index].state == PIPE_PS_STARTING)
            pipe_progress_set(&r->progress, s->index, PIPE_PS_RUNNING, NULL);
        return;
    }
    pipe_progress_line(&r->progress, line, len);
}

/* ---- scheduling ---- */

static bool is_finished(pipe_pstate st) { return st >= PIPE_PS_DONE; }
static bool is_success(pipe_pstate st) { return st == PIPE_PS_DONE || st == PIPE_PS_CACHED; }

static void finish(runner *r, size_t i, int wstatus)
{
    slot *s = &r->slots[i];
    const pipe_minvocation *inv = &r->m->invocations[i];
    char err[1024] = "", detail[2048] = "";
    pipe_child_group_drain(&s->child);
    if (s->granted) {
        pipe_pool_release(&r->pool, &s->grant);
        s->granted = false;
    }
    r->running--;

    char *path = pipe_store_step_file(r->store, r->run_id, inv->id);
    int rc = path ? pipe_step_record_read(path, &s->record, err, sizeof err) : PIPE_ENOMEM;
    free(path);
    const pipe_step_record *rec = rc == 0 ? s->record : NULL;

    bool exited = WIFEXITED(wstatus);
    int code = exited ? WEXITSTATUS(wstatus) : -1;
    /* A child that died before it finished its record (killed, or it lost
       its way) leaves its scratch folder and temporary outputs: remove them,
       waiting a moment for its ranks, which die with it. */
    if (!exited || !rec)
        pipe_sweep_invocation(r->store, r->run_id, inv->id, 2000);
    pipe_pstate state;
    if (exited && code == 0 && rec && rec->status != PIPE_STEP_FAILED) {
        state = rec->status == PIPE_STEP_CACHED ? PIPE_PS_CACHED : PIPE_PS_DONE;
        if (state == PIPE_PS_CACHED && rec->cached_from)
            snprintf(detail, sizeof detail, "(from %s)", rec->cached_from);
    } else {
        state = PIPE_PS_FAILED;
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
        snprintf(detail, sizeof detail, "(%s)", how);
        char *log = pipe_asprintf("%s/%s/log", r->run_dir, inv->id);
        pipe_progress_cause(&r->progress, i, why ? why : how, rec ? log : NULL);
        free(log);
    }
    pipe_progress_set(&r->progress, i, state, detail);
    if (rec)
        pipe_progress_metrics(&r->progress, i, rec->metrics, rec->nmetrics);
}

/* Starting a child failed for want of descriptors or processes: true when
   the invocation should wait (others run and will free some, or not for
   long yet), after arranging the next try with a growing pause. */
static bool wait_for_descriptors(runner *r, const char *why)
{
    double now = pipe_now();
    if (r->running == 0) {
        if (r->starved_since == 0)
            r->starved_since = now;
        else if (now - r->starved_since >= STARVED_LIMIT_S)
            return false;
    }
    r->spawn_backoff_ms = r->spawn_backoff_ms ? r->spawn_backoff_ms * 2 : 50;
    if (r->spawn_backoff_ms > 1000)
        r->spawn_backoff_ms = 1000;
    r->spawn_retry_at = now + r->spawn_backoff_ms / 1000.0;
    if (!r->waiting_noted) {
        char line[1200];
        snprintf(line, sizeof line, "waiting for resources to start more invocations (%s)", why);
        pipe_progress_line(&r->progress, line, strlen(line));
        r->waiting_noted = true;
    }
    return true;
}

/* The fixed port of an accelerated invocation (MASTER_PORT in our
   environment, as its launcher reads it, else main_process_port), 0 when
   its ports are free ones. */
static long fixed_port(const pipe_minvocation *inv)
{
    if (!inv->accelerate.enabled)
        return 0;
    const char *env = getenv("MASTER_PORT");
    if (env && *env) {
        char *end;
        long p = strtol(env, &end, 10);
        return *end ? 0 : p; /* malformed: the launcher says so */
    }
    return (long)inv->accelerate.main_process_port;
}

/* Invocations given the same port (it and the one above it, pipe's
   rendezvous) do not run at the same time on one machine. */
static bool port_taken(const runner *r, size_t i)
{
    long mine = fixed_port(&r->m->invocations[i]);
    if (mine <= 0)
        return false;
    for (size_t k = 0; k < r->m->ninvocations; k++) {
        pipe_pstate st = r->progress.items[k].state;
        if (k == i || (st != PIPE_PS_RUNNING && st != PIPE_PS_STARTING))
            continue;
        long theirs = fixed_port(&r->m->invocations[k]);
        if (theirs > 0 && labs(theirs - mine) <= 1)
            return true;
    }
    return false;
}

/* Marks pending invocations whose needs failed as skipped, starts those
   whose needs succeeded while resources, --jobs and ports allow. */
static int schedule(runner *r)
{
    const pipe_manifest *m = r->m;
    for (size_t i = 0; i < m->ninvocations; i++) {
        if (r->progress.items[i].state != PIPE_PS_QUEUED)
            continue;
        const pipe_minvocation *inv = &m->invocations[i];
        bool ready = true;
        const char *blocker = NULL, *why = NULL;
        for (size_t k = 0; k < inv->nneeds; k++) {
            pipe_pstate st = r->progress.items[inv->needs[k]].state;
            if (st == PIPE_PS_FAILED || st == PIPE_PS_SKIPPED) {
                blocker = m->invocations[inv->needs[k]].id;
                why = st == PIPE_PS_FAILED ? "failed" : "was skipped";
                break;
            }
            ready &= is_success(st);
        }
        if (blocker) {
            char detail[512];
            snprintf(detail, sizeof detail, "needs %s, which %s", blocker, why);
            pipe_progress_set(&r->progress, i, PIPE_PS_SKIPPED, detail);
            continue;
        }
        if (!ready || (r->jobs > 0 && r->running >= (size_t)r->jobs) || r->running >= r->max_children ||
            port_taken(r, i))
            continue;
        if (r->spawn_retry_at > 0 && pipe_now() < r->spawn_retry_at)
            continue;
        bool granted;
        if (pipe_pool_acquire(&r->pool, &inv->resources, &r->slots[i].grant, &granted) != 0)
            return PIPE_ENOMEM;
        if (!granted)
            continue;
        r->slots[i].granted = true;
        char err[1024];
        int rc = spawn(r, i, err, sizeof err);
        if (rc != 0) {
            pipe_pool_release(&r->pool, &r->slots[i].grant);
            r->slots[i].granted = false;
            if (rc == PIPE_ERESOURCE && wait_for_descriptors(r, err))
                continue; /* stays queued */
            pipe_progress_set(&r->progress, i, PIPE_PS_FAILED, err);
            continue;
        }
        r->spawn_retry_at = r->starved_since = 0;
        r->spawn_backoff_ms = 0;
        r->waiting_noted = false;
        r->running++;
        pipe_progress_set(&r->progress, i, PIPE_PS_STARTING, NULL);
    }
    return 0;
}

/* SIGINT or SIGTERM: passed on to every child's group, nothing new starts,
   SIGKILL after the grace; a second one: SIGKILL now. */
static void handle_signals(runner *r)
{
    size_t n = r->m->ninvocations;
    int sig = pipe_child_signal_take();
    if (sig) {
        r->signals_seen++;
        char line[256];
        if (r->signals_seen == 1) {
            r->stop_signal = sig;
            snprintf(line, sizeof line, "%s: stopping %zu running invocation%s (again to kill them now)",
                     sig == SIGINT ? "interrupted" : "terminated", r->running, r->running == 1 ? "" : "s");
            pipe_progress_line(&r->progress, line, strlen(line));
            pipe_child_forward(r->groups, n, sig, PIPE_RUN_KILL_GRACE_MS);
            for (size_t i = 0; i < n; i++)
                if (r->progress.items[i].state == PIPE_PS_QUEUED)
                    pipe_progress_set(&r->progress, i, PIPE_PS_SKIPPED, "the run was interrupted");
        } else {
            snprintf(line, sizeof line, "killing %zu running invocation%s", r->running, r->running == 1 ? "" : "s");
            pipe_progress_line(&r->progress, line, strlen(line));
            pipe_child_forward(r->groups, n, SIGKILL, 0);
        }
    }
    double now = pipe_now();
    for (size_t i = 0; i < n; i++)
        pipe_child_group_enforce(&r->slots[i].child, now);
}

/* Waits for output, an exit, a signal or the next progress tick; then
   finishes the invocations whose child exited. */
static void wait_events(runner *r)
{
    size_t n = r->m->ninvocations;
    int timeout = (int)(pipe_progress_next_tick(&r->progress) * 1000) + 1;
    if (timeout > POLL_MAX_MS)
        timeout = POLL_MAX_MS;
    if (r->spawn_retry_at > 0) {
        int retry = (int)((r->spawn_retry_at - pipe_now()) * 1000) + 1;
        if (retry < timeout)
            timeout = retry < 0 ? 0 : retry;
    }
    char err[256];
    pipe_child_wait(r->groups, n, timeout, err, sizeof err); /* a failed poll: the next turn tries again */
    for (size_t i = 0; i < n; i++)
        if (pipe_child_group_take_exit(&r->slots[i].child) >= 0)
            finish(r, i, r->slots[i].child.children[0].status);
}

static int loop(runner *r)
{
    for (;;) {
        handle_signals(r);
        if (!r->stop_signal && schedule(r) != 0)
            return PIPE_ENOMEM;
        if (r->running == 0) {
            bool left = false;
            for (size_t i = 0; i < r->m->ninvocations; i++)
                left |= !is_finished(r->progress.items[i].state);
            if (!left)
                return 0;
            if (!r->stop_signal && r->spawn_retry_at > 0) { /* out of descriptors: wait and try again */
                wait_events(r);
                continue;
            }
            if (r->stop_signal) {
                for (size_t i = 0; i < r->m->ninvocations; i++)
                    if (!is_finished(r->progress.items[i].state))
                        pipe_progress_set(&r->progress, i, PIPE_PS_SKIPPED, "the run was interrupted");
                return 0;
            }
            /* Nothing runs and nothing could start: cannot happen (an idle
               machine accepts any request); do not spin. */
            for (size_t i = 0; i < r->m->ninvocations; i++)
                if (!is_finished(r->progress.items[i].state))
                    pipe_progress_set(&r->progress, i, PIPE_PS_FAILED, "(internal) could not be scheduled");
            return 0;
        }
        wait_events(r);
        pipe_progress_tick(&r->progress);
    }
}

/* ---- the command ---- */

/* Warns about (or, strict, refuses) requests this machine cannot meet. */
static int check_requests(const runner *r, bool strict)
{
    int unmet = 0;
    char msg[512];
    for (size_t i = 0; i < r->m->ninvocations; i++) {
        const pipe_minvocation *inv = &r->m->invocations[i];
        if (!pipe_resources_unmet(&r->local, &inv->resources, msg, sizeof msg))
            continue;
        unmet++;
        if (strict)
            pipe_cli_error("invocation %s requests %s, and --strict-resources refuses to run it", inv->id, msg);
        else
            pipe_cli_warning("invocation %s requests %s; it will run alone, with what this machine has", inv->id,
                             msg);
    }
    return strict && unmet ? -1 : 0;
}

int pipe_cmd_run(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    runner r;
    pipe_run_config cfg = {0};
    pipe_param_values params = {0};
    const char **assignments = NULL;
    size_t nassign = 0;
    const char *config_path = NULL, *store_flag = NULL, *run_id_flag = NULL, *jobs_flag = NULL;
    bool no_cache = false, strict = false, pool_ready = false, progress_ready = false, signals_set = false;
    char *store = NULL, err[1024] = "";
    const char **ids = NULL;
    pipe_run_info info = {0};
    pipe_kv *kv = NULL;
    int status = PIPE_EXIT_USAGE;

    memset(&r, 0, sizeof r);
    r.m = m;
    r.prog = prog;
    r.lock_fd = -1;
    ssize_t exe_len = readlink("/proc/self/exe", r.exe, sizeof r.exe - 1);
    if (exe_len <= 0)
        snprintf(r.exe, sizeof r.exe, "%s", m->pipeline);
    else
        r.exe[exe_len] = '\0';
    if (!(assignments = calloc((size_t)argc + 1, sizeof *assignments)))
        goto nomem;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        int got;
        if (pipe_opt_is_help(arg)) {
            run_usage(stdout);
            status = PIPE_EXIT_OK;
            goto done;
        }
        if ((got = pipe_opt_value(argc, argv, &i, "--param", &value)) != 0) {
            if (got < 0)
                goto done;
            assignments[nassign++] = value;
        } else if ((got = pipe_opt_value(argc, argv, &i, "--config", &config_path)) != 0 ||
                   (got = pipe_opt_value(argc, argv, &i, "--store", &store_flag)) != 0 ||
                   (got = pipe_opt_value(argc, argv, &i, "--run-id", &run_id_flag)) != 0 ||
                   (got = pipe_opt_value(argc, argv, &i, "--jobs", &jobs_flag)) != 0) {
            if (got < 0)
                goto done;
        } else if (strcmp(arg, "--no-cache") == 0) {
            no_cache = true;
        } else if (strcmp(arg, "--verify") == 0) {
            r.verify = true;
        } else if (strcmp(arg, "--strict-resources") == 0) {
            strict = true;
        } else {
            pipe_cli_error(arg[0] == '-' ? "unknown option `%s` (see run --help)"
                                         : "unexpected argument `%s` (see run --help)",
                           arg);
            goto done;
        }
    }

    /* Parameters: defaults, then the config file, then --param. */
    if (pipe_params_init(m, &params) != 0)
        goto nomem;
    if (config_path) {
        int rc = pipe_run_config_load(config_path, m, &params, &cfg, err, sizeof err);
        if (rc == PIPE_ENOMEM)
            goto nomem;
        if (rc != 0) {
            pipe_cli_error("--config: %s", err);
            goto done;
        }
    }
    int assigned = pipe_params_assign_all(m, &params, assignments, nassign, err, sizeof err);
    if (assigned == PIPE_ENOMEM)
        goto nomem;
    if (assigned != 0) {
        pipe_cli_error("--param: %s", err);
        goto done;
    }
    if (pipe_params_check_complete(m, &params, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    r.jobs = cfg.jobs;
    if (jobs_flag && pipe_opt_parse_int("--jobs", jobs_flag, 1, 1000000, &r.jobs) != 0)
        goto done;
    r.no_cache = no_cache || cfg.no_cache;
    strict = strict || cfg.strict_resources;
    if (store_flag && !*store_flag) {
        pipe_cli_error("--store: the directory name is empty");
        goto done;
    }
    if (!(store = pipe_store_resolve(store_flag, cfg.store)))
        goto nomem;
    r.store = store;

    if (pipe_local_resources_detect(&r.local, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    if (pipe_pool_init(&r.pool, &r.local) != 0)
        goto nomem;
    /* At most as many children at once as the open-file limit leaves room
       for; the others wait their turn. */
    r.max_children = pipe_descriptors_left(FD_RESERVE);
    if (r.max_children == 0)
        r.max_children = 1;
    pool_ready = true;
    if (check_requests(&r, strict) != 0)
        goto done;

    if (run_id_flag) {
        if (pipe_run_id_check(run_id_flag, err, sizeof err) != 0) {
            pipe_cli_error("--run-id: %s", err);
            goto done;
        }
        snprintf(r.run_id, sizeof r.run_id, "%s", run_id_flag);
    } else if (pipe_run_id_new(r.run_id, sizeof r.run_id, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    if (!(r.run_dir = pipe_store_run_dir(store, r.run_id)))
        goto nomem;
    if (pipe_dir_exists(r.run_dir)) {
        pipe_cli_error("run %s already exists in %s", r.run_id, store);
        goto done;
    }
    /* What killed runs and steps left in this store goes first. */
    pipe_sweep_store(store);
    if (pipe_run_lock_hold(store, r.run_id, &r.lock_fd, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }

    /* run.yaml: created here, first; the steps read their parameters from it. */
    char started[40];
    pipe_iso8601(started, sizeof started);
    if (m->nparams > 0 && !(kv = calloc(m->nparams, sizeof *kv)))
        goto nomem;
    for (size_t i = 0; i < m->nparams; i++) {
        kv[i].key = m->params[i].name;
        kv[i].value = params.values[i];
    }
    info.run_id = r.run_id;
    info.pipeline = m->pipeline;
    info.params = kv;
    info.nparams = m->nparams;
    info.started = started;
    info.status = "running";
    bool created = false;
    if (pipe_run_info_write(store, r.run_id, &info, PIPE_RUN_WRITE_CREATE, &created, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    if (!created) {
        pipe_cli_error("run %s already exists in %s", r.run_id, store);
        goto done;
    }

    if (!(r.slots = calloc(m->ninvocations, sizeof *r.slots)) || !(ids = calloc(m->ninvocations, sizeof *ids)) ||
        !(r.groups = calloc(m->ninvocations, sizeof *r.groups)))
        goto nomem;
    for (size_t i = 0; i < m->ninvocations; i++) {
        r.slots[i].owner = &r;
        r.slots[i].index = i;
        pipe_child_group_init(&r.slots[i].child, PIPE_CHILD_LINE_MAX, on_child_line, &r.slots[i]);
        r.groups[i] = &r.slots[i].child;
        ids[i] = m->invocations[i].id;
    }
    if (pipe_progress_init(&r.progress, stdout, isatty(STDOUT_FILENO), ids, m->ninvocations) != 0)
        goto nomem;
    progress_ready = true;
    if (pipe_child_signals_install(err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    signals_set = true;

    printf("pipeline %s: run %s, %zu invocation%s, store %s\n", m->pipeline, r.run_id, m->ninvocations,
           m->ninvocations == 1 ? "" : "s", store);
    pipe_progress_start(&r.progress);
    int rc = loop(&r);

    bool failed = rc != 0;
    for (size_t i = 0; i < m->ninvocations; i++)
        failed |= r.progress.items[i].state == PIPE_PS_FAILED || r.progress.items[i].state == PIPE_PS_SKIPPED;
    status = r.stop_signal ? 128 + r.stop_signal : failed ? PIPE_EXIT_FAILED : PIPE_EXIT_OK;

    char finished[40];
    pipe_iso8601(finished, sizeof finished);
    info.finished = finished;
    info.status = status == PIPE_EXIT_OK ? "done" : r.stop_signal ? "interrupted" : "failed";
    if (pipe_run_info_write(store, r.run_id, &info, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err) != 0)
        pipe_cli_warning("%s", err);
    pipe_lock_release(r.lock_fd); /* after the final status: nobody sees `interrupted` in between */
    r.lock_fd = -1;
    pipe_progress_summary(&r.progress, r.run_id, r.run_dir, status);
    {
        const char *slash = strrchr(r.exe, '/');
        printf("report: `%s report %s` writes %s/report.html\n", slash ? slash + 1 : r.exe, r.run_id, r.run_dir);
    }
    goto done;

nomem:
    pipe_cli_error("out of memory");
    status = PIPE_EXIT_USAGE;
done:
    if (r.lock_fd >= 0)
        close(r.lock_fd); /* an early failure: run.yaml was not written, or says why */
    if (signals_set)
        pipe_child_signals_restore();
    if (r.slots) {
        for (size_t i = 0; i < m->ninvocations; i++) {
            slot *s = &r.slots[i];
            pipe_child_group_free(&s->child); /* kills only after an internal error: leave no orphan */
            if (s->granted)
                pipe_pool_release(&r.pool, &s->grant);
            pipe_step_record_free(s->record);
        }
        free(r.slots);
    }
    free(r.groups);
    if (progress_ready)
        pipe_progress_free(&r.progress);
    if (pool_ready)
        pipe_pool_free(&r.pool);
    pipe_local_resources_free(&r.local);
    free(ids);
    free(kv);
    free(r.run_dir);
    free(store);
    pipe_run_config_free(&cfg);
    pipe_params_free(&params);
    free(assignments);
    return status;
}
