/* What `logs` prints (logs.h): an invocation's log files, or every
   invocation's one after the other, in bounded memory (log_stream.h). */
#include "logs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/run_lock.h"
#include "util/cli.h"
#include "log_stream.h"
#include "pipe/base.h"
#include "view/run_view.h"
#include "util/util.h"

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

int pipe_logs_print(const pipe_view_invocation *inv, long rank, bool header)
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

int pipe_logs_follow(const pipe_run_view *v, const pipe_view_invocation *inv, long rank)
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

int pipe_logs_print_all(const pipe_run_view *v, long rank)
{
    for (size_t i = 0; i < v->n; i++) {
        if (!v->inv[i].rec && !pipe_dir_exists(v->inv[i].dir))
            continue; /* never started: nothing to show */
        if (i > 0)
            putchar('\n');
        pipe_logs_print(&v->inv[i], rank, true);
    }
    return PIPE_EXIT_OK;
}
