/* Error recovery shared by the lexer and the parser: one mistake, one
   diagnostic. A lexical error quiets the syntax error it causes at the next
   token and the other lexical errors on its line; a syntax error quiets the
   rest of its declaration. The syntax error messages name what was expected,
   and help with the usual mistakes. */
#ifndef PIPEC_PARSE_RECOVER_H
#define PIPEC_PARSE_RECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"

/* Counts a syntax error at sp (reported or not) in the result. */
void parse_note_syntax_error(parse_ctx *p, span sp);

/* True when the lexical error at `at` is not to be reported; otherwise the
   caller reports it, and it is remembered. */
bool parse_lex_error_quiet(parse_ctx *p, uint32_t at);
/* After a lexical error, a syntax error at the next token is a consequence
   of it and is not reported (the token with the error counts too, when the
   lexer returns one). */
void parse_lex_error_done(parse_ctx *p, bool returns_token);

/* True when offset `at` is on the line right after an unterminated string
   (reported there): errors there are most likely the rest of that string. */
bool parse_continues_unterminated(const parse_ctx *p, uint32_t at);

/* `import`, `step`, `pipeline` or `@` (token) first on a line starts a
   declaration: syntax errors are reported again from there. */
void parse_item_start(parse_ctx *p, int token, uint32_t at);

/* A token as the parser names it at a syntax error. */
typedef struct syntax_token {
    int token;        /* as in parser.h: IDENT, STRING, ')', ...; 0 is the end of the file */
    const char *name; /* the parser's name for it: "an identifier", "')'", "end of file" */
} syntax_token;

enum { SYNTAX_MAX_EXPECTED = 24 };

typedef struct syntax_error {
    span at;         /* the unexpected token */
    syntax_token found;
    syntax_token expected[SYNTAX_MAX_EXPECTED]; /* the tokens the grammar allows there */
    int nexpected;
} syntax_error;

/* Counts a syntax error at `at`; true when it is to be reported, false
   right after a lexical error, after another syntax error in the same
   declaration, or on the line after an unterminated string. */
bool parse_syntax_error_begin(parse_ctx *p, span at);
/* Reports it (E0010): what was expected and found, where a bracket left open
   was opened, and help for the usual mistakes. */
void parse_syntax_error_report(parse_ctx *p, syntax_error *e);

/* The heuristics behind the report, exposed for tests. */

/* Drops the tokens that only the rules accepting a mistake allow (`:` for
   `=`, `,` in `a, b = f()`), so they are not named as expected; returns how
   many are left. */
int parse_drop_recovery_tokens(syntax_token *expected, int n);
/* Help for words from other languages (`def`, `return`, `let`, `if`), or NULL. */
const char *parse_foreign_word_help(const char *word);
/* The identifier just before offset `at` (spaces skipped) into buf; false
   when there is none or it does not fit. */
bool parse_word_before(const parse_ctx *p, uint32_t at, char *buf, size_t size);
/* True when only spaces lie between the start of the line and `at` (a
   missing `,` is only likely between items on one line). */
bool parse_line_break_before(const parse_ctx *p, uint32_t at);

/* Mistakes the grammar accepts in order to report them precisely and read on
   as if they had been written right. recovering: the parser is recovering
   from a syntax error (bison's yyerrstatus), which they are most likely part
   of: not reported then. */
void parse_colon_for_equals(parse_ctx *p, span colon, const char *name, int recovering);
/* `a, b = f()`: first and rest (ast_name*) are the targets. */
void parse_unparenthesized_targets(parse_ctx *p, span comma, const char *first, ptr_vec *rest, const char *callee,
                                   int recovering);
void parse_unquoted_key(parse_ctx *p, span key, const char *name, int recovering);

#endif
