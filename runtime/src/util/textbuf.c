#include "textbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"

static bool reserve(pipe_textbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void pipe_tb_append(pipe_textbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void pipe_tb_puts(pipe_textbuf *b, const char *s) { pipe_tb_append(b, s, strlen(s)); }

void pipe_tb_printf(pipe_textbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        pipe_tb_append(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void pipe_tb_html_n(pipe_textbuf *b, const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *rep = NULL;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
                rep = "\xef\xbf\xbd";
        }
        if (!rep)
            continue;
        pipe_tb_append(b, s + start, i - start);
        pipe_tb_puts(b, rep);
        start = i + 1;
    }
    pipe_tb_append(b, s + start, n - start);
}

void pipe_tb_html(pipe_textbuf *b, const char *s) { pipe_tb_html_n(b, s ? s : "", s ? strlen(s) : 0); }

static void append(void *b, const char *s, size_t n) { pipe_tb_append(b, s, n); }

void pipe_tb_json_str(pipe_textbuf *b, const char *s) { pipe_json_string(s, 0, append, b); }

void pipe_tb_json_num(pipe_textbuf *b, double v)
{
    if (!isfinite(v)) {
        pipe_tb_puts(b, "null");
        return;
    }
    char num[64];
    pipe_format_double(v, num, sizeof num);
    pipe_tb_puts(b, num);
}

char *pipe_tb_take(pipe_textbuf *b, size_t *len)
{
    char *out = NULL;
    if (!b->oom) {
        out = b->data ? b->data : calloc(1, 1);
        if (len)
            *len = out ? b->len : 0;
        b->data = NULL;
    }
    pipe_tb_free(b);
    return out;
}

void pipe_tb_free(pipe_textbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int pipe_tb_write(pipe_textbuf *b, FILE *f)
{
    size_t len = 0;
    char *text = pipe_tb_take(b, &len);
    if (!text)
        return PIPE_ENOMEM;
    int rc = fwrite(text, 1, len, f) == len ? 0 : PIPE_EIO;
    free(text);
    return rc;
}
