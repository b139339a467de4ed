#include "command.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe/error.h"
#include "pipe/placeholder.h"
#include "util/util.h"

typedef struct growing {
    char *p;
    size_t len, cap;
} growing;

static int put(growing *g, const char *s, size_t n)
{
    if (g->len + n + 1 > g->cap) {
        size_t cap = g->cap ? g->cap : 64;
        while (cap < g->len + n + 1)
            cap *= 2;
        char *more = realloc(g->p, cap);
        if (!more)
            return PIPE_ENOMEM;
        g->p = more;
        g->cap = cap;
    }
    memcpy(g->p + g->len, s, n);
    g->len += n;
    g->p[g->len] = '\0';
    return 0;
}

int pipe_command_expand(const char *tmpl, pipe_placeholder_fn *lookup, void *arg, char **out, char *err,
                        size_t errsize)
{
    growing g = {0};
    int rc = put(&g, "", 0);
    pipe_placeholder ph;
    for (size_t pos = 0; rc == 0 && pipe_placeholder_next(tmpl, &pos, &ph);) {
        const char *at = tmpl + ph.start;
        size_t n = ph.end - ph.start;
        switch (ph.kind) {
        case PIPE_PH_TEXT: rc = put(&g, at, n); break;
        case PIPE_PH_BRACE: rc = put(&g, at, 1); break;
        case PIPE_PH_LONE_OPEN:
        case PIPE_PH_LONE_CLOSE:
            pipe_errf(err, errsize, "`%s`: a lone `%c`", tmpl, *at);
            rc = PIPE_EINVAL;
            break;
        case PIPE_PH_NAME:
        case PIPE_PH_EMPTY: {
            const char *value = ph.kind == PIPE_PH_NAME ? lookup(arg, at + 1, n - 2) : NULL;
            if (!value) {
                pipe_errf(err, errsize, "`%s`: `%.*s` names no parameter, input or output", tmpl, (int)n, at);
                rc = PIPE_EINVAL;
                break;
            }
            rc = put(&g, value, strlen(value));
            break;
        }
        }
    }
    if (rc != 0) {
        free(g.p);
        return rc;
    }
    *out = g.p;
    return 0;
}

static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int pipe_command_find(const char *program, const char *path_env, const char *cwd, char **out, char *err,
                      size_t errsize)
{
    *out = NULL;
    if (!*program) {
        pipe_errf(err, errsize, "the program name is empty");
        return PIPE_ENOENT;
    }
    if (strchr(program, '/')) {
        char *path = program[0] == '/' ? pipe_strdup(program) : pipe_asprintf("%s/%s", cwd, program);
        if (!path)
            return PIPE_ENOMEM;
        if (executable_file(path)) {
            *out = path;
            return 0;
        }
        pipe_errf(err, errsize, "%s is not an executable file%s", path,
                  access(path, F_OK) == 0 ? " (is it marked executable?)" : "");
        free(path);
        return PIPE_ENOENT;
    }
    const char *dirs = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
    for (const char *d = dirs;;) {
        size_t n = strcspn(d, ":");
        char *path = n == 0 ? pipe_asprintf("%s/%s", cwd, program) : pipe_asprintf("%.*s/%s", (int)n, d, program);
        if (!path)
            return PIPE_ENOMEM;
        if (executable_file(path)) {
            *out = path;
            return 0;
        }
        free(path);
        if (!d[n])
            break;
        d += n + 1;
    }
    pipe_errf(err, errsize, "no executable `%s` in PATH (%.900s)", program, dirs);
    return PIPE_ENOENT;
}

char *pipe_bundle_dir(const pipe_program *prog, const char *pipeline, char *err, size_t errsize)
{
    const char *env = getenv("PIPE_BUNDLE_DIR");
    if (env && *env) {
        if (pipe_dir_exists(env))
            return pipe_strdup(env);
        pipe_errf(err, errsize, "PIPE_BUNDLE_DIR=%s is not a folder", env);
        return NULL;
    }
    /* Installed: PREFIX/bin/EXE with the files in PREFIX/share/pipe/PIPELINE. */
    char exe[PATH_MAX], *installed = NULL;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            installed = pipe_asprintf("%s/../share/pipe/%s", exe, pipeline);
            if (!installed)
                return NULL;
            if (pipe_dir_exists(installed)) {
                char *real = realpath(installed, NULL);
                free(installed);
                return real;
            }
        }
    }
    if (prog->bundle_dir && pipe_dir_exists(prog->bundle_dir)) {
        free(installed);
        return pipe_strdup(prog->bundle_dir);
    }
    pipe_errf(err, errsize, "the bundle's folder was not found (not at %s%s%s): set PIPE_BUNDLE_DIR to it",
              prog->bundle_dir ? prog->bundle_dir : "(no folder compiled in)", installed ? " nor " : "",
              installed ? installed : "");
    free(installed);
    return NULL;
}
