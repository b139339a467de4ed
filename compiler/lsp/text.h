/* Positions as LSP counts them (a line, and UTF-16 code units into it)
   against byte offsets into a document's text; lines end at LF, CRLF or a
   CR alone, as in the compiler (front/source.c). */
#ifndef PIPEC_LSP_TEXT_H
#define PIPEC_LSP_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct lsp_pos {
    uint32_t line, character;
} lsp_pos;

/* The byte offset of pos in text[0..len): a character past the line's end
   is its end, a line past the last is the end of the text, a position
   inside a character is its start. */
size_t text_offset(const char *text, size_t len, lsp_pos pos);

/* Line starts of a text, for converting many offsets. */
typedef struct line_index {
    const char *text;
    size_t len;
    uint32_t *starts;
    size_t nlines;
} line_index;

void line_index_init(line_index *li, const char *text, size_t len);
void line_index_free(line_index *li);
lsp_pos line_index_position(const line_index *li, size_t offset);

/* Replaces text[start..end) of the buffer *text (length *len, capacity *cap)
   with repl[0..rlen). */
void text_splice(char **text, size_t *len, size_t *cap, size_t start, size_t end, const char *repl, size_t rlen);

#endif
