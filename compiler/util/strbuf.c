#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "pipe/base.h"

static void reserve(strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->data = xrealloc(sb->data, cap);
    sb->cap = cap;
}

void sb_free(strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

void sb_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->data)
        sb->data[0] = '\0';
}

void sb_putn(strbuf *sb, const char *s, size_t n)
{
    reserve(sb, n);
    if (n) /* s may be the NULL data of another empty strbuf */
        memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_putc(strbuf *sb, char c) { sb_putn(sb, &c, 1); }

void sb_puts(strbuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
    /* Formatted once into the room at the end when it fits (most lines of
       generated code do), twice only when it does not. */
    reserve(sb, 128);
    va_list ap2;
    va_copy(ap2, ap);
    size_t room = sb->cap - sb->len;
    int n = vsnprintf(sb->data + sb->len, room, fmt, ap2);
    va_end(ap2);
    if (n <= 0) {
        sb->data[sb->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    }
    sb->len += (size_t)n;
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

static void append(void *sb, const char *s, size_t n) { sb_putn(sb, s, n); }

void sb_json_string(strbuf *sb, const char *s)
{
    pipe_json_string(s, PIPE_JSON_ESCAPE_CR | PIPE_JSON_FIX_UTF8, append, sb);
}

const char *sb_cstr(strbuf *sb)
{
    if (!sb->data)
        sb_putn(sb, "", 0);
    return sb->data;
}
