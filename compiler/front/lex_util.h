/* What the scanner's actions (lexer.l) call to make tokens: bookkeeping for
   recovery, names, numbers and strings with their values decoded. */
#ifndef PIPEC_LEX_UTIL_H
#define PIPEC_LEX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"
#include "parser.h"

/* Records that token (at offset `at`) is being returned; returns token. */
int lex_token(parse_ctx *p, int token, uint32_t at);
/* Newlines were read; the next line starts at the current offset. */
void lex_newline(parse_ctx *p);

/* Brackets are tracked, innermost last, for "opened here" notes; the
   lexer asks lex_too_deep (lex_recover.h) before it opens one. */
void lex_open_bracket(parse_ctx *p, uint32_t at, char c);
void lex_close_bracket(parse_ctx *p);
/* `(` at `at`: CHAIN_LPAREN when it follows `)` on the same line (`f(a)(b)`
   chains a call), else `(` (on a new line it starts `(a, b) = ...`). */
int lex_open_paren(parse_ctx *p, uint32_t at);

ast_name lex_name(parse_ctx *p, span sp, const char *text, size_t len);
/* A well-formed number; one out of range is reported (E0004) and poisoned. */
ast_expr *lex_number(parse_ctx *p, span sp, const char *text, size_t len, bool is_float);
/* A string literal from its body (between the quotes); one with a bad escape
   or character is poisoned: its value is not what was meant, so no check
   looks at it again. */
ast_expr *lex_string(parse_ctx *p, span sp, const char *body, size_t len);

/* Decodes the body of a string literal (between the quotes) into the arena,
   reporting bad escapes (E0003), control characters and invalid UTF-8
   (E0001). body_offset is the byte offset of the body in the file. */
const char *decode_string(parse_ctx *p, const char *body, size_t len, uint32_t body_offset, size_t *out_len);

/* Whether the outputs (their span starts at `->`) are written in parentheses. */
bool lex_paren_after_arrow(const parse_ctx *p, span outputs);

#endif
