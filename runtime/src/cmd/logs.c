/* `logs RUN [INVOCATION] [--rank N] [--follow]`: an invocation's log, or
   every invocation's one after the other, in bounded memory; --follow
   prints a running invocation's log as it grows (docs/runtime.md,
   "Commands"). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "store/run_lock.h"
#include "util/cli.h"
#include "util/followup.h"
#include "log_stream.h"
#include "pipe/base.h"
#include "run_cmd.h"
#include "run_view.h"
#include "util/util.h"

static const char logs_usage[] =
    "usage: EXE logs [RUN] [INVOCATION] [--rank N] [--follow] [--store DIR]\n\n"
    "The log of one invocation of a run, or of each in turn. RUN is a run id, a unique prefix or part\n"
    "of one, or `latest` (the default). --rank N: only the lines of rank N (its own output and pipe_log lines).\n"
    "--follow, -f: print INVOCATION's log, then what it writes as it runs, until it ends (Ctrl-C stops).\n"
    "A log holds at most PIPE_LOG_MAX_SIZE bytes (100 MiB): its first and last halves, and a line that\n"
    "says what was cut between them.";

/* The log files of an invocation: log, then log.machine-N. */
static int log_files(const char *dir, char ***out, size_t *n)
{
    struct dirent **names = NULL;
    *out = NULL;
    *n = 0;
    int count = scandir(dir, &names, NULL, alphasort);
    if (count < 0)
        return 0;
    char **files = calloc((size_t)count + 1, sizeof *files);
    int rc = files ? 0 : PIPE_ENOMEM;
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        if (rc == 0 && (strcmp(name, "log") == 0 || strncmp(name, "log.machine-", 12) == 0) &&
            !(files[(*n)++] = pipe_asprintf("%s/%s", dir, name)))
            rc = PIPE_ENOMEM;
        free(names[i]);
    }
    free(names);
    *out = files;
    return rc;
}

/* Prints one invocation's log; 0, or 1 when it has none. */
static int print_log(const pipe_view_invocation *inv, long rank, bool header)
{
    char **files = NULL;
    size_t n = 0;
    if (log_files(inv->dir, &files, &n) != 0) {
        pipe_cli_error("out of memory");
        return 1;
    }
    if (header)
        printf("==> %s (%s) <==\n", inv->id, pipe_view_status(inv));
    int status = n > 0 ? 0 : 1;
    if (n == 0 && !header)
        pipe_cli_error("invocation `%s` has no log in %s (%s)", inv->id, inv->dir, pipe_view_status(inv));
    pipe_log_filter filter = {.rank = rank, .world = inv->world};
    for (size_t f = 0; f < n; f++) {
        if (n > 1)
            printf("--- %s\n", files[f]);
        fflush(stdout);
        if (pipe_log_stream(files[f], &filter) != 0)
            status = 1;
    }
    for (size_t f = 0; f < n; f++)
        free(files[f]);
    free(files);
    return status;
}

/* --follow: machine 0's log while the invocation runs (its step.lock is
   held) or waits to (the run's runner holds run.lock). */
static int follow_log(const pipe_run_view *v, const pipe_view_invocation *inv, long rank)
{
    char *path = pipe_asprintf("%s/log", inv->dir);
    char *lock = pipe_invocation_lock_path(v->store, v->run_id, inv->id, 0);
    char *run_lock = pipe_run_lock_path(v->store, v->run_id);
    pipe_log_filter filter = {.rank = rank, .world = inv->world};
    int rc = path && lock && run_lock ? pipe_log_follow(path, lock, run_lock, &filter) : -2;
    if (rc == -2)
        pipe_cli_error("out of memory");
    if (rc == 1)
        pipe_cli_error("invocation `%s` has no log in %s (%s)", inv->id, inv->dir, pipe_view_status(inv));
    free(path);
    free(lock);
    free(run_lock);
    return rc == 0 ? PIPE_EXIT_OK : rc == 130 ? 130 : PIPE_EXIT_FAILED;
}

int pipe_cmd_logs(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    pipe_run_args a;
    pipe_run_view *v = NULL;
    int status = pipe_run_cmd_begin(argc, argv, PIPE_ARG_RANK | PIPE_ARG_FOLLOW, 2, logs_usage, m, 0, &a, &v);
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
            status = follow_log(v, &v->inv[i], a.rank);
        else
            status = print_log(&v->inv[i], a.rank, false) == 0 ? PIPE_EXIT_OK : PIPE_EXIT_FAILED;
        goto done;
    }
    if (a.follow) {
        char *cmd = pipe_followup(v->store, "logs", v->run_id, "INVOCATION", "--follow", (char *)NULL);
        pipe_cli_error("--follow follows one invocation: name it after the run (`%s`)", cmd ? cmd : "logs");
        free(cmd);
        goto done;
    }
    status = PIPE_EXIT_OK;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->inv[i].rec && !pipe_dir_exists(v->inv[i].dir))
            continue; /* never started: nothing to show */
        if (i > 0)
            putchar('\n');
        print_log(&v->inv[i], a.rank, true);
    }
done:
    pipe_run_view_free(v);
    return status;
}
