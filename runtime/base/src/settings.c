/* The settings table (pipe/settings.h) built from pipe/settings.def, and
   what every side does with a field the same way: its initial value, its
   range, whether it is set, comparing and freeing it. */
#include "pipe/settings.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"

#define PIPE_VALUES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The rows of pipe/kinds.def, and each kind's C type as a constant. */
#define PIPE_KIND(ID, CTYPE, TEXT, EXPECTS, DOC, CHECK) \
    {#ID, PIPE_CTYPE_##CTYPE, PIPE_TEXT_##TEXT, EXPECTS, DOC},
static const pipe_kind_info kinds[PIPE_KIND_COUNT] = {
#include "pipe/kinds.def"
};
#undef PIPE_KIND
#define PIPE_KIND(ID, CTYPE, ...) KIND_CTYPE_##ID = PIPE_CTYPE_##CTYPE,
enum {
#include "pipe/kinds.def"
};
#undef PIPE_KIND

const pipe_kind_info *pipe_kind_get(pipe_kind k) { return k < PIPE_KIND_COUNT ? &kinds[k] : NULL; }

/* Each field has the C type its kind's row says, and each decorator at
   most 32 options (its `given` bits): a row that breaks either fails to
   compile. An environment is a map in C. */
#define CTYPE_OF(FIELD)                                                                                          \
    _Generic((FIELD), double: PIPE_CTYPE_DOUBLE, int64_t: PIPE_CTYPE_INT64, uint64_t: PIPE_CTYPE_UINT64,          \
             bool: PIPE_CTYPE_BOOL, char *: PIPE_CTYPE_STRING, char **: PIPE_CTYPE_STRINGS, pipe_kv *: PIPE_CTYPE_KVS, \
             pipe_mvalue: PIPE_CTYPE_MVALUE, pipe_mfile: PIPE_CTYPE_MFILE, default: -1)
#define C_TYPE_CLASS(c) ((int)(c) == (int)PIPE_CTYPE_ENV ? (int)PIPE_CTYPE_KVS : (int)(c))
#define PIPE_AT(member) (((pipe_minvocation *)0)->member)
#define PIPE_NOWHERE ((size_t)0)
#define PIPE_OPTION(ID, NAME, KIND, MIN, MAX, DEFAULT, ABSENT, VALUES, CHECK, KEY, FIELD, COUNT, EMIT, CACHE, HELP, \
                    DOC)                                                                                            \
    _Static_assert((int)CTYPE_OF(FIELD) == (int)C_TYPE_CLASS(KIND_CTYPE_##KIND), #ID ": its field has its kind's C type"); \
    _Static_assert(_Generic(COUNT, size_t: 1, default: 0), #ID ": its count is a size_t");
#define PIPE_DECORATOR(ID, NAME, WHERE, POSITIONAL, ORDER, SECTION, FLOW, WHEN, PRESENCE, PRESENCE_KEY, GIVEN, DOC, \
                       ...)                                                                                          \
    __VA_ARGS__ _Static_assert(PIPE_##ID##_NOPTIONS <= 32, "@" NAME ": one bit per option in `given`");
#include "pipe/settings.def"
#undef PIPE_OPTION
#undef PIPE_DECORATOR
#undef PIPE_AT
#undef PIPE_NOWHERE

#define PIPE_AT(member) offsetof(pipe_minvocation, member)
#define PIPE_NOWHERE PIPE_NO_FIELD

/* The options of each decorator; a zeroed row ends each list, so that a
   decorator without options still has an array. */
#define PIPE_OPTION(ID, NAME, KIND, MIN, MAX, DEFAULT, ABSENT, VALUES, CHECK, KEY, FIELD, COUNT, EMIT, CACHE, HELP, \
                    DOC)                                                                                            \
    {NAME, PIPE_KIND_##KIND, MIN, MAX, DEFAULT, ABSENT, VALUES, KEY, FIELD, COUNT, EMIT, CACHE, HELP, DOC, PIPE_##ID},
#define PIPE_DECORATOR(ID, NAME, WHERE, POSITIONAL, ORDER, SECTION, FLOW, WHEN, PRESENCE, PRESENCE_KEY, GIVEN, DOC, \
                       ...)                                                                                          \
    static const pipe_option options_##ID[] = {__VA_ARGS__{.name = NULL}};
#include "pipe/settings.def"
#undef PIPE_OPTION
#undef PIPE_DECORATOR

#define PIPE_OPTION(...)
#define PIPE_DECORATOR(ID, NAME, WHERE, POSITIONAL, ORDER, SECTION, FLOW, WHEN, PRESENCE, PRESENCE_KEY, GIVEN, DOC, \
                       ...)                                                                                          \
    {PIPE_DEC_##ID,                                                                                                 \
     NAME,                                                                                                           \
     ((WHERE)&PIPE_ON_STEP) != 0,                                                                                    \
     ((WHERE)&PIPE_ON_PIPELINE) != 0,                                                                                \
     POSITIONAL,                                                                                                     \
     ORDER,                                                                                                          \
     SECTION,                                                                                                        \
     FLOW,                                                                                                           \
     WHEN,                                                                                                           \
     PRESENCE,                                                                                                       \
     PRESENCE_KEY,                                                                                                   \
     GIVEN,                                                                                                          \
     DOC,                                                                                                            \
     options_##ID,                                                                                                   \
     PIPE_##ID##_NOPTIONS},
static const pipe_decorator_info decorators[PIPE_DEC_COUNT] = {
#include "pipe/settings.def"
};
#undef PIPE_OPTION
#undef PIPE_DECORATOR

const pipe_decorator_info *pipe_decorator_get(pipe_decorator d)
{
    return d >= 0 && d < PIPE_DEC_COUNT ? &decorators[d] : NULL;
}

const pipe_decorator_info *pipe_decorator_named(const char *name)
{
    for (int d = 0; d < PIPE_DEC_COUNT; d++)
        if (strcmp(decorators[d].name, name) == 0)
            return &decorators[d];
    return NULL;
}

const pipe_option *pipe_option_get(pipe_decorator d, int index)
{
    const pipe_decorator_info *info = pipe_decorator_get(d);
    return info && index >= 0 && index < info->noptions ? &info->options[index] : NULL;
}

const pipe_decorator_info *pipe_option_decorator(const pipe_option *o)
{
    for (int d = 0; d < PIPE_DEC_COUNT; d++)
        if (o->index < decorators[d].noptions && &decorators[d].options[o->index] == o)
            return &decorators[d];
    return NULL;
}

const pipe_decorator_info *pipe_decorator_in_manifest_order(int i)
{
    for (int d = 0; d < PIPE_DEC_COUNT; d++)
        if (decorators[d].order == i)
            return &decorators[d];
    return NULL;
}

/* ---- values ---- */

pipe_ctype pipe_option_ctype(const pipe_option *o) { return kinds[o->kind].ctype; }

/* A value of the table (a default, an absent value) as its kind reads it. */
static pipe_value parse_text(const pipe_option *o, const char *t)
{
    pipe_value v = {0};
    if (!t)
        return v;
    switch (kinds[o->kind].text) {
    case PIPE_TEXT_NUMBER: v.num = strtod(t, NULL); break;
    case PIPE_TEXT_INT: v.i = strtoll(t, NULL, 10); break;
    case PIPE_TEXT_BOOL: v.b = strcmp(t, "true") == 0; break;
    case PIPE_TEXT_SIZE: pipe_parse_size(t, strlen(t), 0, &v.u); break;
    case PIPE_TEXT_DURATION: pipe_parse_duration(t, strlen(t), &v.u); break;
    case PIPE_TEXT_STRING:
    case PIPE_TEXT_WORD: v.s = t; break;
    }
    return v;
}

void pipe_option_text(const pipe_option *o, pipe_value v, char *buf, size_t size)
{
    switch (kinds[o->kind].text) {
    case PIPE_TEXT_NUMBER: pipe_format_double(v.num, buf, size); break;
    case PIPE_TEXT_INT: snprintf(buf, size, "%" PRId64, v.i); break;
    case PIPE_TEXT_SIZE: pipe_format_size(v.u, buf, size); break;
    case PIPE_TEXT_DURATION: pipe_format_duration(v.u, buf, size); break;
    case PIPE_TEXT_BOOL: snprintf(buf, size, "%s", v.b ? "true" : "false"); break;
    case PIPE_TEXT_STRING:
    case PIPE_TEXT_WORD: snprintf(buf, size, "%s", v.s ? v.s : ""); break;
    }
}

bool pipe_option_text_quoted(const pipe_option *o)
{
    pipe_text t = kinds[o->kind].text;
    return t == PIPE_TEXT_SIZE || t == PIPE_TEXT_DURATION || t == PIPE_TEXT_STRING || t == PIPE_TEXT_WORD;
}

pipe_value pipe_option_initial(const pipe_option *o, bool absent)
{
    return parse_text(o, absent ? o->absent_text : o->default_text);
}

bool pipe_option_in_range(const pipe_option *o, pipe_value v)
{
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_INT64: return v.i >= 0 && (uint64_t)v.i >= o->min && (uint64_t)v.i <= o->max;
    case PIPE_CTYPE_UINT64: return v.u >= o->min && v.u <= o->max;
    case PIPE_CTYPE_DOUBLE: return v.num > 0;
    default: return true;
    }
}

bool pipe_option_ranged(const pipe_option *o)
{
    pipe_ctype c = pipe_option_ctype(o);
    return c == PIPE_CTYPE_INT64 || c == PIPE_CTYPE_UINT64;
}

bool pipe_option_has_max(const pipe_option *o)
{
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_INT64: return o->max < (uint64_t)INT64_MAX;
    case PIPE_CTYPE_UINT64: return o->max < UINT64_MAX;
    default: return false;
    }
}

void *pipe_option_field(const pipe_option *o, pipe_minvocation *inv) { return (char *)inv + o->field; }

const void *pipe_option_cfield(const pipe_option *o, const pipe_minvocation *inv)
{
    return (const char *)inv + o->field;
}

bool pipe_kind_is_map(pipe_kind k) { return kinds[k].ctype == PIPE_CTYPE_KVS || kinds[k].ctype == PIPE_CTYPE_ENV; }

size_t *pipe_option_count(const pipe_option *o, pipe_minvocation *inv)
{
    return o->count == PIPE_NO_FIELD ? NULL : (size_t *)((char *)inv + o->count);
}

size_t pipe_option_ccount(const pipe_option *o, const pipe_minvocation *inv)
{
    return o->count == PIPE_NO_FIELD ? 0 : *(const size_t *)((const char *)inv + o->count);
}

pipe_value pipe_option_load(const pipe_option *o, const pipe_minvocation *inv)
{
    pipe_value v = {0};
    const void *f = pipe_option_cfield(o, inv);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE: memcpy(&v.num, f, sizeof v.num); break;
    case PIPE_CTYPE_INT64: memcpy(&v.i, f, sizeof v.i); break;
    case PIPE_CTYPE_UINT64: memcpy(&v.u, f, sizeof v.u); break;
    case PIPE_CTYPE_BOOL: memcpy(&v.b, f, sizeof v.b); break;
    case PIPE_CTYPE_STRING: memcpy(&v.s, f, sizeof v.s); break;
    case PIPE_CTYPE_MFILE: v.s = ((const pipe_mfile *)f)->path; break;
    case PIPE_CTYPE_STRINGS:
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
    case PIPE_CTYPE_MVALUE: break;
    }
    return v;
}

void pipe_option_store(const pipe_option *o, pipe_minvocation *inv, pipe_value v)
{
    void *f = pipe_option_field(o, inv);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE: memcpy(f, &v.num, sizeof v.num); break;
    case PIPE_CTYPE_INT64: memcpy(f, &v.i, sizeof v.i); break;
    case PIPE_CTYPE_UINT64: memcpy(f, &v.u, sizeof v.u); break;
    case PIPE_CTYPE_BOOL: memcpy(f, &v.b, sizeof v.b); break;
    default: break; /* strings, lists and maps are allocated by their owner */
    }
}

bool pipe_option_is_set(const pipe_option *o, const pipe_minvocation *inv)
{
    pipe_value v = pipe_option_load(o, inv);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE: return v.num != 0;
    case PIPE_CTYPE_INT64: return v.i != 0;
    case PIPE_CTYPE_UINT64: return v.u != 0;
    case PIPE_CTYPE_BOOL: return v.b;
    case PIPE_CTYPE_STRING:
    case PIPE_CTYPE_MFILE: return v.s != NULL;
    case PIPE_CTYPE_MVALUE: return ((const pipe_mvalue *)pipe_option_cfield(o, inv))->n > 0;
    case PIPE_CTYPE_STRINGS:
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV: return pipe_option_ccount(o, inv) > 0;
    }
    return false;
}

bool pipe_option_given(const pipe_option *o, const pipe_minvocation *inv)
{
    const pipe_decorator_info *d = pipe_option_decorator(o);
    if (!d || d->given == PIPE_NO_FIELD)
        return true;
    unsigned mask;
    memcpy(&mask, (const char *)inv + d->given, sizeof mask);
    return (mask >> o->index) & 1u;
}

bool pipe_decorator_present(const pipe_decorator_info *d, const pipe_minvocation *inv)
{
    bool b = false;
    if (d->presence != PIPE_NO_FIELD)
        memcpy(&b, (const char *)inv + d->presence, sizeof b);
    return b;
}

bool pipe_section_written(const pipe_decorator_info *d, const pipe_minvocation *inv)
{
    switch (d->when) {
    case PIPE_WHEN_ALWAYS: return true;
    case PIPE_WHEN_PRESENT: return pipe_decorator_present(d, inv);
    case PIPE_WHEN_ANY:
        for (int i = 0; i < d->noptions; i++)
            if (pipe_option_is_set(&d->options[i], inv))
                return true;
        return false;
    case PIPE_WHEN_GIVEN: {
        unsigned mask;
        memcpy(&mask, (const char *)inv + d->given, sizeof mask);
        return mask != 0;
    }
    }
    return false;
}

/* ---- whole invocations ---- */

int pipe_settings_init(pipe_minvocation *inv)
{
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = &decorators[d];
        for (int i = 0; i < info->noptions; i++) {
            const pipe_option *o = &info->options[i];
            pipe_value v = pipe_option_initial(o, true);
            pipe_ctype c = pipe_option_ctype(o);
            if (c == PIPE_CTYPE_STRING) {
                char *s = v.s ? strdup(v.s) : NULL;
                if (v.s && !s)
                    return PIPE_ENOMEM;
                memcpy(pipe_option_field(o, inv), &s, sizeof s);
            } else if (c == PIPE_CTYPE_MVALUE) {
                ((pipe_mvalue *)pipe_option_field(o, inv))->kind = PIPE_MV_LIST;
            } else if (c == PIPE_CTYPE_MFILE) {
                memset(pipe_option_field(o, inv), 0, sizeof(pipe_mfile));
            } else {
                pipe_option_store(o, inv, v);
            }
        }
    }
    return 0;
}

static void free_strs(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

void pipe_mvalue_free(pipe_mvalue *v)
{
    free(v->text);
    for (size_t i = 0; i < v->n; i++)
        pipe_mvalue_free(&v->items[i]);
    free(v->items);
    if (v->keys)
        free_strs(v->keys, v->n);
    memset(v, 0, sizeof *v);
}

void pipe_settings_free(pipe_minvocation *inv)
{
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = &decorators[d];
        for (int i = 0; i < info->noptions; i++) {
            const pipe_option *o = &info->options[i];
            void *f = pipe_option_field(o, inv);
            size_t *n = pipe_option_count(o, inv);
            switch (pipe_option_ctype(o)) {
            case PIPE_CTYPE_STRING:
                free(*(char **)f);
                *(char **)f = NULL;
                break;
            case PIPE_CTYPE_STRINGS:
                free_strs(*(char ***)f, *n);
                *(char ***)f = NULL;
                *n = 0;
                break;
            case PIPE_CTYPE_KVS:
            case PIPE_CTYPE_ENV: {
                pipe_kv *kv = *(pipe_kv **)f;
                for (size_t k = 0; k < *n; k++) {
                    free(kv[k].key);
                    free(kv[k].value);
                }
                free(kv);
                *(pipe_kv **)f = NULL;
                *n = 0;
                break;
            }
            case PIPE_CTYPE_MVALUE: pipe_mvalue_free(f); break;
            case PIPE_CTYPE_MFILE: {
                pipe_mfile *file = f;
                free(file->path);
                free(file->sha256);
                memset(file, 0, sizeof *file);
                break;
            }
            case PIPE_CTYPE_DOUBLE:
            case PIPE_CTYPE_INT64:
            case PIPE_CTYPE_UINT64:
            case PIPE_CTYPE_BOOL: break;
            }
        }
    }
}

/* ---- comparing ---- */

typedef struct cmp {
    char *diff;
    size_t size;
} cmp;

static int differ(cmp *c, const pipe_decorator_info *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int differ(cmp *c, const pipe_decorator_info *d, const char *key, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (d->section)
        snprintf(c->diff, c->size, "%s.%s: %s", d->section, key, what);
    else
        snprintf(c->diff, c->size, "%s: %s", key, what);
    return 1;
}

static const char *show(const char *s) { return s ? s : "(none)"; }

static int mvalue_equal(const pipe_mvalue *a, const pipe_mvalue *b)
{
    if (a->kind != b->kind || a->n != b->n || (a->text == NULL) != (b->text == NULL) ||
        (a->text && strcmp(a->text, b->text) != 0))
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->keys && (!b->keys || strcmp(a->keys[i], b->keys[i]) != 0))
            return 0;
        if (!mvalue_equal(&a->items[i], &b->items[i]))
            return 0;
    }
    return 1;
}

static int compare_option(cmp *c, const pipe_decorator_info *d, const pipe_option *o, const pipe_minvocation *a,
                          const pipe_minvocation *b)
{
    pipe_value x = pipe_option_load(o, a), y = pipe_option_load(o, b);
    const void *fa = pipe_option_cfield(o, a), *fb = pipe_option_cfield(o, b);
    size_t na = pipe_option_ccount(o, a), nb = pipe_option_ccount(o, b);
    pipe_ctype ct = pipe_option_ctype(o);
    switch (ct) {
    case PIPE_CTYPE_DOUBLE:
        return x.num != y.num ? differ(c, d, o->key, "%.17g != %.17g", x.num, y.num) : 0;
    case PIPE_CTYPE_INT64: return x.i != y.i ? differ(c, d, o->key, "%" PRId64 " != %" PRId64, x.i, y.i) : 0;
    case PIPE_CTYPE_UINT64: return x.u != y.u ? differ(c, d, o->key, "%" PRIu64 " != %" PRIu64, x.u, y.u) : 0;
    case PIPE_CTYPE_BOOL: return x.b != y.b ? differ(c, d, o->key, "%d != %d", x.b, y.b) : 0;
    case PIPE_CTYPE_MVALUE:
        return mvalue_equal(fa, fb) ? 0 : differ(c, d, o->key, "the values differ");
    case PIPE_CTYPE_MFILE: {
        const pipe_mfile *p = fa, *q = fb;
        if ((p->path == NULL) != (q->path == NULL) || (p->path && strcmp(p->path, q->path) != 0))
            return differ(c, d, o->key, "`%s` != `%s`", show(p->path), show(q->path));
        if ((p->sha256 == NULL) != (q->sha256 == NULL) || (p->sha256 && strcmp(p->sha256, q->sha256) != 0))
            return differ(c, d, o->key, "sha256 `%s` != `%s`", show(p->sha256), show(q->sha256));
        return 0;
    }
    case PIPE_CTYPE_STRING:
        if ((x.s == NULL) != (y.s == NULL) || (x.s && strcmp(x.s, y.s) != 0))
            return differ(c, d, o->key, "`%s` != `%s`", show(x.s), show(y.s));
        return 0;
    case PIPE_CTYPE_STRINGS:
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV: break;
    }
    if (na != nb)
        return differ(c, d, o->key, "%zu != %zu entries", na, nb);
    for (size_t i = 0; i < na; i++) {
        if (ct == PIPE_CTYPE_STRINGS) {
            const char *p = (*(char *const *const *)fa)[i], *q = (*(char *const *const *)fb)[i];
            if (strcmp(p, q) != 0)
                return differ(c, d, o->key, "[%zu]: `%s` != `%s`", i, p, q);
        } else {
            const pipe_kv *p = &(*(pipe_kv *const *)fa)[i], *q = &(*(pipe_kv *const *)fb)[i];
            if (strcmp(p->key, q->key) != 0 || strcmp(p->value, q->value) != 0)
                return differ(c, d, o->key, "[%zu]: `%s=%s` != `%s=%s`", i, p->key, p->value, q->key, q->value);
        }
    }
    return 0;
}

int pipe_settings_compare(const pipe_minvocation *a, const pipe_minvocation *b, char *diff, size_t diffsize)
{
    cmp c = {diff, diffsize};
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = &decorators[d];
        if (pipe_decorator_present(info, a) != pipe_decorator_present(info, b))
            return differ(&c, info, info->presence_key ? info->presence_key : "present", "%d != %d",
                          pipe_decorator_present(info, a), pipe_decorator_present(info, b));
        if (info->given != PIPE_NO_FIELD) {
            unsigned ga, gb;
            memcpy(&ga, (const char *)a + info->given, sizeof ga);
            memcpy(&gb, (const char *)b + info->given, sizeof gb);
            if (ga != gb)
                return differ(&c, info, "given", "%#x != %#x", ga, gb);
        }
        for (int i = 0; i < info->noptions; i++)
            if (compare_option(&c, info, &info->options[i], a, b))
                return 1;
    }
    return 0;
}

static void hash_text(pipe_sha256 *h, const char *s) { pipe_sha256_update(h, s, strlen(s) + 1); }

/* A value passed through: its shape and every text, so that [a] and "a"
   differ. */
static void hash_mvalue(pipe_sha256 *h, const pipe_mvalue *v)
{
    char shape[32];
    snprintf(shape, sizeof shape, "%d:%zu", (int)v->kind, v->n);
    hash_text(h, shape);
    if (v->text)
        hash_text(h, v->text);
    for (size_t i = 0; i < v->n; i++) {
        if (v->keys)
            hash_text(h, v->keys[i]);
        hash_mvalue(h, &v->items[i]);
    }
}

void pipe_option_hash(const pipe_option *o, const pipe_minvocation *inv, pipe_sha256 *h)
{
    if (!pipe_option_is_set(o, inv))
        return;
    hash_text(h, o->name);
    const void *field = pipe_option_cfield(o, inv);
    size_t n = pipe_option_ccount(o, inv);
    pipe_value v = pipe_option_load(o, inv);
    char num[64];
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_STRING: hash_text(h, v.s); break;
    case PIPE_CTYPE_STRINGS:
        for (size_t i = 0; i < n; i++)
            hash_text(h, (*(char *const *const *)field)[i]);
        break;
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
        for (size_t i = 0; i < n; i++) {
            hash_text(h, (*(const pipe_kv *const *)field)[i].key);
            hash_text(h, (*(const pipe_kv *const *)field)[i].value);
        }
        break;
    case PIPE_CTYPE_MVALUE: hash_mvalue(h, field); break;
    case PIPE_CTYPE_MFILE:
        hash_text(h, v.s);
        hash_text(h, ((const pipe_mfile *)field)->sha256 ? ((const pipe_mfile *)field)->sha256 : "");
        break;
    case PIPE_CTYPE_DOUBLE: pipe_format_double(v.num, num, sizeof num); hash_text(h, num); break;
    case PIPE_CTYPE_BOOL: snprintf(num, sizeof num, "%s", v.b ? "true" : "false"); hash_text(h, num); break;
    case PIPE_CTYPE_INT64: snprintf(num, sizeof num, "%" PRId64, v.i); hash_text(h, num); break;
    case PIPE_CTYPE_UINT64: snprintf(num, sizeof num, "%" PRIu64, v.u); hash_text(h, num); break;
    }
    pipe_sha256_update(h, "|", 1);
}

pipe_accelerate pipe_accelerate_none(void)
{
    pipe_accelerate a;
    memset(&a, 0, sizeof a);
    const pipe_decorator_info *info = pipe_decorator_get(PIPE_DEC_ACCELERATE);
    pipe_minvocation inv;
    memset(&inv, 0, sizeof inv);
    for (int i = 0; i < info->noptions; i++)
        if (pipe_option_ctype(&info->options[i]) != PIPE_CTYPE_STRING)
            pipe_option_store(&info->options[i], &inv, pipe_option_initial(&info->options[i], true));
    a = inv.accelerate;
    return a;
}

uint64_t pipe_option_default_ms(pipe_decorator d, int index)
{
    const pipe_option *o = pipe_option_get(d, index);
    return o ? pipe_option_initial(o, false).u : 0;
}
