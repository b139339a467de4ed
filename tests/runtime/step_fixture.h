/* Helpers shared by the supervisor side's runtime tests (test_store.c,
   test_stepfile.c, test_cache.c, test_api.c, test_step.c): a temporary
   directory, whole-file reads and writes, and stderr capture. Static
   functions: include from the single .c file of a test program. */
#ifndef PIPE_TESTS_STEP_FIXTURE_H
#define PIPE_TESTS_STEP_FIXTURE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/util.h"

/* A fresh directory under $TMPDIR (or /tmp); malloc'ed. */
static inline char *fx_tempdir(const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    char *path = pipe_asprintf("%s/pipe-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    if (!path || !mkdtemp(path)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        exit(2);
    }
    return path;
}

static inline void fx_rmtree(char *path)
{
    char err[256];
    if (pipe_remove_tree(path, err, sizeof err) != 0)
        fprintf(stderr, "%s\n", err);
    free(path);
}

/* The file's text (malloc'ed), or NULL when it cannot be read. */
static inline char *fx_read(const char *path)
{
    char *text = NULL;
    return pipe_read_file(path, &text, NULL, NULL, 0) == 0 ? text : NULL;
}

/* Written whole, then renamed: a test that polls for the file (a step's
   pid) never reads it empty or cut short. */
static inline bool fx_write(const char *path, const char *text)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.fxtmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return false;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return false;
    }
    return true;
}

static inline bool fx_contains(const char *haystack, const char *needle)
{
    return haystack && needle && strstr(haystack, needle) != NULL;
}

/* Redirects stderr into a file until fx_capture_end, which returns what was
   written (malloc'ed). */
typedef struct fx_capture {
    int saved;
    char path[4096];
} fx_capture;

static inline void fx_capture_begin(fx_capture *c, const char *dir)
{
    snprintf(c->path, sizeof c->path, "%s/stderr.capture", dir);
    fflush(stderr);
    c->saved = dup(STDERR_FILENO);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
}

static inline char *fx_capture_end(fx_capture *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    char *text = fx_read(c->path);
    unlink(c->path);
    return text ? text : pipe_strdup("");
}

#endif
