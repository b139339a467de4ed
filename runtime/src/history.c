/* `runs` and `show RUN_ID`: the history kept in the artifact store. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cliopt.h"
#include "commands.h"
#include "progress.h"
#include "run_lock.h"
#include "stepfile.h"
#include "store.h"
#include "util.h"

/* "2026-11-22T10:15:00.123Z" -> seconds since the epoch; -1 when malformed. */
static double parse_iso8601(const char *s)
{
    if (!s)
        return -1;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0, n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &n) != 6)
        return -1;
    const char *rest = s + n;
    if (*rest == '.') {
        int digits = 0;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++, digits++)
            if (digits < 3)
                ms = ms * 10 + (*rest - '0');
        for (; digits < 3; digits++)
            ms *= 10;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    return (double)t + ms / 1000.0;
}

static void run_duration(const pipe_run_info *info, char *buf, size_t size)
{
    double a = parse_iso8601(info->started), b = parse_iso8601(info->finished);
    if (a < 0 || b < 0 || b < a)
        snprintf(buf, size, "-");
    else
        pipe_format_seconds(b - a, buf, size);
}

/* --store DIR, the only option of runs and show; positional arguments go
   to *positional (at most one). -1 after a usage message, 1 for --help. */
static int parse_store_args(int argc, char **argv, const char **store, const char **positional, bool want_positional)
{
    for (int i = 1; i < argc; i++) {
        int got;
        if (pipe_opt_is_help(argv[i]))
            return 1;
        if ((got = pipe_opt_value(argc, argv, &i, "--store", store)) != 0) {
            if (got < 0)
                return -1;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            pipe_cli_error("unknown option `%s`", argv[i]);
            return -1;
        }
        if (!want_positional || *positional) {
            pipe_cli_error("unexpected argument `%s`", argv[i]);
            return -1;
        }
        *positional = argv[i];
    }
    return 0;
}

typedef struct run_row {
    char *id;
    pipe_run_info *info;
} run_row;

static int row_newest_first(const void *a, const void *b)
{
    const run_row *x = a, *y = b;
    const char *sx = x->info && x->info->started ? x->info->started : "";
    const char *sy = y->info && y->info->started ? y->info->started : "";
    int c = strcmp(sy, sx);
    return c ? c : strcmp(y->id, x->id);
}

int pipe_cmd_runs(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    (void)m;
    const char *store_flag = NULL, *unused = NULL;
    char err[1024];
    char **ids = NULL;
    size_t n = 0;
    run_row *rows = NULL;
    int status = PIPE_EXIT_USAGE;
    int rc = parse_store_args(argc, argv, &store_flag, &unused, false);
    if (rc > 0) {
        puts("usage: EXE runs [--store DIR]\n\nThe runs in the store, newest first: id, pipeline, status, started, "
             "duration.");
        return PIPE_EXIT_OK;
    }
    if (rc < 0)
        return PIPE_EXIT_USAGE;
    char *store = pipe_store_resolve(store_flag, NULL);
    if (!store)
        goto nomem;
    if (pipe_store_list_runs(store, &ids, &n, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    if (n == 0) {
        printf("no runs in %s\n", store);
        status = PIPE_EXIT_OK;
        goto done;
    }
    if (!(rows = calloc(n, sizeof *rows)))
        goto nomem;
    int wid = (int)strlen("RUN"), wpipe = (int)strlen("PIPELINE");
    for (size_t i = 0; i < n; i++) {
        rows[i].id = ids[i];
        if (pipe_run_info_read(store, ids[i], &rows[i].info, err, sizeof err) != 0)
            rows[i].info = NULL; /* shown as unreadable */
        if ((int)strlen(ids[i]) > wid)
            wid = (int)strlen(ids[i]);
        if (rows[i].info && rows[i].info->pipeline && (int)strlen(rows[i].info->pipeline) > wpipe)
            wpipe = (int)strlen(rows[i].info->pipeline);
    }
    qsort(rows, n, sizeof *rows, row_newest_first);
    printf("%-*s  %-*s  %-11s  %-24s  %s\n", wid, "RUN", wpipe, "PIPELINE", "STATUS", "STARTED", "DURATION");
    for (size_t i = 0; i < n; i++) {
        const pipe_run_info *info = rows[i].info;
        char d[32];
        if (!info) {
            printf("%-*s  %-*s  %-11s\n", wid, rows[i].id, wpipe, "?", "unreadable");
            continue;
        }
        run_duration(info, d, sizeof d);
        printf("%-*s  %-*s  %-11s  %-24s  %s\n", wid, rows[i].id, wpipe, info->pipeline ? info->pipeline : "?",
               pipe_run_status(store, rows[i].id, info->status), info->started ? info->started : "?", d);
    }
    status = PIPE_EXIT_OK;
    goto done;
nomem:
    pipe_cli_error("out of memory");
done:
    if (rows)
        for (size_t i = 0; i < n; i++)
            pipe_run_info_free(rows[i].info);
    free(rows);
    pipe_store_free_list(ids, n);
    free(store);
    return status;
}

/* The invocations of a run: the manifest's when the run is of this
   pipeline, else the directories holding a step.yaml, sorted. */
static int run_invocations(const pipe_manifest *m, const pipe_run_info *info, const char *run_dir, char ***out,
                           size_t *n)
{
    *out = NULL;
    *n = 0;
    if (info->pipeline && strcmp(info->pipeline, m->pipeline) == 0) {
        char **ids = calloc(m->ninvocations, sizeof *ids);
        if (!ids)
            return PIPE_ENOMEM;
        for (size_t i = 0; i < m->ninvocations; i++) {
            if (!(ids[i] = pipe_strdup(m->invocations[i].id))) {
                pipe_store_free_list(ids, i);
                return PIPE_ENOMEM;
            }
        }
        *out = ids;
        *n = m->ninvocations;
        return 0;
    }
    struct dirent **names = NULL;
    int count = scandir(run_dir, &names, NULL, alphasort);
    if (count < 0)
        return 0;
    char **ids = calloc((size_t)count + 1, sizeof *ids);
    int rc = ids ? 0 : PIPE_ENOMEM;
    for (int i = 0; i < count; i++) {
        if (rc == 0 && names[i]->d_name[0] != '.') {
            char *path = pipe_asprintf("%s/%s/step.yaml", run_dir, names[i]->d_name);
            if (!path)
                rc = PIPE_ENOMEM;
            else if (pipe_file_exists(path) && !(ids[(*n)++] = pipe_strdup(names[i]->d_name)))
                rc = PIPE_ENOMEM;
            free(path);
        }
        free(names[i]);
    }
    free(names);
    if (rc != 0) {
        pipe_store_free_list(ids, *n);
        *n = 0;
        return rc;
    }
    *out = ids;
    return 0;
}

int pipe_cmd_show(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    const char *store_flag = NULL, *run_id = NULL;
    char err[1024], *store = NULL, *run_dir = NULL;
    pipe_run_info *info = NULL;
    char **ids = NULL;
    size_t n = 0;
    int status = PIPE_EXIT_USAGE;
    int rc = parse_store_args(argc, argv, &store_flag, &run_id, true);
    if (rc > 0) {
        puts("usage: EXE show RUN_ID [--store DIR]\n\nOne run: each invocation's status, duration, outputs with "
             "their SHA-256, and metrics.");
        return PIPE_EXIT_OK;
    }
    if (rc < 0)
        return PIPE_EXIT_USAGE;
    if (!run_id) {
        pipe_cli_error("show needs a RUN_ID (see `runs`)");
        return PIPE_EXIT_USAGE;
    }
    if (!(store = pipe_store_resolve(store_flag, NULL)))
        goto nomem;
    if (pipe_run_id_check(run_id, err, sizeof err) != 0) {
        pipe_cli_error("no run `%s` in %s (%s)", run_id, store, err);
        goto done;
    }
    rc = pipe_run_info_read(store, run_id, &info, err, sizeof err);
    if (rc == PIPE_ENOENT) {
        pipe_cli_error("no run `%s` in %s (see `runs`)", run_id, store);
        goto done;
    }
    if (rc != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    if (!(run_dir = pipe_store_run_dir(store, run_id)))
        goto nomem;

    char d[32];
    run_duration(info, d, sizeof d);
    printf("run %s of pipeline %s: %s\n", run_id, info->pipeline ? info->pipeline : "?",
           pipe_run_status(store, run_id, info->status));
    printf("  started   %s\n", info->started ? info->started : "?");
    if (info->finished)
        printf("  finished  %s (%s)\n", info->finished, d);
    printf("  params    ");
    if (info->nparams == 0)
        printf("none");
    for (size_t i = 0; i < info->nparams; i++)
        printf("%s%s=%s", i ? " " : "", info->params[i].key, info->params[i].value);
    printf("\n  store     %s\n\ninvocations:\n", run_dir);

    if (run_invocations(m, info, run_dir, &ids, &n) != 0)
        goto nomem;
    int w = 0;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(ids[i]) > w)
            w = (int)strlen(ids[i]);
    for (size_t i = 0; i < n; i++) {
        char *path = pipe_store_step_file(store, run_id, ids[i]);
        pipe_step_record *rec = NULL;
        if (!path)
            goto nomem;
        rc = pipe_step_record_read(path, &rec, err, sizeof err);
        free(path);
        if (rc == PIPE_ENOENT) {
            printf("  %-*s  not run\n", w, ids[i]);
            continue;
        }
        if (rc != 0) {
            printf("  %-*s  unreadable: %s\n", w, ids[i], err);
            continue;
        }
        pipe_format_seconds(rec->duration_s, d, sizeof d);
        printf("  %-*s  %-6s  %s", w, ids[i], pipe_step_status_name(rec->status), d);
        if (rec->status == PIPE_STEP_CACHED && rec->cached_from)
            printf("  (from %s)", rec->cached_from);
        if (rec->status == PIPE_STEP_FAILED) {
            if (rec->has_exit_code)
                printf("  exit %d", rec->exit_code);
            else if (rec->signal)
                printf("  %s", rec->signal);
        }
        if (rec->attempts > 1)
            printf("  %d attempts", rec->attempts);
        putchar('\n');
        if (rec->error)
            printf("      error    %s\n", rec->error);
        for (size_t k = 0; k < rec->noutputs; k++) {
            const pipe_step_artifact *o = &rec->outputs[k];
            printf("      output   %s  %s  sha256 %s\n", o->name, o->path ? o->path : "?",
                   o->sha256 ? o->sha256 : "(none)");
        }
        if (rec->nmetrics > 0) {
            printf("      metrics ");
            for (size_t k = 0; k < rec->nmetrics; k++) {
                char v[64];
                pipe_format_number(rec->metrics[k].value, 17, v, sizeof v);
                printf(" %s=%s", rec->metrics[k].name, v);
            }
            putchar('\n');
        }
        pipe_step_record_free(rec);
    }
    status = PIPE_EXIT_OK;
    goto done;
nomem:
    pipe_cli_error("out of memory");
    status = PIPE_EXIT_USAGE;
done:
    pipe_store_free_list(ids, n);
    pipe_run_info_free(info);
    free(run_dir);
    free(store);
    return status;
}
