/* The .pipe grammar (docs/language.md, "Grammar"). Actions only call
   ast_new_*() and, for the mistakes the grammar accepts in order to report
   them precisely, parse_recover.c; so does the syntax error report. The
   checker, not the grammar, rejects positional and chained calls so that it
   can say precisely what is wrong. Values are arena-allocated, so nothing
   dropped during error recovery needs a %destructor. */
%define api.pure full
%define api.prefix {pipe_yy}
%define api.location.type {span}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {parse_ctx *p}

%code requires {
#include "front/parse.h"
}

%code provides {
int pipe_yylex(PIPE_YYSTYPE *yylval, PIPE_YYLTYPE *yylloc, void *scanner);
}

%code {
#include <string.h>

#include "front/lex_util.h"
#include "front/parse_recover.h"

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

%token <name> IDENT "an identifier"
%token <expr> INT "an integer" FLOAT "a float" STRING "a string"
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
    : IMPORT STRING
        {
            /* A path with a lexical error (reported) is not the file meant:
               the steps it would bring in are lost, like names lost to a
               syntax error. */
            if ($2->poisoned)
                p->result->syntax_errors++;
            else
                ast_add_import(p, @1, $2);
        }
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
        { $$ = ast_new_step(p, $1, @2, $3, $5, $7, $7 && lex_paren_after_arrow(p, @7), $9, @10); }
    ;

outputs
    : %empty                              { $$ = NULL; }
    | ARROW output                        { $$ = ast_vec_push(p, empty(p), $2); }
    | ARROW '(' output_list opt_comma ')' { $$ = $3; }
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
    | IDENT ':' value                     { parse_colon_for_equals(p, @2, $1.text, yyerrstatus); $$ = ast_new_field(p, $1, $3); }
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
    | IDENT ':' call
        {
            parse_colon_for_equals(p, @2, $1.text, yyerrstatus);
            $$ = ast_new_statement(p, ast_vec_push(p, empty(p), ast_new_name(p, $1)), false, @1, $3);
        }
    | '(' ident_list opt_comma ')' ':' call
        {
            parse_colon_for_equals(p, @5, NULL, yyerrstatus);
            $$ = ast_new_statement(p, $2, true, span_join(@1, @4), $6);
        }
    | IDENT ',' ident_list opt_comma '=' call
        {
            /* `a, b = f()`: reported, then read as `(a, b) = f()`. */
            parse_unparenthesized_targets(p, @2, $1.text, $3, $6->callee.text, yyerrstatus);
            ptr_vec *targets = ast_vec_push(p, empty(p), ast_new_name(p, $1));
            for (size_t i = 0; i < $3->len; i++)
                ast_vec_push(p, targets, $3->items[i]);
            $$ = ast_new_statement(p, targets, true, span_join(@1, @3), $6);
        }
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
    | IDENT ':' expr                      { parse_colon_for_equals(p, @2, $1.text, yyerrstatus); $$ = ast_new_arg(p, &$1, $3); }
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
    | IDENT ':' value
        {
            parse_unquoted_key(p, @1, $1.text, yyerrstatus);
            $$ = ast_new_map_entry(p, ast_new_string(p, @1, $1.text, strlen($1.text)), $3);
        }
    ;

opt_comma
    : %empty
    | ','
    ;

%%

/* The token number (parser.h) of a terminal symbol. */
static int token_number(yysymbol_kind_t kind)
{
    for (int t = 0; t <= YYMAXUTOK; t++)
        if (YYTRANSLATE(t) == kind)
            return t;
    return -1;
}

static syntax_token token_of(yysymbol_kind_t kind)
{
    syntax_token t = {token_number(kind), yysymbol_name(kind)};
    return t;
}

/* Hands the parser's view of a syntax error to parse_recover.c. */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, parse_ctx *p)
{
    (void)scanner;
    syntax_error e = {.at = *yypcontext_location(ctx)};
    if (!parse_syntax_error_begin(p, e.at))
        return 0;
    yysymbol_kind_t expected[SYNTAX_MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, SYNTAX_MAX_EXPECTED);
    for (int i = 0; i < n; i++)
        e.expected[e.nexpected++] = token_of(expected[i]);
    e.found = token_of(yypcontext_token(ctx));
    parse_syntax_error_report(p, &e);
    return 0;
}

static void pipe_yyerror(PIPE_YYLTYPE *loc, void *scanner, parse_ctx *p, const char *msg)
{
    (void)scanner;
    parse_note_syntax_error(p, *loc);
    diag_report(p->diag, *loc, DIAG_E0010, "%s", msg);
}
