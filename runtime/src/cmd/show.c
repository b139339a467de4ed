/* `show [RUN] [--json]`: one run (report/history.h). */
#include "commands.h"
#include "report/history.h"
#include "run_cmd.h"

static const char show_help[] =
    "One run: its parameters, and each invocation's status, times, parameters, inputs and outputs\n"
    "(size, SHA-256), metrics and profile; for a failure, the root cause. RUN is a run id, a unique\n"
    "prefix of one, or `latest` (the default). --json: a JSON document (docs/runtime.md).";

int pipe_cmd_show(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    pipe_run_args a;
    pipe_run_view *v = NULL;
    int status = pipe_run_cmd_begin(argc, argv, PIPE_ARG_JSON, 1, "show", show_help, m,
                                    PIPE_VIEW_METRICS | PIPE_VIEW_PROFILE, &a, &v);
    if (status >= 0)
        return status;
    status = pipe_show_print(v, a.json);
    pipe_run_view_free(v);
    return status;
}
