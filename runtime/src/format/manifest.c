/* Reads the launch manifest (docs/bundle-manifest.md) into pipe_manifest.
   The YAML becomes a tree first (yaml_tree.c); this file walks it with the
   schema, so that every error names the line and the key path at fault:
   "line 12: invocations[1].needs[0]: unknown invocation `splitt`". */
#include "pipe/manifest.h"

#include "pipe/settings.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "pipe/error.h"
#include "util/util.h"
#include "yaml_tree.h"

#define PATH_SIZE 256

typedef struct mp {
    char *err;
    size_t errsize;
} mp;

static int fail_at(mp *p, int line, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail_at(mp *p, int line, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pipe_errf(p->err, p->errsize, "line %d: %s: %s", line, path, msg);
    return PIPE_EFORMAT;
}

/* Key paths for messages; a path too long to hold ends in "...". */
static void mark_truncated(char *buf, int n)
{
    if (n >= PATH_SIZE)
        memcpy(buf + PATH_SIZE - 4, "...", 4);
}

static void join(char *buf, const char *path, const char *key)
{
    mark_truncated(buf, snprintf(buf, PATH_SIZE, "%s%s%s", path, *path ? "." : "", key));
}

static void index_path(char *buf, const char *path, size_t i)
{
    mark_truncated(buf, snprintf(buf, PATH_SIZE, "%s[%zu]", path, i));
}

static const char *node_kind(const pipe_ynode *n)
{
    return n->type == PIPE_YMAP ? "a mapping" : n->type == PIPE_YSEQ ? "a list" : "a scalar";
}

/* ---- typed values ---- */

static int scalar_text(mp *p, const pipe_ynode *v, const char *path, const char **out)
{
    if (v->type != PIPE_YSCALAR)
        return fail_at(p, v->line, path, "expected a scalar, found %s", node_kind(v));
    if (!(*out = pipe_ynode_str(v)))
        return fail_at(p, v->line, path, "contains a NUL byte");
    return 0;
}

static int need_map(mp *p, const pipe_ynode *v, const char *path)
{
    return v->type == PIPE_YMAP ? 0 : fail_at(p, v->line, path, "expected a mapping, found %s", node_kind(v));
}

static int need_seq(mp *p, const pipe_ynode *v, const char *path)
{
    return v->type == PIPE_YSEQ ? 0 : fail_at(p, v->line, path, "expected a list, found %s", node_kind(v));
}

/* The value for key, NULL when absent or null; an error when required. */
static int lookup(mp *p, const pipe_ynode *map, const char *key, const char *path, bool required,
                  const pipe_ynode **out, char *kp)
{
    join(kp, path, key);
    const pipe_ynode *v = pipe_ymap_get(map, key);
    if (v && pipe_ynode_is_null(v))
        v = NULL;
    if (!v && required)
        return fail_at(p, map->line, kp, "required key is missing");
    *out = v;
    return 0;
}

/* A key's scalar: its node, its text (NULL when the key is absent or
   null), its path for messages. */
typedef struct scalar {
    const pipe_ynode *node;
    const char *text;
    char path[PATH_SIZE];
} scalar;

static int find_scalar(mp *p, const pipe_ynode *map, const char *key, const char *path, bool required, scalar *f)
{
    int rc;
    f->text = NULL;
    if ((rc = lookup(p, map, key, path, required, &f->node, f->path)) != 0 || !f->node)
        return rc;
    return scalar_text(p, f->node, f->path, &f->text);
}

static int get_str(mp *p, const pipe_ynode *map, const char *key, const char *path, bool required, char **out)
{
    scalar f;
    int rc;
    *out = NULL;
    if ((rc = find_scalar(p, map, key, path, required, &f)) != 0 || !f.text)
        return rc;
    if (required && *f.text == '\0')
        return fail_at(p, f.node->line, f.path, "must not be empty");
    return (*out = pipe_strdup(f.text)) ? 0 : PIPE_ENOMEM;
}

static int get_bool(mp *p, const pipe_ynode *map, const char *key, const char *path, bool dflt, bool *out)
{
    scalar f;
    int rc;
    *out = dflt;
    if ((rc = find_scalar(p, map, key, path, false, &f)) != 0 || !f.text)
        return rc;
    if (strcmp(f.text, "true") == 0)
        *out = true;
    else if (strcmp(f.text, "false") == 0)
        *out = false;
    else
        return fail_at(p, f.node->line, f.path, "`%s` is not a bool (true or false)", f.text);
    return 0;
}

static int get_i64(mp *p, const pipe_ynode *map, const char *key, const char *path, int64_t dflt, int64_t min,
                   int64_t max, int64_t *out)
{
    scalar f;
    int rc;
    *out = dflt;
    if ((rc = find_scalar(p, map, key, path, false, &f)) != 0 || !f.text)
        return rc;
    errno = 0;
    char *end;
    long long x = strtoll(f.text, &end, 10);
    if (!pipe_all_digits(f.text[0] == '-' ? f.text + 1 : f.text) || *end || errno == ERANGE)
        return fail_at(p, f.node->line, f.path, "`%s` is not an integer", f.text);
    if (x < min || x > max)
        return fail_at(p, f.node->line, f.path, "%lld is out of range (%lld to %lld)", x, (long long)min,
                       (long long)max);
    *out = x;
    return 0;
}

static int get_u64(mp *p, const pipe_ynode *map, const char *key, const char *path, uint64_t dflt, uint64_t *out)
{
    scalar f;
    int rc;
    *out = dflt;
    if ((rc = find_scalar(p, map, key, path, false, &f)) != 0 || !f.text)
        return rc;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(f.text, &end, 10);
    if (!pipe_all_digits(f.text) || *end || errno == ERANGE)
        return fail_at(p, f.node->line, f.path, "`%s` is not a non-negative integer", f.text);
    *out = x;
    return 0;
}

static int get_double(mp *p, const pipe_ynode *map, const char *key, const char *path, double *out)
{
    scalar f;
    int rc;
    *out = 0;
    if ((rc = find_scalar(p, map, key, path, false, &f)) != 0 || !f.text)
        return rc;
    char *end;
    double x = strtod(f.text, &end);
    if (!*f.text || isspace((unsigned char)*f.text) || *end || !isfinite(x) || x < 0)
        return fail_at(p, f.node->line, f.path, "`%s` is not a non-negative number", f.text);
    *out = x;
    return 0;
}

/* A list or a mapping under key; NULL when absent. */
static int get_container(mp *p, const pipe_ynode *map, const char *key, const char *path, bool required,
                         pipe_ytype type, const pipe_ynode **out)
{
    char kp[PATH_SIZE];
    int rc;
    if ((rc = lookup(p, map, key, path, required, out, kp)) != 0 || !*out)
        return rc;
    return type == PIPE_YSEQ ? need_seq(p, *out, kp) : need_map(p, *out, kp);
}

/* ---- names ---- */

static bool is_identifier(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* Invocation ids name directories: one safe path component. */
static bool is_safe_component(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128 || s[0] == '.' || s[0] == '-')
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.'))
            return false;
    return true;
}

static int get_name(mp *p, const pipe_ynode *map, const char *key, const char *path, bool safe_component, char **out)
{
    int rc = get_str(p, map, key, path, true, out);
    if (rc)
        return rc;
    if (safe_component ? !is_safe_component(*out) : !is_identifier(*out)) {
        char kp[PATH_SIZE];
        join(kp, path, key);
        return fail_at(p, pipe_ymap_get(map, key)->line, kp,
                       safe_component ? "`%s` is not a valid id (letters, digits, `_`, `-`, `.`)"
                                      : "`%s` is not an identifier",
                       *out);
    }
    return 0;
}

static int parse_scalar_type(const char *s, pipe_type *t)
{
    static const struct {
        const char *name;
        pipe_type type;
    } types[] = {{"int", PIPE_TYPE_INT}, {"float", PIPE_TYPE_FLOAT}, {"bool", PIPE_TYPE_BOOL}, {"string", PIPE_TYPE_STRING}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(s, types[i].name) == 0) {
            *t = types[i].type;
            return 0;
        }
    }
    return -1;
}

const char *pipe_type_name(pipe_type t)
{
    switch (t) {
    case PIPE_TYPE_INT: return "int";
    case PIPE_TYPE_FLOAT: return "float";
    case PIPE_TYPE_BOOL: return "bool";
    case PIPE_TYPE_STRING: return "string";
    case PIPE_TYPE_ARTIFACT: return "artifact";
    }
    return "?";
}

/* Validates text as a value of type t and replaces it by its canonical form. */
static int canonicalize(mp *p, int line, const char *path, pipe_type t, char **text)
{
    char *canon = pipe_value_canonical(t, *text);
    if (!canon)
        return fail_at(p, line, path, "`%s` is not a valid %s", *text, pipe_type_name(t));
    free(*text);
    *text = canon;
    return 0;
}

/* ---- parameters (pipeline and step) ---- */

static int parse_param(mp *p, const pipe_ynode *node, const char *path, bool allow_artifact, pipe_mparam *out)
{
    int rc;
    bool artifact = false;
    if ((rc = need_map(p, node, path)) != 0 || (rc = get_name(p, node, "name", path, false, &out->name)) != 0 ||
        (rc = get_str(p, node, "type", path, true, &out->type_name)) != 0)
        return rc;
    if (allow_artifact && (rc = get_bool(p, node, "artifact", path, false, &artifact)) != 0)
        return rc;
    char kp[PATH_SIZE];
    if (artifact) {
        out->type = PIPE_TYPE_ARTIFACT;
        const pipe_ynode *d = pipe_ymap_get(node, "default");
        if (d && !pipe_ynode_is_null(d)) {
            join(kp, path, "default");
            return fail_at(p, d->line, kp, "an artifact parameter has no default");
        }
        return 0;
    }
    if (parse_scalar_type(out->type_name, &out->type) != 0) {
        join(kp, path, "type");
        return fail_at(p, pipe_ymap_get(node, "type")->line, kp, "unknown type `%s` (int, float, bool or string%s)",
                       out->type_name, allow_artifact ? ", or `artifact: true`" : "");
    }
    if ((rc = get_str(p, node, "default", path, false, &out->default_value)) != 0)
        return rc;
    if (out->default_value) {
        join(kp, path, "default");
        return canonicalize(p, pipe_ymap_get(node, "default")->line, kp, out->type, &out->default_value);
    }
    return 0;
}

static int parse_params(mp *p, const pipe_ynode *parent, const char *path, bool allow_artifact, pipe_mparam **out,
                        size_t *n)
{
    const pipe_ynode *seq;
    char kp[PATH_SIZE], ip[PATH_SIZE];
    int rc;
    if ((rc = get_container(p, parent, "params", path, false, PIPE_YSEQ, &seq)) != 0 || !seq || seq->n == 0)
        return rc;
    join(kp, path, "params");
    if (!(*out = calloc(seq->n, sizeof **out)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < seq->n; i++) {
        *n = i + 1;
        index_path(ip, kp, i);
        if ((rc = parse_param(p, seq->items[i], ip, allow_artifact, &(*out)[i])) != 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp((*out)[j].name, (*out)[i].name) == 0)
                return fail_at(p, seq->items[i]->line, ip, "parameter `%s` is declared twice", (*out)[i].name);
    }
    return 0;
}

/* ---- steps ---- */

/* A mapping of strings under key (an environment: names without `=`). */
static int parse_kv_map(mp *p, const pipe_ynode *parent, const char *key, const char *path, bool env_names,
                        pipe_kv **out, size_t *n)
{
    const pipe_ynode *map;
    char kp[PATH_SIZE], ep[PATH_SIZE];
    int rc;
    if ((rc = get_container(p, parent, key, path, false, PIPE_YMAP, &map)) != 0 || !map)
        return rc;
    join(kp, path, key);
    size_t count = pipe_ymap_size(map);
    if (count == 0)
        return 0;
    if (!(*out = calloc(count, sizeof **out)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < count; i++) {
        const pipe_ynode *k = pipe_ymap_key(map, i), *v = pipe_ymap_value(map, i);
        const char *name, *value;
        if ((rc = scalar_text(p, k, kp, &name)) != 0)
            return rc;
        join(ep, kp, name);
        if (!*name || (env_names && strchr(name, '=')))
            return fail_at(p, k->line, ep, env_names ? "not a valid environment variable name" : "empty key");
        if (pipe_ynode_is_null(v))
            value = "";
        else if ((rc = scalar_text(p, v, ep, &value)) != 0)
            return rc;
        *n = i + 1;
        if (!((*out)[i].key = pipe_strdup(name)) || !((*out)[i].value = pipe_strdup(value)))
            return PIPE_ENOMEM;
    }
    return 0;
}

static int parse_environment(mp *p, const pipe_ynode *parent, const char *path, pipe_kv **out, size_t *n)
{
    return parse_kv_map(p, parent, "environment", path, true, out, n);
}

/* A list of strings under key; absent is empty. */
static int parse_str_list(mp *p, const pipe_ynode *parent, const char *key, const char *path, char ***out, size_t *n)
{
    const pipe_ynode *seq;
    char kp[PATH_SIZE], ip[PATH_SIZE];
    int rc;
    if ((rc = get_container(p, parent, key, path, false, PIPE_YSEQ, &seq)) != 0 || !seq || seq->n == 0)
        return rc;
    join(kp, path, key);
    if (!(*out = calloc(seq->n, sizeof **out)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < seq->n; i++) {
        const char *text;
        index_path(ip, kp, i);
        if ((rc = scalar_text(p, seq->items[i], ip, &text)) != 0)
            return rc;
        *n = i + 1;
        if (!((*out)[i] = pipe_strdup(text)))
            return PIPE_ENOMEM;
    }
    return 0;
}

/* How a number or bool is written (canonical text of a .pipe literal):
   anything else written plain is a string YAML did not need to quote. */
static bool is_number_or_bool(const char *s)
{
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
        return true;
    if (*s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    return *end == '\0';
}

/* A value passed through as written: quoted scalars are strings. */
static int parse_mvalue(mp *p, const pipe_ynode *v, const char *path, int depth, pipe_mvalue *out)
{
    char ip[PATH_SIZE];
    int rc;
    if (depth > PIPE_YAML_MAX_DEPTH)
        return fail_at(p, v->line, path, "nested too deeply");
    if (v->type == PIPE_YSCALAR) {
        const char *text;
        if ((rc = scalar_text(p, v, path, &text)) != 0)
            return rc;
        out->kind = v->plain && is_number_or_bool(text) ? PIPE_MV_SCALAR : PIPE_MV_STRING;
        return (out->text = pipe_strdup(text)) ? 0 : PIPE_ENOMEM;
    }
    out->kind = v->type == PIPE_YSEQ ? PIPE_MV_LIST : PIPE_MV_MAP;
    size_t n = v->type == PIPE_YSEQ ? v->n : pipe_ymap_size(v);
    if (n == 0)
        return 0;
    if (!(out->items = calloc(n, sizeof *out->items)) ||
        (out->kind == PIPE_MV_MAP && !(out->keys = calloc(n, sizeof *out->keys))))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        out->n = i + 1;
        if (out->kind == PIPE_MV_LIST) {
            index_path(ip, path, i);
            if ((rc = parse_mvalue(p, v->items[i], ip, depth + 1, &out->items[i])) != 0)
                return rc;
            continue;
        }
        const char *key;
        if ((rc = scalar_text(p, pipe_ymap_key(v, i), path, &key)) != 0)
            return rc;
        join(ip, path, key);
        if (!(out->keys[i] = pipe_strdup(key)))
            return PIPE_ENOMEM;
        if ((rc = parse_mvalue(p, pipe_ymap_value(v, i), ip, depth + 1, &out->items[i])) != 0)
            return rc;
    }
    return 0;
}

/* A folder inside the bundle: relative, without `..`. */
static bool is_bundle_path(const char *s)
{
    if (!*s || s[0] == '/')
        return false;
    for (const char *seg = s; *seg;) {
        size_t n = strcspn(seg, "/");
        if (n == 0 || (n == 2 && strncmp(seg, "..", 2) == 0))
            return false;
        seg += n + (seg[n] == '/');
    }
    return true;
}

/* A native step has an `entry`; a command step (`command` parsed) has its
   `workdir` and no entry. */
static int parse_kind_fields(mp *p, const pipe_ynode *node, const char *path, pipe_mstep *s)
{
    char kp[PATH_SIZE];
    int rc;
    if (s->ncommand == 0)
        return get_name(p, node, "entry", path, false, &s->entry);
    if (pipe_ymap_get(node, "entry")) {
        join(kp, path, "entry");
        return fail_at(p, pipe_ymap_get(node, "entry")->line, kp, "a command step has no entry");
    }
    if ((rc = get_str(p, node, "workdir", path, true, &s->workdir)) != 0)
        return rc;
    if (!is_bundle_path(s->workdir)) {
        join(kp, path, "workdir");
        return fail_at(p, pipe_ymap_get(node, "workdir")->line, kp,
                       "`%s` is not a folder inside the bundle (relative, without `..`)", s->workdir);
    }
    return 0;
}

static int parse_step(mp *p, const pipe_ynode *node, const char *path, pipe_mstep *s)
{
    int rc;
    const pipe_ynode *outs;
    char kp[PATH_SIZE], ip[PATH_SIZE];
    if ((rc = need_map(p, node, path)) != 0 || (rc = get_name(p, node, "name", path, false, &s->name)) != 0 ||
        (rc = parse_str_list(p, node, "command", path, &s->command, &s->ncommand)) != 0 ||
        (rc = parse_kind_fields(p, node, path, s)) != 0 ||
        (rc = get_str(p, node, "code_digest", path, true, &s->code_digest)) != 0 ||
        (rc = get_str(p, node, "description", path, false, &s->description)) != 0 ||
        (rc = get_bool(p, node, "cache", path, true, &s->cache)) != 0 ||
        (rc = get_bool(p, node, "needs_cuda", path, false, &s->needs_cuda)) != 0 ||
        (rc = parse_params(p, node, path, true, &s->params, &s->nparams)) != 0 ||
        (rc = parse_environment(p, node, path, &s->environment, &s->nenvironment)) != 0 ||
        (rc = parse_str_list(p, node, "sources", path, &s->sources, &s->nsources)) != 0 ||
        (rc = parse_str_list(p, node, "libraries", path, &s->libraries, &s->nlibraries)) != 0 ||
        (rc = get_container(p, node, "outputs", path, false, PIPE_YSEQ, &outs)) != 0)
        return rc;
    if (!outs || outs->n == 0)
        return 0;
    join(kp, path, "outputs");
    if (!(s->outputs = calloc(outs->n, sizeof *s->outputs)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < outs->n; i++) {
        const pipe_ynode *o = outs->items[i];
        s->noutputs = i + 1;
        index_path(ip, kp, i);
        if ((rc = need_map(p, o, ip)) != 0 || (rc = get_name(p, o, "name", ip, false, &s->outputs[i].name)) != 0 ||
            (rc = get_str(p, o, "type", ip, true, &s->outputs[i].type_name)) != 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->outputs[j].name, s->outputs[i].name) == 0)
                return fail_at(p, o->line, ip, "output `%s` is declared twice", s->outputs[i].name);
    }
    return 0;
}

/* ---- invocations ---- */

static int find_step(const pipe_manifest *m, const char *name)
{
    for (size_t i = 0; i < m->nsteps; i++)
        if (strcmp(m->steps[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Index of an invocation listed before `limit`, or -1. */
static int find_earlier(const pipe_manifest *m, size_t limit, const char *id)
{
    for (size_t i = 0; i < limit; i++)
        if (strcmp(m->invocations[i].id, id) == 0)
            return (int)i;
    return -1;
}

static int find_later(const pipe_manifest *m, const pipe_ynode *invs, size_t from, const char *id)
{
    for (size_t i = from; i < invs->n; i++) {
        const char *other = pipe_ynode_str(pipe_ymap_get(invs->items[i], "id"));
        if (other && strcmp(other, id) == 0)
            return (int)i;
    }
    (void)m;
    return -1;
}

/* An invocation id listed before index `self` (a topological order). */
static int resolve_earlier(mp *p, const pipe_manifest *m, const pipe_ynode *invs, size_t self, const pipe_ynode *v,
                           const char *path, int *out)
{
    const char *id;
    int rc;
    if ((rc = scalar_text(p, v, path, &id)) != 0)
        return rc;
    int k = find_earlier(m, self, id);
    if (k >= 0) {
        *out = k;
        return 0;
    }
    if (strcmp(id, m->invocations[self].id) == 0)
        return fail_at(p, v->line, path, "invocation `%s` cannot depend on itself", id);
    if (find_later(m, invs, self + 1, id) >= 0)
        return fail_at(p, v->line, path, "`%s` is listed after `%s` (invocations must be in a topological order)", id,
                       m->invocations[self].id);
    return fail_at(p, v->line, path, "unknown invocation `%s`", id);
}

static int parse_arg(mp *p, pipe_manifest *m, const pipe_ynode *invs, size_t self, const pipe_mstep *step,
                     size_t index, const pipe_ynode *node, const char *path, pipe_marg *a)
{
    int rc;
    char kp[PATH_SIZE];
    const pipe_mparam *sp = &step->params[index];
    pipe_minvocation *inv = &m->invocations[self];
    if ((rc = need_map(p, node, path)) != 0 || (rc = get_name(p, node, "name", path, false, &a->name)) != 0)
        return rc;
    if (strcmp(a->name, sp->name) != 0) {
        join(kp, path, "name");
        return fail_at(p, pipe_ymap_get(node, "name")->line, kp,
                       "expected argument `%s` (parameter %zu of step %s), found `%s`", sp->name, index + 1,
                       step->name, a->name);
    }
    static const char *const kinds[] = {"default", "value", "param", "artifact"};
    int kind = -1, count = 0;
    for (int k = 0; k < 4; k++) {
        const pipe_ynode *v = pipe_ymap_get(node, kinds[k]);
        if (v && !pipe_ynode_is_null(v)) {
            kind = k;
            count++;
        }
    }
    if (count != 1)
        return fail_at(p, node->line, path, "argument `%s` needs exactly one of `artifact`, `param`, `value`, `default`",
                       a->name);
    a->kind = (pipe_arg_kind)kind;
    a->producer = -1;
    a->output = -1;
    if ((rc = get_str(p, node, kinds[kind], path, false, &a->value)) != 0)
        return rc;
    join(kp, path, kinds[kind]);
    int line = pipe_ymap_get(node, kinds[kind])->line;
    if (sp->type == PIPE_TYPE_ARTIFACT && a->kind != PIPE_ARG_ARTIFACT)
        return fail_at(p, line, kp, "parameter `%s` of step %s is an artifact (%s): it needs `artifact` and `output`",
                       sp->name, step->name, sp->type_name);
    switch (a->kind) {
    case PIPE_ARG_DEFAULT:
    case PIPE_ARG_VALUE: return canonicalize(p, line, kp, sp->type, &a->value);
    case PIPE_ARG_PARAM: {
        size_t i;
        for (i = 0; i < m->nparams; i++)
            if (strcmp(m->params[i].name, a->value) == 0)
                break;
        if (i == m->nparams)
            return fail_at(p, line, kp, "unknown pipeline parameter `%s`", a->value);
        pipe_type pt = m->params[i].type;
        if (pt != sp->type && !(pt == PIPE_TYPE_INT && sp->type == PIPE_TYPE_FLOAT))
            return fail_at(p, line, kp, "pipeline parameter `%s` is %s, parameter `%s` of step %s is %s", a->value,
                           pipe_type_name(pt), sp->name, step->name, pipe_type_name(sp->type));
        return 0;
    }
    case PIPE_ARG_ARTIFACT: {
        if (sp->type != PIPE_TYPE_ARTIFACT)
            return fail_at(p, line, kp, "parameter `%s` of step %s is %s, not an artifact", sp->name, step->name,
                           pipe_type_name(sp->type));
        int producer;
        if ((rc = resolve_earlier(p, m, invs, self, pipe_ymap_get(node, "artifact"), kp, &producer)) != 0)
            return rc;
        bool needed = false;
        for (size_t i = 0; i < inv->nneeds; i++)
            needed |= inv->needs[i] == producer;
        if (!needed)
            return fail_at(p, line, kp, "producer `%s` is not listed in `needs`", a->value);
        char *output = NULL;
        if ((rc = get_str(p, node, "output", path, true, &output)) != 0)
            return rc;
        const pipe_mstep *ps = &m->steps[m->invocations[producer].step];
        for (size_t i = 0; i < ps->noutputs; i++)
            if (strcmp(ps->outputs[i].name, output) == 0)
                a->output = (int)i;
        if (a->output < 0) {
            join(kp, path, "output");
            rc = fail_at(p, pipe_ymap_get(node, "output")->line, kp, "step %s (invocation `%s`) has no output `%s`",
                         ps->name, a->value, output);
            free(output);
            return rc;
        }
        free(output);
        a->producer = producer;
        return 0;
    }
    }
    return 0;
}

/* ---- an invocation's settings, by the settings table (pipe/settings.h) ---- */

/* The option's value when its decorator applies and the key is missing. */
static int set_default(const pipe_option *o, pipe_minvocation *inv)
{
    pipe_value v = pipe_option_initial(o, false);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_STRING: {
        char **field = pipe_option_field(o, inv);
        free(*field);
        *field = NULL;
        if (v.s && !(*field = pipe_strdup(v.s)))
            return PIPE_ENOMEM;
        break;
    }
    case PIPE_CTYPE_MFILE: {
        pipe_mfile *file = pipe_option_field(o, inv);
        free(file->path);
        free(file->sha256);
        memset(file, 0, sizeof *file);
        break;
    }
    case PIPE_CTYPE_DOUBLE:
    case PIPE_CTYPE_INT64:
    case PIPE_CTYPE_UINT64:
    case PIPE_CTYPE_BOOL: pipe_option_store(o, inv, v); break;
    case PIPE_CTYPE_STRINGS:
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
    case PIPE_CTYPE_MVALUE: break;
    }
    return 0;
}

static bool is_sha256_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
            return false;
    return n == 2 * PIPE_SHA256_SIZE;
}

/* A file option: {path: ..., sha256: ...}, the digest of its content as
   pipec read it. */
static int parse_file(mp *p, const pipe_ynode *v, const char *path, pipe_mfile *out)
{
    int rc;
    char *file_path = NULL, *sha = NULL, kp[PATH_SIZE];
    if ((rc = need_map(p, v, path)) != 0 || (rc = get_str(p, v, "path", path, true, &file_path)) != 0 ||
        (rc = get_str(p, v, "sha256", path, true, &sha)) != 0) {
        free(file_path);
        return rc;
    }
    if (!is_sha256_hex(sha)) {
        join(kp, path, "sha256");
        rc = fail_at(p, pipe_ymap_get(v, "sha256")->line, kp, "`%s` is not a SHA-256 in lower-case hex", sha);
        free(file_path);
        free(sha);
        return rc;
    }
    free(out->path);
    free(out->sha256);
    out->path = file_path;
    out->sha256 = sha;
    return 0;
}

/* A number of an option out of its range: as the runtime's other numbers say it. */
static int out_of_range(mp *p, int line, const char *path, const pipe_option *o, unsigned long long v)
{
    if (pipe_option_has_max(o))
        return fail_at(p, line, path, "%llu is out of range (%llu to %llu)", v, (unsigned long long)o->min,
                       (unsigned long long)o->max);
    return fail_at(p, line, path, "%llu is out of range (at least %llu)", v, (unsigned long long)o->min);
}

/* One option's key of map (the section, or the invocation itself) into its
   field; a missing key leaves the field as it is. */
static int parse_option(mp *p, const pipe_ynode *map, const char *path, const pipe_option *o, pipe_minvocation *inv)
{
    const pipe_ynode *v = pipe_ymap_get(map, o->key);
    char kp[PATH_SIZE];
    int rc;
    if (!v || pipe_ynode_is_null(v))
        return 0;
    join(kp, path, o->key);
    void *field = pipe_option_field(o, inv);
    pipe_value x = pipe_option_load(o, inv);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE:
        if ((rc = get_double(p, map, o->key, path, &x.num)) != 0)
            return rc;
        break;
    case PIPE_CTYPE_INT64:
        if ((rc = get_i64(p, map, o->key, path, x.i, (int64_t)o->min, (int64_t)o->max, &x.i)) != 0)
            return rc;
        break;
    case PIPE_CTYPE_UINT64:
        if ((rc = get_u64(p, map, o->key, path, x.u, &x.u)) != 0)
            return rc;
        if (!pipe_option_in_range(o, x))
            return out_of_range(p, v->line, kp, o, x.u);
        break;
    case PIPE_CTYPE_BOOL:
        if ((rc = get_bool(p, map, o->key, path, x.b, &x.b)) != 0)
            return rc;
        break;
    case PIPE_CTYPE_STRINGS: return parse_str_list(p, map, o->key, path, field, pipe_option_count(o, inv));
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
        return parse_kv_map(p, map, o->key, path, pipe_option_ctype(o) == PIPE_CTYPE_ENV, field,
                            pipe_option_count(o, inv));
    case PIPE_CTYPE_MVALUE:
        if ((rc = need_seq(p, v, kp)) != 0)
            return rc;
        pipe_mvalue_free(field);
        return parse_mvalue(p, v, kp, 0, field);
    case PIPE_CTYPE_MFILE: return parse_file(p, v, kp, field);
    case PIPE_CTYPE_STRING: {
        char *text = NULL;
        if ((rc = get_str(p, map, o->key, path, false, &text)) != 0)
            return rc;
        free(*(char **)field);
        *(char **)field = text;
        if (!o->values)
            return 0;
        for (size_t k = 0; o->values[k]; k++)
            if (strcmp(o->values[k], text) == 0)
                return 0;
        char allowed[256] = "";
        for (size_t k = 0; o->values[k]; k++)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", k ? ", " : "",
                     o->values[k]);
        return fail_at(p, v->line, kp, "`%s` is not one of %s", text, allowed);
    }
    }
    pipe_option_store(o, inv, x);
    return 0;
}

/* A decorator's fields: from its mapping when it has one (present: the
   decorator applies, and its missing keys take their defaults), else from
   the invocation's own keys. Which options were written (`given`) is which
   keys are there. */
static int parse_decorator(mp *p, const pipe_ynode *node, const char *path, const pipe_decorator_info *d,
                           pipe_minvocation *inv)
{
    const pipe_ynode *map = node;
    char kp[PATH_SIZE];
    int rc;
    if (d->presence_key) {
        bool present;
        if ((rc = get_bool(p, node, d->presence_key, path, false, &present)) != 0)
            return rc;
        memcpy((char *)inv + d->presence, &present, sizeof present);
    }
    strcpy(kp, path);
    if (d->section) {
        if ((rc = get_container(p, node, d->section, path, false, PIPE_YMAP, &map)) != 0 || !map)
            return rc;
        join(kp, path, d->section);
        bool present = true;
        if (d->presence != PIPE_NO_FIELD)
            memcpy((char *)inv + d->presence, &present, sizeof present);
        for (int i = 0; i < d->noptions; i++)
            if ((rc = set_default(&d->options[i], inv)) != 0)
                return rc;
    }
    unsigned given = 0;
    for (int i = 0; i < d->noptions; i++) {
        const pipe_ynode *v = pipe_ymap_get(map, d->options[i].key);
        if (v && !pipe_ynode_is_null(v))
            given |= 1u << i;
        if ((rc = parse_option(p, map, kp, &d->options[i], inv)) != 0)
            return rc;
    }
    if (d->given != PIPE_NO_FIELD)
        memcpy((char *)inv + d->given, &given, sizeof given);
    return 0;
}

/* The rules across options that the launcher relies on. */
static int check_settings(mp *p, const pipe_ynode *node, const char *path, const pipe_minvocation *inv)
{
    const pipe_accelerate *a = &inv->accelerate;
    if (a->enabled && a->num_processes % a->num_machines != 0) {
        char np[PATH_SIZE];
        join(np, path, "accelerate.num_processes");
        return fail_at(p, pipe_ymap_get(node, "accelerate")->line, np, "%lld is not a multiple of num_machines (%lld)",
                       (long long)a->num_processes, (long long)a->num_machines);
    }
    return 0;
}

static int parse_settings(mp *p, const pipe_ynode *node, const char *path, pipe_minvocation *inv)
{
    int rc;
    if ((rc = pipe_settings_init(inv)) != 0)
        return rc;
    for (int d = 0; d < PIPE_DEC_COUNT; d++)
        if ((rc = parse_decorator(p, node, path, pipe_decorator_in_manifest_order(d), inv)) != 0)
            return rc;
    return check_settings(p, node, path, inv);
}

static int parse_invocation(mp *p, pipe_manifest *m, const pipe_ynode *invs, size_t self, const char *path)
{
    const pipe_ynode *node = invs->items[self], *needs, *args;
    pipe_minvocation *inv = &m->invocations[self];
    char *step_name = NULL;
    char kp[PATH_SIZE], ip[PATH_SIZE];
    int rc;
    inv->step = -1;
    if ((rc = need_map(p, node, path)) != 0 || (rc = get_name(p, node, "id", path, true, &inv->id)) != 0)
        return rc;
    if (find_earlier(m, self, inv->id) >= 0)
        return fail_at(p, pipe_ymap_get(node, "id")->line, path, "invocation `%s` is listed twice", inv->id);
    if ((rc = get_str(p, node, "step", path, true, &step_name)) != 0)
        return rc;
    inv->step = find_step(m, step_name);
    if (inv->step < 0) {
        join(kp, path, "step");
        rc = fail_at(p, pipe_ymap_get(node, "step")->line, kp, "unknown step `%s`", step_name);
        free(step_name);
        return rc;
    }
    free(step_name);
    const pipe_mstep *step = &m->steps[inv->step];

    if ((rc = get_container(p, node, "needs", path, false, PIPE_YSEQ, &needs)) != 0)
        return rc;
    if (needs && needs->n > 0) {
        join(kp, path, "needs");
        if (!(inv->needs = calloc(needs->n, sizeof *inv->needs)))
            return PIPE_ENOMEM;
        for (size_t i = 0; i < needs->n; i++) {
            index_path(ip, kp, i);
            if ((rc = resolve_earlier(p, m, invs, self, needs->items[i], ip, &inv->needs[i])) != 0)
                return rc;
            for (size_t j = 0; j < i; j++)
                if (inv->needs[j] == inv->needs[i])
                    return fail_at(p, needs->items[i]->line, ip, "`%s` is listed twice",
                                   m->invocations[inv->needs[i]].id);
            inv->nneeds = i + 1;
        }
    }

    if ((rc = get_container(p, node, "args", path, step->nparams > 0, PIPE_YSEQ, &args)) != 0)
        return rc;
    size_t nargs = args ? args->n : 0;
    join(kp, path, "args");
    if (nargs != step->nparams)
        return fail_at(p, args ? args->line : node->line, kp,
                       "expected %zu argument%s (one per parameter of step %s), found %zu", step->nparams,
                       step->nparams == 1 ? "" : "s", step->name, nargs);
    if (nargs > 0 && !(inv->args = calloc(nargs, sizeof *inv->args)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < nargs; i++) {
        inv->nargs = i + 1;
        index_path(ip, kp, i);
        if ((rc = parse_arg(p, m, invs, self, step, i, args->items[i], ip, &inv->args[i])) != 0)
            return rc;
    }

    return parse_settings(p, node, path, inv);
}

/* ---- the document ---- */

static int parse_root(mp *p, const pipe_ynode *root, pipe_manifest *m)
{
    const pipe_ynode *steps, *invs;
    char ip[PATH_SIZE];
    int64_t version;
    int rc;
    if (!root)
        return fail_at(p, 1, "manifest", "the manifest is empty");
    if (root->type != PIPE_YMAP)
        return fail_at(p, root->line, "manifest", "expected a mapping at the top, found %s", node_kind(root));
    const pipe_ynode *vnode = pipe_ymap_get(root, "manifest_version");
    if (!vnode || pipe_ynode_is_null(vnode))
        return fail_at(p, root->line, "manifest_version", "required key is missing");
    if ((rc = get_i64(p, root, "manifest_version", "", 0, INT32_MIN, INT32_MAX, &version)) != 0)
        return rc;
    if (version != PIPE_MANIFEST_VERSION)
        return fail_at(p, vnode->line, "manifest_version", "version %lld is not supported (this runtime reads %d)",
                       (long long)version, PIPE_MANIFEST_VERSION);
    m->version = (int)version;
    if ((rc = get_name(p, root, "pipeline", "", false, &m->pipeline)) != 0 ||
        (rc = get_str(p, root, "source", "", false, &m->source)) != 0 ||
        (rc = parse_params(p, root, "", false, &m->params, &m->nparams)) != 0 ||
        (rc = get_container(p, root, "steps", "", true, PIPE_YSEQ, &steps)) != 0 ||
        (rc = get_container(p, root, "invocations", "", true, PIPE_YSEQ, &invs)) != 0)
        return rc;

    if (steps->n > 0 && !(m->steps = calloc(steps->n, sizeof *m->steps)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < steps->n; i++) {
        m->nsteps = i + 1;
        index_path(ip, "steps", i);
        if ((rc = parse_step(p, steps->items[i], ip, &m->steps[i])) != 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->steps[j].name, m->steps[i].name) == 0)
                return fail_at(p, steps->items[i]->line, ip, "step `%s` is listed twice", m->steps[i].name);
    }

    if (invs->n == 0)
        return fail_at(p, invs->line, "invocations", "the pipeline has no invocations");
    if (!(m->invocations = calloc(invs->n, sizeof *m->invocations)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < invs->n; i++) {
        m->ninvocations = i + 1;
        index_path(ip, "invocations", i);
        if ((rc = parse_invocation(p, m, invs, i, ip)) != 0)
            return rc;
    }
    return 0;
}

int pipe_manifest_parse(const char *text, size_t len, pipe_manifest **out, char *err, size_t errsize)
{
    mp p = {err, errsize};
    pipe_ynode *root = NULL;
    pipe_manifest *m = NULL;
    int rc;
    *out = NULL;
    if (!text) {
        pipe_errf(err, errsize, "no manifest");
        return PIPE_EINVAL;
    }
    if ((rc = pipe_yaml_load(text, len, &root, err, errsize)) != 0)
        goto fail;
    if (!(m = calloc(1, sizeof *m))) {
        rc = PIPE_ENOMEM;
        goto fail;
    }
    if ((rc = parse_root(&p, root, m)) != 0)
        goto fail;
    pipe_ynode_free(root);
    *out = m;
    return 0;

fail:
    if (rc == PIPE_ENOMEM)
        pipe_errf(err, errsize, "out of memory");
    pipe_ynode_free(root);
    pipe_manifest_free(m);
    return rc;
}

static void free_params(pipe_mparam *params, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(params[i].name);
        free(params[i].type_name);
        free(params[i].default_value);
    }
    free(params);
}

static void free_kvs(pipe_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(kv[i].key);
        free(kv[i].value);
    }
    free(kv);
}

static void free_strs(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

static void free_invocation(pipe_minvocation *inv)
{
    free(inv->id);
    for (size_t j = 0; j < inv->nargs; j++) {
        free(inv->args[j].name);
        free(inv->args[j].value);
    }
    free(inv->args);
    free(inv->needs);
    pipe_settings_free(inv);
}

void pipe_manifest_free(pipe_manifest *m)
{
    if (!m)
        return;
    free(m->pipeline);
    free(m->source);
    free_params(m->params, m->nparams);
    for (size_t i = 0; i < m->nsteps; i++) {
        pipe_mstep *s = &m->steps[i];
        free(s->name);
        free(s->entry);
        free(s->code_digest);
        free(s->description);
        free_params(s->params, s->nparams);
        for (size_t j = 0; j < s->noutputs; j++) {
            free(s->outputs[j].name);
            free(s->outputs[j].type_name);
        }
        free(s->outputs);
        free_kvs(s->environment, s->nenvironment);
        free_strs(s->sources, s->nsources);
        free_strs(s->libraries, s->nlibraries);
        free_strs(s->command, s->ncommand);
        free(s->workdir);
    }
    free(m->steps);
    for (size_t i = 0; i < m->ninvocations; i++)
        free_invocation(&m->invocations[i]);
    free(m->invocations);
    free(m);
}

int pipe_manifest_find_invocation(const pipe_manifest *m, const char *id)
{
    for (size_t i = 0; i < m->ninvocations; i++)
        if (strcmp(m->invocations[i].id, id) == 0)
            return (int)i;
    return PIPE_ENOENT;
}

size_t pipe_type_size(pipe_type t)
{
    switch (t) {
    case PIPE_TYPE_INT: return sizeof(int64_t);
    case PIPE_TYPE_FLOAT: return sizeof(double);
    case PIPE_TYPE_BOOL: return sizeof(bool);
    case PIPE_TYPE_STRING:
    case PIPE_TYPE_ARTIFACT: return sizeof(const char *);
    }
    return 0;
}
