#include "artifact_walk.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util/util.h"

/* Links followed while resolving one path, at most: the kernel's limit. */
#define MAX_LINK_HOPS 40

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int not_dots(const struct dirent *e) { return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0; }

int pipe_artifact_list(const char *path, struct dirent ***names, char *err, size_t errsize)
{
    int n = scandir(path, names, not_dots, by_name);
    if (n < 0) {
        pipe_errf(err, errsize, "cannot read folder %s: %s", path, strerror(errno));
        return PIPE_EIO;
    }
    return n;
}

void pipe_artifact_list_free(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* How a walk goes (pipe_artifact_walk). */
typedef struct walker {
    pipe_artifact_visit enter, visit;
    void *arg;
} walker;

static int walk(const walker *w, const char *path, const struct stat *st, int depth, char *err, size_t errsize)
{
    if (S_ISDIR(st->st_mode)) {
        if (depth > PIPE_ARTIFACT_MAX_DEPTH) {
            pipe_errf(err, errsize, "%s: folders nested more than %d deep", path, PIPE_ARTIFACT_MAX_DEPTH);
            return PIPE_EIO;
        }
        int rc = w->enter ? w->enter(w->arg, path, st, err, errsize) : 0;
        if (rc != 0)
            return rc;
        struct dirent **names = NULL;
        int n = pipe_artifact_list(path, &names, err, errsize);
        if (n < 0)
            return n;
        for (int i = 0; i < n && rc == 0; i++) {
            char *child = pipe_asprintf("%s/%s", path, names[i]->d_name);
            struct stat cst;
            if (!child) {
                rc = PIPE_ENOMEM;
            } else if (lstat(child, &cst) != 0) {
                pipe_errf(err, errsize, "cannot read %s: %s", child, strerror(errno));
                rc = PIPE_EIO;
            } else {
                rc = walk(w, child, &cst, depth + 1, err, errsize);
            }
            free(child);
        }
        pipe_artifact_list_free(names, n);
        if (rc != 0)
            return rc;
    }
    return w->visit(w->arg, path, st, err, errsize);
}

int pipe_artifact_walk(const char *path, pipe_artifact_visit enter, pipe_artifact_visit visit, void *arg, char *err,
                       size_t errsize)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    walker w = {enter, visit, arg};
    return walk(&w, path, &st, 0, err, errsize);
}

/* cur, a path inside the folder ("" for the folder itself), without its
   last component. */
static void drop_last(char *cur)
{
    char *slash = strrchr(cur, '/');
    if (slash)
        *slash = '\0';
    else
        cur[0] = '\0';
}

const char *pipe_artifact_link_leaves(const char *root, const char *rel, char *target, size_t tsize)
{
    static const char unreadable[] = "cannot be read", no_memory[] = "cannot be resolved (out of memory)";
    char buf[4096];
    char *at = pipe_asprintf("%s/%s", root, rel);
    ssize_t n = at ? readlink(at, buf, sizeof buf - 1) : -1;
    free(at);
    snprintf(target, tsize, "%.*s", n < 0 ? 0 : (int)n, buf);
    if (n < 0)
        return unreadable;
    buf[n] = '\0';
    if (buf[0] == '/')
        return "is an absolute link";
    /* cur: where the resolution stands, a folder inside root (physical: a
       link met is replaced by its target); todo[pos]: what is left of the
       path to resolve. */
    const char *slash = strrchr(rel, '/');
    char *cur = slash ? pipe_asprintf("%.*s", (int)(slash - rel), rel) : pipe_strdup("");
    char *todo = pipe_strdup(buf);
    const char *why = NULL;
    size_t pos = 0;
    bool missing = false; /* a name did not exist: the rest is taken as written */
    int hops = 1;
    while (!why) {
        if (!cur || !todo) {
            why = no_memory;
            break;
        }
        const char *name = todo + pos;
        size_t len = strcspn(name, "/");
        if (*name == '\0')
            break;
        for (pos += len; todo[pos] == '/'; pos++)
            ;
        if (len == 1 && name[0] == '.')
            continue;
        if (len == 2 && name[0] == '.' && name[1] == '.') {
            if (!*cur)
                why = "goes above the top with `..`";
            else
                drop_last(cur);
            continue;
        }
        char *next = *cur ? pipe_asprintf("%s/%.*s", cur, (int)len, name) : pipe_asprintf("%.*s", (int)len, name);
        free(cur);
        cur = next;
        if (missing || !cur)
            continue;
        struct stat st;
        char *path = pipe_asprintf("%s/%s", root, cur);
        if (!path) {
            why = no_memory;
        } else if (lstat(path, &st) != 0) {
            missing = true;
        } else if (S_ISLNK(st.st_mode)) {
            ssize_t m = ++hops > MAX_LINK_HOPS ? -1 : readlink(path, buf, sizeof buf - 1);
            if (hops > MAX_LINK_HOPS) {
                why = "passes through too many links";
            } else if (m < 0) {
                why = unreadable;
            } else if ((buf[m] = '\0', buf[0] == '/')) {
                why = "passes through an absolute link";
            } else {
                /* The link's target, then what was left after it. */
                char *more = pipe_asprintf("%s/%s", buf, todo + pos);
                free(todo);
                todo = more;
                pos = 0;
                drop_last(cur);
            }
        } else if (!S_ISDIR(st.st_mode) && todo[pos]) {
            missing = true; /* a file where a folder should be: it leads nowhere */
        }
        free(path);
    }
    free(cur);
    free(todo);
    return why;
}
