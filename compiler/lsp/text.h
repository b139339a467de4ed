/* Positions as LSP counts them (a line, and UTF-16 code units into it)
   against byte offsets into a document's text; lines end at LF, CRLF or a
   CR alone, as in the compiler (util/source.c). */
#ifndef PIPEC_LSP_TEXT_H
#define PIPEC_LSP_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "util/source.h"

typedef struct lsp_pos {
    uint32_t line, character;
} lsp_pos;

/* The byte offset of pos in text[0..len): a character past the line's end
   is its end, a line past the last is the end of the text, a position
   inside a character is its start. */
size_t text_offset(const char *text, size_t len, lsp_pos pos);

/* The position of byte offset in a loaded file (its line table,
   util/source.c). */
lsp_pos text_position(const source_file *f, size_t offset);

/* Replaces text[start..end) of the buffer *text (length *len, capacity *cap)
   with repl[0..rlen). */
void text_splice(char **text, size_t *len, size_t *cap, size_t start, size_t end, const char *repl, size_t rlen);

#endif
