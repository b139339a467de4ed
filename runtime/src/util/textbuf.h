/* A growable text buffer for what the runtime writes in one piece: JSON
   (`runs --json`, `show --json`), the HTML report and its SVG charts.
   Private to the runtime. Appending never fails loudly: when memory runs
   out the buffer remembers it (oom) and later appends do nothing, so that
   a writer checks once, at the end. */
#ifndef PIPE_TEXTBUF_H
#define PIPE_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct pipe_textbuf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len, cap;
    bool oom;
} pipe_textbuf;

void pipe_tb_append(pipe_textbuf *b, const char *s, size_t n);
void pipe_tb_puts(pipe_textbuf *b, const char *s);
void pipe_tb_printf(pipe_textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s with &, <, >, " and ' as character references: safe in HTML text and
   in quoted attribute values. Bytes below 0x20 other than tab and newline
   become U+FFFD; invalid UTF-8 passes through as the browser decodes it. */
void pipe_tb_html(pipe_textbuf *b, const char *s);
void pipe_tb_html_n(pipe_textbuf *b, const char *s, size_t n);
/* s as a JSON string, quotes included (pipe_json_string: "\u00XX" for
   control bytes other than newline and tab, bytes of 0x80 and above as they
   are); NULL is written as null. */
void pipe_tb_json_str(pipe_textbuf *b, const char *s);
/* A number as JSON: the shortest text that reads back exactly; null when
   it is not finite (JSON has no NaN). */
void pipe_tb_json_num(pipe_textbuf *b, double v);
/* Takes the text (the caller frees it); NULL when memory ran out. The
   buffer is empty afterwards. */
char *pipe_tb_take(pipe_textbuf *b, size_t *len);
void pipe_tb_free(pipe_textbuf *b);
/* Writes the text to f and frees it: PIPE_ENOMEM when memory ran out while
   it was made, PIPE_EIO when it cannot be written. */
int pipe_tb_write(pipe_textbuf *b, FILE *f);

#endif
