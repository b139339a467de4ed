/* The step kind of a native step (supervisor.h): each rank is a fork of the
   supervisor that runs the worker (worker.h), which calls the step's entry
   from the driver's table. Nothing to find before the first attempt and
   nothing to follow; the worker moves its own outputs into place, and
   commit checks them and makes them read-only. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "crash_trace.h"
#include "pipe/error.h"
#include "store/artifact.h"
#include "supervisor.h"
#include "util/util.h"
#include "worker.h"

typedef struct rank_start {
    pipe_supervisor *s;
    int local_rank;
} rank_start;

/* The forked rank: its environment, then the step. */
static int rank_main(void *arg)
{
    const rank_start *r = arg;
    pipe_supervisor *s = r->s;
    const pipe_step_ident *id = &s->id;
    setvbuf(stdout, NULL, _IOLBF, 0);
    pipe_supervisor_rank_env(s, r->local_rank);

    pipe_worker_spec spec = {
        .impl = id->impl,
        .mstep = id->ms,
        .cuda = id->prog->cuda,
        /* cpu = true wins, as does a machine without a GPU: its ranks select none. */
        .use_gpu = !s->launch.cpu_only && (id->ms->needs_cuda || id->inv->resources.gpu > 0),
        .cleanup_memory = id->inv->cleanup_memory,
        .invocation = id->inv->id,
        .run_id = id->o.run_id,
        .dir = id->dir,
        .rank = id->machine_rank * id->nlocal + r->local_rank,
        .world = id->world,
        .values = (const char *const *)id->values,
        .output_names = id->output_names,
        .noutputs = id->ms->noutputs,
        .writes_deferred = id->o.commit_deferred,
    };
    return pipe_worker_run(&spec);
}

/* Several ranks meet through pipe's rendezvous: machine 0 says where. */
static void announce(pipe_supervisor *s)
{
    if (s->launch.pipe_rendezvous && s->launch.rdzv_port == 0)
        pipe_supervisor_note(&s->log, "%d ranks on 1 machine meet in shared memory (%s collectives)", s->id.world,
                             s->launch.backend);
    else if (s->launch.pipe_rendezvous && s->id.machine_rank == 0)
        pipe_supervisor_note(&s->log, "%d ranks on %d machine%s meet at %s:%d (%s collectives)", s->id.world,
                             s->launch.num_machines, s->launch.num_machines == 1 ? "" : "s",
                             pipe_launch_rdzv_addr(&s->launch), s->launch.rdzv_port, s->launch.backend);
}

static int spawn(pipe_supervisor *s, pipe_child_group *g, int local_rank, char *err, size_t errsize)
{
    char why[512];
    rank_start start = {s, local_rank};
    pipe_child_spec spec = {.fn = rank_main, .arg = &start};
    pipe_crash_trace_prepare(); /* once here (or in the runner), not in each rank */
    int rc = pipe_child_spawn(g, &spec, why, sizeof why);
    if (rc != 0)
        pipe_errf(err, errsize, "cannot start the worker: %s", why);
    return rc;
}

/* After the ranks exited 0: each output rank 0 moved into place (a step
   may make a link or a folder at pipe_output_path's path) checked as a
   command step's is, then made read-only. NULL, or why not (malloc'ed); a
   missing output is named by pipe_supervisor_collect_outputs. */
static char *commit(pipe_supervisor *s)
{
    const pipe_step_ident *id = &s->id;
    char *why = NULL;
    for (size_t i = 0; i < id->ms->noutputs && !why; i++) {
        const char *name = id->ms->outputs[i].name;
        char *path = pipe_asprintf("%s/%s", id->outdir, name), err[1024];
        struct stat st;
        if (!path)
            why = pipe_strdup("out of memory");
        else if (lstat(path, &st) == 0 && !(why = pipe_supervisor_check_output(id, name, path)) &&
                 pipe_artifact_seal(path, err, sizeof err) != 0)
            why = pipe_asprintf("output `%s`: %s", name, err);
        free(path);
    }
    return why;
}

const pipe_step_kind pipe_native_step = {
    .announce = announce,
    .spawn = spawn,
    .commit = commit,
};
