/* `logs RUN [INVOCATION] [--rank N] [--follow]`: an invocation's log, or
   every invocation's one after the other; --follow prints a running
   invocation's log as it grows (report/logs.h; docs/runtime.md,
   "Commands"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pipe/base.h"
#include "report/logs.h"
#include "run_cmd.h"
#include "util/cli.h"
#include "util/followup.h"

static const char logs_help[] =
    "The log of one invocation of a run, or of each in turn. RUN is a run id, a unique prefix or part\n"
    "of one, or `latest` (the default). --rank N: only the lines of rank N (its own output and pipe_log lines).\n"
    "--follow, -f: print INVOCATION's log, then what it writes as it runs, until it ends (Ctrl-C stops).\n"
    "A log holds at most PIPE_LOG_MAX_SIZE bytes (100 MiB): its first and last halves, and a line that\n"
    "says what was cut between them.";

int pipe_cmd_logs(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    pipe_run_args a;
    pipe_run_view *v = NULL;
    int status = pipe_run_cmd_begin(argc, argv, PIPE_ARG_RANK | PIPE_ARG_FOLLOW, 2, "logs", logs_help, m, 0, &a,
                                    &v);
    if (status >= 0)
        return status;
    status = PIPE_EXIT_USAGE;
    if (a.npositional == 2) {
        const char *id = a.positional[1];
        long i = pipe_run_view_find(v, id);
        if (i < 0) {
            const char **ids = calloc(v->n + 1, sizeof *ids);
            const char *best = NULL;
            for (size_t k = 0; ids && k < v->n; k++)
                ids[k] = v->inv[k].id;
            if (ids)
                best = pipe_closest_name(id, ids, v->n, strlen(id) / 3 + 2);
            if (best)
                pipe_cli_error("run %s has no invocation `%s`; did you mean `%s`?", v->run_id, id, best);
            else {
                char *cmd = pipe_followup(v->store, "show", v->run_id, (char *)NULL);
                pipe_cli_error("run %s has no invocation `%s` (see `%s`)", v->run_id, id, cmd ? cmd : "show");
                free(cmd);
            }
            free(ids);
            goto done;
        }
        if (a.rank >= v->inv[i].world) {
            pipe_cli_error("invocation `%s` has %d rank%s; there is no rank %ld", id, v->inv[i].world,
                           v->inv[i].world == 1 ? "" : "s", a.rank);
            goto done;
        }
        if (a.follow)
            status = pipe_logs_follow(v, &v->inv[i], a.rank);
        else
            status = pipe_logs_print(&v->inv[i], a.rank, false) == 0 ? PIPE_EXIT_OK : PIPE_EXIT_FAILED;
        goto done;
    }
    if (a.follow) {
        char *cmd = pipe_followup(v->store, "logs", v->run_id, "INVOCATION", "--follow", (char *)NULL);
        pipe_cli_error("--follow follows one invocation: name it after the run (`%s`)", cmd ? cmd : "logs");
        free(cmd);
        goto done;
    }
    status = pipe_logs_print_all(v, a.rank);
done:
    pipe_run_view_free(v);
    return status;
}
