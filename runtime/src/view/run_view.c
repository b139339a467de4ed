/* Loading a run (run_view.h). */
#include "run_view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/cli.h"
#include "util/util.h"

double pipe_parse_iso8601(const char *s)
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

long long pipe_path_size(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return (long long)st.st_size;
    long long total = 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *sub = pipe_asprintf("%s/%s", path, e->d_name);
        long long s = sub ? pipe_path_size(sub) : -1;
        total += s > 0 ? s : 0;
        free(sub);
    }
    closedir(d);
    return total;
}

const char *pipe_view_status(const pipe_view_invocation *inv)
{
    if (inv->rec)
        return pipe_step_status_name(inv->rec->status);
    return inv->running ? "running" : inv->rec_error ? "unreadable" : "not run";
}

long pipe_run_view_find(const pipe_run_view *v, const char *id)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->inv[i].id, id) == 0)
            return (long)i;
    return -1;
}

long pipe_run_view_producer(const pipe_run_view *v, const char *path, const char **output)
{
    const char *mark = NULL;
    for (const char *p = path ? strstr(path, "/outputs/") : NULL; p; p = strstr(p + 1, "/outputs/"))
        mark = p;
    if (!mark)
        return -1;
    const char *id_end = mark, *id = id_end;
    while (id > path && id[-1] != '/')
        id--;
    const char *run_end = id > path ? id - 1 : id, *run = run_end;
    while (run > path && run[-1] != '/')
        run--;
    if ((size_t)(run_end - run) != strlen(v->run_id) || strncmp(run, v->run_id, (size_t)(run_end - run)) != 0)
        return -1;
    for (size_t i = 0; i < v->n; i++)
        if (strlen(v->inv[i].id) == (size_t)(id_end - id) && strncmp(v->inv[i].id, id, (size_t)(id_end - id)) == 0) {
            if (output)
                *output = mark + strlen("/outputs/");
            return (long)i;
        }
    return -1;
}

/* The last PIPE_VIEW_LOG_LINES lines of a log (at most its last 64 KiB). */
static int read_log_tail(pipe_view_invocation *inv)
{
    enum { TAIL_BYTES = 64 * 1024 };
    char *path = pipe_asprintf("%s/log", inv->dir);
    if (!path)
        return PIPE_ENOMEM;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return 0;
    struct stat st;
    char *buf = NULL;
    int rc = 0;
    if (fstat(fd, &st) != 0 || st.st_size == 0)
        goto done;
    off_t start = st.st_size > TAIL_BYTES ? st.st_size - TAIL_BYTES : 0;
    size_t want = (size_t)(st.st_size - start), got = 0;
    if (!(buf = malloc(want + 1))) {
        rc = PIPE_ENOMEM;
        goto done;
    }
    while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, start + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    while (got > 0 && buf[got - 1] == '\n')
        buf[--got] = '\0';
    /* The line count is exact only when the whole file was read. */
    size_t lines = got > 0 ? 1 : 0;
    for (size_t i = 0; i < got; i++)
        lines += buf[i] == '\n';
    const char *tail = buf;
    size_t keep = lines;
    if (start > 0) { /* the first line read is cut */
        const char *nl = strchr(tail, '\n');
        tail = nl ? nl + 1 : tail + got;
        keep--;
    }
    for (; keep > PIPE_VIEW_LOG_LINES; keep--)
        tail = strchr(tail, '\n') + 1;
    inv->log_lines = start > 0 ? 0 : lines; /* 0: more than was read */
    if (*tail && !(inv->log_tail = pipe_strdup(tail)))
        rc = PIPE_ENOMEM;
done:
    free(buf);
    close(fd);
    return rc;
}

/* A metrics row that cannot be read: a warning, and the rest is shown. */
static void warn_line(void *arg, const char *line)
{
    (void)arg;
    pipe_cli_warning("%s", line);
}

static int load_invocation(pipe_run_view *v, pipe_view_invocation *inv, unsigned what)
{
    char err[512];
    if (!(inv->dir = pipe_store_invocation_dir(v->store, v->run_id, inv->id)))
        return PIPE_ENOMEM;
    char *path = pipe_store_step_file(v->store, v->run_id, inv->id);
    if (!path)
        return PIPE_ENOMEM;
    int rc = pipe_step_record_read(path, &inv->rec, err, sizeof err);
    free(path);
    if (rc == PIPE_ENOMEM)
        return rc;
    if (rc != 0 && rc != PIPE_ENOENT && !(inv->rec_error = pipe_strdup(err)))
        return PIPE_ENOMEM;
    if (inv->rec && !inv->step && inv->rec->step && !(inv->step = pipe_strdup(inv->rec->step)))
        return PIPE_ENOMEM;
    if (!inv->rec && !inv->rec_error && v->state == PIPE_RUN_RUNNING) {
        char *log = pipe_asprintf("%s/log", inv->dir);
        if (!log)
            return PIPE_ENOMEM;
        inv->running = pipe_file_exists(log); /* its supervisor has started */
        free(log);
    }
    if (what & PIPE_VIEW_METRICS) {
        const char *from = inv->rec && inv->rec->status == PIPE_STEP_CACHED ? inv->rec->cached_from : NULL;
        /* A cached invocation's curves are its original's. */
        char *mpath = from && !strstr(from, "..") ? pipe_asprintf("%s/%s/metrics.csv", v->store, from)
                                                  : pipe_asprintf("%s/metrics.csv", inv->dir);
        if (!mpath)
            return PIPE_ENOMEM;
        rc = pipe_metrics_read(mpath, &inv->metrics, err, sizeof err);
        if (rc == 0)
            pipe_metrics_warn(&inv->metrics, mpath, warn_line, NULL);
        free(mpath);
        if (rc == PIPE_ENOMEM)
            return rc;
        if (rc == 0 && from && !(inv->metrics_from = pipe_strdup(from)))
            return PIPE_ENOMEM;
    }
    if ((what & PIPE_VIEW_PROFILE) && pipe_profile_read(inv->dir, &inv->profile) != 0)
        return PIPE_ENOMEM;
    if ((what & PIPE_VIEW_LOGS) && read_log_tail(inv) != 0)
        return PIPE_ENOMEM;
    return 0;
}

/* The invocations of another pipeline's run: folders holding a step.yaml. */
static int list_folders(pipe_run_view *v)
{
    struct dirent **names = NULL;
    int count = scandir(v->run_dir, &names, NULL, alphasort);
    if (count < 0)
        return 0;
    int rc = 0;
    if (count > 0 && !(v->inv = calloc((size_t)count, sizeof *v->inv)))
        rc = PIPE_ENOMEM;
    for (int i = 0; i < count; i++) {
        if (rc == 0 && names[i]->d_name[0] != '.') {
            char *path = pipe_asprintf("%s/%s/step.yaml", v->run_dir, names[i]->d_name);
            if (!path)
                rc = PIPE_ENOMEM;
            else if (pipe_file_exists(path)) {
                pipe_view_invocation *inv = &v->inv[v->n++];
                inv->world = 1;
                if (!(inv->id = pipe_strdup(names[i]->d_name)))
                    rc = PIPE_ENOMEM;
            }
            free(path);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int from_manifest(pipe_run_view *v, const pipe_manifest *m)
{
    if (m->ninvocations > 0 && !(v->inv = calloc(m->ninvocations, sizeof *v->inv)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < m->ninvocations; i++) {
        const pipe_minvocation *mi = &m->invocations[i];
        pipe_view_invocation *inv = &v->inv[v->n++];
        if (!(inv->id = pipe_strdup(mi->id)))
            return PIPE_ENOMEM;
        if (mi->step >= 0 && (size_t)mi->step < m->nsteps && !(inv->step = pipe_strdup(m->steps[mi->step].name)))
            return PIPE_ENOMEM;
        inv->world = (int)mi->accelerate.num_processes; /* 1 without @run_with_accelerate */
        inv->profile_interval_ms = mi->profile_interval_ms;
        if (mi->nneeds > 0 && !(inv->needs = calloc(mi->nneeds, sizeof *inv->needs)))
            return PIPE_ENOMEM;
        for (size_t k = 0; k < mi->nneeds; k++)
            if (mi->needs[k] >= 0 && (size_t)mi->needs[k] < i)
                inv->needs[inv->nneeds++] = (size_t)mi->needs[k];
    }
    v->from_manifest = true;
    return 0;
}

/* Edges of another pipeline's run: from the inputs' paths. */
static int edges_from_inputs(pipe_run_view *v)
{
    for (size_t i = 0; i < v->n; i++) {
        pipe_view_invocation *inv = &v->inv[i];
        if (!inv->rec || inv->rec->ninputs == 0)
            continue;
        if (!(inv->needs = calloc(inv->rec->ninputs, sizeof *inv->needs)))
            return PIPE_ENOMEM;
        for (size_t k = 0; k < inv->rec->ninputs; k++) {
            long p = pipe_run_view_producer(v, inv->rec->inputs[k].path, NULL);
            bool seen = p < 0 || (size_t)p == i;
            for (size_t j = 0; j < inv->nneeds && !seen; j++)
                seen = inv->needs[j] == (size_t)p;
            if (!seen)
                inv->needs[inv->nneeds++] = (size_t)p;
        }
    }
    return 0;
}

/* The failure that came first: the failed invocation that finished earliest
   (a dependant skipped for it never ran). */
static void find_root_cause(pipe_run_view *v)
{
    double first = 0;
    v->root_cause = -1;
    for (size_t i = 0; i < v->n; i++) {
        const pipe_step_record *r = v->inv[i].rec;
        if (!r || r->status != PIPE_STEP_FAILED)
            continue;
        double t = pipe_parse_iso8601(r->finished);
        if (v->root_cause < 0 || (t >= 0 && t < first)) {
            v->root_cause = (long)i;
            first = t;
        }
    }
}

int pipe_run_view_load(const char *store, const char *run_id, const pipe_manifest *m, unsigned what,
                       pipe_run_view **out, char *err, size_t errsize)
{
    *out = NULL;
    pipe_run_view *v = calloc(1, sizeof *v);
    int rc = PIPE_ENOMEM;
    if (!v || !(v->store = pipe_strdup(store)) || !(v->run_id = pipe_strdup(run_id)) ||
        !(v->run_dir = pipe_store_run_dir(store, run_id)))
        goto fail;
    if ((rc = pipe_run_info_read(store, run_id, &v->info, err, errsize)) != 0)
        goto fail;
    v->state = pipe_run_state_of(store, run_id, v->info, m);
    double a = pipe_parse_iso8601(v->info->started), b = pipe_parse_iso8601(v->info->finished);
    if (a >= 0 && b < 0 && v->state == PIPE_RUN_RUNNING)
        b = (double)time(NULL);
    v->duration_s = a >= 0 && b >= a ? round((b - a) * 1000.0) / 1000.0 : NAN;
    bool same = m && v->info->pipeline && strcmp(v->info->pipeline, m->pipeline) == 0;
    if ((rc = same ? from_manifest(v, m) : list_folders(v)) != 0)
        goto fail;
    for (size_t i = 0; i < v->n; i++)
        if ((rc = load_invocation(v, &v->inv[i], what)) != 0)
            goto fail;
    if (!same && (rc = edges_from_inputs(v)) != 0)
        goto fail;
    find_root_cause(v);
    *out = v;
    return 0;
fail:
    if (rc == PIPE_ENOMEM)
        pipe_errf(err, errsize, "out of memory");
    pipe_run_view_free(v);
    return rc;
}

void pipe_run_view_free(pipe_run_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        pipe_view_invocation *inv = &v->inv[i];
        free(inv->id);
        free(inv->step);
        free(inv->needs);
        free(inv->dir);
        pipe_step_record_free(inv->rec);
        free(inv->rec_error);
        pipe_metrics_free(&inv->metrics);
        free(inv->metrics_from);
        pipe_profile_free(&inv->profile);
        free(inv->log_tail);
    }
    free(v->inv);
    pipe_run_info_free(v->info);
    free(v->store);
    free(v->run_id);
    free(v->run_dir);
    free(v);
}
