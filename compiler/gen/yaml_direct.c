/* bundle.yaml's writer (yaml_direct.h). */
#include "yaml_direct.h"

#include <stdio.h>
#include <string.h>

#include "pipe/yaml_write.h" /* pipe_yaml_plain_ok */

/* sb_putn without its call where the buffer has room: bundle.yaml is
   millions of short pieces. */
static inline void append(strbuf *out, const char *s, size_t n)
{
    if (out->data && out->len + n < out->cap) {
        memcpy(out->data + out->len, s, n);
        out->len += n;
        out->data[out->len] = '\0';
    } else {
        sb_putn(out, s, n);
    }
}

void yd_open(yd *w, strbuf *out, bool json)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->json = json;
    w->line_start = true;
}

static void fail(yd *w, const char *problem)
{
    if (!w->failed)
        w->problem = problem;
    w->failed = true;
}

int yd_close(yd *w, const char *what, char *err, size_t errsize)
{
    if (w->depth != 0)
        fail(w, "unclosed collection");
    if (!w->line_start)
        append(w->out, "\n", 1);
    if (!w->failed)
        return 0;
    snprintf(err, errsize, "cannot write %s: %s", what, w->problem);
    return -1;
}

static void put(yd *w, const char *s, size_t n)
{
    append(w->out, s, n);
    w->line_start = false;
}

static void puts_(yd *w, const char *s) { put(w, s, strlen(s)); }

/* A new line (unless nothing is on this one) and indent spaces; indents
   are at most 2 * YD_MAX_DEPTH. */
static void new_line(yd *w, int indent)
{
    static const char spaces[2 * YD_MAX_DEPTH + 2] =
        "\n                                                                ";
    _Static_assert(sizeof spaces == 2 * YD_MAX_DEPTH + 2, "a newline and 2 * YD_MAX_DEPTH spaces");
    const char *from = w->line_start ? spaces + 1 : spaces;
    append(w->out, from, (size_t)(spaces + 1 - from) + (size_t)indent);
    w->line_start = indent == 0;
}

static yd_frame *top(yd *w) { return w->depth ? &w->frames[w->depth - 1] : NULL; }

/* Whatever goes before a node (a scalar or a collection) where it stands;
   block: whether the node is a block collection (which writes nothing until
   its first entry). */
static void before_node(yd *w, bool block)
{
    yd_frame *f = top(w);
    if (!f)
        return;
    if (f->map) {
        /* After a key's ':' (yd_key wrote it). */
        if (!block && !w->json)
            put(w, " ", 1);
        return;
    }
    if (f->flow) {
        if (f->count)
            put(w, w->json ? "," : ", ", w->json ? 1 : 2);
    } else {
        new_line(w, f->indent);
        put(w, "- ", 2);
    }
    f->count++;
}

static void begin(yd *w, bool map, bool flow)
{
    if (w->json)
        flow = true;
    yd_frame *parent = top(w);
    if (parent && parent->flow)
        flow = true; /* YAML has no block collection inside a flow one */
    if (parent && parent->map && parent->count == 0)
        fail(w, "a value without a key");
    before_node(w, !flow);
    if (w->depth == YD_MAX_DEPTH) {
        fail(w, "nested too deep");
        return;
    }
    yd_frame f = {.map = map, .flow = flow};
    if (!flow && parent) {
        if (parent->map)
            /* A mapping's mapping is indented; its sequence is not. */
            f.indent = map ? parent->indent + 2 : parent->indent;
        else {
            f.indent = parent->indent + 2;
            f.inline_first = true;
        }
    }
    if (flow)
        put(w, map ? "{" : "[", 1);
    w->frames[w->depth++] = f;
}

static void end(yd *w, bool map)
{
    yd_frame *f = top(w);
    if (!f || f->map != map) {
        fail(w, "unbalanced collection");
        return;
    }
    w->depth--;
    if (f->flow) {
        put(w, map ? "}" : "]", 1);
    } else if (f->count == 0) {
        /* An empty block collection is written in flow style. */
        yd_frame *parent = top(w);
        if (parent && parent->map)
            put(w, " ", 1);
        put(w, map ? "{}" : "[]", 2);
    }
}

void yd_map_begin(yd *w, bool flow) { begin(w, true, flow); }
void yd_map_end(yd *w) { end(w, true); }
void yd_seq_begin(yd *w, bool flow) { begin(w, false, flow); }
void yd_seq_end(yd *w) { end(w, false); }

/* ---- scalars ---- */

/* The length of the UTF-8 sequence at s and its code point, or 0 when it is
   not UTF-8 (overlong, a surrogate, past U+10FFFF, cut short). */
static int utf8_decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    int n;
    unsigned v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
        return 0;
    *cp = v;
    return n;
}

/* What YAML may hold unescaped in a double-quoted scalar (libyaml's
   IS_PRINTABLE less its breaks, and the byte order mark). */
static bool printable(unsigned cp)
{
    return (cp >= 0x20 && cp <= 0x7E && cp != '"' && cp != '\\') || (cp >= 0xA0 && cp <= 0xD7FF) ||
           (cp >= 0xE000 && cp <= 0xFFFD && cp != 0xFEFF);
}

/* s double-quoted with libyaml's escapes. */
static void double_quoted(yd *w, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    strbuf *out = w->out;
    append(out, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const unsigned char *run = p; /* bytes written as they are */
        unsigned cp = 0;
        int n = 0;
        while (*p && (n = utf8_decode(p, &cp)) > 0 && printable(cp))
            p += n;
        append(out, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        if (n == 0) {
            fail(w, "a string that is not UTF-8");
            break;
        }
        char esc[12] = {'\\', 0};
        size_t len = 2;
        switch (cp) {
        case 0x00: esc[1] = '0'; break;
        case 0x07: esc[1] = 'a'; break;
        case 0x08: esc[1] = 'b'; break;
        case 0x09: esc[1] = 't'; break;
        case 0x0A: esc[1] = 'n'; break;
        case 0x0B: esc[1] = 'v'; break;
        case 0x0C: esc[1] = 'f'; break;
        case 0x0D: esc[1] = 'r'; break;
        case 0x1B: esc[1] = 'e'; break;
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case 0x85: esc[1] = 'N'; break;
        case 0x2028: esc[1] = 'L'; break;
        case 0x2029: esc[1] = 'P'; break;
        default: {
            int digits = cp <= 0xFF ? 2 : cp <= 0xFFFF ? 4 : 8;
            esc[1] = digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
            for (int i = 0; i < digits; i++)
                esc[2 + i] = hex[(cp >> (4 * (digits - 1 - i))) & 0xF];
            len = 2 + (size_t)digits;
        }
        }
        append(out, esc, len);
        p += n;
    }
    append(out, "\"", 1);
    w->line_start = false;
}

/* pipe_yaml_plain_ok, asking it (and its comparisons with YAML 1.1's typed
   words) only about a short word that could be one of them. */
static bool string_plain_ok(const char *s)
{
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
        return false;
    const char *p = s + 1;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.' || *p == '/'))
            return false;
    switch (c | 0x20) { /* y, n, yes, no, on, off, true, false, null */
    case 'y':
    case 'n':
    case 'o':
    case 't':
    case 'f': return p - s > 5 || pipe_yaml_plain_ok(s);
    default: return true;
    }
}

/* Letters, digits and .-_/+ (what a number pipec formats is made of). */
static bool word_chars(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_' || *s == '.' || *s == '/' || *s == '+'))
            return false;
    return true;
}

/* Whether a number pipec formatted may be plain: a digit, or a sign before
   one, then word_chars. */
static bool number_plain_ok(const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    return *p >= '0' && *p <= '9' && word_chars(p);
}

/* Whether text pipec made (a digest, an enum word) reads back plain as the
   same string in YAML 1.1 and 1.2: a word as pipe_yaml_plain_ok has it (so
   not `no` or `on`), or one starting with a digit that has a letter no
   number has (not e or E), and no 0x/0o/0b prefix. */
static bool word_plain_ok(const char *s)
{
    if (!(*s >= '0' && *s <= '9'))
        return string_plain_ok(s);
    if (!word_chars(s) || (s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')))
        return false;
    for (const char *p = s; *p; p++)
        if (((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) && *p != 'e' && *p != 'E')
            return true;
    return false;
}

/* A scalar as a node: text plain when plain, else double-quoted (YAML);
   JSON: a string, or the text itself for a number or a bool (raw). */
static void scalar(yd *w, const char *text, bool plain, bool raw)
{
    yd_frame *f = top(w);
    if (f && f->map && f->count == 0)
        fail(w, "a value without a key");
    before_node(w, false);
    if (w->json) {
        if (raw)
            puts_(w, text);
        else {
            sb_json_string(w->out, text);
            w->line_start = false;
        }
    } else if (plain) {
        puts_(w, text);
    } else {
        double_quoted(w, text);
    }
}

void yd_string(yd *w, const char *s)
{
    if (!s)
        s = "";
    scalar(w, s, string_plain_ok(s), false);
}

void yd_word(yd *w, const char *s)
{
    if (!s)
        s = "";
    scalar(w, s, word_plain_ok(s), false);
}

void yd_number(yd *w, const char *text) { scalar(w, text, number_plain_ok(text), number_plain_ok(text)); }
void yd_bool(yd *w, bool v) { scalar(w, v ? "true" : "false", true, true); }

/* Decimal digits of v ending at end (no terminator written); the first. */
static char *digits(char *end, unsigned long long v)
{
    do
        *--end = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return end;
}

void yd_int(yd *w, long long v)
{
    char buf[32];
    buf[31] = '\0';
    unsigned long long magnitude = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    char *first = digits(buf + 31, magnitude);
    if (v < 0)
        *--first = '-';
    scalar(w, first, true, true);
}

void yd_uint(yd *w, unsigned long long v)
{
    char buf[32];
    buf[31] = '\0';
    scalar(w, digits(buf + 31, v), true, true);
}

/* ---- keys ---- */

/* Where a key goes: after the last entry (block: a new line, or the line
   of "- " for the first key of a mapping in a sequence). */
static bool before_key(yd *w)
{
    yd_frame *f = top(w);
    if (!f || !f->map) {
        fail(w, "a key outside a mapping");
        return false;
    }
    if (f->flow) {
        if (f->count)
            put(w, w->json ? "," : ", ", w->json ? 1 : 2);
    } else if (!(f->count == 0 && f->inline_first)) {
        new_line(w, f->indent);
    }
    f->count++;
    return true;
}

void yd_key(yd *w, const char *key)
{
    if (!before_key(w))
        return;
    if (w->json) {
        sb_json_string(w->out, key);
        append(w->out, ":", 1);
    } else {
        char text[64]; /* the format's keys are short: key and ':' at once */
        size_t n = strlen(key);
        if (n < sizeof text) {
            memcpy(text, key, n);
            text[n] = ':';
            append(w->out, text, n + 1);
        } else {
            append(w->out, key, n);
            append(w->out, ":", 1);
        }
    }
    w->line_start = false;
}

void yd_string_key(yd *w, const char *key)
{
    if (!key)
        key = "";
    if (!before_key(w))
        return;
    if (w->json) {
        sb_json_string(w->out, key);
        append(w->out, ":", 1);
    } else if (string_plain_ok(key) && strlen(key) <= 128) {
        append(w->out, key, strlen(key));
        append(w->out, ":", 1);
    } else {
        /* A long key cannot be an implicit one (YAML caps those at 1024
           characters; libyaml wrote an explicit key past 128). */
        bool explicit_key = strlen(key) > 128;
        if (explicit_key)
            append(w->out, "? ", 2);
        double_quoted(w, key);
        append(w->out, explicit_key ? " :" : ":", explicit_key ? 2 : 1);
    }
    w->line_start = false;
}

/* ---- collections of strings ---- */

void yd_string_map(yd *w, const pipe_kv *kv, size_t n)
{
    yd_map_begin(w, true);
    for (size_t i = 0; i < n; i++) {
        yd_string_key(w, kv[i].key);
        yd_string(w, kv[i].value);
    }
    yd_map_end(w);
}

void yd_string_list(yd *w, char *const *items, size_t n)
{
    yd_seq_begin(w, true);
    for (size_t i = 0; i < n; i++)
        yd_string(w, items[i]);
    yd_seq_end(w);
}

/* A number or bool as the .pipe file wrote it: JSON's own text when JSON
   reads it as such a number (the test compares it with YAML's reading). */
static bool json_literal(const char *s)
{
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
        return true;
    const char *p = s;
    if (*p == '-')
        p++;
    if (!(*p >= '0' && *p <= '9'))
        return false;
    for (; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return false;
    return true;
}

void yd_mvalue(yd *w, const pipe_mvalue *v)
{
    switch (v->kind) {
    case PIPE_MV_LIST:
        yd_seq_begin(w, true);
        for (size_t i = 0; i < v->n; i++)
            yd_mvalue(w, &v->items[i]);
        yd_seq_end(w);
        break;
    case PIPE_MV_MAP:
        yd_map_begin(w, true);
        for (size_t i = 0; i < v->n; i++) {
            yd_string_key(w, v->keys[i]);
            yd_mvalue(w, &v->items[i]);
        }
        yd_map_end(w);
        break;
    case PIPE_MV_STRING: yd_string(w, v->text); break;
    case PIPE_MV_SCALAR:
        /* Checked by the lexer as a number or a bool: plain. */
        scalar(w, v->text, number_plain_ok(v->text) || strcmp(v->text, "true") == 0 || strcmp(v->text, "false") == 0,
               json_literal(v->text));
        break;
    }
}
