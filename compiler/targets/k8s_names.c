#include "k8s_names.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pipe/base.h"

void k8s_names_init(k8s_names *t, arena *a)
{
    memset(t, 0, sizeof *t);
    t->arena = a;
}

void k8s_names_free(k8s_names *t)
{
    symtab_free(&t->by_text);
    symtab_free(&t->taken);
}

/* '-' followed by the first `digits` hex digits of SHA-256(text). */
static void hash_suffix(strbuf *out, const char *text, int digits)
{
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_hex_of(text, strlen(text), hex);
    sb_printf(out, "-%.*s", digits, hex);
}

/* Cuts sb to at most n bytes, then drops trailing '-'. */
static void cut(strbuf *sb, size_t n)
{
    if (sb->len > n)
        sb->len = n;
    while (sb->len > 0 && sb->data[sb->len - 1] == '-')
        sb->len--;
    sb->data[sb->len] = '\0';
}

/* The sanitized form before any length limit. */
static void clean(strbuf *out, const char *text)
{
    size_t start = out->len;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        char c = (char)*p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        bool letter = c >= 'a' && c <= 'z', digit = c >= '0' && c <= '9';
        if (out->len == start && !letter)
            continue; /* a letter first */
        if (letter || digit)
            sb_putc(out, c);
        else if (out->data[out->len - 1] != '-')
            sb_putc(out, '-');
    }
    while (out->len > start && out->data[out->len - 1] == '-')
        out->len--;
    if (out->len == start)
        sb_putc(out, 'x');
    sb_cstr(out);
}

void k8s_sanitize(strbuf *out, const char *text, size_t max)
{
    if (max < K8S_NAME_MIN)
        max = K8S_NAME_MIN;
    strbuf sb = STRBUF_INIT;
    clean(&sb, text);
    if (sb.len > max) {
        cut(&sb, max - 7);
        hash_suffix(&sb, text, 6);
    }
    sb_putn(out, sb.data, sb.len);
    sb_free(&sb);
}

const char *k8s_name(k8s_names *t, const char *text, size_t max)
{
    if (max < K8S_NAME_MIN)
        max = K8S_NAME_MIN;
    const char *known = symtab_get(&t->by_text, text);
    if (known)
        return known;
    strbuf sb = STRBUF_INIT;
    k8s_sanitize(&sb, text, max);
    /* Taken by another text: the hash of this one makes it differ. */
    for (int attempt = 0; symtab_get(&t->taken, sb_cstr(&sb)); attempt++) {
        sb_reset(&sb);
        clean(&sb, text);
        int digits = 6 + 2 * attempt;
        if (digits <= 16) {
            cut(&sb, max - 1 - (size_t)digits);
            hash_suffix(&sb, text, digits);
        } else {
            cut(&sb, max - 12);
            hash_suffix(&sb, text, 6);
            sb_printf(&sb, "-%d", attempt);
        }
    }
    const char *name = arena_strdup(t->arena, sb_cstr(&sb));
    sb_free(&sb);
    symtab_put(&t->by_text, arena_strdup(t->arena, text), (void *)name);
    symtab_put(&t->taken, name, (void *)name);
    return name;
}

