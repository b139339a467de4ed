#include "artifact.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe/error.h"
#include "artifact_walk.h"
#include "commit.h"
#include "hash_pipeline.h"
#include "store.h"
#include "util/util.h"

bool pipe_artifact_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

/* A symbolic link inside the folder artifact root, at path: PIPE_EINVAL
   naming it when it leads out (artifact_walk.h). */
static int link_inside(const char *root, const char *name, const char *path, char *err, size_t errsize)
{
    char target[4096];
    const char *rel = path + strlen(root) + 1;
    const char *why = pipe_artifact_link_leaves(root, rel, target, sizeof target);
    if (!why)
        return 0;
    pipe_errf(err, errsize,
              "%s/%s is a symbolic link to `%s`, which %s: a link in an artifact must lead to a file or folder inside "
              "it",
              name, rel, target, why);
    return PIPE_EINVAL;
}

static int digest_folder(const char *root, const char *path, int depth, unsigned char out[PIPE_SHA256_SIZE],
                         char *err, size_t errsize)
{
    if (depth > PIPE_ARTIFACT_MAX_DEPTH) {
        pipe_errf(err, errsize, "%s: folders nested more than %d deep", path, PIPE_ARTIFACT_MAX_DEPTH);
        return PIPE_EIO;
    }
    struct dirent **names = NULL;
    int n = pipe_artifact_list(path, &names, err, errsize);
    if (n < 0)
        return n;
    pipe_sha256 h;
    pipe_sha256_init(&h);
    pipe_sha256_update(&h, "pipe-folder-1", 14);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const char *name = names[i]->d_name;
        char *child = pipe_asprintf("%s/%s", path, name);
        struct stat st;
        if (!child) {
            rc = PIPE_ENOMEM;
            break;
        }
        if (lstat(child, &st) != 0) {
            pipe_errf(err, errsize, "cannot read %s: %s", child, strerror(errno));
            rc = PIPE_EIO;
        } else if (S_ISDIR(st.st_mode)) {
            unsigned char sub[PIPE_SHA256_SIZE];
            if ((rc = digest_folder(root, child, depth + 1, sub, err, errsize)) == 0) {
                pipe_sha256_update(&h, "d", 1);
                pipe_sha256_update(&h, name, strlen(name) + 1);
                pipe_sha256_update(&h, sub, sizeof sub);
            }
        } else if (S_ISREG(st.st_mode)) {
            char hex[PIPE_SHA256_HEX_SIZE];
            if ((rc = pipe_sha256_file(child, hex, err, errsize)) == 0) {
                pipe_sha256_update(&h, "f", 1);
                pipe_sha256_update(&h, name, strlen(name) + 1);
                pipe_sha256_update(&h, hex, strlen(hex));
            }
        } else if (S_ISLNK(st.st_mode)) {
            /* Its text; what it leads to is inside, so hashed as itself. */
            char target[4096];
            ssize_t len = readlink(child, target, sizeof target);
            if (len < 0) {
                pipe_errf(err, errsize, "cannot read link %s: %s", child, strerror(errno));
                rc = PIPE_EIO;
            } else if ((rc = link_inside(root, root, child, err, errsize)) == 0) {
                pipe_sha256_update(&h, "l", 1);
                pipe_sha256_update(&h, name, strlen(name) + 1);
                pipe_sha256_update(&h, target, (size_t)len);
            }
        } else {
            pipe_errf(err, errsize, "%s is neither a file, a folder nor a link", child);
            rc = PIPE_EIO;
        }
        free(child);
    }
    pipe_artifact_list_free(names, n);
    if (rc == 0)
        pipe_sha256_final(&h, out);
    else
        pipe_sha256_discard(&h);
    return rc;
}

int pipe_artifact_digest(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    if (!S_ISDIR(st.st_mode)) /* a large file's read overlaps its hash (hash_pipeline.h) */
        return st.st_size > PIPE_HASH_PIPELINE_MIN ? pipe_hash_pipeline_file(path, hex, err, errsize)
                                                   : pipe_sha256_file(path, hex, err, errsize);
    unsigned char d[PIPE_SHA256_SIZE];
    int rc = digest_folder(path, path, 0, d, err, errsize);
    if (rc == 0)
        pipe_sha256_to_hex(d, hex);
    return rc;
}

/* ---- what an artifact may hold ---- */

/* A file of a folder artifact with more than one hard link. */
typedef struct linked_file {
    dev_t dev;
    ino_t ino;
    nlink_t nlink;
    char *path;
} linked_file;

typedef struct check_walk {
    const char *root, *name;
    linked_file *files;
    size_t n, cap;
} check_walk;

static int check_entry(void *arg, const char *path, const struct stat *st, char *err, size_t errsize)
{
    check_walk *w = arg;
    const char *rel = path[strlen(w->root)] == '/' ? path + strlen(w->root) + 1 : "";
    if (S_ISDIR(st->st_mode))
        return 0;
    if (S_ISLNK(st->st_mode))
        return link_inside(w->root, w->name, path, err, errsize);
    if (!S_ISREG(st->st_mode)) {
        pipe_errf(err, errsize, "%s/%s is neither a file, a folder nor a symbolic link", w->name, rel);
        return PIPE_EINVAL;
    }
    if (st->st_nlink < 2)
        return 0;
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        linked_file *more = realloc(w->files, cap * sizeof *more);
        if (!more)
            return PIPE_ENOMEM;
        w->files = more;
        w->cap = cap;
    }
    linked_file *f = &w->files[w->n];
    if (!(f->path = pipe_strdup(rel)))
        return PIPE_ENOMEM;
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    f->nlink = st->st_nlink;
    w->n++;
    return 0;
}

static int by_inode(const void *a, const void *b)
{
    const linked_file *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Each file with several links must have all of them inside the folder. */
static int links_inside(check_walk *w, char *err, size_t errsize)
{
    if (w->n > 1)
        qsort(w->files, w->n, sizeof *w->files, by_inode);
    for (size_t i = 0, j; i < w->n; i = j) {
        for (j = i + 1; j < w->n && by_inode(&w->files[i], &w->files[j]) == 0; j++)
            ;
        if ((nlink_t)(j - i) < w->files[i].nlink) {
            pipe_errf(err, errsize,
                      "%s/%s is a hard link to a file outside %s (%llu links, %zu inside): its bytes would change "
                      "with that file's; copy it in instead",
                      w->name, w->files[i].path, w->name, (unsigned long long)w->files[i].nlink, j - i);
            return PIPE_EINVAL;
        }
    }
    return 0;
}

int pipe_artifact_check(const char *path, const char *name, char *err, size_t errsize)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t len = readlink(path, target, sizeof target - 1);
        pipe_errf(err, errsize,
                  "%s is a symbolic link (to `%.*s`), not a file or folder: write the artifact itself there", name,
                  len < 0 ? 1 : (int)len, len < 0 ? "?" : target);
        return PIPE_EINVAL;
    }
    if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
        pipe_errf(err, errsize,
                  "%s is a hard link to a file elsewhere (%llu links): its bytes would change with that file's; "
                  "write or copy it instead",
                  name, (unsigned long long)st.st_nlink);
        return PIPE_EINVAL;
    }
    if (S_ISREG(st.st_mode))
        return 0;
    if (!S_ISDIR(st.st_mode)) {
        pipe_errf(err, errsize, "%s is neither a file nor a folder", name);
        return PIPE_EINVAL;
    }
    check_walk w = {.root = path, .name = name};
    int rc = pipe_artifact_walk(path, NULL, check_entry, &w, err, errsize);
    if (rc == 0)
        rc = links_inside(&w, err, errsize);
    for (size_t i = 0; i < w.n; i++)
        free(w.files[i].path);
    free(w.files);
    return rc;
}

/* ---- read-only, durable ---- */

/* mode without write permission; the owner keeps reading (and searching a
   folder), so that the runtime can still hash, sync and remove it. */
static mode_t read_only(mode_t mode)
{
    return (mode & 0555) | (S_ISDIR(mode) ? 0500 : 0400);
}

enum { SEAL = 1, SYNC = 2 };

static int sync_one(const char *path, int flags, char *err, size_t errsize)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        pipe_errf(err, errsize, "cannot sync %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return PIPE_EIO;
    }
    close(fd);
    return 0;
}

/* One entry: its write permission taken (SEAL), then fsynced (SYNC; a
   folder after what it holds). Links carry no data of their own. */
static int settle_entry(void *arg, const char *path, const struct stat *st, char *err, size_t errsize)
{
    int what = *(const int *)arg;
    if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
        return 0;
    if ((what & SEAL) && (st->st_mode & 07777) != read_only(st->st_mode) &&
        chmod(path, read_only(st->st_mode)) != 0) {
        pipe_errf(err, errsize, "cannot make %s read-only: %s", path, strerror(errno));
        return PIPE_EIO;
    }
    if (!(what & SYNC))
        return 0;
    return sync_one(path, S_ISDIR(st->st_mode) ? O_RDONLY | O_DIRECTORY : O_RDONLY, err, errsize);
}

static int settle(const char *path, int what, char *err, size_t errsize)
{
    return pipe_artifact_walk(path, NULL, settle_entry, &what, err, errsize);
}

int pipe_artifact_sync(const char *path, char *err, size_t errsize) { return settle(path, SYNC, err, errsize); }

int pipe_artifact_seal(const char *path, char *err, size_t errsize) { return settle(path, SEAL, err, errsize); }

int pipe_artifact_commit(const char *tmp, const char *final, bool deferred, char *err, size_t errsize)
{
    /* Under the runner its group commit makes the move durable (commit.h). */
    int rc = settle(tmp, deferred ? SEAL : SEAL | SYNC, err, errsize);
    if (rc != 0)
        return rc;
    if (rename(tmp, final) != 0) {
        pipe_errf(err, errsize, "cannot move %s to %s: %s", tmp, final, strerror(errno));
        return PIPE_EIO;
    }
    char *dir = pipe_strdup(final);
    if (!dir)
        return PIPE_ENOMEM;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    rc = deferred ? 0 : sync_one(slash ? dir : ".", O_RDONLY | O_DIRECTORY, err, errsize);
    free(dir);
    return rc;
}

int pipe_artifact_copy_file(const char *src, const char *dst, mode_t mode, char *err, size_t errsize)
{
    int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
    if (in < 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", src, strerror(errno));
        return PIPE_EIO;
    }
    out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
    if (out < 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", dst, strerror(errno));
        rc = PIPE_EIO;
        goto fail;
    }
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            pipe_errf(err, errsize, "cannot read %s: %s", src, strerror(errno));
            rc = PIPE_EIO;
            goto fail;
        }
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                pipe_errf(err, errsize, "cannot write %s: %s", dst, strerror(errno));
                rc = PIPE_EIO;
                goto fail;
            }
            off += w;
        }
    }
    if (fsync(out) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", dst, strerror(errno));
        rc = PIPE_EIO;
    }
fail:
    if (out >= 0 && close(out) != 0 && rc == 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", dst, strerror(errno));
        rc = PIPE_EIO;
    }
    close(in);
    return rc;
}

int pipe_artifact_link(const char *src, const char *dst, char *err, size_t errsize)
{
    struct stat st;
    if (stat(src, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", src, strerror(errno));
        return PIPE_EIO;
    }
    mode_t mode = read_only(st.st_mode);
    /* A link only to a file that is read-only (made so here, when this
       process may): never one writable file shared by two artifacts. */
    if (link(src, dst) == 0) {
        if ((st.st_mode & 07777) == mode || chmod(dst, mode) == 0)
            return 0;
        unlink(dst);
    }
    return pipe_artifact_copy_file(src, dst, mode, err, errsize);
}

/* A copy of the tree at src under dst: where its entry at path goes. */
typedef struct copy_walk {
    const char *src, *dst;
} copy_walk;

static char *copy_target(const copy_walk *c, const char *path)
{
    return pipe_asprintf("%s%s", c->dst, path + strlen(c->src));
}

/* A folder, before what it holds. */
static int copy_folder_entry(void *arg, const char *path, const struct stat *st, char *err, size_t errsize)
{
    (void)st;
    char *to = copy_target(arg, path);
    int rc = !to ? PIPE_ENOMEM : mkdir(to, 0777) == 0 ? 0 : PIPE_EIO;
    if (rc == PIPE_EIO)
        pipe_errf(err, errsize, "cannot create %s: %s", to, strerror(errno));
    free(to);
    return rc;
}

/* A file as pipe_artifact_link makes it, a link as it is. */
static int copy_entry(void *arg, const char *path, const struct stat *st, char *err, size_t errsize)
{
    if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
        return 0;
    char *to = copy_target(arg, path);
    if (!to)
        return PIPE_ENOMEM;
    int rc = 0;
    if (S_ISREG(st->st_mode)) {
        rc = pipe_artifact_link(path, to, err, errsize);
    } else {
        char target[4096];
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len < 0 || (target[len] = '\0', symlink(target, to) != 0)) {
            pipe_errf(err, errsize, "cannot copy link %s: %s", path, strerror(errno));
            rc = PIPE_EIO;
        }
    }
    free(to);
    return rc;
}

int pipe_artifact_copy_folder(const char *src, const char *dst, bool deferred, char *err, size_t errsize)
{
    const char *slash = strrchr(dst, '/');
    char *tmp = slash ? pipe_asprintf("%.*s/.%s.tmp.%ld", (int)(slash - dst), dst, slash + 1, (long)getpid())
                      : pipe_asprintf(".%s.tmp.%ld", dst, (long)getpid());
    if (!tmp)
        return PIPE_ENOMEM;
    char rerr[256];
    pipe_remove_tree(tmp, rerr, sizeof rerr);
    copy_walk c = {src, tmp};
    int rc = pipe_artifact_walk(src, copy_folder_entry, copy_entry, &c, err, errsize);
    if (rc == 0)
        rc = pipe_artifact_commit(tmp, dst, deferred, err, errsize);
    if (rc != 0)
        pipe_remove_tree(tmp, rerr, sizeof rerr);
    free(tmp);
    return rc;
}
