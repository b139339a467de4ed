/* The JSON reader (json_walk.h): recursive descent over the text, depth
   bounded, once to check and once to call back. */
#include "json_walk.h"

#include <stdlib.h>
#include <string.h>

typedef struct walker {
    const char *s, *end;
    pipe_json_fn *fn; /* NULL while checking */
    void *arg;
    pipe_json_step path[PIPE_JSON_MAX_DEPTH];
    int depth;
} walker;

static void skip_space(walker *w)
{
    while (w->s < w->end && (*w->s == ' ' || *w->s == '\t' || *w->s == '\n' || *w->s == '\r'))
        w->s++;
}

static int hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* A string from its opening quote: its text (without quotes) and length. */
static int string(walker *w, const char **text, size_t *len)
{
    if (w->s >= w->end || *w->s != '"')
        return -1;
    const char *start = ++w->s;
    while (w->s < w->end && *w->s != '"') {
        unsigned char c = (unsigned char)*w->s;
        if (c < 0x20)
            return -1;
        if (c == '\\') {
            if (++w->s >= w->end)
                return -1;
            if (*w->s == 'u') {
                if (w->end - w->s < 5 || !hex(w->s[1]) || !hex(w->s[2]) || !hex(w->s[3]) || !hex(w->s[4]))
                    return -1;
                w->s += 4;
            } else if (!strchr("\"\\/bfnrt", *w->s) || !*w->s) {
                return -1;
            }
        }
        w->s++;
    }
    if (w->s >= w->end)
        return -1;
    *text = start;
    *len = (size_t)(w->s - start);
    w->s++;
    return 0;
}

static int digits(walker *w)
{
    const char *start = w->s;
    while (w->s < w->end && *w->s >= '0' && *w->s <= '9')
        w->s++;
    return w->s > start ? 0 : -1;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(walker *w, pipe_json_value *v)
{
    const char *start = w->s;
    if (w->s < w->end && *w->s == '-')
        w->s++;
    if (w->s < w->end && *w->s == '0')
        w->s++;
    else if (digits(w) != 0)
        return -1;
    if (w->s < w->end && *w->s == '.') {
        w->s++;
        if (digits(w) != 0)
            return -1;
    }
    if (w->s < w->end && (*w->s == 'e' || *w->s == 'E')) {
        w->s++;
        if (w->s < w->end && (*w->s == '+' || *w->s == '-'))
            w->s++;
        if (digits(w) != 0)
            return -1;
    }
    v->type = PIPE_JSON_NUMBER;
    v->text = start;
    v->len = (size_t)(w->s - start);
    /* strtod needs a terminated copy; digits past 63 are dropped (no report
       writes such numbers). */
    char buf[64];
    size_t n = v->len < sizeof buf - 1 ? v->len : sizeof buf - 1;
    memcpy(buf, start, n);
    buf[n] = '\0';
    v->number = strtod(buf, NULL);
    return 0;
}

static int literal(walker *w, const char *word, pipe_json_type type, pipe_json_value *v)
{
    size_t n = strlen(word);
    if ((size_t)(w->end - w->s) < n || memcmp(w->s, word, n) != 0)
        return -1;
    v->type = type;
    v->text = w->s;
    v->len = n;
    w->s += n;
    return 0;
}

static int value(walker *w);

/* An object or array from its opening bracket. */
static int container(walker *w, bool object)
{
    if (w->depth >= PIPE_JSON_MAX_DEPTH)
        return -1;
    w->s++;
    int at = w->depth++;
    skip_space(w);
    char close = object ? '}' : ']';
    if (w->s < w->end && *w->s == close) {
        w->s++;
        w->depth--;
        return 0;
    }
    for (size_t i = 0;; i++) {
        skip_space(w);
        pipe_json_step *step = &w->path[at];
        step->key = NULL;
        step->key_len = 0;
        step->index = i;
        if (object) {
            if (string(w, &step->key, &step->key_len) != 0)
                return -1;
            skip_space(w);
            if (w->s >= w->end || *w->s != ':')
                return -1;
            w->s++;
        }
        if (value(w) != 0)
            return -1;
        skip_space(w);
        if (w->s < w->end && *w->s == ',') {
            w->s++;
            continue;
        }
        if (w->s < w->end && *w->s == close) {
            w->s++;
            w->depth--;
            return 0;
        }
        return -1;
    }
}

static int value(walker *w)
{
    skip_space(w);
    if (w->s >= w->end)
        return -1;
    pipe_json_value v = {0};
    int rc;
    switch (*w->s) {
    case '{':
        return container(w, true);
    case '[':
        return container(w, false);
    case '"':
        v.type = PIPE_JSON_STRING;
        rc = string(w, &v.text, &v.len);
        break;
    case 't':
        rc = literal(w, "true", PIPE_JSON_TRUE, &v);
        break;
    case 'f':
        rc = literal(w, "false", PIPE_JSON_FALSE, &v);
        break;
    case 'n':
        rc = literal(w, "null", PIPE_JSON_NULL, &v);
        break;
    default:
        rc = number(w, &v);
    }
    if (rc == 0 && w->fn)
        w->fn(w->arg, w->path, w->depth, &v);
    return rc;
}

static int walk(const char *text, size_t len, pipe_json_fn *fn, void *arg)
{
    walker w = {.s = text, .end = text + len, .fn = fn, .arg = arg};
    if (value(&w) != 0)
        return -1;
    skip_space(&w);
    return w.s == w.end ? 0 : -1;
}

int pipe_json_walk(const char *text, size_t len, pipe_json_fn *fn, void *arg)
{
    if (!text || walk(text, len, NULL, NULL) != 0)
        return -1;
    return fn ? walk(text, len, fn, arg) : 0;
}

bool pipe_json_key_is(const pipe_json_step *step, const char *key)
{
    return step->key && step->key_len == strlen(key) && memcmp(step->key, key, step->key_len) == 0;
}
