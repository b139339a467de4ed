#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "commit.h"
#include "pipe/error.h"
#include "store.h"
#include "util/util.h"

static void field(pipe_sha256 *s, const char *a, const char *b, const char *c)
{
    if (a)
        pipe_sha256_update(s, a, strlen(a));
    if (b)
        pipe_sha256_update(s, b, strlen(b));
    if (c)
        pipe_sha256_update(s, c, strlen(c));
    pipe_sha256_update(s, "", 1); /* the NUL that ends the field */
}

void pipe_cache_key(const pipe_cache_key_input *in, char key[PIPE_SHA256_HEX_SIZE])
{
    pipe_sha256 s;
    unsigned char d[PIPE_SHA256_SIZE];
    pipe_sha256_init(&s);
    field(&s, "pipe-cache-2", NULL, NULL);
    field(&s, in->code_digest ? in->code_digest : "", NULL, NULL);
    field(&s, in->step ? in->step : "", NULL, NULL);
    field(&s, in->entry ? in->entry : "", NULL, NULL);
    for (size_t i = 0; i < in->nparams; i++) {
        field(&s, "param:", in->params[i].key, "=");
        /* the value may hold anything but NUL: hash it as its own field */
        field(&s, in->params[i].value, NULL, NULL);
    }
    for (size_t i = 0; i < in->ninputs; i++)
        field(&s, "input:", in->inputs[i].name, in->inputs[i].sha256 ? in->inputs[i].sha256 : "");
    for (size_t i = 0; i < in->nparts; i++) {
        field(&s, "part:", in->parts[i].key, "=");
        field(&s, in->parts[i].value, NULL, NULL);
    }
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, key);
}

void pipe_cache_hit_free(pipe_cache_hit *hit)
{
    if (!hit)
        return;
    free(hit->from);
    pipe_step_record_free(hit->record);
    free(hit);
}

static bool is_hex_key(const char *key)
{
    size_t n = 0;
    for (; key[n]; n++)
        if (!((key[n] >= '0' && key[n] <= '9') || (key[n] >= 'a' && key[n] <= 'f')))
            return false;
    return n == 64;
}

/* "RUN_ID/INVOCATION" with two safe path components. */
static bool split_from(char *from, char **run, char **inv)
{
    char *slash = strchr(from, '/');
    if (!slash || slash == from || !slash[1] || strchr(slash + 1, '/'))
        return false;
    *slash = '\0';
    *run = from;
    *inv = slash + 1;
    bool ok = pipe_run_id_check(*run, NULL, 0) == 0 && (*inv)[0] != '.';
    *slash = '/';
    return ok;
}

int pipe_cache_lookup(const char *store, const char *key, const char *const *outputs, size_t noutputs, bool verify,
                      pipe_cache_hit **hit, char *why, size_t whysize, char *err, size_t errsize)
{
    char *entry = NULL, *text = NULL, *step_file = NULL;
    pipe_cache_hit *h = NULL;
    int rc = 0;
    *hit = NULL;
    if (!is_hex_key(key)) {
        pipe_errf(err, errsize, "bad cache key `%s`", key);
        return PIPE_EINVAL;
    }
    if (!(entry = pipe_asprintf("%s/cache/%s", store, key)))
        return PIPE_ENOMEM;
    rc = pipe_read_file_max(entry, PIPE_RECORD_MAX_BYTES, &text, NULL, err, errsize);
    if (rc == PIPE_ENOENT) {
        pipe_errf(why, whysize, "no cache entry");
        rc = 0;
        goto fail;
    }
    if (rc != 0)
        goto fail;
    text[strcspn(text, "\r\n")] = '\0';
    char *run, *inv;
    if (!split_from(text, &run, &inv)) {
        pipe_errf(why, whysize, "cache entry %s is malformed", entry);
        goto fail;
    }
    if (!(h = calloc(1, sizeof *h)) || !(h->from = pipe_strdup(text))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    char *slash = strchr(text, '/');
    *slash = '\0';
    step_file = pipe_store_step_file(store, text, slash + 1);
    *slash = '/';
    if (!step_file) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    char rerr[512];
    int r = pipe_step_record_read(step_file, &h->record, rerr, sizeof rerr);
    if (r == PIPE_ENOMEM) {
        rc = r;
        goto fail;
    }
    if (r != 0) {
        pipe_errf(why, whysize, "%s: %s", h->from, rerr);
        goto fail;
    }
    if (h->record->status != PIPE_STEP_DONE) {
        pipe_errf(why, whysize, "%s is %s, not done", h->from, pipe_step_status_name(h->record->status));
        goto fail;
    }
    /* A record written after its run's last durable point (commit.h) may
       name outputs that a crash took: read them all again. */
    *slash = '\0';
    bool durable = pipe_commit_durable(store, text, slash + 1);
    *slash = '/';
    for (size_t i = 0; i < noutputs; i++) {
        const pipe_step_artifact *a = pipe_step_record_output(h->record, outputs[i]);
        if (!a || !a->sha256) {
            pipe_errf(why, whysize, "%s has no output `%s`", h->from, outputs[i]);
            goto fail;
        }
        /* The file where it lies now, whatever path the record holds. */
        *slash = '\0';
        char *path = pipe_store_output_path(store, text, slash + 1, outputs[i]);
        *slash = '/';
        if (!path) {
            rc = PIPE_ENOMEM;
            goto fail;
        }
        char hex[PIPE_SHA256_HEX_SIZE];
        /* A durable file with the size and time it had when hashed is
           trusted, unless asked to verify; anything else is read. */
        if (!verify && durable && pipe_step_artifact_unchanged(a, path))
            r = (snprintf(hex, sizeof hex, "%s", a->sha256), 0);
        else
            r = pipe_artifact_digest(path, hex, rerr, sizeof rerr);
        if (r == 0 && strcmp(hex, a->sha256) != 0) {
            pipe_errf(why, whysize, "output `%s` of %s changed since it was recorded", outputs[i], h->from);
            r = 1;
        } else if (r != 0) {
            pipe_errf(why, whysize, "output `%s` of %s is gone: %s", outputs[i], h->from, rerr);
        }
        /* Point the record's path at the file that was verified. */
        if (r == 0) {
            pipe_step_artifact *m = (pipe_step_artifact *)a;
            free(m->path);
            m->path = path;
        } else {
            free(path);
        }
        if (r != 0)
            goto fail;
    }
    *hit = h;
    h = NULL;
fail:
    pipe_cache_hit_free(h);
    free(step_file);
    free(text);
    free(entry);
    return rc;
}

int pipe_link_or_copy(const char *src, const char *dst, bool deferred, char *err, size_t errsize)
{
    int rc = 0;
    struct stat st;
    if (stat(src, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* A folder artifact (a command step's output): a copy of the tree. */
        char rerr[256];
        pipe_remove_tree(dst, rerr, sizeof rerr);
        return pipe_artifact_copy_folder(src, dst, deferred, err, errsize);
    }
    char *tmp = NULL;
    const char *slash = strrchr(dst, '/');
    if (slash)
        tmp = pipe_asprintf("%.*s/.%s.tmp.%ld", (int)(slash - dst), dst, slash + 1, (long)getpid());
    else
        tmp = pipe_asprintf(".%s.tmp.%ld", dst, (long)getpid());
    if (!tmp)
        return PIPE_ENOMEM;
    unlink(tmp);
    if ((rc = pipe_artifact_link(src, tmp, err, errsize)) != 0)
        goto fail;
    if (rename(tmp, dst) != 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", dst, strerror(errno));
        rc = PIPE_EIO;
    }
fail:
    /* Also after success: rename(2) leaves both names when they are links
       to the same file (dst was already a link to src). */
    unlink(tmp);
    free(tmp);
    return rc;
}

int pipe_cache_record(const char *store, const char *key, const char *run_id, const char *invocation, char *err,
                      size_t errsize)
{
    char *dir = NULL, *path = NULL, *text = NULL;
    int rc = 0;
    if (!is_hex_key(key)) {
        pipe_errf(err, errsize, "bad cache key `%s`", key);
        return PIPE_EINVAL;
    }
    dir = pipe_store_cache_dir(store);
    path = pipe_asprintf("%s/cache/%s", store, key);
    text = pipe_asprintf("%s/%s\n", run_id, invocation);
    if (!dir || !path || !text) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    if ((rc = pipe_mkdirs(dir, err, errsize)) != 0)
        goto fail;
    /* Not fsynced: an entry lost or damaged in a crash is a miss, and a hit
       is checked against the step.yaml and the outputs it names. */
    rc = pipe_write_file_hint(path, text, strlen(text), err, errsize);
fail:
    free(text);
    free(path);
    free(dir);
    return rc;
}

char *pipe_cache_entry(const char *store, const char *key)
{
    char *path = is_hex_key(key) ? pipe_asprintf("%s/cache/%s", store, key) : NULL, *text = NULL;
    if (path && pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &text, NULL, NULL, 0) == 0)
        text[strcspn(text, "\r\n")] = '\0';
    free(path);
    return text;
}

/* A pipeline's or an invocation's name as one path component. */
static bool safe_component(const char *s)
{
    return s && s[0] && s[0] != '.' && !strchr(s, '/');
}

static char *last_path(const char *store, const char *pipeline, const char *invocation)
{
    if (!safe_component(pipeline) || !safe_component(invocation))
        return NULL;
    return pipe_asprintf("%s/cache/last/%s/%s", store, pipeline, invocation);
}

int pipe_cache_record_last(const char *store, const char *pipeline, const char *run_id, const char *invocation,
                           char *err, size_t errsize)
{
    if (!safe_component(pipeline) || !safe_component(invocation))
        return 0; /* no name to file it under: nothing to compare with later */
    char *path = last_path(store, pipeline, invocation), *text = pipe_asprintf("%s/%s\n", run_id, invocation);
    char *slash = path ? strrchr(path, '/') : NULL;
    int rc = path && text ? 0 : PIPE_ENOMEM;
    if (rc == 0) {
        *slash = '\0';
        rc = pipe_mkdirs(path, err, errsize);
        *slash = '/';
    }
    /* As a cache entry: losing it in a crash only loses the explanation. */
    if (rc == 0)
        rc = pipe_write_file_hint(path, text, strlen(text), err, errsize);
    free(text);
    free(path);
    return rc;
}

int pipe_cache_last(const char *store, const char *pipeline, const char *invocation, pipe_step_record **rec,
                    char **from)
{
    char *path = last_path(store, pipeline, invocation), *text = NULL, *step_file = NULL, *run, *inv;
    *rec = NULL;
    *from = NULL;
    if (!path)
        return safe_component(pipeline) && safe_component(invocation) ? PIPE_ENOMEM : 0;
    int rc = pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &text, NULL, NULL, 0);
    free(path);
    if (rc != 0)
        return rc == PIPE_ENOMEM ? rc : 0;
    text[strcspn(text, "\r\n")] = '\0';
    if (split_from(text, &run, &inv)) {
        char *slash = strchr(text, '/');
        *slash = '\0';
        step_file = pipe_store_step_file(store, run, inv);
        *slash = '/';
        rc = step_file ? pipe_step_record_read(step_file, rec, NULL, 0) : PIPE_ENOMEM;
        if (rc == 0 && (*rec)->status != PIPE_STEP_DONE) {
            pipe_step_record_free(*rec);
            *rec = NULL;
        }
        if (*rec && !(*from = pipe_strdup(text))) {
            pipe_step_record_free(*rec);
            *rec = NULL;
            rc = PIPE_ENOMEM;
        }
    }
    free(step_file);
    free(text);
    return rc == PIPE_ENOMEM ? rc : 0;
}
