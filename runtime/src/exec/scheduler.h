/* The local scheduler (private): which invocation of a run starts next, and
   what becomes of the others when one ends. An invocation starts when
   everything it needs succeeded, --jobs and the open-file limit leave room,
   this machine's CPUs, memory and GPUs are free for it (pipe_pool,
   resources.h) and no running invocation was given the same port; it is
   skipped when something it needs failed or was skipped. A stop signal
   starts nothing more, skips what waits and is passed on to what runs.

   It starts and waits for invocations only through a pipe_spawner, as
   ninja's builder does through its CommandRunner: the runner's forks `EXE
   step` (runner_spawn.c); tests/runtime/test_scheduler.c's records the
   calls and returns scripted outcomes, starting no process. What happens
   inside an invocation (@retry, max_restarts, the cache) is its `step`'s
   business (supervisor.h), not the scheduler's. */
#ifndef PIPE_SCHEDULER_H
#define PIPE_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/manifest.h"
#include "resources.h"

typedef enum {
    PIPE_SCHED_QUEUED,
    PIPE_SCHED_STARTED, /* its `step` runs */
    PIPE_SCHED_DONE,
    PIPE_SCHED_CACHED,
    PIPE_SCHED_FAILED,
    PIPE_SCHED_SKIPPED,
    PIPE_SCHED_INTERRUPTED, /* its `step` was stopped by SIGINT or SIGTERM */
} pipe_sched_state;

typedef enum {
    PIPE_SCHED_FINISHED, /* an invocation ended */
    PIPE_SCHED_SIGNAL,   /* SIGINT or SIGTERM reached the run */
} pipe_sched_event_kind;

typedef struct pipe_sched_event {
    pipe_sched_event_kind kind;
    size_t invocation;        /* FINISHED: which */
    pipe_sched_state outcome; /* FINISHED: DONE, CACHED, FAILED or INTERRUPTED */
    const char *detail;       /* FINISHED: shown after the state, or NULL; the spawner's until its next call */
    int sig;                  /* SIGNAL */
} pipe_sched_event;

/* How invocations start and end. */
typedef struct pipe_spawner {
    void *arg;
    /* Starts invocation i with the resources granted to it (pool names its
       GPUs). 0; PIPE_ERESOURCE when this process is out of descriptors or
       processes (worth another try once others end); another PIPE_E* code
       with the message in err. */
    int (*start)(void *arg, size_t i, const pipe_pool *pool, const pipe_grant *grant, char *err, size_t errsize);
    /* The next event into *ev, waiting up to timeout_ms for one when none
       has happened yet (-1: as long as the spawner likes; 0: do not
       block). false when there is none. */
    bool (*wait)(void *arg, int timeout_ms, pipe_sched_event *ev);
    /* sig to every invocation that runs: SIGKILL at once, another signal
       with SIGKILL after a grace. */
    void (*stop)(void *arg, int sig);
} pipe_spawner;

/* Who is told what the scheduler decides. */
typedef struct pipe_sched_observer {
    void *arg;
    /* Invocation i's new state; detail (may be NULL) follows the state word. */
    void (*changed)(void *arg, size_t i, pipe_sched_state state, const char *detail);
    /* A line about the run as a whole ("interrupted: stopping ..."). */
    void (*note)(void *arg, const char *line);
} pipe_sched_observer;

typedef struct pipe_sched_config {
    const pipe_manifest *m;
    const pipe_local_resources *local;
    long jobs;           /* --jobs: at most this many at once; 0: no limit */
    size_t max_children; /* at most this many at once, as the open-file limit allows (at least 1) */
    pipe_spawner spawner;
    pipe_sched_observer observer;
    double (*now)(void); /* the clock of the pauses between tries to start; NULL: pipe_now */
} pipe_sched_config;

typedef struct pipe_sched {
    pipe_sched_config c;
    pipe_pool pool;
    pipe_sched_state *state; /* per invocation */
    pipe_grant *grants;      /* per invocation, while it runs */
    bool *granted;
    size_t running;
    int stop_signal; /* the first SIGINT/SIGTERM, 0 when none */
    int signals_seen;
    double spawn_retry_at;  /* out of descriptors or processes: try again then (0: none) */
    double starved_since;   /* when starting failed with nothing running */
    unsigned spawn_backoff_ms;
    bool waiting_noted;
} pipe_sched;

/* Every invocation queued. PIPE_ENOMEM. */
int pipe_sched_init(pipe_sched *s, const pipe_sched_config *config);
void pipe_sched_free(pipe_sched *s);

/* The requests this machine cannot meet, each told to unmet (what: "16
   CPUs (this machine has 2)"): refused with strict (-1), else they will
   run alone with what there is (0). */
int pipe_sched_check_requests(const pipe_sched *s, bool strict,
                              void (*unmet)(void *arg, const char *invocation, const char *what, bool refused),
                              void *arg);

/* Runs every invocation to its end (or skips it). 0; PIPE_ENOMEM. */
int pipe_sched_run(pipe_sched *s);

/* True when any invocation failed, was skipped or was interrupted. */
bool pipe_sched_failed(const pipe_sched *s);

#endif
