/* The cache key's parts and why two keys differ (cache_key.h). */
#include "cache_key.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/textbuf.h"
#include "util/util.h"

/* ---- the parts ---- */

/* Whether another option has o's name. For an option of the key only the
   others of the key count, so that adding one outside it (@slurm(gpu_type))
   renames no part and changes no key; one outside the key, never a part,
   is told apart from every other (for the names of a diff). */
static bool name_shared(const pipe_option *o)
{
    int n = 0;
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)d);
        for (int i = 0; i < info->noptions; i++)
            n += (info->options[i].keyed || !o->keyed) && strcmp(info->options[i].name, o->name) == 0;
    }
    return n > 1;
}

void pipe_cache_part_name(const pipe_option *o, char *buf, size_t size)
{
    const pipe_decorator_info *d = pipe_option_decorator(o);
    if (d && name_shared(o))
        snprintf(buf, size, "%s.%s", d->name, o->name);
    else
        snprintf(buf, size, "%s", o->name);
}

/* A value passed through (tolerations) as JSON: strings quoted, other
   scalars as written. */
static void mvalue_json(pipe_textbuf *b, const pipe_mvalue *v)
{
    switch (v->kind) {
    case PIPE_MV_STRING: pipe_tb_json_str(b, v->text); break;
    case PIPE_MV_SCALAR: pipe_tb_puts(b, v->text ? v->text : "null"); break;
    case PIPE_MV_LIST:
    case PIPE_MV_MAP:
        pipe_tb_puts(b, v->kind == PIPE_MV_LIST ? "[" : "{");
        for (size_t i = 0; i < v->n; i++) {
            pipe_tb_puts(b, i ? ", " : "");
            if (v->kind == PIPE_MV_MAP && v->keys) {
                pipe_tb_json_str(b, v->keys[i]);
                pipe_tb_puts(b, ": ");
            }
            mvalue_json(b, &v->items[i]);
        }
        pipe_tb_puts(b, v->kind == PIPE_MV_LIST ? "]" : "}");
        break;
    }
}

char *pipe_cache_option_text(const pipe_option *o, const pipe_minvocation *inv)
{
    pipe_textbuf b = {0};
    pipe_value v = pipe_option_load(o, inv);
    const void *field = pipe_option_cfield(o, inv);
    size_t n = pipe_option_ccount(o, inv);
    char num[64] = ""; /* a scalar's text */
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE:
    case PIPE_CTYPE_INT64:
    case PIPE_CTYPE_UINT64:
    case PIPE_CTYPE_BOOL: pipe_option_text(o, v, num, sizeof num); break;
    case PIPE_CTYPE_STRING: pipe_tb_puts(&b, v.s ? v.s : ""); break;
    case PIPE_CTYPE_STRINGS:
        pipe_tb_puts(&b, "[");
        for (size_t i = 0; i < n; i++) {
            pipe_tb_puts(&b, i ? ", " : "");
            pipe_tb_json_str(&b, (*(char *const *const *)field)[i]);
        }
        pipe_tb_puts(&b, "]");
        break;
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
        pipe_tb_puts(&b, "{");
        for (size_t i = 0; i < n; i++) {
            const pipe_kv *kv = &(*(const pipe_kv *const *)field)[i];
            pipe_tb_puts(&b, i ? ", " : "");
            pipe_tb_json_str(&b, kv->key);
            pipe_tb_puts(&b, ": ");
            pipe_tb_json_str(&b, kv->value);
        }
        pipe_tb_puts(&b, "}");
        break;
    case PIPE_CTYPE_MVALUE: mvalue_json(&b, field); break;
    /* By content: a file edited in place changes the key, a file moved does not. */
    case PIPE_CTYPE_MFILE: {
        const char *sha = ((const pipe_mfile *)field)->sha256;
        pipe_tb_puts(&b, "sha256:");
        pipe_tb_puts(&b, sha ? sha : "");
        break;
    }
    }
    pipe_tb_puts(&b, num);
    return pipe_tb_take(&b, NULL);
}

int pipe_cache_key_parts(const pipe_mstep *ms, const pipe_minvocation *inv, const char *device,
                         pipe_step_record *rec)
{
    int rc = 0;
    if (ms->code_digest && !(rec->code_digest = pipe_strdup(ms->code_digest)))
        return PIPE_ENOMEM;
    for (int d = 0; rc == 0 && d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)d);
        for (int i = 0; rc == 0 && i < info->noptions; i++) {
            const pipe_option *o = &info->options[i];
            if (!o->keyed || !pipe_option_is_set(o, inv))
                continue;
            char name[128], *text = pipe_cache_option_text(o, inv);
            pipe_cache_part_name(o, name, sizeof name);
            rc = text ? pipe_step_record_add_key_part(rec, name, text) : PIPE_ENOMEM;
            free(text);
        }
    }
    for (size_t i = 0; rc == 0 && i < ms->nenvironment; i++) {
        char *name = pipe_asprintf("env.%s", ms->environment[i].key);
        rc = name ? pipe_step_record_add_key_part(rec, name, ms->environment[i].value) : PIPE_ENOMEM;
        free(name);
    }
    if (rc == 0)
        rc = pipe_step_record_add_key_part(rec, "device", device ? device : "cpu");
    return rc;
}

/* ---- what differs ---- */

/* The text of a part that one side lacks: an unset option's zero, an
   unset variable. */
static const char *absent_text(const char *name)
{
    if (strncmp(name, "env.", 4) == 0)
        return "unset";
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)d);
        for (int i = 0; i < info->noptions; i++) {
            char part[128];
            pipe_cache_part_name(&info->options[i], part, sizeof part);
            if (strcmp(part, name) != 0)
                continue;
            const pipe_option *o = &info->options[i];
            static char zero[64]; /* a scalar's zero as the key writes it */
            switch (pipe_option_ctype(o)) {
            case PIPE_CTYPE_DOUBLE:
            case PIPE_CTYPE_INT64:
            case PIPE_CTYPE_UINT64:
            case PIPE_CTYPE_BOOL: pipe_option_text(o, (pipe_value){0}, zero, sizeof zero); return zero;
            case PIPE_CTYPE_STRINGS:
            case PIPE_CTYPE_MVALUE: return "[]";
            case PIPE_CTYPE_KVS:
            case PIPE_CTYPE_ENV: return "{}";
            case PIPE_CTYPE_STRING:
            case PIPE_CTYPE_MFILE: return "none";
            }
        }
    }
    return "none";
}

typedef struct diff {
    char *buf;
    size_t size, used, count;
} diff;

/* A value short enough for one line: its first bytes (whole UTF-8
   characters) and "...". */
static void shorten(const char *s, char *out, size_t size)
{
    enum { MOST = 48 };
    size_t n = strlen(s);
    if (n <= MOST) {
        snprintf(out, size, "%s", s);
        return;
    }
    n = MOST - 3;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    snprintf(out, size, "%.*s...", (int)n, s);
}

static void add(diff *d, const char *what, const char *name, const char *was, const char *is)
{
    if (d->count++ >= PIPE_CACHE_DIFF_LISTED || d->used >= d->size)
        return;
    char a[64], b[64];
    int n;
    if (was && is) {
        shorten(was, a, sizeof a);
        shorten(is, b, sizeof b);
        n = snprintf(d->buf + d->used, d->size - d->used, "%s%s%s changed (%s -> %s)", d->used ? "; " : "", what,
                     name, a, b);
    } else {
        n = snprintf(d->buf + d->used, d->size - d->used, "%s%s%s changed", d->used ? "; " : "", what, name);
    }
    d->used = n < 0 ? d->size : d->used + (size_t)n;
}

static const char *kv_find(const pipe_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0)
            return kv[i].value;
    return NULL;
}

static bool same(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* Named values, now's order first then what only before has; absent
   values read as absent(name). */
static void compare_kvs(diff *d, const char *what, const pipe_kv *now, size_t nnow, const pipe_kv *before,
                        size_t nbefore, const char *(*absent)(const char *))
{
    for (size_t i = 0; i < nnow; i++) {
        const char *was = kv_find(before, nbefore, now[i].key);
        if (!same(was, now[i].value))
            add(d, what, now[i].key, was ? was : absent(now[i].key), now[i].value);
    }
    for (size_t i = 0; i < nbefore; i++)
        if (!kv_find(now, nnow, before[i].key))
            add(d, what, before[i].key, before[i].value, absent(before[i].key));
}

static const char *none(const char *name)
{
    (void)name;
    return "none";
}

size_t pipe_cache_key_diff(const pipe_step_record *now, const pipe_step_record *before, char *buf, size_t size)
{
    diff d = {buf, size, 0, 0};
    if (size)
        buf[0] = '\0';
    if (!same(now->code_digest, before->code_digest))
        add(&d, "code", "", NULL, NULL);
    compare_kvs(&d, "parameter ", now->params, now->nparams, before->params, before->nparams, none);
    for (size_t i = 0; i < now->ninputs; i++) {
        const pipe_step_artifact *b = pipe_step_record_input(before, now->inputs[i].name);
        if (!b || !same(b->sha256, now->inputs[i].sha256))
            add(&d, "input ", now->inputs[i].name, NULL, NULL);
    }
    for (size_t i = 0; i < before->ninputs; i++)
        if (!pipe_step_record_input(now, before->inputs[i].name))
            add(&d, "input ", before->inputs[i].name, NULL, NULL);
    compare_kvs(&d, "", now->key_parts, now->nkey_parts, before->key_parts, before->nkey_parts, absent_text);
    if (d.count > PIPE_CACHE_DIFF_LISTED && d.used < size)
        snprintf(buf + d.used, size - d.used, " (and %zu more)", d.count - PIPE_CACHE_DIFF_LISTED);
    return d.count;
}
