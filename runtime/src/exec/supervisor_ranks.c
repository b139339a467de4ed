/* One attempt's processes (supervisor.h): the local ranks as children in
   one process group (child.h), each running the worker in a fork; their
   output into the log; the events that stop them all. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "pipe/error.h"
#include "dist/rank_env.h"
#include "pipe/base.h"
#include "supervisor.h"
#include "util/util.h"
#include "worker.h"

/* After the last rank exited, how long its descendants may keep the pipe
   open before the rest of their output is drained. */
#define LINGER_S 0.2

typedef struct rank_start {
    pipe_supervisor *s;
    int local_rank;
} rank_start;

void pipe_supervisor_rank_env(pipe_supervisor *s, int local_rank)
{
    if (s->log_fd >= 0)
        close(s->log_fd);
    pipe_launch_close_in_child(&s->launch);
    for (size_t i = 0; i < s->ms->nenvironment; i++)
        setenv(s->ms->environment[i].key, s->ms->environment[i].value, 1);
    if (s->omp_threads)
        setenv("OMP_NUM_THREADS", s->omp_threads, 1);
    setenv("PIPE_STORE", s->store, 1);
    setenv("PIPE_RUN_ID", s->o.run_id, 1);
    setenv("PIPE_INVOCATION", s->inv->id, 1);
    setenv("PIPE_SCRATCH_ROOT", s->scratch_root, 1);
    const pipe_accelerate *acc = &s->inv->accelerate;
    if (acc->enabled && acc->mixed_precision)
        setenv("PIPE_MIXED_PRECISION", acc->mixed_precision, 1);
    pipe_rank_env_set(&s->launch, local_rank, acc->enabled);
}

/* The forked rank of a native step: its environment, then the step. */
static int rank_main(void *arg)
{
    const rank_start *r = arg;
    pipe_supervisor *s = r->s;
    setvbuf(stdout, NULL, _IOLBF, 0);
    pipe_supervisor_rank_env(s, r->local_rank);

    pipe_worker_spec spec = {
        .impl = s->impl,
        .mstep = s->ms,
        .cuda = s->prog->cuda,
        /* cpu = true wins: its ranks select no GPU. */
        .use_gpu = !pipe_invocation_cpu_only(s->inv) && (s->ms->needs_cuda || s->inv->resources.gpu > 0),
        .cleanup_memory = s->inv->cleanup_memory,
        .invocation = s->inv->id,
        .run_id = s->o.run_id,
        .dir = s->dir,
        .rank = s->machine_rank * s->nlocal + r->local_rank,
        .world = s->world,
        .values = (const char *const *)s->values,
        .output_names = s->output_names,
        .noutputs = s->ms->noutputs,
    };
    return pipe_worker_run(&spec);
}

static void on_rank_line(void *arg, int child, const char *line, size_t len)
{
    pipe_supervisor *s = arg;
    pipe_supervisor_emit_rank(s, s->machine_rank * s->nlocal + child, line, len);
}

/* What the rendezvous turned away, into the log, a line each. */
static void note_rendezvous(pipe_supervisor *s)
{
    char *notes = pipe_launch_take_notes(&s->launch);
    for (char *save = NULL, *line = notes ? strtok_r(notes, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save))
        pipe_supervisor_note(s, "%s", line);
    free(notes);
}

static bool failed_status(int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 0); }

/* Takes the exits the last wait reaped; the first failure decides the
   attempt. running counts the ranks whose exit was not taken yet. */
static void take_exits(pipe_supervisor *s, pipe_child_group *g, pipe_attempt_result *res, int *running,
                       bool *stopping)
{
    int i;
    while ((i = pipe_child_group_take_exit(g)) >= 0) {
        int st = g->children[i].status;
        (*running)--;
        if (!failed_status(st) || res->status)
            continue;
        res->rank = s->machine_rank * s->nlocal + i;
        res->status = st;
        if (*running > 0 && stopping && !*stopping) {
            /* One rank failed: stop the others. The cause is this rank's
               (pipe_supervisor_describe_failure), said once at the end. */
            char how[512];
            pipe_supervisor_describe_exit(s, res->rank, st, how, sizeof how);
            pipe_supervisor_note(s, "%s; stopping the other ranks", how);
            pipe_child_group_stop(g, SIGTERM, s->grace_ms);
            *stopping = true;
        }
    }
}

/* @gpu_profile: a sample when one is due, of the ranks still running. */
static void sample_ranks(pipe_supervisor *s, const pipe_child_group *g, double now)
{
    pid_t pids[256];
    size_t n = 0;
    if (pipe_profiler_due(s->profiler, now) > 0)
        return;
    for (size_t i = 0; i < g->n && n < sizeof pids / sizeof pids[0]; i++)
        if (!g->children[i].exited)
            pids[n++] = g->children[i].pid;
    pipe_profiler_tick(s->profiler, now, pids, n);
}

int pipe_supervisor_run_attempt(pipe_supervisor *s, pipe_attempt_result *res, char *err, size_t errsize)
{
    pipe_child_group g;
    pipe_child_group *groups[1] = {&g};
    int rc, running = 0;
    memset(res, 0, sizeof *res);
    off_t end = s->log_fd >= 0 ? lseek(s->log_fd, 0, SEEK_END) : 0;
    s->attempt_log_start = end > 0 ? (long long)end : 0;
    bool command = pipe_step_is_command(s->ms);
    if ((rc = pipe_launch_begin(&s->launch, err, errsize)) != 0)
        return rc;
    if (command && (rc = pipe_supervisor_command_begin(s, err, errsize)) != 0) {
        pipe_launch_end(&s->launch);
        return rc;
    }
    pipe_child_group_init(&g, PIPE_LOG_LINE_MAX, on_rank_line, s);
    pipe_profiler_attempt(s->profiler, pipe_now());
    if (s->launch.pipe_rendezvous && s->machine_rank == 0)
        pipe_supervisor_note(s, "%d ranks on %d machine%s meet at %s:%d (%s collectives)", s->world,
                             s->launch.num_machines, s->launch.num_machines == 1 ? "" : "s",
                             pipe_launch_rdzv_addr(&s->launch), s->launch.rdzv_port, s->launch.backend);
    else if (command && s->inv->accelerate.enabled && s->machine_rank == 0)
        pipe_supervisor_note(s, "%d rank%s of `%s` on %d machine%s; MASTER_ADDR=%s MASTER_PORT=%d", s->world,
                             s->world == 1 ? "" : "s", s->ms->command[0], s->launch.num_machines,
                             s->launch.num_machines == 1 ? "" : "s", s->launch.master_addr, s->launch.master_port);
    if (command && s->inv->cleanup_memory && !pipe_invocation_cpu_only(s->inv))
        pipe_supervisor_note(s, "cleanup_memory: nothing to release before `%s` starts (its CUDA caches are its own: "
                                "torch.cuda.empty_cache() releases them)",
                             s->ms->command[0]);
    for (; running < s->nlocal; running++) {
        char why[512];
        if (command) {
            rc = pipe_supervisor_command_spawn(s, &g, running, why, sizeof why);
        } else {
            rank_start start = {s, running};
            pipe_child_spec spec = {.fn = rank_main, .arg = &start};
            rc = pipe_child_spawn(&g, &spec, why, sizeof why);
        }
        if (rc != 0) {
            if (command)
                pipe_errf(err, errsize, "%s", why);
            else
                pipe_errf(err, errsize, "cannot start the worker: %s", why);
            pipe_child_group_signal(&g, SIGKILL);
            res->status = 1 << 8;
            break;
        }
    }

    double now = pipe_now();
    double deadline = s->inv->timeout_ms > 0 ? now + (double)s->inv->timeout_ms / 1000.0 : 0;
    double linger_until = 0;
    bool stopping = false;
    while (rc == 0) {
        take_exits(s, &g, res, &running, &stopping);
        if (command)
            pipe_supervisor_command_metrics(s, false);
        now = pipe_now();
        if (running == 0) {
            if (!pipe_child_group_reading(&g))
                break;
            /* Descendants may still hold the pipe: a short grace, then drain. */
            if (linger_until == 0)
                linger_until = now + LINGER_S;
            else if (now >= linger_until)
                break;
        }
        int sig = pipe_child_signal_pending();
        if (sig && !res->interrupted) {
            res->interrupted = sig;
            char name[32];
            pipe_signal_text(sig, name, sizeof name);
            pipe_supervisor_note(s, "received %s; stopping the step", name);
            pipe_child_group_stop(&g, sig, s->grace_ms);
            stopping = true;
        }
        note_rendezvous(s);
        char *hung = running > 0 && !stopping ? pipe_supervisor_check_collectives(s, &g) : NULL;
        if (hung) {
            pipe_supervisor_note(s, "%s", hung);
            res->collective = hung;
            /* At once, and SIGKILL: a stopped process cannot take SIGTERM. */
            pipe_child_group_signal(&g, SIGKILL);
            stopping = true;
        }
        char *rdzv = running > 0 && !stopping ? pipe_launch_check(&s->launch, now) : NULL;
        if (rdzv) {
            pipe_supervisor_note(s, "%s", rdzv);
            res->rendezvous = rdzv;
            pipe_child_group_stop(&g, SIGTERM, s->grace_ms);
            stopping = true;
        }
        if (deadline > 0 && now >= deadline && !res->timed_out && running > 0) {
            char d[64];
            pipe_format_duration(s->inv->timeout_ms, d, sizeof d);
            res->timed_out = true;
            pipe_supervisor_note(s, "timed out after %s; sending SIGTERM", d);
            pipe_child_group_stop(&g, SIGTERM, s->grace_ms);
            stopping = true;
        }
        if (pipe_child_group_enforce(&g, now))
            pipe_supervisor_note(s, "still running %.1f s after SIGTERM; sending SIGKILL",
                                 (double)s->grace_ms / 1000.0);
        double wait_s = 1.0;
        if (s->profiler) {
            sample_ranks(s, &g, now);
            if (pipe_profiler_due(s->profiler, now) < wait_s)
                wait_s = pipe_profiler_due(s->profiler, now);
        }
        if (deadline > 0 && !res->timed_out && deadline - now < wait_s)
            wait_s = deadline - now;
        if (linger_until > 0 && linger_until - now < wait_s)
            wait_s = linger_until - now;
        if ((rc = pipe_child_wait(groups, 1, wait_s <= 0 ? 0 : (int)(wait_s * 1000.0) + 1, err, errsize)) != 0)
            pipe_child_group_signal(&g, SIGKILL);
    }
    /* What is left of the output; then nothing the step started outlives it. */
    pipe_child_group_drain(&g);
    pipe_child_group_kill(&g);
    take_exits(s, &g, res, &running, NULL);
    note_rendezvous(s);
    if (command)
        pipe_supervisor_command_metrics(s, true);
    pipe_launch_end(&s->launch);
    res->ok = rc == 0 && (int)g.n == s->nlocal && !res->status && !res->timed_out && !res->interrupted &&
              !res->rendezvous && !res->collective;
    pipe_child_group_free(&g);
    return rc;
}
