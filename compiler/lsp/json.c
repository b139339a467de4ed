/* Assembling json_walk's scalars (each with the path that leads to it)
   into a tree. */
#include "json.h"

#include <math.h>
#include <string.h>

#include "format/json_walk.h"

typedef struct builder {
    arena *a;
    json_value *root;
} builder;

static void put_utf8(char *out, size_t *n, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xe0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static uint32_t hex4(const char *s)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v = v * 16 + (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* A string as written (json_walk has checked its escapes), decoded; a lone
   surrogate becomes U+FFFD. Never longer than the text. */
static char *decode(arena *a, const char *s, size_t len, size_t *out_len)
{
    char *out = arena_alloc(a, len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            out[n++] = s[i];
            continue;
        }
        char c = s[++i];
        switch (c) {
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            uint32_t cp = hex4(s + i + 1);
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < len && s[i + 1] == '\\' && s[i + 2] == 'u') {
                uint32_t lo = hex4(s + i + 3);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                }
            }
            if (cp >= 0xd800 && cp < 0xe000)
                cp = 0xfffd;
            put_utf8(out, &n, cp); /* at most as long as its escape */
            break;
        }
        default: out[n++] = c; /* \" \\ \/ */
        }
    }
    out[n] = '\0';
    *out_len = n;
    return out;
}

static json_value *append(builder *b, json_value *parent)
{
    json_value *c = arena_alloc(b->a, sizeof *c);
    if (parent->last)
        parent->last->next = c;
    else
        parent->first = c;
    parent->last = c;
    return c;
}

/* The member of parent that step names, added when missing. */
static json_value *child(builder *b, json_value *parent, const pipe_json_step *step)
{
    if (parent->kind == JSON_NONE)
        parent->kind = step->key ? JSON_OBJECT : JSON_ARRAY;
    if (step->key) {
        size_t klen;
        char *key = decode(b->a, step->key, step->key_len, &klen);
        /* Usually the member just added; objects in LSP messages are small. */
        if (parent->last && parent->last->key && strcmp(parent->last->key, key) == 0)
            return parent->last;
        for (json_value *c = parent->first; c; c = c->next)
            if (c->key && strcmp(c->key, key) == 0)
                return c;
        json_value *c = append(b, parent);
        c->key = key;
        return c;
    }
    if (parent->last && !parent->last->key && parent->last->index == step->index)
        return parent->last;
    json_value *c = append(b, parent);
    c->index = step->index;
    return c;
}

static void on_scalar(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v)
{
    builder *b = arg;
    json_value *at = b->root;
    for (int i = 0; i < depth; i++)
        at = child(b, at, &path[i]);
    switch (v->type) {
    case PIPE_JSON_STRING:
        at->kind = JSON_STRING;
        at->str = decode(b->a, v->text, v->len, &at->len);
        break;
    case PIPE_JSON_NUMBER:
        at->kind = JSON_NUMBER;
        at->str = arena_strndup(b->a, v->text, v->len);
        at->len = v->len;
        at->number = v->number;
        break;
    case PIPE_JSON_TRUE:
    case PIPE_JSON_FALSE:
        at->kind = JSON_BOOL;
        at->boolean = v->type == PIPE_JSON_TRUE;
        break;
    case PIPE_JSON_NULL: at->kind = JSON_NULL; break;
    }
}

json_value *json_parse(arena *a, const char *text, size_t len)
{
    builder b = {a, arena_alloc(a, sizeof(json_value))};
    if (pipe_json_walk(text, len, on_scalar, &b) != 0)
        return NULL;
    return b.root;
}

const json_value *json_get(const json_value *v, const char *key)
{
    if (!v || v->kind != JSON_OBJECT)
        return NULL;
    for (const json_value *c = v->first; c; c = c->next)
        if (strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

const char *json_string(const json_value *v) { return v && v->kind == JSON_STRING ? v->str : NULL; }

bool json_integer(const json_value *v, int64_t *out)
{
    if (!v || v->kind != JSON_NUMBER || v->number != floor(v->number) || fabs(v->number) > 9007199254740992.0)
        return false;
    *out = (int64_t)v->number;
    return true;
}
