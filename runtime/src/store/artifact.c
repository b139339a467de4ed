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
#include "store.h"
#include "util/util.h"

/* A folder tree deeper than this is refused (a link loop cannot occur, links
   are not followed below the top, but a runaway program can nest). */
#define MAX_DEPTH 256

bool pipe_artifact_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static bool dot_entry(const char *name) { return strcmp(name, ".") == 0 || strcmp(name, "..") == 0; }

/* The entries of a folder in byte order of names, "." and ".." left out. */
static int list_folder(const char *path, struct dirent ***names, char *err, size_t errsize)
{
    int n = scandir(path, names, NULL, by_name);
    if (n < 0) {
        pipe_errf(err, errsize, "cannot read folder %s: %s", path, strerror(errno));
        return PIPE_EIO;
    }
    return n;
}

static void free_list(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int digest_folder(const char *path, int depth, unsigned char out[PIPE_SHA256_SIZE], char *err,
                         size_t errsize)
{
    if (depth > MAX_DEPTH) {
        pipe_errf(err, errsize, "%s: folders nested more than %d deep", path, MAX_DEPTH);
        return PIPE_EIO;
    }
    struct dirent **names = NULL;
    int n = list_folder(path, &names, err, errsize);
    if (n < 0)
        return n;
    pipe_sha256 h;
    pipe_sha256_init(&h);
    pipe_sha256_update(&h, "pipe-folder-1", 14);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const char *name = names[i]->d_name;
        if (dot_entry(name))
            continue;
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
            if ((rc = digest_folder(child, depth + 1, sub, err, errsize)) == 0) {
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
            char target[4096];
            ssize_t len = readlink(child, target, sizeof target);
            if (len < 0) {
                pipe_errf(err, errsize, "cannot read link %s: %s", child, strerror(errno));
                rc = PIPE_EIO;
            } else {
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
    free_list(names, n);
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
    if (!S_ISDIR(st.st_mode))
        return pipe_sha256_file(path, hex, err, errsize);
    unsigned char d[PIPE_SHA256_SIZE];
    int rc = digest_folder(path, 0, d, err, errsize);
    if (rc == 0)
        pipe_sha256_to_hex(d, hex);
    return rc;
}

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

static int sync_tree(const char *path, int depth, char *err, size_t errsize)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return PIPE_EIO;
    }
    if (S_ISREG(st.st_mode))
        return sync_one(path, O_RDONLY, err, errsize);
    if (!S_ISDIR(st.st_mode) || depth > MAX_DEPTH)
        return 0; /* links and the like carry no data of their own */
    struct dirent **names = NULL;
    int n = list_folder(path, &names, err, errsize);
    if (n < 0)
        return n;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (dot_entry(names[i]->d_name))
            continue;
        char *child = pipe_asprintf("%s/%s", path, names[i]->d_name);
        rc = child ? sync_tree(child, depth + 1, err, errsize) : PIPE_ENOMEM;
        free(child);
    }
    free_list(names, n);
    return rc == 0 ? sync_one(path, O_RDONLY | O_DIRECTORY, err, errsize) : rc;
}

int pipe_artifact_sync(const char *path, char *err, size_t errsize)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    return S_ISDIR(st.st_mode) ? sync_tree(path, 0, err, errsize) : sync_one(path, O_RDONLY, err, errsize);
}

int pipe_artifact_commit(const char *tmp, const char *final, char *err, size_t errsize)
{
    int rc = pipe_artifact_sync(tmp, err, errsize);
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
    rc = sync_one(slash ? dir : ".", O_RDONLY | O_DIRECTORY, err, errsize);
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

static int copy_tree(const char *src, const char *dst, int depth, char *err, size_t errsize)
{
    struct stat st;
    if (lstat(src, &st) != 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", src, strerror(errno));
        return PIPE_EIO;
    }
    if (S_ISREG(st.st_mode))
        return link(src, dst) == 0 ? 0 : pipe_artifact_copy_file(src, dst, st.st_mode, err, errsize);
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t len = readlink(src, target, sizeof target - 1);
        if (len < 0 || (target[len] = '\0', symlink(target, dst) != 0)) {
            pipe_errf(err, errsize, "cannot copy link %s: %s", src, strerror(errno));
            return PIPE_EIO;
        }
        return 0;
    }
    if (!S_ISDIR(st.st_mode) || depth > MAX_DEPTH)
        return 0;
    if (mkdir(dst, 0777) != 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", dst, strerror(errno));
        return PIPE_EIO;
    }
    struct dirent **names = NULL;
    int n = list_folder(src, &names, err, errsize);
    if (n < 0)
        return n;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (dot_entry(names[i]->d_name))
            continue;
        char *from = pipe_asprintf("%s/%s", src, names[i]->d_name);
        char *to = pipe_asprintf("%s/%s", dst, names[i]->d_name);
        rc = from && to ? copy_tree(from, to, depth + 1, err, errsize) : PIPE_ENOMEM;
        free(from);
        free(to);
    }
    free_list(names, n);
    return rc;
}

int pipe_artifact_copy_folder(const char *src, const char *dst, char *err, size_t errsize)
{
    const char *slash = strrchr(dst, '/');
    char *tmp = slash ? pipe_asprintf("%.*s/.%s.tmp.%ld", (int)(slash - dst), dst, slash + 1, (long)getpid())
                      : pipe_asprintf(".%s.tmp.%ld", dst, (long)getpid());
    if (!tmp)
        return PIPE_ENOMEM;
    char rerr[256];
    pipe_remove_tree(tmp, rerr, sizeof rerr);
    int rc = copy_tree(src, tmp, 0, err, errsize);
    if (rc == 0)
        rc = pipe_artifact_commit(tmp, dst, err, errsize);
    if (rc != 0)
        pipe_remove_tree(tmp, rerr, sizeof rerr);
    free(tmp);
    return rc;
}
