#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipe/error.h"
#include "pipe/yaml_write.h"
#include "util/util.h"
#include "format/yamlio.h"

char *pipe_store_resolve(const char *flag, const char *fallback)
{
    const char *env = getenv("PIPE_STORE");
    if (flag)
        return pipe_strdup(flag);
    if (env && *env)
        return pipe_strdup(env);
    return pipe_strdup(fallback ? fallback : ".pipe");
}

static void random_bytes(unsigned char *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    if (fd >= 0) {
        while (got < n) {
            ssize_t r = read(fd, buf + got, n - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        close(fd);
    }
    if (got < n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^ (unsigned long)ts.tv_sec;
        for (size_t i = got; i < n; i++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            buf[i] = (unsigned char)(x >> 33);
        }
    }
}

int pipe_run_id_new(char *buf, size_t size, char *err, size_t errsize)
{
    if (!buf || size < PIPE_RUN_ID_SIZE) {
        pipe_errf(err, errsize, "run id buffer too small");
        return PIPE_EINVAL;
    }
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm)) {
        pipe_errf(err, errsize, "cannot read the clock");
        return PIPE_EIO;
    }
    unsigned char r[3];
    random_bytes(r, sizeof r);
    char stamp[16];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(buf, size, "%s-%02x%02x%02x", stamp, r[0], r[1], r[2]);
    return 0;
}

bool pipe_run_id_is_generated(const char *id)
{
    static const char shape[] = "dddddddd-dddddd-xxxxxx";
    if (!id || strlen(id) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++) {
        char c = id[i];
        bool ok = shape[i] == '-'   ? c == '-'
                  : shape[i] == 'd' ? (c >= '0' && c <= '9')
                                    : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
        if (!ok)
            return false;
    }
    return true;
}

int pipe_run_id_check(const char *id, char *err, size_t errsize)
{
    if (!id || !*id) {
        pipe_errf(err, errsize, "the run id is empty");
        return PIPE_EUSAGE;
    }
    size_t n = strlen(id);
    if (n > 128) {
        pipe_errf(err, errsize, "run id `%.40s...` is longer than 128 characters", id);
        return PIPE_EUSAGE;
    }
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            pipe_errf(err, errsize, "run id `%s` may only hold letters, digits, `_` and `-`", id);
            return PIPE_EUSAGE;
        }
    }
    if (id[0] == '-') {
        /* It would read as an option to runs, show, logs and report. */
        pipe_errf(err, errsize, "run id `%s` starts with `-`; it would read as an option", id);
        return PIPE_EUSAGE;
    }
    if (strcmp(id, "cache") == 0 || strcmp(id, "latest") == 0) {
        pipe_errf(err, errsize, "`%s` cannot be a run id: it is reserved (%s)", id,
                  id[0] == 'c' ? "the store's cache folder" : "`latest` names the newest run");
        return PIPE_EUSAGE;
    }
    return 0;
}

char *pipe_store_run_dir(const char *store, const char *run_id) { return pipe_asprintf("%s/%s", store, run_id); }

char *pipe_store_invocation_dir(const char *store, const char *run_id, const char *invocation)
{
    return pipe_asprintf("%s/%s/%s", store, run_id, invocation);
}

char *pipe_store_output_path(const char *store, const char *run_id, const char *invocation, const char *output)
{
    return pipe_asprintf("%s/%s/%s/outputs/%s", store, run_id, invocation, output);
}

char *pipe_store_step_file(const char *store, const char *run_id, const char *invocation)
{
    return pipe_asprintf("%s/%s/%s/step.yaml", store, run_id, invocation);
}

char *pipe_store_error_file(const char *invocation_dir, int rank, int world)
{
    if (world <= 1)
        return pipe_asprintf("%s/error", invocation_dir);
    return pipe_asprintf("%s/error.rank-%d", invocation_dir, rank);
}

char *pipe_store_run_file(const char *store, const char *run_id)
{
    return pipe_asprintf("%s/%s/run.yaml", store, run_id);
}

char *pipe_store_cache_dir(const char *store) { return pipe_asprintf("%s/cache", store); }

static int format_run_info(const pipe_run_info *info, char **text, size_t *len, char *err, size_t errsize)
{
    pipe_yw w;
    if (pipe_yw_begin(&w) != 0)
        return PIPE_ENOMEM;
    pipe_yw_map_begin(&w, false);
    if (info->run_id)
        pipe_yw_key_plain(&w, "run_id", info->run_id);
    pipe_yw_key_quoted(&w, "pipeline", info->pipeline ? info->pipeline : "");
    pipe_yw_plain(&w, "params");
    pipe_yw_map_begin(&w, info->nparams == 0);
    for (size_t i = 0; i < info->nparams; i++)
        pipe_yw_key_quoted(&w, info->params[i].key, info->params[i].value);
    pipe_yw_map_end(&w);
    if (info->started)
        pipe_yw_key_plain(&w, "started", info->started);
    if (info->finished)
        pipe_yw_key_plain(&w, "finished", info->finished);
    pipe_yw_key_plain(&w, "status", info->status ? info->status : "running");
    pipe_yw_map_end(&w);
    return pipe_yw_finish(&w, text, len, err, errsize);
}

/* Writes text to a unique temporary file next to path (pid and random
   digits: unique even across machines sharing the store) and links it to
   path: link(2) fails with EEXIST when another writer was first. */
static int create_exclusive(const char *path, const char *text, size_t len, bool *created, char *err, size_t errsize)
{
    int rc = 0;
    unsigned char r[4];
    random_bytes(r, sizeof r);
    char *tmp = pipe_asprintf("%s.new.%ld.%02x%02x%02x%02x", path, (long)getpid(), r[0], r[1], r[2], r[3]);
    if (!tmp)
        return PIPE_ENOMEM;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return PIPE_EIO;
    }
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            pipe_errf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
            rc = PIPE_EIO;
            break;
        }
        done += (size_t)w;
    }
    if (rc == 0 && fsync(fd) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
        rc = PIPE_EIO;
    }
    if (close(fd) != 0 && rc == 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
        rc = PIPE_EIO;
    }
    if (rc == 0) {
        if (link(tmp, path) == 0) {
            *created = true;
        } else if (errno == EEXIST) {
            *created = false;
        } else {
            pipe_errf(err, errsize, "cannot create %s: %s", path, strerror(errno));
            rc = PIPE_EIO;
        }
    }
    unlink(tmp);
    free(tmp);
    return rc;
}

int pipe_run_info_write(const char *store, const char *run_id, const pipe_run_info *info,
                        pipe_run_write_mode mode, bool *created, char *err, size_t errsize)
{
    char *dir = NULL, *path = NULL, *text = NULL;
    size_t len = 0;
    bool made = false;
    int rc = pipe_run_id_check(run_id, err, errsize);
    if (rc != 0)
        return rc;
    dir = pipe_store_run_dir(store, run_id);
    path = pipe_store_run_file(store, run_id);
    if (!dir || !path) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    if ((rc = pipe_mkdirs(dir, err, errsize)) != 0)
        goto fail;
    if ((rc = format_run_info(info, &text, &len, err, errsize)) != 0)
        goto fail;
    if (mode == PIPE_RUN_WRITE_CREATE) {
        rc = create_exclusive(path, text, len, &made, err, errsize);
    } else {
        rc = pipe_write_file_atomic(path, text, len, err, errsize);
        made = rc == 0;
    }
fail:
    if (created)
        *created = rc == 0 && made;
    free(text);
    free(path);
    free(dir);
    return rc;
}

void pipe_run_info_free(pipe_run_info *info)
{
    if (!info)
        return;
    for (size_t i = 0; i < info->nparams; i++) {
        free(info->params[i].key);
        free(info->params[i].value);
    }
    free(info->params);
    free(info->run_id);
    free(info->pipeline);
    free(info->started);
    free(info->finished);
    free(info->status);
    free(info);
}

const char *pipe_run_info_param(const pipe_run_info *info, const char *name)
{
    for (size_t i = 0; info && i < info->nparams; i++)
        if (strcmp(info->params[i].key, name) == 0)
            return info->params[i].value;
    return NULL;
}

static int dup_field(pipe_yr *r, yaml_node_t *root, const char *key, char **out)
{
    const char *t = pipe_yr_text(pipe_yr_get(r, root, key));
    if (!t)
        return 0;
    *out = pipe_strdup(t);
    return *out ? 0 : PIPE_ENOMEM;
}

int pipe_run_info_read(const char *store, const char *run_id, pipe_run_info **out, char *err, size_t errsize)
{
    char *path = NULL, *text = NULL;
    size_t len = 0;
    pipe_yr r = {0};
    pipe_run_info *info = NULL;
    int rc = 0;
    *out = NULL;
    if (!(path = pipe_store_run_file(store, run_id)))
        return PIPE_ENOMEM;
    if ((rc = pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &text, &len, err, errsize)) != 0) {
        if (rc == PIPE_ENOENT)
            pipe_errf(err, errsize, "no run `%s` in %s (no %s)", run_id, store, path);
        goto fail;
    }
    if ((rc = pipe_yr_load(&r, text, len, path, err, errsize)) != 0)
        goto fail;
    if (!(info = calloc(1, sizeof *info))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    yaml_node_t *root = pipe_yr_root(&r);
    if ((rc = dup_field(&r, root, "run_id", &info->run_id)) != 0 ||
        (rc = dup_field(&r, root, "pipeline", &info->pipeline)) != 0 ||
        (rc = dup_field(&r, root, "started", &info->started)) != 0 ||
        (rc = dup_field(&r, root, "finished", &info->finished)) != 0 ||
        (rc = dup_field(&r, root, "status", &info->status)) != 0)
        goto fail;
    if (!info->pipeline) {
        pipe_errf(err, errsize, "%s: missing key `pipeline`", path);
        rc = PIPE_EFORMAT;
        goto fail;
    }
    yaml_node_t *params = pipe_yr_get(&r, root, "params");
    if (params && params->type != YAML_MAPPING_NODE &&
        !(params->type == YAML_SCALAR_NODE && params->data.scalar.length == 0)) {
        pipe_errf(err, errsize, "%s:%d: `params` must be a mapping of names to values", path, pipe_yr_line(params));
        rc = PIPE_EFORMAT;
        goto fail;
    }
    yaml_node_t *k, *v;
    size_t n = 0;
    while (pipe_yr_pair(&r, params, n, &k, &v))
        n++;
    if (n > 0 && !(info->params = calloc(n, sizeof *info->params))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        pipe_yr_pair(&r, params, i, &k, &v);
        if (!pipe_yr_text(k) || !pipe_yr_text(v)) {
            pipe_errf(err, errsize, "%s:%d: parameter values must be scalars", path, pipe_yr_line(v));
            rc = PIPE_EFORMAT;
            goto fail;
        }
        info->params[i].key = pipe_strdup(pipe_yr_text(k));
        info->params[i].value = pipe_strdup(pipe_yr_text(v));
        info->nparams++;
        if (!info->params[i].key || !info->params[i].value) {
            rc = PIPE_ENOMEM;
            goto fail;
        }
    }
    if (!info->status && !(info->status = pipe_strdup("running"))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    *out = info;
    info = NULL;
fail:
    pipe_run_info_free(info);
    pipe_yr_free(&r);
    free(text);
    free(path);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int pipe_store_list_runs(const char *store, char ***ids, size_t *n, char *err, size_t errsize)
{
    *ids = NULL;
    *n = 0;
    DIR *d = opendir(store);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        pipe_errf(err, errsize, "cannot list %s: %s", store, strerror(errno));
        return PIPE_EIO;
    }
    char **list = NULL;
    size_t count = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "cache") == 0)
            continue;
        char *run_file = pipe_store_run_file(store, e->d_name);
        if (!run_file) {
            rc = PIPE_ENOMEM;
            goto fail;
        }
        bool is_run = pipe_file_exists(run_file);
        free(run_file);
        if (!is_run)
            continue;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **p = realloc(list, ncap * sizeof *p);
            if (!p) {
                rc = PIPE_ENOMEM;
                goto fail;
            }
            list = p;
            cap = ncap;
        }
        if (!(list[count] = pipe_strdup(e->d_name))) {
            rc = PIPE_ENOMEM;
            goto fail;
        }
        count++;
    }
    closedir(d);
    d = NULL;
    if (count > 1)
        qsort(list, count, sizeof *list, cmp_str);
    *ids = list;
    *n = count;
    return 0;
fail:
    if (d)
        closedir(d);
    pipe_store_free_list(list, count);
    return rc;
}

void pipe_store_free_list(char **ids, size_t n)
{
    for (size_t i = 0; ids && i < n; i++)
        free(ids[i]);
    free(ids);
}

/* A committed artifact's folders are read-only (artifact.h): the owner
   takes write permission back to empty one. */
static void writable(int fd, const struct stat *st)
{
    if ((st->st_mode & S_IRWXU) != S_IRWXU)
        fchmod(fd, (st->st_mode & 07777) | S_IRWXU);
}

/* Removes the entries of the directory open as fd, depth first; symbolic
   links are removed, never followed. */
static int remove_contents(int fd, const char *path, char *err, size_t errsize)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        pipe_errf(err, errsize, "cannot remove %s: %s", path, strerror(errno));
        close(fd);
        return PIPE_EIO;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                pipe_errf(err, errsize, "cannot remove %s/%s: %s", path, e->d_name, strerror(errno));
                rc = PIPE_EIO;
                break;
            }
            writable(sub, &st);
            if ((rc = remove_contents(sub, path, err, errsize)) != 0)
                break;
        }
        if (unlinkat(dirfd(d), e->d_name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0 && errno != ENOENT) {
            pipe_errf(err, errsize, "cannot remove %s/%s: %s", path, e->d_name, strerror(errno));
            rc = PIPE_EIO;
        }
    }
    closedir(d);
    return rc;
}

int pipe_remove_tree(const char *path, char *err, size_t errsize)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        pipe_errf(err, errsize, "cannot remove %s: %s", path, strerror(errno));
        return PIPE_EIO;
    }
    if (S_ISDIR(st.st_mode)) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            pipe_errf(err, errsize, "cannot remove %s: %s", path, strerror(errno));
            return PIPE_EIO;
        }
        writable(fd, &st);
        int rc = remove_contents(fd, path, err, errsize);
        if (rc != 0)
            return rc;
    }
    if ((S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT) {
        pipe_errf(err, errsize, "cannot remove %s: %s", path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

/* Whether name is PREFIX...INFIX, or PREFIX...INFIX.... (".model.tmp",
   ".data.tmp.42", "step.yaml.tmp.42"); "." and ".." are not. */
static bool temporary(const char *name, const char *prefix, const char *infix)
{
    size_t p = strlen(prefix), i = strlen(infix);
    if (strncmp(name, prefix, p) != 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    for (const char *at = strstr(name + p, infix); at; at = strstr(at + 1, infix))
        if (at[i] == '\0' || at[i] == '.')
            return true;
    return false;
}

int pipe_remove_temporaries(const char *dir, const char *prefix, const char *infix)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : PIPE_EIO;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (!temporary(e->d_name, prefix, infix))
            continue;
        char *path = pipe_asprintf("%s/%s", dir, e->d_name);
        char err[512];
        if (!path || pipe_remove_tree(path, err, sizeof err) != 0)
            rc = PIPE_EIO;
        free(path);
    }
    closedir(d);
    return rc;
}

void pipe_remove_entry(const char *dir, const char *name)
{
    char *path = pipe_asprintf("%s/%s", dir, name);
    if (path)
        unlink(path);
    free(path);
}
