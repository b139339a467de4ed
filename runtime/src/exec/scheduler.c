/* The local scheduler (scheduler.h): the decisions of a run, none of its
   processes. */
#include "scheduler.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"

/* Out of descriptors or processes with nothing running to free them: give
   up after this long. */
#define STARVED_LIMIT_S 30.0

static bool is_finished(pipe_sched_state st) { return st >= PIPE_SCHED_DONE; }
static bool is_success(pipe_sched_state st) { return st == PIPE_SCHED_DONE || st == PIPE_SCHED_CACHED; }

static void set_state(pipe_sched *s, size_t i, pipe_sched_state st, const char *detail)
{
    s->state[i] = st;
    s->c.observer.changed(s->c.observer.arg, i, st, detail);
}

static void note(pipe_sched *s, const char *line) { s->c.observer.note(s->c.observer.arg, line); }

int pipe_sched_init(pipe_sched *s, const pipe_sched_config *config)
{
    memset(s, 0, sizeof *s);
    s->c = *config;
    if (!s->c.now)
        s->c.now = pipe_now;
    if (s->c.max_children == 0)
        s->c.max_children = 1;
    size_t n = s->c.m->ninvocations;
    if (pipe_pool_init(&s->pool, s->c.local) != 0 || !(s->state = calloc(n + 1, sizeof *s->state)) ||
        !(s->grants = calloc(n + 1, sizeof *s->grants)) || !(s->granted = calloc(n + 1, sizeof *s->granted))) {
        pipe_sched_free(s);
        return PIPE_ENOMEM;
    }
    return 0;
}

void pipe_sched_free(pipe_sched *s)
{
    for (size_t i = 0; s->granted && i < s->c.m->ninvocations; i++)
        if (s->granted[i])
            pipe_pool_release(&s->pool, &s->grants[i]);
    pipe_pool_free(&s->pool);
    free(s->state);
    free(s->grants);
    free(s->granted);
    s->state = NULL;
    s->grants = NULL;
    s->granted = NULL;
}

int pipe_sched_check_requests(const pipe_sched *s, bool strict,
                              void (*unmet)(void *arg, const char *invocation, const char *what, bool refused),
                              void *arg)
{
    int n = 0;
    char msg[512];
    for (size_t i = 0; i < s->c.m->ninvocations; i++) {
        const pipe_minvocation *inv = &s->c.m->invocations[i];
        if (!pipe_resources_unmet(s->c.local, &inv->resources, msg, sizeof msg))
            continue;
        n++;
        unmet(arg, inv->id, msg, strict);
    }
    return strict && n ? -1 : 0;
}

bool pipe_sched_failed(const pipe_sched *s)
{
    for (size_t i = 0; i < s->c.m->ninvocations; i++)
        if (s->state[i] == PIPE_SCHED_FAILED || s->state[i] == PIPE_SCHED_SKIPPED ||
            s->state[i] == PIPE_SCHED_INTERRUPTED)
            return true;
    return false;
}

/* ---- starting ---- */

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
static bool port_taken(const pipe_sched *s, size_t i)
{
    const pipe_manifest *m = s->c.m;
    long mine = fixed_port(&m->invocations[i]);
    if (mine <= 0)
        return false;
    for (size_t k = 0; k < m->ninvocations; k++) {
        if (k == i || s->state[k] != PIPE_SCHED_STARTED)
            continue;
        long theirs = fixed_port(&m->invocations[k]);
        if (theirs > 0 && labs(theirs - mine) <= 1)
            return true;
    }
    return false;
}

/* Starting failed for want of descriptors or processes: true when the
   invocation should wait (others run and will free some, or not for long
   yet), after arranging the next try with a growing pause. */
static bool wait_for_descriptors(pipe_sched *s, const char *why)
{
    double now = s->c.now();
    if (s->running == 0) {
        if (s->starved_since == 0)
            s->starved_since = now;
        else if (now - s->starved_since >= STARVED_LIMIT_S)
            return false;
    }
    s->spawn_backoff_ms = s->spawn_backoff_ms ? s->spawn_backoff_ms * 2 : 50;
    if (s->spawn_backoff_ms > 1000)
        s->spawn_backoff_ms = 1000;
    s->spawn_retry_at = now + s->spawn_backoff_ms / 1000.0;
    if (!s->waiting_noted) {
        char line[1200];
        snprintf(line, sizeof line, "waiting for resources to start more invocations (%s)", why);
        note(s, line);
        s->waiting_noted = true;
    }
    return true;
}

/* Whether invocation i may start as far as its needs go: 1 ready, 0 not
   yet, -1 skipped (one of them failed or was skipped). */
static int needs_met(pipe_sched *s, size_t i)
{
    const pipe_manifest *m = s->c.m;
    const pipe_minvocation *inv = &m->invocations[i];
    bool ready = true;
    for (size_t k = 0; k < inv->nneeds; k++) {
        pipe_sched_state st = s->state[inv->needs[k]];
        if (st == PIPE_SCHED_FAILED || st == PIPE_SCHED_SKIPPED || st == PIPE_SCHED_INTERRUPTED) {
            char detail[512];
            snprintf(detail, sizeof detail, "needs %s, which %s", m->invocations[inv->needs[k]].id,
                     st == PIPE_SCHED_FAILED    ? "failed"
                     : st == PIPE_SCHED_SKIPPED ? "was skipped"
                                                : "was interrupted");
            set_state(s, i, PIPE_SCHED_SKIPPED, detail);
            return -1;
        }
        ready &= is_success(st);
    }
    return ready;
}

/* Starts invocation i when the machine has room: 0 (started, waiting or
   failed to start); PIPE_ENOMEM. */
static int try_start(pipe_sched *s, size_t i)
{
    bool granted;
    if (pipe_pool_acquire(&s->pool, &s->c.m->invocations[i].resources, &s->grants[i], &granted) != 0)
        return PIPE_ENOMEM;
    if (!granted)
        return 0;
    s->granted[i] = true;
    char err[1024] = "";
    int rc = s->c.spawner.start(s->c.spawner.arg, i, &s->pool, &s->grants[i], err, sizeof err);
    if (rc != 0) {
        pipe_pool_release(&s->pool, &s->grants[i]);
        s->granted[i] = false;
        if (rc == PIPE_ERESOURCE && wait_for_descriptors(s, err))
            return 0; /* stays queued */
        set_state(s, i, PIPE_SCHED_FAILED, err);
        return 0;
    }
    s->spawn_retry_at = s->starved_since = 0;
    s->spawn_backoff_ms = 0;
    s->waiting_noted = false;
    s->running++;
    set_state(s, i, PIPE_SCHED_STARTED, NULL);
    return 0;
}

/* Marks queued invocations whose needs failed as skipped, starts those
   whose needs succeeded while resources, --jobs and ports allow. */
static int start_ready(pipe_sched *s)
{
    for (size_t i = 0; i < s->c.m->ninvocations; i++) {
        if (s->state[i] != PIPE_SCHED_QUEUED || needs_met(s, i) != 1)
            continue;
        if ((s->c.jobs > 0 && s->running >= (size_t)s->c.jobs) || s->running >= s->c.max_children ||
            port_taken(s, i))
            continue;
        if (s->spawn_retry_at > 0 && s->c.now() < s->spawn_retry_at)
            continue;
        if (try_start(s, i) != 0)
            return PIPE_ENOMEM;
    }
    return 0;
}

/* ---- events ---- */

/* SIGINT or SIGTERM: passed on to what runs, nothing new starts, what
   waits is skipped; a second one: SIGKILL now. */
static void interrupt(pipe_sched *s, int sig)
{
    char line[256];
    if (++s->signals_seen == 1) {
        s->stop_signal = sig;
        snprintf(line, sizeof line, "%s: stopping %zu running invocation%s (again to kill them now)",
                 sig == SIGINT ? "interrupted" : "terminated", s->running, s->running == 1 ? "" : "s");
        note(s, line);
        s->c.spawner.stop(s->c.spawner.arg, sig);
        for (size_t i = 0; i < s->c.m->ninvocations; i++)
            if (s->state[i] == PIPE_SCHED_QUEUED)
                set_state(s, i, PIPE_SCHED_SKIPPED, "the run was interrupted");
    } else {
        snprintf(line, sizeof line, "killing %zu running invocation%s", s->running, s->running == 1 ? "" : "s");
        note(s, line);
        s->c.spawner.stop(s->c.spawner.arg, SIGKILL);
    }
}

static void finished(pipe_sched *s, const pipe_sched_event *ev)
{
    size_t i = ev->invocation;
    if (s->granted[i]) {
        pipe_pool_release(&s->pool, &s->grants[i]);
        s->granted[i] = false;
    }
    s->running--;
    set_state(s, i, ev->outcome, ev->detail);
}

/* The events: the first waited for up to timeout_ms, then those that
   happened meanwhile. */
static void take_events(pipe_sched *s, int timeout_ms)
{
    pipe_sched_event ev;
    for (int t = timeout_ms; s->c.spawner.wait(s->c.spawner.arg, t, &ev); t = 0) {
        if (ev.kind == PIPE_SCHED_SIGNAL)
            interrupt(s, ev.sig);
        else
            finished(s, &ev);
    }
}

/* How long to wait for an event: until the next try to start, or as long
   as the spawner likes. */
static int wait_ms(const pipe_sched *s)
{
    if (s->spawn_retry_at <= 0)
        return -1;
    int retry = (int)((s->spawn_retry_at - s->c.now()) * 1000) + 1;
    return retry < 0 ? 0 : retry;
}

/* Nothing runs: 1 when the run is over (what is left is skipped or, when
   nothing could ever start, failed), 0 to go on. */
static int idle(pipe_sched *s)
{
    size_t n = s->c.m->ninvocations;
    bool left = false;
    for (size_t i = 0; i < n; i++)
        left |= !is_finished(s->state[i]);
    if (!left)
        return 1;
    if (!s->stop_signal && s->spawn_retry_at > 0) { /* out of descriptors: wait and try again */
        take_events(s, wait_ms(s));
        return 0;
    }
    /* Interrupted; or nothing runs and nothing could start, which cannot
       happen (an idle machine accepts any request): do not spin. */
    for (size_t i = 0; i < n; i++)
        if (!is_finished(s->state[i]))
            set_state(s, i, s->stop_signal ? PIPE_SCHED_SKIPPED : PIPE_SCHED_FAILED,
                      s->stop_signal ? "the run was interrupted" : "(internal) could not be scheduled");
    return 1;
}

int pipe_sched_run(pipe_sched *s)
{
    for (;;) {
        take_events(s, 0);
        if (!s->stop_signal && start_ready(s) != 0)
            return PIPE_ENOMEM;
        if (s->running == 0) {
            if (idle(s))
                return 0;
            continue;
        }
        take_events(s, wait_ms(s));
    }
}
