/* One attempt's processes (supervisor.h): the local ranks as children in
   one process group (child.h), started through the step kind, which this
   file does not know; their output into the log; the events that stop them
   all. An attempt goes: begin, start the ranks, watch them, finish. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/child.h"
#include "dist/coll_watch.h"
#include "proc/procs.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "supervisor.h"
#include "util/util.h"

/* After the last rank exited, how long its descendants may keep the pipe
   open before the rest of their output is drained. */
#define LINGER_S 0.2
/* How long the end of an attempt keeps killing what its ranks left (a
   process in uninterruptible sleep dies when its I/O returns). */
#define KILL_LIMIT_MS 2000

/* An attempt while its ranks run. */
typedef struct attempt {
    pipe_supervisor *s;
    pipe_attempt_result *res;
    pipe_child_group g;
    int running;         /* ranks whose exit was not taken yet */
    bool stopping;       /* the ranks were told to stop */
    double deadline;     /* @timeout; 0: none */
    double linger_until; /* after the last exit: when to stop reading; 0: not yet */
} attempt;

static int global_rank(const pipe_supervisor *s, int local_rank)
{
    return s->id.machine_rank * s->id.nlocal + local_rank;
}

static void on_rank_line(void *arg, int child, const char *line, size_t len)
{
    pipe_supervisor *s = arg;
    pipe_supervisor_emit_rank(&s->log, global_rank(s, child), line, len);
}

/* What the rendezvous turned away, into the log, a line each. */
static void note_rendezvous(pipe_supervisor *s)
{
    char *notes = pipe_launch_take_notes(&s->launch);
    for (char *save = NULL, *line = notes ? strtok_r(notes, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save))
        pipe_supervisor_note(&s->log, "%s", line);
    free(notes);
}

static bool failed_status(int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 0); }

static void stop_ranks(attempt *a, int sig)
{
    pipe_child_group_stop(&a->g, sig, a->s->grace_ms);
    a->stopping = true;
}

/* 1 + the machine local rank i's collective lost contact with, 0: none
   (coll_watch.h); read while the table is mapped. */
static int lost_machine(const pipe_supervisor *s, int i)
{
    if (!s->launch.watch || i >= s->id.nlocal)
        return 0;
    return atomic_load(&pipe_coll_watch_slots(s->launch.watch)[i].lost_machine);
}

/* Takes the exits the last wait reaped; the first failure decides the
   attempt, and while the ranks run (stop) it stops the others. */
static void take_exits(attempt *a, bool stop)
{
    pipe_supervisor *s = a->s;
    int i;
    while ((i = pipe_child_group_take_exit(&a->g)) >= 0) {
        int st = a->g.children[i].status;
        a->running--;
        if (!failed_status(st) || a->res->status)
            continue;
        a->res->rank = global_rank(s, i);
        a->res->status = st;
        a->res->lost_machine = lost_machine(s, i);
        /* Across machines, the others learn the cause before their
           ranks lose contact with these. */
        if (!a->res->lost_machine && pipe_supervisor_spans_machines(&s->id)) {
            char *why = pipe_supervisor_describe_failure(&s->id, &s->log, a->res);
            pipe_supervisor_post_failure(&s->id, &s->log, why);
            free(why);
        }
        if (a->running > 0 && stop && !a->stopping) {
            /* One rank failed: stop the others. The cause is this rank's
               (pipe_supervisor_describe_failure), said once at the end. */
            char how[512];
            if (a->res->lost_machine)
                snprintf(how, sizeof how, "rank %d lost contact with machine %d", a->res->rank,
                         a->res->lost_machine - 1);
            else
                pipe_supervisor_describe_exit(&s->id, a->res->rank, st, how, sizeof how);
            pipe_supervisor_note(&s->log, "%s; stopping the other ranks", how);
            stop_ranks(a, SIGTERM);
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

/* Before the ranks: where this attempt's lines begin in the log, the
   launch's rendezvous and shared memory, the kind's own preparations, and
   the attempt's first notes. */
static int begin(attempt *a, char *err, size_t errsize)
{
    pipe_supervisor *s = a->s;
    s->log.attempt_start = pipe_supervisor_log_offset(&s->log);
    int rc;
    if ((rc = pipe_launch_begin(&s->launch, err, errsize)) != 0)
        return rc;
    if (s->kind->begin && (rc = s->kind->begin(s, err, errsize)) != 0) {
        pipe_launch_end(&s->launch);
        return rc;
    }
    pipe_child_group_init(&a->g, PIPE_LOG_LINE_MAX, on_rank_line, s);
    pipe_profiler_attempt(s->profiler, pipe_now());
    s->kind->announce(s);
    return 0;
}

/* Every local rank; when one cannot start, those that did are killed and
   the attempt fails (status 1). */
static int start_ranks(attempt *a, char *err, size_t errsize)
{
    pipe_supervisor *s = a->s;
    for (; a->running < s->id.nlocal; a->running++) {
        int rc = s->kind->spawn(s, &a->g, a->running, err, errsize);
        if (rc != 0) {
            pipe_child_group_signal(&a->g, SIGKILL);
            a->res->status = 1 << 8;
            return rc;
        }
    }
    return 0;
}

/* True when every rank has exited and their output is read, or their
   descendants kept it open past a short grace. */
static bool ended(attempt *a, double now)
{
    if (a->running > 0)
        return false;
    if (!pipe_child_group_reading(&a->g))
        return true;
    if (a->linger_until == 0) {
        a->linger_until = now + LINGER_S;
        return false;
    }
    return now >= a->linger_until;
}

/* What stops the ranks, each said once in the log: SIGINT or SIGTERM to
   the supervisor, ranks that never entered a collective, a rendezvous
   that timed out, @timeout, a log that cannot be written (a full disk).
   Then the SIGKILL that is due. */
static void check_stops(attempt *a, double now)
{
    pipe_supervisor *s = a->s;
    pipe_attempt_result *res = a->res;
    int sig = pipe_child_signal_pending();
    if (sig && !res->interrupted) {
        res->interrupted = sig;
        char name[32];
        pipe_signal_text(sig, name, sizeof name);
        pipe_supervisor_note(&s->log, "received %s; stopping the step", name);
        stop_ranks(a, sig);
    }
    note_rendezvous(s);
    int missing = -1;
    char *hung =
        a->running > 0 && !a->stopping ? pipe_supervisor_check_collectives(&s->launch, &a->g, &missing) : NULL;
    if (hung && pipe_supervisor_spans_machines(&s->id)) {
        /* The other machines' ranks see only a silent peer: name the
           rank and its machine, and tell them. */
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        char *named = pipe_asprintf("rank %d (machine %d, host %s) stopped responding: %s", missing,
                                    s->id.machine_rank, host, hung);
        if (named) {
            free(hung);
            hung = named;
        }
        pipe_supervisor_post_failure(&s->id, &s->log, hung);
    }
    if (hung) {
        pipe_supervisor_note(&s->log, "%s", hung);
        res->collective = hung;
        /* At once, and SIGKILL: a stopped process cannot take SIGTERM. */
        pipe_child_group_signal(&a->g, SIGKILL);
        a->stopping = true;
    }
    char *rdzv = a->running > 0 && !a->stopping ? pipe_launch_check(&s->launch, now) : NULL;
    if (rdzv) {
        pipe_supervisor_note(&s->log, "%s", rdzv);
        res->rendezvous = rdzv;
        stop_ranks(a, SIGTERM);
    }
    if (!res->disk && (res->disk = pipe_supervisor_log_failure(&s->id, &s->log)) != NULL && a->running > 0 &&
        !a->stopping)
        stop_ranks(a, SIGTERM);
    if (a->deadline > 0 && now >= a->deadline && !res->timed_out && a->running > 0) {
        char d[64];
        pipe_format_duration(s->id.inv->timeout_ms, d, sizeof d);
        res->timed_out = true;
        pipe_supervisor_note(&s->log, "timed out after %s; sending SIGTERM", d);
        stop_ranks(a, SIGTERM);
    }
    if (pipe_child_group_enforce(&a->g, now))
        pipe_supervisor_note(&s->log, "still running %.1f s after SIGTERM; sending SIGKILL",
                             (double)s->grace_ms / 1000.0);
}

/* Waits for output, an exit or a signal, at most until the next profile
   sample, the deadline or the end of the linger (and a second). */
static int wait_next(attempt *a, double now, char *err, size_t errsize)
{
    pipe_supervisor *s = a->s;
    double wait_s = 1.0;
    if (s->profiler) {
        sample_ranks(s, &a->g, now);
        if (pipe_profiler_due(s->profiler, now) < wait_s)
            wait_s = pipe_profiler_due(s->profiler, now);
    }
    if (a->deadline > 0 && !a->res->timed_out && a->deadline - now < wait_s)
        wait_s = a->deadline - now;
    if (a->linger_until > 0 && a->linger_until - now < wait_s)
        wait_s = a->linger_until - now;
    pipe_child_group *groups[1] = {&a->g};
    int rc = pipe_child_wait(groups, 1, wait_s <= 0 ? 0 : (int)(wait_s * 1000.0) + 1, err, errsize);
    if (rc != 0)
        pipe_child_group_signal(&a->g, SIGKILL);
    return rc;
}

/* While the ranks run: their exits, the kind's following, the stops. */
static int watch(attempt *a, char *err, size_t errsize)
{
    pipe_supervisor *s = a->s;
    a->deadline = s->id.inv->timeout_ms > 0 ? pipe_now() + (double)s->id.inv->timeout_ms / 1000.0 : 0;
    for (;;) {
        take_exits(a, true);
        if (s->kind->follow)
            s->kind->follow(s, false);
        double now = pipe_now();
        if (ended(a, now))
            return 0;
        check_stops(a, now);
        int rc = wait_next(a, now, err, errsize);
        if (rc != 0)
            return rc;
    }
}

/* What is left of the output; then nothing the step started outlives it:
   the ranks' group, then every other descendant (a daemon that left the
   group, an orphan the supervisor adopted). */
static void finish(attempt *a, int rc)
{
    pipe_supervisor *s = a->s;
    pipe_attempt_result *res = a->res;
    pipe_child_group_drain(&a->g);
    pipe_child_group_kill(&a->g);
    size_t left = pipe_procs_kill_descendants(NULL, 0, KILL_LIMIT_MS);
    if (left > 0)
        pipe_supervisor_note(&s->log, "killed %zu process%s that the step started and left running", left,
                             left == 1 ? "" : "es");
    take_exits(a, false);
    note_rendezvous(s);
    if (s->kind->follow)
        s->kind->follow(s, true);
    pipe_launch_end(&s->launch);
    if (!res->disk)
        res->disk = pipe_supervisor_log_failure(&s->id, &s->log);
    res->ok = rc == 0 && (int)a->g.n == s->id.nlocal && !res->status && !res->timed_out && !res->interrupted &&
              !res->rendezvous && !res->collective && !res->disk;
    pipe_child_group_free(&a->g);
}

int pipe_supervisor_run_attempt(pipe_supervisor *s, pipe_attempt_result *res, char *err, size_t errsize)
{
    attempt a = {.s = s, .res = res};
    memset(res, 0, sizeof *res);
    int rc = begin(&a, err, errsize);
    if (rc != 0)
        return rc;
    if ((rc = start_ranks(&a, err, errsize)) == 0)
        rc = watch(&a, err, errsize);
    finish(&a, rc);
    return rc;
}
