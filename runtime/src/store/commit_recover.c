/* Recovery of a run whose runner died before its end (commit.h): the
   records written after its last durable point, read again. */
#define _GNU_SOURCE /* syncfs */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "store/artifact.h"
#include "store/commit.h"
#include "store/stepfile.h"
#include "store/store.h"
#include "util/util.h"

/* Whether every output that rec names has its recorded digest, where it
   lies now (whatever path the record holds). */
static bool outputs_whole(const char *store, const char *run_id, const char *invocation, const pipe_step_record *rec)
{
    bool whole = true;
    for (size_t i = 0; whole && i < rec->noutputs; i++) {
        char hex[PIPE_SHA256_HEX_SIZE], err[256];
        const pipe_step_artifact *a = &rec->outputs[i];
        char *path = pipe_store_output_path(store, run_id, invocation, a->name);
        whole = path && a->sha256 && pipe_artifact_digest(path, hex, err, sizeof err) == 0 &&
                strcmp(hex, a->sha256) == 0;
        free(path);
    }
    return whole;
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The invocations a whole list names, sorted (pointers into text, whose
   line ends become NULs): one search each instead of a scan of the list
   per invocation, which was quadratic in a run of thousands. NULL with
   *n 0 when it names none or memory is short (then every record is read
   again: slower, never wrong). */
static const char **listed_sorted(char *text, size_t *n)
{
    static const char tag[] = "durable: ";
    size_t cap = 0;
    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        cap++;
    const char **names = cap ? malloc(cap * sizeof *names) : NULL;
    *n = 0;
    for (char *line = text; names && line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (strncmp(line, tag, sizeof tag - 1) == 0)
            names[(*n)++] = line + sizeof tag - 1;
        line = end ? end + 1 : NULL;
    }
    if (names)
        qsort(names, *n, sizeof *names, by_name);
    return names;
}

int pipe_commit_recover(const char *store, const char *run_id, size_t *dropped, char *err, size_t errsize)
{
    *dropped = 0;
    char *text = NULL;
    if (!pipe_commit_list_read(store, run_id, &text))
        return 0;
    char *run_dir = pipe_store_run_dir(store, run_id);
    DIR *d = run_dir ? opendir(run_dir) : NULL;
    int rc = 0;
    if (!d) {
        pipe_errf(err, errsize, "cannot read %s: %s", run_dir ? run_dir : store, strerror(errno));
        free(run_dir);
        free(text);
        return PIPE_EIO;
    }
    size_t nlisted = 0;
    const char **listed = listed_sorted(text, &nlisted);
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.' || (nlisted && bsearch(&name, listed, nlisted, sizeof *listed, by_name)))
            continue;
        char *step = pipe_store_step_file(store, run_id, e->d_name);
        pipe_step_record *rec = NULL;
        if (step && pipe_step_record_read(step, &rec, NULL, 0) == 0 && pipe_step_status_succeeded(rec->status) &&
            !outputs_whole(store, run_id, e->d_name, rec)) {
            /* Not finished after all: no record, no outputs. */
            char *outdir = pipe_asprintf("%s/%s/outputs", run_dir, e->d_name);
            if (unlink(step) != 0 && errno != ENOENT) {
                pipe_errf(err, errsize, "cannot remove %s: %s", step, strerror(errno));
                rc = PIPE_EIO;
            } else if (!outdir) {
                rc = PIPE_ENOMEM;
            } else {
                rc = pipe_remove_tree(outdir, err, errsize);
            }
            free(outdir);
            (*dropped)++;
        }
        pipe_step_record_free(rec);
        free(step);
    }
    closedir(d);
    free(listed);
    free(text);
    /* What is left is verified: durable, then no list. */
    int fd = rc == 0 ? open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (rc == 0 && (fd < 0 || syncfs(fd) != 0)) {
        pipe_errf(err, errsize, "cannot make %s durable (syncfs): %s", run_dir, strerror(errno));
        rc = PIPE_EIO;
    }
    if (fd >= 0)
        close(fd);
    if (rc == 0) {
        char *path = pipe_asprintf("%s/unsynced", run_dir);
        if (!path || (unlink(path) != 0 && errno != ENOENT))
            rc = path ? PIPE_EIO : PIPE_ENOMEM;
        if (rc == PIPE_EIO)
            pipe_errf(err, errsize, "cannot remove %s: %s", path, strerror(errno));
        free(path);
    }
    free(run_dir);
    return rc;
}
