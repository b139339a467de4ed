/* `report [RUN ...] [-o FILE]`: the run as one self-contained HTML file,
   or several runs compared on one (report/report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report/report.h"
#include "run_cmd.h"
#include "util/cli.h"

_Static_assert(PIPE_RUN_ARGS_MAX <= PIPE_REPORT_COMPARE_MAX, "every run `report` takes is compared");

static const char report_help[] =
    "Writes the run as one self-contained HTML file (no network, no script): its graph, each\n"
    "invocation's status, duration, parameters, inputs and outputs, metric charts, GPU, CPU and\n"
    "memory charts of profiled steps, log tails and the root cause of a failure. RUN is a run id,\n"
    "a unique prefix or part of one, or `latest` (the default); the file is STORE/RUN/report.html unless\n"
    "-o FILE (`-o -`: standard output).\n\n"
    "With two or more runs (up to 8): one page that compares them: parameters side by side (those that\n"
    "differ marked), each metric's last, minimum and maximum per run and its charts with the runs\n"
    "overlaid, each invocation's status and duration, and why a step ran again. The file is\n"
    "STORE/compare-RUN1-RUN2....html unless -o FILE.";

/* `report RUN1 RUN2 ...`: the runs loaded, each once, then compared. */
static int compare(const pipe_manifest *m, const pipe_run_args *a)
{
    pipe_run_view *v[PIPE_RUN_ARGS_MAX];
    size_t n = 0;
    char err[1024];
    int status = PIPE_EXIT_USAGE;
    for (int k = 0; k < a->npositional; k++) {
        char *store = NULL, *run_id = NULL;
        if (pipe_run_args_resolve(a, a->positional[k], &store, &run_id) != PIPE_EXIT_OK)
            goto done;
        for (size_t r = 0; r < n; r++)
            if (strcmp(v[r]->run_id, run_id) == 0) {
                pipe_cli_error("run %s is given twice (`%s`)", run_id, a->positional[k]);
                free(store);
                free(run_id);
                goto done;
            }
        int rc = pipe_run_view_load(store, run_id, m, PIPE_VIEW_METRICS, &v[n], err, sizeof err);
        free(store);
        free(run_id);
        if (rc != 0) {
            pipe_cli_error("%s", err);
            goto done;
        }
        n++;
    }
    status = pipe_report_compare_write((const pipe_run_view *const *)v, n, a->output);
done:
    for (size_t r = 0; r < n; r++)
        pipe_run_view_free(v[r]);
    return status;
}

int pipe_cmd_report(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    pipe_run_args a;
    pipe_run_view *v = NULL;
    int status = pipe_run_args_parse(argc, argv, PIPE_ARG_OUTPUT, PIPE_RUN_ARGS_MAX, "report", &a);
    if (status != 0) {
        if (status > 0)
            pipe_commands_help("report", report_help);
        return status > 0 ? PIPE_EXIT_OK : PIPE_EXIT_USAGE;
    }
    if (a.npositional > 1)
        return compare(m, &a);
    status = pipe_run_cmd_begin(argc, argv, PIPE_ARG_OUTPUT, 1, "report", report_help, m,
                                PIPE_VIEW_METRICS | PIPE_VIEW_PROFILE | PIPE_VIEW_LOGS, &a, &v);
    if (status >= 0)
        return status;
    status = pipe_report_write(v, a.output);
    pipe_run_view_free(v);
    return status;
}
