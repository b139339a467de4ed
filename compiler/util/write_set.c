#include "write_set.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "symtab.h"
#include "write_file.h"

typedef struct staged {
    char *path;   /* the final name */
    char *tmp;    /* written, waiting for the rename; NULL when written in place (below) */
    char *backup; /* a hard link to the file it replaces, or NULL when new or not linkable */
    bool existed;
    bool renamed;
} staged;

struct write_set {
    staged *files;
    size_t n, cap;
    char **dirs; /* made by staging, in the order made */
    size_t ndirs, dcap;
    symtab made;     /* the same, to look up */
    char *ready_dir; /* the folder the previous file went to, known to exist */
    bool ready_made; /* ... and made by staging */
    unsigned counter;
    bool committed;
};

write_set *write_set_new(void) { return xcalloc(1, sizeof(write_set)); }

static void remember_dir(void *arg, const char *dir)
{
    write_set *ws = arg;
    if (ws->ndirs == ws->dcap) {
        ws->dcap = ws->dcap ? 2 * ws->dcap : 8;
        ws->dirs = xrealloc(ws->dirs, ws->dcap * sizeof *ws->dirs);
    }
    ws->dirs[ws->ndirs] = xstrdup(dir);
    symtab_put(&ws->made, ws->dirs[ws->ndirs], ws->dirs[ws->ndirs]);
    ws->ndirs++;
}

/* mkdir -p of path's folder, remembering what it made. */
static int make_parents(write_set *ws, const char *path, char *err, size_t errsize)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    size_t len = (size_t)(slash - path);
    /* Files come folder by folder: thousands of sources need one mkdir -p
       per folder, not one per file. */
    if (ws->ready_dir && strlen(ws->ready_dir) == len && memcmp(ws->ready_dir, path, len) == 0)
        return 0;
    char *dir = xstrdup(path);
    dir[len] = '\0';
    int rc = make_dirs_noting(dir, remember_dir, ws, err, errsize);
    free(ws->ready_dir);
    ws->ready_dir = rc == 0 ? dir : NULL;
    ws->ready_made = rc == 0 && symtab_get(&ws->made, dir) != NULL;
    if (rc != 0)
        free(dir);
    return rc;
}

/* dir/.pipec-WHAT-PID-N: short, so that a long final name fails on its own
   check below, not here. */
static char *sibling(write_set *ws, const char *path, const char *what)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    size_t n = strlen(path) + 64;
    char *s = xmalloc(n);
    snprintf(s, n, "%.*s.pipec-%s-%ld-%u", dirlen, path, what, (long)getpid(), ws->counter++);
    return s;
}

/* Writes and closes fd (opened on tmp); removes tmp on failure. */
static int write_fd(int fd, const char *tmp, const void *data, size_t len, mode_t mode)
{
    const char *p = data;
    for (size_t left = len; left > 0;) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 || (mode && chmod(tmp, mode) != 0)) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static int write_all(const char *tmp, const void *data, size_t len, mode_t mode)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    return write_fd(fd, tmp, data, len, mode);
}

/* A new file's mode under the umask, executable (generated scripts). */
static mode_t new_script_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return (0666 & ~mask) | 0111;
}

static void push_staged(write_set *ws, staged f)
{
    if (ws->n == ws->cap) {
        ws->cap = ws->cap ? 2 * ws->cap : 64;
        ws->files = xrealloc(ws->files, ws->cap * sizeof *ws->files);
    }
    ws->files[ws->n++] = f;
}

int write_set_stage(write_set *ws, const char *path, const void *data, size_t len, bool executable, char *err,
                    size_t errsize)
{
    if (make_parents(ws, path, err, errsize) != 0)
        return -1;
    /* In a folder this build made there is nothing to replace and nobody
       reading: the file goes straight to its name (no stat, no rename; a
       fresh 10,000-file bundle is half the system calls), and a failure
       removes it with the folder. */
    if (ws->ready_made) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            if (write_fd(fd, path, data, len, executable ? new_script_mode() : 0) != 0) {
                snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
                return -1;
            }
            push_staged(ws, (staged){.path = xstrdup(path)});
            return 0;
        }
        /* Taken after all (another build writing here): the usual way, which says why. */
    }
    struct stat st;
    bool existed = lstat(path, &st) == 0;
    if (!existed && errno != ENOENT) { /* ENAMETOOLONG, EACCES, ...: the rename would fail later */
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (existed && S_ISDIR(st.st_mode)) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(EISDIR));
        return -1;
    }
    if (existed && S_ISREG(st.st_mode) && file_has_bytes(path, data, len))
        return 0;
    /* Keep the mode of a file being replaced; a new script is executable. */
    mode_t mode = 0;
    if (existed)
        mode = st.st_mode & 07777;
    if (executable)
        mode = existed ? mode | 0111 : new_script_mode();
    char *tmp = sibling(ws, path, "new");
    if (write_all(tmp, data, len, mode) != 0) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    push_staged(ws, (staged){.path = xstrdup(path), .tmp = tmp, .existed = existed});
    return 0;
}

/* Puts back the files renamed so far (from their backups, or removes them
   when they were new). */
static void roll_back(write_set *ws)
{
    for (size_t i = ws->n; i-- > 0;) {
        staged *f = &ws->files[i];
        if (!f->tmp) {
            unlink(f->path);
            continue;
        }
        if (!f->renamed)
            continue;
        if (f->backup)
            rename(f->backup, f->path);
        else if (!f->existed)
            unlink(f->path);
        f->renamed = false;
        free(f->backup);
        f->backup = NULL;
    }
}

int write_set_commit(write_set *ws, char *err, size_t errsize)
{
    for (size_t i = 0; i < ws->n; i++) {
        staged *f = &ws->files[i];
        if (!f->tmp)
            continue; /* in place already; removed by roll_back if this fails */
        if (f->existed) {
            f->backup = sibling(ws, f->path, "old");
            if (link(f->path, f->backup) != 0) { /* no hard links here: no way back for this one */
                free(f->backup);
                f->backup = NULL;
            }
        }
        if (rename(f->tmp, f->path) != 0) {
            snprintf(err, errsize, "cannot write %s: %s", f->path, strerror(errno));
            if (f->backup) {
                unlink(f->backup);
                free(f->backup);
                f->backup = NULL;
            }
            roll_back(ws);
            return -1;
        }
        f->renamed = true;
    }
    for (size_t i = 0; i < ws->n; i++)
        if (ws->files[i].backup)
            unlink(ws->files[i].backup);
    ws->committed = true;
    return 0;
}

size_t write_set_count(const write_set *ws) { return ws->n; }

const char *write_set_path(const write_set *ws, size_t i) { return ws->files[i].path; }

void write_set_free(write_set *ws)
{
    if (!ws)
        return;
    for (size_t i = 0; i < ws->n; i++) {
        staged *f = &ws->files[i];
        if (!ws->committed && !f->renamed)
            unlink(f->tmp ? f->tmp : f->path);
        free(f->path);
        free(f->tmp);
        free(f->backup);
    }
    if (!ws->committed)
        for (size_t i = ws->ndirs; i-- > 0;)
            rmdir(ws->dirs[i]); /* only when empty: nothing of anyone else's goes */
    for (size_t i = 0; i < ws->ndirs; i++)
        free(ws->dirs[i]);
    symtab_free(&ws->made);
    free(ws->dirs);
    free(ws->ready_dir);
    free(ws->files);
    free(ws);
}
