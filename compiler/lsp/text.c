#include "text.h"

#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "util/arena.h"

/* Bytes of the character at s (1 for a byte that starts none) and the
   UTF-16 code units it counts. */
static size_t char_at(const char *s, size_t n, uint32_t *units)
{
    size_t k = pipe_utf8_valid_prefix(s, n);
    *units = k == 4 ? 2 : 1;
    return k ? k : 1;
}

/* The offset after the line break that ends the line at s, and where the
   line's text ends. */
static size_t line_end(const char *text, size_t len, size_t at, size_t *content_end)
{
    size_t i = at;
    while (i < len && text[i] != '\n' && text[i] != '\r')
        i++;
    *content_end = i;
    if (i < len && text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
        return i + 2;
    return i < len ? i + 1 : len;
}

size_t text_offset(const char *text, size_t len, lsp_pos pos)
{
    size_t at = 0, content_end;
    for (uint32_t l = 0; l < pos.line; l++) {
        size_t next = line_end(text, len, at, &content_end);
        if (next == at || (next == len && content_end == len))
            return len;
        at = next;
    }
    line_end(text, len, at, &content_end);
    uint32_t units = 0;
    while (at < content_end) {
        uint32_t u;
        size_t k = char_at(text + at, content_end - at, &u);
        if (units + u > pos.character)
            break;
        units += u;
        at += k;
    }
    return at;
}

lsp_pos text_position(const source_file *f, size_t offset)
{
    if (offset > f->len)
        offset = f->len;
    unsigned line, col;
    source_position(f, (uint32_t)offset, &line, &col);
    lsp_pos pos = {line - 1, 0};
    for (size_t at = f->line_starts[line - 1]; at < offset;) {
        uint32_t u;
        at += char_at(f->text + at, offset - at, &u);
        pos.character += u;
    }
    return pos;
}

void text_splice(char **text, size_t *len, size_t *cap, size_t start, size_t end, const char *repl, size_t rlen)
{
    size_t tail = *len - end, need = start + rlen + tail + 1;
    if (need > *cap) {
        *cap = need + need / 2;
        *text = xrealloc(*text, *cap);
    }
    memmove(*text + start + rlen, *text + end, tail);
    if (rlen > 0) /* repl may be NULL for a deletion */
        memcpy(*text + start, repl, rlen);
    *len = start + rlen + tail;
    (*text)[*len] = '\0';
}
