/* RUN: an id, a unique prefix or part of one, or `latest` (run_ref.h). */
#include "run_ref.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/util.h"

static int newest_first(const void *a, const void *b)
{
    const pipe_run_entry *x = a, *y = b;
    const char *sx = x->info && x->info->started ? x->info->started : "";
    const char *sy = y->info && y->info->started ? y->info->started : "";
    int c = strcmp(sy, sx);
    return c ? c : strcmp(y->id, x->id);
}

int pipe_run_entries_read(const char *store, pipe_run_entry **out, size_t *n, char *err, size_t errsize)
{
    char **ids = NULL;
    size_t count = 0;
    *out = NULL;
    *n = 0;
    int rc = pipe_store_list_runs(store, &ids, &count, err, errsize);
    if (rc != 0)
        return rc;
    if (count == 0) {
        pipe_store_free_list(ids, count);
        return 0;
    }
    pipe_run_entry *e = calloc(count, sizeof *e);
    if (!e) {
        pipe_store_free_list(ids, count);
        pipe_errf(err, errsize, "out of memory");
        return PIPE_ENOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        char why[512];
        e[i].id = ids[i];
        if (pipe_run_info_read(store, ids[i], &e[i].info, why, sizeof why) != 0)
            e[i].info = NULL; /* listed as unreadable */
    }
    free(ids); /* the strings now belong to the entries */
    qsort(e, count, sizeof *e, newest_first);
    *out = e;
    *n = count;
    return 0;
}

void pipe_run_entries_free(pipe_run_entry *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++) {
        free(e[i].id);
        pipe_run_info_free(e[i].info);
    }
    free(e);
}

/* ref (not empty) starts id, or lies anywhere in it. */
static bool ref_matches(const char *id, const char *ref, bool prefix)
{
    if (!*ref)
        return false;
    return prefix ? strncmp(id, ref, strlen(ref)) == 0 : strstr(id, ref) != NULL;
}

static size_t count_matches(const pipe_run_entry *e, size_t n, const char *ref, bool prefix)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += ref_matches(e[i].id, ref, prefix);
    return count;
}

int pipe_run_ref_resolve(const char *store, const char *ref, char **run_id, char *err, size_t errsize)
{
    pipe_run_entry *e = NULL;
    size_t n = 0;
    *run_id = NULL;
    int rc = pipe_run_entries_read(store, &e, &n, err, errsize);
    if (rc != 0)
        return rc;
    const char *found = NULL;
    if (n == 0) {
        pipe_errf(err, errsize, "no runs in %s%s", store, ref && strcmp(ref, "latest") != 0 ? " (see `runs`)" : "");
        rc = PIPE_ENOENT;
        goto done;
    }
    if (!ref || strcmp(ref, "latest") == 0) {
        found = e[0].id;
        goto done;
    }
    for (size_t i = 0; i < n && !found; i++)
        if (strcmp(e[i].id, ref) == 0)
            found = e[i].id;
    /* Prefixes first (`20261124-0233`), then any part (`85661e`, the
       random part of an id that starts with its date). */
    bool prefix = true;
    size_t matches = found ? 1 : count_matches(e, n, ref, true);
    if (!found && matches == 0) {
        prefix = false;
        matches = count_matches(e, n, ref, false);
    }
    for (size_t i = 0; i < n && !found && matches == 1; i++)
        if (ref_matches(e[i].id, ref, prefix))
            found = e[i].id;
    if (!found && matches > 1) {
        char list[512] = "";
        size_t used = 0, shown = 0;
        for (size_t i = 0; i < n && shown < 4 && used < sizeof list; i++) {
            if (!ref_matches(e[i].id, ref, prefix))
                continue;
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", shown ? ", " : "", e[i].id);
            shown++;
        }
        pipe_errf(err, errsize, "`%s` is %s %zu runs (%s%s); give more of the id", ref,
                  prefix ? "the start of" : "part of", matches, list, matches > shown ? ", ..." : "");
        rc = PIPE_EUSAGE;
        goto done;
    } else if (!found) {
        size_t len = strlen(ref);
        const char **names = calloc(n, sizeof *names);
        const char *best = NULL;
        if (names) {
            for (size_t i = 0; i < n; i++)
                names[i] = e[i].id;
            best = pipe_closest_name(ref, names, n, len / 3 + 2);
        }
        if (best)
            pipe_errf(err, errsize, "no run `%s` in %s; did you mean `%s`?", ref, store, best);
        else
            pipe_errf(err, errsize, "no run `%s` in %s (see `runs`)", ref, store);
        free(names);
        rc = PIPE_ENOENT;
        goto done;
    }
done:
    if (rc == 0 && !(*run_id = pipe_strdup(found))) {
        pipe_errf(err, errsize, "out of memory");
        rc = PIPE_ENOMEM;
    }
    pipe_run_entries_free(e, n);
    return rc;
}
