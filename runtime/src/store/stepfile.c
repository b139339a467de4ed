#include "stepfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commit.h"
#include "pipe/error.h"
#include "pipe/yaml_write.h"
#include "util/util.h"
#include "format/yamlio.h"

const char *pipe_step_status_name(pipe_step_status status)
{
    switch (status) {
    case PIPE_STEP_DONE: return "done";
    case PIPE_STEP_CACHED: return "cached";
    case PIPE_STEP_FAILED: return "failed";
    case PIPE_STEP_INTERRUPTED: return "interrupted";
    }
    return "failed";
}

bool pipe_step_status_succeeded(pipe_step_status status)
{
    return status == PIPE_STEP_DONE || status == PIPE_STEP_CACHED;
}

int pipe_step_status_parse(const char *text, pipe_step_status *out)
{
    static const pipe_step_status all[] = {PIPE_STEP_DONE, PIPE_STEP_CACHED, PIPE_STEP_FAILED, PIPE_STEP_INTERRUPTED};
    for (size_t i = 0; text && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, pipe_step_status_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return PIPE_EFORMAT;
}

static void emit_artifacts(pipe_yw *w, const char *key, const pipe_step_artifact *a, size_t n)
{
    pipe_yw_plain(w, key);
    pipe_yw_map_begin(w, n == 0);
    for (size_t i = 0; i < n; i++) {
        pipe_yw_plain(w, a[i].name);
        pipe_yw_map_begin(w, true);
        pipe_yw_key_plain(w, "path", a[i].path);
        if (a[i].sha256)
            pipe_yw_key_plain(w, "sha256", a[i].sha256);
        if (a[i].size >= 0 && a[i].mtime_ns >= 0) {
            char num[32];
            snprintf(num, sizeof num, "%" PRId64, a[i].size);
            pipe_yw_key_plain(w, "size", num);
            snprintf(num, sizeof num, "%" PRId64, a[i].mtime_ns);
            pipe_yw_key_plain(w, "mtime_ns", num);
        }
        pipe_yw_map_end(w);
    }
    pipe_yw_map_end(w);
}

int pipe_step_record_format(const pipe_step_record *r, char **text, size_t *len, char *err, size_t errsize)
{
    pipe_yw w;
    char num[64];
    if (pipe_yw_begin(&w) != 0)
        return PIPE_ENOMEM;
    pipe_yw_map_begin(&w, false);
    pipe_yw_key_plain(&w, "invocation", r->invocation);
    pipe_yw_key_plain(&w, "step", r->step);
    pipe_yw_key_plain(&w, "run_id", r->run_id);
    pipe_yw_key_plain(&w, "status", pipe_step_status_name(r->status));
    if (r->has_exit_code) {
        snprintf(num, sizeof num, "%d", r->exit_code);
        pipe_yw_key_plain(&w, "exit_code", num);
    }
    if (r->signal)
        pipe_yw_key_plain(&w, "signal", r->signal);
    if (r->error)
        pipe_yw_key_quoted(&w, "error", r->error);
    snprintf(num, sizeof num, "%d", r->attempts);
    pipe_yw_key_plain(&w, "attempts", num);
    if (r->started)
        pipe_yw_key_plain(&w, "started", r->started);
    if (r->finished)
        pipe_yw_key_plain(&w, "finished", r->finished);
    snprintf(num, sizeof num, "%.3f", r->duration_s);
    pipe_yw_key_plain(&w, "duration_s", num);
    if (r->cache_key)
        pipe_yw_key_plain(&w, "cache_key", r->cache_key);
    if (r->cached_from)
        pipe_yw_key_plain(&w, "cached_from", r->cached_from);
    if (r->code_digest)
        pipe_yw_key_plain(&w, "code_digest", r->code_digest);
    if (r->rerun)
        pipe_yw_key_quoted(&w, "rerun", r->rerun);
    if (r->rerun_of)
        pipe_yw_key_plain(&w, "rerun_of", r->rerun_of);
    pipe_yw_plain(&w, "params");
    pipe_yw_map_begin(&w, true);
    for (size_t i = 0; i < r->nparams; i++)
        pipe_yw_key_quoted(&w, r->params[i].key, r->params[i].value);
    pipe_yw_map_end(&w);
    if (r->nkey_parts > 0) {
        pipe_yw_plain(&w, "key_parts");
        pipe_yw_map_begin(&w, false);
        for (size_t i = 0; i < r->nkey_parts; i++)
            pipe_yw_key_quoted(&w, r->key_parts[i].key, r->key_parts[i].value);
        pipe_yw_map_end(&w);
    }
    emit_artifacts(&w, "inputs", r->inputs, r->ninputs);
    emit_artifacts(&w, "outputs", r->outputs, r->noutputs);
    /* Last, and in flow style: a record cut anywhere lacks it, lacks its
       final newline or does not parse (whole_record). */
    pipe_yw_plain(&w, "metrics");
    pipe_yw_map_begin(&w, true);
    for (size_t i = 0; i < r->nmetrics; i++) {
        pipe_format_double(r->metrics[i].value, num, sizeof num);
        pipe_yw_key_plain(&w, r->metrics[i].name, num);
    }
    pipe_yw_map_end(&w);
    pipe_yw_map_end(&w);
    return pipe_yw_finish(&w, text, len, err, errsize);
}

int pipe_step_record_write(const char *path, const pipe_step_record *r, bool deferred, char *err, size_t errsize)
{
    char *text = NULL;
    size_t len = 0;
    int rc = pipe_step_record_format(r, &text, &len, err, errsize);
    if (rc == 0)
        rc = pipe_write_file_replace(path, text, len, !deferred, err, errsize);
    free(text);
    return rc;
}

static void free_kvs(pipe_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(kv[i].key);
        free(kv[i].value);
    }
    free(kv);
}

void pipe_step_record_free(pipe_step_record *r)
{
    if (!r)
        return;
    free(r->invocation);
    free(r->step);
    free(r->run_id);
    free(r->signal);
    free(r->error);
    free(r->started);
    free(r->finished);
    free(r->cache_key);
    free(r->cached_from);
    free(r->code_digest);
    free(r->rerun);
    free(r->rerun_of);
    free_kvs(r->params, r->nparams);
    free_kvs(r->key_parts, r->nkey_parts);
    for (size_t i = 0; i < r->ninputs; i++) {
        free(r->inputs[i].name);
        free(r->inputs[i].path);
        free(r->inputs[i].sha256);
    }
    free(r->inputs);
    for (size_t i = 0; i < r->noutputs; i++) {
        free(r->outputs[i].name);
        free(r->outputs[i].path);
        free(r->outputs[i].sha256);
    }
    free(r->outputs);
    for (size_t i = 0; i < r->nmetrics; i++)
        free(r->metrics[i].name);
    free(r->metrics);
    free(r);
}

static const pipe_step_artifact *find_artifact(const pipe_step_artifact *a, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i].name, name) == 0)
            return &a[i];
    return NULL;
}

const pipe_step_artifact *pipe_step_record_output(const pipe_step_record *r, const char *name)
{
    return r ? find_artifact(r->outputs, r->noutputs, name) : NULL;
}

const pipe_step_artifact *pipe_step_record_input(const pipe_step_record *r, const char *name)
{
    return r ? find_artifact(r->inputs, r->ninputs, name) : NULL;
}

/* Appends one zeroed element to arr (n elements), pointing out at it; out
   is NULL when memory runs out. */
#define PUSH(arr, n, out)                                                 \
    do {                                                                  \
        void *grown_ = realloc((arr), ((n) + 1) * sizeof *(arr));          \
        (out) = NULL;                                                     \
        if (!grown_)                                                      \
            break;                                                        \
        (arr) = grown_;                                                   \
        memset(&(arr)[n], 0, sizeof *(arr));                              \
        (out) = &(arr)[(n)++];                                            \
    } while (0)

static int add_kv(pipe_kv **items, size_t *n, const char *name, const char *value)
{
    char *k = pipe_strdup(name), *v = pipe_strdup(value ? value : "");
    pipe_kv *kv = NULL;
    if (k && v)
        PUSH(*items, *n, kv);
    if (!kv) {
        free(k);
        free(v);
        return PIPE_ENOMEM;
    }
    kv->key = k;
    kv->value = v;
    return 0;
}

int pipe_step_record_add_param(pipe_step_record *r, const char *name, const char *value)
{
    return add_kv(&r->params, &r->nparams, name, value);
}

int pipe_step_record_add_key_part(pipe_step_record *r, const char *name, const char *value)
{
    return add_kv(&r->key_parts, &r->nkey_parts, name, value);
}

static int add_artifact(pipe_step_artifact **items, size_t *n, const char *name, const char *path, const char *sha)
{
    char *nm = pipe_strdup(name), *p = pipe_strdup(path ? path : ""), *s = sha ? pipe_strdup(sha) : NULL;
    pipe_step_artifact *a = NULL;
    if (nm && p && (s || !sha))
        PUSH(*items, *n, a);
    if (!a) {
        free(nm);
        free(p);
        free(s);
        return PIPE_ENOMEM;
    }
    a->name = nm;
    a->path = p;
    a->sha256 = s;
    a->size = a->mtime_ns = -1;
    return 0;
}

void pipe_step_artifact_stamp(pipe_step_artifact *a, const char *path)
{
    struct stat st;
    bool file = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    a->size = file ? (int64_t)st.st_size : -1;
    a->mtime_ns = file ? (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec : -1;
}

bool pipe_step_artifact_unchanged(const pipe_step_artifact *a, const char *path)
{
    if (a->size < 0 || a->mtime_ns < 0)
        return false;
    pipe_step_artifact now = {0};
    pipe_step_artifact_stamp(&now, path);
    return now.size == a->size && now.mtime_ns == a->mtime_ns;
}

int pipe_step_record_add_input(pipe_step_record *r, const char *name, const char *path, const char *sha256)
{
    return add_artifact(&r->inputs, &r->ninputs, name, path, sha256);
}

int pipe_step_record_add_output(pipe_step_record *r, const char *name, const char *path, const char *sha256)
{
    return add_artifact(&r->outputs, &r->noutputs, name, path, sha256);
}

int pipe_step_record_set_metric(pipe_step_record *r, const char *name, double value)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0) {
            r->metrics[i].value = value;
            return 0;
        }
    char *nm = pipe_strdup(name);
    pipe_step_metric *m = NULL;
    if (nm)
        PUSH(r->metrics, r->nmetrics, m);
    if (!m) {
        free(nm);
        return PIPE_ENOMEM;
    }
    m->name = nm;
    m->value = value;
    return 0;
}

/* Parsing. */

typedef struct reader {
    pipe_yr yr;
    const char *what;
    char *err;
    size_t errsize;
} reader;

static int bad(reader *rd, yaml_node_t *node, const char *key, const char *problem)
{
    pipe_errf(rd->err, rd->errsize, "%s:%d: `%s` %s", rd->what, pipe_yr_line(node), key, problem);
    return PIPE_EFORMAT;
}

/* An optional string field. */
static int opt_text(reader *rd, yaml_node_t *root, const char *key, char **out)
{
    yaml_node_t *n = pipe_yr_get(&rd->yr, root, key);
    if (!n)
        return 0;
    const char *t = pipe_yr_text(n);
    if (!t)
        return bad(rd, n, key, "must be a scalar");
    *out = pipe_strdup(t);
    return *out ? 0 : PIPE_ENOMEM;
}

static int parse_int(reader *rd, yaml_node_t *n, const char *key, int *out)
{
    const char *t = pipe_yr_text(n);
    char *end;
    errno = 0;
    long v = t ? strtol(t, &end, 10) : 0;
    if (!t || !*t || *end || errno || v < -2147483647L || v > 2147483647L)
        return bad(rd, n, key, "must be an integer");
    *out = (int)v;
    return 0;
}

static int parse_int64(reader *rd, yaml_node_t *n, const char *key, int64_t *out)
{
    const char *t = pipe_yr_text(n);
    char *end;
    errno = 0;
    long long v = t ? strtoll(t, &end, 10) : 0;
    if (!t || !*t || *end || errno || v < 0)
        return bad(rd, n, key, "must be a whole number of at least 0");
    *out = (int64_t)v;
    return 0;
}

static int parse_double(reader *rd, yaml_node_t *n, const char *key, double *out)
{
    const char *t = pipe_yr_text(n);
    char *end;
    if (!t || !*t)
        return bad(rd, n, key, "must be a number");
    /* YAML's spellings of the special values, and strtod's. */
    if (strcmp(t, ".nan") == 0 || strcmp(t, ".NaN") == 0)
        t = "nan";
    else if (strcmp(t, ".inf") == 0 || strcmp(t, ".Inf") == 0)
        t = "inf";
    else if (strcmp(t, "-.inf") == 0 || strcmp(t, "-.Inf") == 0)
        t = "-inf";
    double v = strtod(t, &end);
    if (*end)
        return bad(rd, n, key, "must be a number");
    *out = v;
    return 0;
}

static bool is_empty(yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.length == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int parse_artifacts(reader *rd, yaml_node_t *root, const char *key, pipe_step_artifact **items, size_t *n)
{
    yaml_node_t *map = pipe_yr_get(&rd->yr, root, key);
    if (!map || is_empty(map))
        return 0;
    if (map->type != YAML_MAPPING_NODE)
        return bad(rd, map, key, "must be a mapping of names to {path, sha256}");
    yaml_node_t *k, *v;
    for (size_t i = 0; pipe_yr_pair(&rd->yr, map, i, &k, &v); i++) {
        const char *name = pipe_yr_text(k);
        const char *path = pipe_yr_text(pipe_yr_get(&rd->yr, v, "path"));
        yaml_node_t *shan = pipe_yr_get(&rd->yr, v, "sha256");
        const char *sha = pipe_yr_text(shan);
        if (!name || v->type != YAML_MAPPING_NODE || !path || (shan && !sha))
            return bad(rd, v, key, "entries must be {path: PATH, sha256: HEX}");
        int rc = add_artifact(items, n, name, path, sha);
        if (rc != 0)
            return rc;
        /* Optional: a file's size and modification time when it was hashed. */
        yaml_node_t *size = pipe_yr_get(&rd->yr, v, "size"), *mtime = pipe_yr_get(&rd->yr, v, "mtime_ns");
        if (size && mtime) {
            pipe_step_artifact *a = &(*items)[*n - 1];
            if ((rc = parse_int64(rd, size, "size", &a->size)) != 0 ||
                (rc = parse_int64(rd, mtime, "mtime_ns", &a->mtime_ns)) != 0)
                return rc;
        }
    }
    return 0;
}

/* A mapping of names to scalars (params, key_parts), absent or empty when none. */
static int parse_texts(reader *rd, yaml_node_t *root, const char *key, pipe_kv **items, size_t *n)
{
    yaml_node_t *map = pipe_yr_get(&rd->yr, root, key), *k, *v;
    if (!map || is_empty(map))
        return 0;
    if (map->type != YAML_MAPPING_NODE)
        return bad(rd, map, key, "must be a mapping of names to values");
    for (size_t i = 0; pipe_yr_pair(&rd->yr, map, i, &k, &v); i++) {
        if (!pipe_yr_text(k) || !pipe_yr_text(v))
            return bad(rd, v, key, "values must be scalars");
        int rc = add_kv(items, n, pipe_yr_text(k), pipe_yr_text(v));
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int parse_record(reader *rd, pipe_step_record *r)
{
    yaml_node_t *root = pipe_yr_root(&rd->yr), *n;
    int rc;
    const char *required[] = {"invocation", "status"};
    for (size_t i = 0; i < 2; i++)
        if (!pipe_yr_get(&rd->yr, root, required[i])) {
            pipe_errf(rd->err, rd->errsize, "%s: missing key `%s`", rd->what, required[i]);
            return PIPE_EFORMAT;
        }
    if ((rc = opt_text(rd, root, "invocation", &r->invocation)) != 0 ||
        (rc = opt_text(rd, root, "step", &r->step)) != 0 || (rc = opt_text(rd, root, "run_id", &r->run_id)) != 0 ||
        (rc = opt_text(rd, root, "signal", &r->signal)) != 0 || (rc = opt_text(rd, root, "error", &r->error)) != 0 ||
        (rc = opt_text(rd, root, "started", &r->started)) != 0 ||
        (rc = opt_text(rd, root, "finished", &r->finished)) != 0 ||
        (rc = opt_text(rd, root, "cache_key", &r->cache_key)) != 0 ||
        (rc = opt_text(rd, root, "cached_from", &r->cached_from)) != 0 ||
        (rc = opt_text(rd, root, "code_digest", &r->code_digest)) != 0 ||
        (rc = opt_text(rd, root, "rerun", &r->rerun)) != 0 || (rc = opt_text(rd, root, "rerun_of", &r->rerun_of)) != 0)
        return rc;
    n = pipe_yr_get(&rd->yr, root, "status");
    if (pipe_step_status_parse(pipe_yr_text(n), &r->status) != 0)
        return bad(rd, n, "status", "must be done, cached, failed or interrupted");
    if ((n = pipe_yr_get(&rd->yr, root, "exit_code")) != NULL) {
        if ((rc = parse_int(rd, n, "exit_code", &r->exit_code)) != 0)
            return rc;
        r->has_exit_code = true;
    }
    if ((n = pipe_yr_get(&rd->yr, root, "attempts")) != NULL && (rc = parse_int(rd, n, "attempts", &r->attempts)) != 0)
        return rc;
    if ((n = pipe_yr_get(&rd->yr, root, "duration_s")) != NULL &&
        (rc = parse_double(rd, n, "duration_s", &r->duration_s)) != 0)
        return rc;

    yaml_node_t *k, *v;
    if ((rc = parse_texts(rd, root, "params", &r->params, &r->nparams)) != 0 ||
        (rc = parse_texts(rd, root, "key_parts", &r->key_parts, &r->nkey_parts)) != 0)
        return rc;
    if ((rc = parse_artifacts(rd, root, "inputs", &r->inputs, &r->ninputs)) != 0 ||
        (rc = parse_artifacts(rd, root, "outputs", &r->outputs, &r->noutputs)) != 0)
        return rc;
    n = pipe_yr_get(&rd->yr, root, "metrics");
    if (n && !is_empty(n)) {
        if (n->type != YAML_MAPPING_NODE)
            return bad(rd, n, "metrics", "must be a mapping of names to numbers");
        for (size_t i = 0; pipe_yr_pair(&rd->yr, n, i, &k, &v); i++) {
            double value;
            if (!pipe_yr_text(k))
                return bad(rd, k, "metrics", "names must be scalars");
            if ((rc = parse_double(rd, v, "metrics", &value)) != 0)
                return rc;
            if ((rc = pipe_step_record_set_metric(r, pipe_yr_text(k), value)) != 0)
                return rc;
        }
    }
    return 0;
}

/* A record that says done or cached must be whole: what a crash, a full
   disk or a copy cut short leaves must not pass for a finished step. The
   writer ends every record with `metrics` and a newline. */
static int whole_record(reader *rd, const char *text, size_t len, const pipe_step_record *r)
{
    if (r->status != PIPE_STEP_DONE && r->status != PIPE_STEP_CACHED)
        return 0;
    const char *why = NULL;
    if (len == 0 || text[len - 1] != '\n')
        why = "its last line is cut short";
    else if (!pipe_yr_get(&rd->yr, pipe_yr_root(&rd->yr), "metrics"))
        why = "it ends before `metrics`, a record's last key";
    if (!why)
        return 0;
    pipe_errf(rd->err, rd->errsize, "%s says %s but is not whole: %s", rd->what, pipe_step_status_name(r->status),
              why);
    return PIPE_EFORMAT;
}

int pipe_step_record_parse(const char *text, size_t len, pipe_step_record **out, char *err, size_t errsize)
{
    return pipe_step_record_parse_named(text, len, "step.yaml", out, err, errsize);
}

int pipe_step_record_parse_named(const char *text, size_t len, const char *what, pipe_step_record **out, char *err,
                                 size_t errsize)
{
    reader rd = {.what = what, .err = err, .errsize = errsize};
    *out = NULL;
    int rc = pipe_yr_load(&rd.yr, text, len, what, err, errsize);
    if (rc != 0)
        return rc;
    pipe_step_record *r = calloc(1, sizeof *r);
    if (!r) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    if ((rc = parse_record(&rd, r)) != 0 || (rc = whole_record(&rd, text, len, r)) != 0)
        goto fail;
    *out = r;
    r = NULL;
fail:
    pipe_step_record_free(r);
    pipe_yr_free(&rd.yr);
    return rc;
}

int pipe_step_record_read(const char *path, pipe_step_record **out, char *err, size_t errsize)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    int rc = pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &text, &len, err, errsize);
    if (rc == 0)
        rc = pipe_step_record_parse_named(text, len, path, out, err, errsize);
    free(text);
    return rc;
}
