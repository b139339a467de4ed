/* `runs [--json] [--metric NAME ...]`: the runs in the store
   (report/history.h). */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "report/history.h"
#include "run_cmd.h"
#include "store/store.h"
#include "util/cli.h"

_Static_assert(PIPE_RUN_ARGS_MAX <= PIPE_RUNS_METRICS_MAX, "every --metric `runs` takes has its column");

static const char runs_help[] =
    "The runs in the store, newest first: id, pipeline, status (running, succeeded, failed or\n"
    "interrupted), started, duration. --metric NAME (repeatable): a column of each run's last value\n"
    "of NAME (of the last invocation, in the run's order, that recorded it; named when several\n"
    "did). --json: the same as a JSON document (docs/runtime.md).";

int pipe_cmd_runs(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    pipe_run_args a;
    int rc = pipe_run_args_parse(argc, argv, PIPE_ARG_JSON | PIPE_ARG_METRIC, 0, "runs", &a);
    if (rc != 0) {
        if (rc > 0)
            pipe_commands_help("runs", runs_help);
        return rc > 0 ? PIPE_EXIT_OK : PIPE_EXIT_USAGE;
    }
    char *store = pipe_store_resolve(a.store, NULL);
    if (!store) {
        pipe_cli_error("out of memory");
        return PIPE_EXIT_USAGE;
    }
    int status = pipe_runs_print(store, m, a.metric, (size_t)a.nmetric, a.json);
    free(store);
    return status;
}
