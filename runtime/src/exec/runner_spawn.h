/* How a local run starts its invocations (private): the scheduler's
   spawner (scheduler.h) for `run`. Each invocation's supervisor, what `EXE
   step ID --run-id RUN --store STORE --echo` runs, is forked from the
   runner (without executing the bundle again: docs/performance.md) in a
   process group of its own, with its grant's GPUs and CPUs in its
   environment. Its output comes through a pipe, line by line, between the
   progress lines; its end is read from its step.yaml. */
#ifndef PIPE_RUNNER_SPAWN_H
#define PIPE_RUNNER_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

#include "proc/child.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "progress.h"
#include "scheduler.h"
#include "store/commit.h"
#include "store/reserve.h"

struct run_slot;

typedef struct pipe_run_spawner {
    const pipe_program *prog;
    const pipe_manifest *m;
    const char *store;
    const char *run_id;
    const char *run_dir;
    bool no_cache, verify; /* passed to each invocation */
    int lock_fd;           /* run.lock: the runner's alone, closed in each child */
    pipe_progress *progress;
    struct run_slot *slots;    /* per invocation */
    pipe_child_group **groups; /* each slot's child, for pipe_child_wait */
    char detail[2048];         /* the last event's detail */
    bool killing;              /* stopped with SIGKILL: what a dead supervisor left is killed at once */
    /* The group commit (store/commit.h): the supervisors write without
       fsync while commit.path is set; the ids of the invocations whose
       supervisors ended, for the next commit point. */
    pipe_commit commit;
    const char **ended;
    size_t nended, ncommitted; /* ncommitted: of ended, those the last commit covered */
    char commit_error[1024]; /* the first failed commit's message */
    pipe_reserve_pool reserve; /* the room lent to supervisors for their records (store/reserve.h) */
} pipe_run_spawner;

/* A slot per invocation and the pool of room to lend; the fields above
   set first. PIPE_ENOMEM. */
int pipe_run_spawner_init(pipe_run_spawner *sp);
/* Kills what still runs (only after an internal error: leave no orphan),
   and any orphan the runner adopted (pipe_child_adopt_orphans). */
void pipe_run_spawner_free(pipe_run_spawner *sp);
/* Makes the writes of every supervisor so far durable (commit.h) when
   the interval has passed, or always when final (then the list goes);
   a failure is kept in commit_error. */
void pipe_run_spawner_commit(pipe_run_spawner *sp, bool final);
/* The spawner for pipe_sched_config. */
pipe_spawner pipe_run_spawner_of(pipe_run_spawner *sp);

#endif
