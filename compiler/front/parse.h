/* Lexer and parser entry point; the context travels through %parse-param.
   The scanner's helpers are in lex_util.h, error recovery in lex_recover.h
   and parse_recover.h. */
#ifndef PIPEC_PARSE_H
#define PIPEC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "util/diag.h"

/* How deep brackets (`(`, `[` and `{`, counted together) may nest: the
   bracket past it is E0121 and ends the file's parse. It bounds the
   parser's stack and every recursive walk of a value (checker, fmt,
   generators, YAML writer), whatever the input. */
#define PARSE_MAX_DEPTH 64

typedef struct parse_ctx {
    arena *arena;
    diag_engine *diag;
    const source_file *src;
    uint32_t file;
    uint32_t offset;   /* byte offset of the next token (YY_USER_ACTION) */
    ast_file *result;
    int prev_token;    /* for telling a chained call from a new statement */
    bool newline_seen; /* a newline since prev_token */
    uint32_t line_start; /* offset of the line the lexer is on */
    void *scanner;
    /* Error recovery: one mistake, one diagnostic. */
    size_t ntokens;          /* tokens returned so far */
    bool lex_error_seen;
    size_t quiet_through;    /* no syntax error is reported while ntokens <= this,
                                right after a lexical error */
    bool syntax_error_seen;
    uint32_t syntax_error_at; /* lexical errors later on its line are not reported */
    bool lex_error_reported;
    uint32_t lex_error_at;    /* nor are other lexical errors on the line of one */
    bool unterminated_seen;
    uint32_t unterminated_end; /* end of the last unterminated string */
    ast_expr *last_string;     /* the last string literal read */
    bool closing;              /* closing brackets left open before a declaration */
    bool in_broken_item;      /* a syntax error was reported in this declaration: no
                                 other is, until `import`, `step`, `pipeline` or `@`
                                 starts a line */
    /* Open brackets, innermost last, for "opened here" notes. */
    uint32_t open_at[PARSE_MAX_DEPTH];
    char open_char[PARSE_MAX_DEPTH];
    size_t depth;      /* at most PARSE_MAX_DEPTH */
    bool too_deep;     /* E0121 was reported: the lexer gives no more tokens */
} parse_ctx;

/* Parses one loaded file. Always returns a tree, possibly partial; syntax
   errors are reported to diag and counted in ast_file.syntax_errors. */
ast_file *parse_file(arena *a, diag_engine *d, source_set *sources, uint32_t file);

/* AST constructors called by the grammar actions. */
ast_expr *ast_new_int(parse_ctx *p, span sp, const char *text, size_t len);
ast_expr *ast_new_float(parse_ctx *p, span sp, const char *text, size_t len);
ast_expr *ast_new_bool(parse_ctx *p, span sp, bool value);
ast_expr *ast_new_string(parse_ctx *p, span sp, const char *text, size_t len);
ast_expr *ast_new_list(parse_ctx *p, span sp, ptr_vec *items);
ast_expr *ast_new_map(parse_ctx *p, span sp, ptr_vec *entries);
ast_expr *ast_new_ident(parse_ctx *p, ast_name name);
ast_expr *ast_new_call_expr(parse_ctx *p, ast_call *call);
ast_map_entry *ast_new_map_entry(parse_ctx *p, ast_expr *key, ast_expr *value);
ast_arg *ast_new_arg(parse_ctx *p, const ast_name *name, ast_expr *value);
ast_call *ast_new_call(parse_ctx *p, ast_name callee, ptr_vec *first_group, span sp);
void ast_call_add_group(parse_ctx *p, ast_call *call, ptr_vec *group, span close);
ast_decorator *ast_new_decorator(parse_ctx *p, span at, ast_name name, ptr_vec *args, bool has_parens, span end);
ast_param *ast_new_param(parse_ctx *p, ast_name name, ast_name type, ast_expr *default_value);
ast_output *ast_new_output(parse_ctx *p, ast_name name, ast_name type);
ast_field *ast_new_field(parse_ctx *p, ast_name name, ast_expr *value);
ast_step *ast_new_step(parse_ctx *p, ptr_vec *decorators, span keyword, ast_name name, ptr_vec *params,
                       ptr_vec *outputs, bool parenthesized, ptr_vec *fields, span end);
ast_statement *ast_new_statement(parse_ctx *p, ptr_vec *targets, bool parenthesized, span targets_sp,
                                 ast_call *call);
ast_pipeline *ast_new_pipeline(parse_ctx *p, ptr_vec *decorators, span keyword, ast_name name, ptr_vec *params,
                               ptr_vec *statements, span end);
void ast_add_import(parse_ctx *p, span keyword, ast_expr *path);
void ast_add_step(parse_ctx *p, ast_step *s);
void ast_add_pipeline(parse_ctx *p, ast_pipeline *pl);
void ast_add_comment(parse_ctx *p, span sp);
ptr_vec *ast_new_vec(parse_ctx *p);
ptr_vec *ast_vec_push(parse_ctx *p, ptr_vec *v, void *item);
ast_name *ast_new_name(parse_ctx *p, ast_name name);

#endif
