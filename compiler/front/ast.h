/* The syntax tree: nodes live in an arena and carry byte spans. */
#ifndef PIPEC_AST_H
#define PIPEC_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/source.h"

typedef struct ast_name {
    const char *text;
    span sp;
} ast_name;

typedef enum {
    EXPR_INT,
    EXPR_FLOAT,
    EXPR_STRING,
    EXPR_BOOL,
    EXPR_LIST,
    EXPR_MAP,
    EXPR_IDENT,
    EXPR_CALL,
} expr_kind;

typedef struct ast_expr ast_expr;
typedef struct ast_call ast_call;

typedef struct ast_map_entry {
    ast_name key; /* key text is the decoded string; span covers the quotes */
    ast_expr *value;
} ast_map_entry;

/* One argument: `name = value` or a positional value (name.text == NULL). */
typedef struct ast_arg {
    ast_name name;
    ast_expr *value;
    span sp;
} ast_arg;

/* callee(args)(args)...: groups[0] is the first parenthesized list. */
struct ast_call {
    ast_name callee;
    ptr_vec groups; /* ptr_vec* of ast_arg* */
    span sp;
};

struct ast_expr {
    expr_kind kind;
    span sp;
    union {
        int64_t i;
        double f;
        bool b;
        struct {
            const char *text; /* decoded; may contain NUL only if len says so */
            size_t len;
        } s;
        ptr_vec items;   /* EXPR_LIST: ast_expr* ; EXPR_MAP: ast_map_entry* */
        ast_name ident;  /* EXPR_IDENT */
        ast_call *call;  /* EXPR_CALL */
    } u;
    /* A lexical error was reported for this literal (a malformed number, a
       `$VAR`): the checks that would report it again stay silent. */
    bool poisoned;
};

typedef struct ast_decorator {
    ast_name name; /* span of the name after '@' */
    span sp;       /* '@' to the closing parenthesis */
    bool has_parens;
    ptr_vec args; /* ast_arg* */
} ast_decorator;

typedef struct ast_param {
    ast_name name;
    ast_name type;
    ast_expr *default_value; /* NULL when none */
    span sp;
} ast_param;

typedef struct ast_output {
    ast_name name;
    ast_name type;
} ast_output;

typedef struct ast_field {
    ast_name name;
    ast_expr *value;
} ast_field;

typedef struct ast_step {
    ptr_vec decorators; /* ast_decorator* */
    span keyword;       /* `step` */
    ast_name name;
    ptr_vec params;  /* ast_param* */
    ptr_vec outputs; /* ast_output* */
    bool outputs_parenthesized;
    ptr_vec fields; /* ast_field* */
    span sp;
    uint32_t file;
} ast_step;

typedef struct ast_statement {
    ptr_vec targets; /* ast_name* */
    bool targets_parenthesized;
    span targets_sp; /* valid when targets.len > 0 */
    ast_call *call;
    span sp;
} ast_statement;

typedef struct ast_pipeline {
    ptr_vec decorators;
    span keyword;
    ast_name name;
    ptr_vec params;     /* ast_param* */
    ptr_vec statements; /* ast_statement* */
    span sp;
    uint32_t file;
} ast_pipeline;

typedef struct ast_import {
    span keyword;
    ast_name path; /* decoded string; span covers the quotes */
} ast_import;

typedef enum { ITEM_IMPORT, ITEM_STEP, ITEM_PIPELINE } item_kind;

typedef struct ast_item {
    item_kind kind;
    union {
        ast_import *import;
        ast_step *step;
        ast_pipeline *pipeline;
    } u;
} ast_item;

typedef struct ast_comment {
    span sp; /* from '#' to the end of the line (newline excluded) */
} ast_comment;

typedef struct ast_file {
    uint32_t file;
    ptr_vec items;    /* ast_item* in source order */
    ptr_vec comments; /* ast_comment* in source order */
    size_t syntax_errors;
    /* span* of every syntax error, the ones not reported (consequences of
       another) included: the checker stays silent about what they touch. */
    ptr_vec syntax_error_spans;
} ast_file;

static inline span span_join(span a, span b)
{
    span s = {a.file, a.start < b.start ? a.start : b.start, a.end > b.end ? a.end : b.end};
    return s;
}

const char *expr_kind_name(expr_kind k);
/* Where a top-level item ends: an import's path, a step's or a pipeline's `}`. */
uint32_t ast_item_end(const ast_item *it);

#endif
