/* The lexer's side of error recovery: common mistakes (a missing or doubled
   quote, `'text'`, `//` comments, `$VAR`, `16GB` without quotes, brackets
   left open before the next declaration) are reported once, precisely, and
   read on as what was most likely meant, so that one mistake does not turn
   the rest of the file into errors. */
#ifndef PIPEC_LEX_RECOVER_H
#define PIPEC_LEX_RECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"
#include "parser.h"

/* A declaration keyword (`import`, `step`, `pipeline`, `@`; len bytes at
   loc) while brackets are still open: they were left open by mistake.
   Reported once (E0010), then closed with zero-width tokens, one per call
   (the keyword is read again after each), so that the new declaration
   parses as written. Returns the closing token, or 0. */
int lex_close_before_item(parse_ctx *p, span *loc, size_t len);
/* Before an opening bracket at `at`: whether it is one past
   PARSE_MAX_DEPTH, reported (E0121); the lexer then ends the file there
   (p->too_deep), so that nesting of any depth costs no more than this. */
bool lex_too_deep(parse_ctx *p, span at);
/* Does the text at `at` (the keyword, len bytes) start a declaration:
   `step NAME(`, `pipeline NAME(`, `import "`, `@NAME`, first on its line? */
bool lex_starts_declaration(const parse_ctx *p, uint32_t at, size_t len);

/* A string that reaches the end of its line (text, len: the token from its
   quote). In `"1})`, the closing brackets were most likely meant to follow
   the string: returns true when some are at the end, with *keep the bytes
   of the token to keep (the rest is read again as tokens, so that one
   missing quote does not unbalance the rest of the file) and *pushed how
   many of the others the help shows. */
bool lex_unterminated_split(const char *text, size_t len, size_t *keep, size_t *pushed);
/* The unterminated string (E0002, not reported on the line after another),
   poisoned; closer and pushed as from lex_unterminated_split. */
ast_expr *lex_unterminated_string(parse_ctx *p, span sp, const char *text, size_t len, bool closer, size_t pushed);

/* `H100")`, `16GB", shm = "2GiB"`: a word followed by `"` (text, len,
   the quote included). True when its opening quote is missing: read as an
   opening quote, the one after it would leave the line's last string
   unterminated. Keywords (`import"x.pipe"`) never are. */
bool lex_missing_open_quote_here(const parse_ctx *p, span sp, const char *text, size_t len);
/* Reports it once (E0002; a doubled `""` before the word too) and reads it
   as the string meant. */
ast_expr *lex_missing_open_quote(parse_ctx *p, span sp, const char *text, size_t len);
/* Reading the quote at `at` as an opening one, does the line end inside a
   string? (Lines over 4096 bytes are not guessed about.) */
bool lex_line_ends_in_string(const parse_ctx *p, uint32_t at);

/* `16GB`, `0x10`, `1.`, `.5`, `1_000`: E0004 with help, read as a poisoned 0. */
ast_expr *lex_bad_number(parse_ctx *p, span sp, const char *text, size_t len);
/* The token for a word that the other rules would have read, a value's
   missing opening quote given back (`import"x.pipe"`): a keyword, an
   identifier, or a number (well formed or not, lex_bad_number), with its
   value in *lval. */
int lex_word(parse_ctx *p, span sp, const char *text, size_t len, PIPE_YYSTYPE *lval);
/* `$HOME`, `${HOME}`: one error (E0001), and a value that no later check
   reports again. */
ast_expr *lex_shell_variable(parse_ctx *p, span sp, const char *text, size_t len);
/* 'text': reported once at the quote (E0001), then read as the string it means. */
ast_expr *lex_single_quoted(parse_ctx *p, span sp, const char *text, size_t len);
/* C and C++ comments: one error (E0001), then skipped as a comment would be. */
void lex_c_comment(parse_ctx *p, span sp);
/* Characters that start no token (E0001), with help for `-`, `;`, `'`, `$`
   and for a value whose opening quote is missing. */
void lex_bad_chars(parse_ctx *p, span sp, const char *text, size_t len);

#endif
