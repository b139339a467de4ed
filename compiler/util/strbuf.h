/* Growable text buffer: generators and diagnostics build text here first. */
#ifndef PIPEC_STRBUF_H
#define PIPEC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *data; /* always NUL-terminated once anything was added */
    size_t len, cap;
} strbuf;

#define STRBUF_INIT {NULL, 0, 0}

void sb_free(strbuf *sb);
void sb_reset(strbuf *sb);
void sb_putc(strbuf *sb, char c);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_puts(strbuf *sb, const char *s);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* Appends s as a JSON string literal, quotes included (pipe_json_string):
   `\r` for a carriage return, invalid UTF-8 becomes U+FFFD. */
void sb_json_string(strbuf *sb, const char *s);
const char *sb_cstr(strbuf *sb);

#endif
