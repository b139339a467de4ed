/* The .pipe grammar (LANGUAGE.md §4). Actions only call ast_new_*(): the
   checker, not the grammar, rejects positional and chained calls so that it
   can say precisely what is wrong. Values are arena-allocated, so nothing
   dropped during error recovery needs a %destructor. */
%define api.pure full
%define api.prefix {pipe_yy}
%define api.location.type {span}
%define parse.error custom
%locations
%expect 0
%param {void *scanner}
%parse-param {parse_ctx *p}

%code requires {
#include "parse.h"
}

%code provides {
int pipe_yylex(PIPE_YYSTYPE *yylval, PIPE_YYLTYPE *yylloc, void *scanner);
}

%code {
#include <stdio.h>
#include <string.h>

#include "strbuf.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
    do {                                                                     \
        if (N) {                                                             \
            (Cur).file = YYRHSLOC(Rhs, 1).file;                              \
            (Cur).start = YYRHSLOC(Rhs, 1).start;                            \
            (Cur).end = YYRHSLOC(Rhs, N).end;                                \
        } else {                                                             \
            (Cur).file = YYRHSLOC(Rhs, 0).file;                              \
            (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end;                  \
        }                                                                    \
    } while (0)

static void pipe_yyerror(PIPE_YYLTYPE *loc, void *scanner, parse_ctx *p, const char *msg);
static ptr_vec *empty(parse_ctx *p) { return ast_new_vec(p); }
}

%union {
    ast_name name;
    ast_expr *expr;
    ast_call *call;
    ast_arg *arg;
    ast_decorator *decorator;
    ast_param *param;
    ast_output *output;
    ast_field *field;
    ast_step *step;
    ast_pipeline *pipeline;
    ast_statement *statement;
    ast_map_entry *entry;
    ptr_vec *vec;
}

%token <name> IDENT "identifier"
%token <expr> INT "integer" FLOAT "float" STRING "string"
%token IMPORT "`import`" STEP "`step`" PIPELINE "`pipeline`" TRUE "`true`" FALSE "`false`" ARROW "`->`" CHAIN_LPAREN "`(`"

%type <expr> value list map expr
%type <call> call
%type <arg> arg
%type <decorator> decorator
%type <param> param
%type <output> output
%type <field> field
%type <step> step_decl
%type <pipeline> pipeline_decl
%type <statement> statement
%type <entry> map_entry
%type <vec> decorators params_opt params args_opt args outputs output_list fields statements
%type <vec> values map_entries ident_list

%start file

%%

file
    : items
    ;

items
    : %empty
    | items import
    | items step_decl          { ast_add_step(p, $2); }
    | items pipeline_decl      { ast_add_pipeline(p, $2); }
    | items error
    ;

import
    : IMPORT STRING            { ast_add_import(p, @1, $2); }
    ;

decorators
    : %empty                   { $$ = empty(p); }
    | decorators decorator     { $$ = ast_vec_push(p, $1, $2); }
    ;

decorator
    : '@' IDENT                           { $$ = ast_new_decorator(p, @1, $2, NULL, false, @2); }
    | '@' IDENT '(' args_opt ')'          { $$ = ast_new_decorator(p, @1, $2, $4, true, @5); }
    ;

step_decl
    : decorators STEP IDENT '(' params_opt ')' outputs '{' fields '}'
        { $$ = ast_new_step(p, $1, @2, $3, $5, $7, $7 && $7->cap == 1, $9, @10); }
    ;

outputs
    : %empty                              { $$ = NULL; }
    | ARROW output                        { $$ = ast_vec_push(p, empty(p), $2); }
    | ARROW '(' output_list opt_comma ')' { $$ = $3; $$->cap = $$->cap > 1 ? $$->cap : 1; }
    ;

output_list
    : output                              { $$ = ast_vec_push(p, empty(p), $1); }
    | output_list ',' output              { $$ = ast_vec_push(p, $1, $3); }
    ;

output
    : IDENT ':' IDENT                     { $$ = ast_new_output(p, $1, $3); }
    ;

params_opt
    : %empty                              { $$ = empty(p); }
    | params opt_comma                    { $$ = $1; }
    ;

params
    : param                               { $$ = ast_vec_push(p, empty(p), $1); }
    | params ',' param                    { $$ = ast_vec_push(p, $1, $3); }
    ;

param
    : IDENT ':' IDENT                     { $$ = ast_new_param(p, $1, $3, NULL); }
    | IDENT ':' IDENT '=' value           { $$ = ast_new_param(p, $1, $3, $5); }
    ;

fields
    : %empty                              { $$ = empty(p); }
    | fields field                        { $$ = ast_vec_push(p, $1, $2); }
    | fields error                        { $$ = $1; }
    ;

field
    : IDENT '=' value                     { $$ = ast_new_field(p, $1, $3); }
    ;

pipeline_decl
    : decorators PIPELINE IDENT '(' params_opt ')' '{' statements '}'
        { $$ = ast_new_pipeline(p, $1, @2, $3, $5, $8, @9); }
    ;

statements
    : %empty                              { $$ = empty(p); }
    | statements statement                { $$ = ast_vec_push(p, $1, $2); }
    | statements error                    { $$ = $1; }
    ;

statement
    : call                                { $$ = ast_new_statement(p, NULL, false, @1, $1); }
    | IDENT '=' call                      { $$ = ast_new_statement(p, ast_vec_push(p, empty(p), ast_new_name(p, $1)), false, @1, $3); }
    | '(' ident_list opt_comma ')' '=' call { $$ = ast_new_statement(p, $2, true, span_join(@1, @4), $6); }
    ;

ident_list
    : IDENT                               { $$ = ast_vec_push(p, empty(p), ast_new_name(p, $1)); }
    | ident_list ',' IDENT                { $$ = ast_vec_push(p, $1, ast_new_name(p, $3)); }
    ;

call
    : IDENT '(' args_opt ')'              { $$ = ast_new_call(p, $1, $3, @4); }
    | call CHAIN_LPAREN args_opt ')'      { ast_call_add_group(p, $1, $3, @4); $$ = $1; }
    ;

args_opt
    : %empty                              { $$ = empty(p); }
    | args opt_comma                      { $$ = $1; }
    ;

args
    : arg                                 { $$ = ast_vec_push(p, empty(p), $1); }
    | args ',' arg                        { $$ = ast_vec_push(p, $1, $3); }
    ;

arg
    : IDENT '=' expr                      { $$ = ast_new_arg(p, &$1, $3); }
    | expr                                { $$ = ast_new_arg(p, NULL, $1); }
    ;

expr
    : value
    | IDENT                               { $$ = ast_new_ident(p, $1); }
    | call                                { $$ = ast_new_call_expr(p, $1); }
    ;

value
    : INT
    | FLOAT
    | STRING
    | TRUE                                { $$ = ast_new_bool(p, @1, true); }
    | FALSE                               { $$ = ast_new_bool(p, @1, false); }
    | list
    | map
    ;

list
    : '[' ']'                             { $$ = ast_new_list(p, @$, NULL); }
    | '[' values opt_comma ']'            { $$ = ast_new_list(p, @$, $2); }
    ;

values
    : value                               { $$ = ast_vec_push(p, empty(p), $1); }
    | values ',' value                    { $$ = ast_vec_push(p, $1, $3); }
    ;

map
    : '{' '}'                             { $$ = ast_new_map(p, @$, NULL); }
    | '{' map_entries opt_comma '}'       { $$ = ast_new_map(p, @$, $2); }
    ;

map_entries
    : map_entry                           { $$ = ast_vec_push(p, empty(p), $1); }
    | map_entries ',' map_entry           { $$ = ast_vec_push(p, $1, $3); }
    ;

map_entry
    : STRING ':' value                    { $$ = ast_new_map_entry(p, $1, $3); }
    ;

opt_comma
    : %empty
    | ','
    ;

%%

/* Human names for tokens: "`)`", "identifier", "end of file". */
static void token_name(yysymbol_kind_t kind, char *buf, size_t size)
{
    const char *name = yysymbol_name(kind);
    size_t n = strlen(name);
    if (kind == YYSYMBOL_YYEOF) {
        snprintf(buf, size, "end of file");
    } else if (n >= 2 && name[0] == '\'' && name[n - 1] == '\'') {
        snprintf(buf, size, "`%.*s`", (int)(n - 2), name + 1);
    } else if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
        snprintf(buf, size, "%.*s", (int)(n - 2), name + 1);
    } else {
        snprintf(buf, size, "%s", name);
    }
}

static bool starts_value(yysymbol_kind_t k)
{
    const char *name = yysymbol_name(k);
    return k == YYSYMBOL_INT || k == YYSYMBOL_FLOAT || k == YYSYMBOL_STRING || k == YYSYMBOL_TRUE ||
           k == YYSYMBOL_FALSE || strcmp(name, "'['") == 0 || strcmp(name, "'{'") == 0;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, parse_ctx *p)
{
    (void)scanner;
    enum { MAX_EXPECTED = 24 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
    if (n < 0)
        n = 0;
    /* The seven tokens that start a value are named together as "a value". */
    int values = 0;
    for (int i = 0; i < n; i++)
        values += starts_value(expected[i]);
    bool collapse = values == 7;
    const char *names[MAX_EXPECTED + 1];
    char bufs[MAX_EXPECTED][64];
    int shown = 0;
    for (int i = 0; i < n; i++) {
        if (collapse && starts_value(expected[i]))
            continue;
        token_name(expected[i], bufs[shown], sizeof bufs[shown]);
        names[shown] = bufs[shown];
        shown++;
    }
    if (collapse)
        names[shown++] = "a value";
    strbuf list = STRBUF_INIT;
    for (int i = 0; i < shown; i++) {
        if (i)
            sb_puts(&list, i == shown - 1 ? " or " : ", ");
        sb_puts(&list, names[i]);
    }
    char found[96];
    yysymbol_kind_t tok = yypcontext_token(ctx);
    const span *loc = yypcontext_location(ctx);
    if (tok == YYSYMBOL_IDENT) {
        uint32_t len = loc->end - loc->start;
        snprintf(found, sizeof found, "identifier `%.*s`", len > 40 ? 40 : (int)len, p->src->text + loc->start);
    } else {
        token_name(tok, found, sizeof found);
    }
    p->result->syntax_errors++;
    diagnostic *dg;
    if (shown)
        dg = diag_error(p->diag, *loc, "E0010", "expected %s, found %s", sb_cstr(&list), found);
    else
        dg = diag_error(p->diag, *loc, "E0010", "unexpected %s", found);
    diag_label(p->diag, dg, "unexpected here");
    sb_free(&list);
    return 0;
}

static void pipe_yyerror(PIPE_YYLTYPE *loc, void *scanner, parse_ctx *p, const char *msg)
{
    (void)scanner;
    p->result->syntax_errors++;
    diag_error(p->diag, *loc, "E0010", "%s", msg);
}
