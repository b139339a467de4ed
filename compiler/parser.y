/* The .pipe grammar (LANGUAGE.md §4). Actions only call ast_new_*(): the
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
#include "parse.h"
}

%code provides {
int pipe_yylex(PIPE_YYSTYPE *yylval, PIPE_YYLTYPE *yylloc, void *scanner);
}

%code {
#include <ctype.h>
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

/* Whether the outputs (their span starts at `->`) are written in parentheses. */
static bool paren_after_arrow(parse_ctx *p, span sp)
{
    const char *t = p->src->text + sp.start + 2, *end = p->src->text + p->src->len;
    while (t < end && (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r'))
        t++;
    return t < end && *t == '(';
}
/* recovering: bison's yyerrstatus; these are not reported while the parser
   recovers from a syntax error, which they are most likely part of. */
static void colon_for_equals(parse_ctx *p, span colon, const char *name, int recovering);
static void unparenthesized_targets(parse_ctx *p, span comma, const char *first, ptr_vec *rest, const char *callee,
                                    int recovering);
static void unquoted_key(parse_ctx *p, span key, const char *name, int recovering);
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
        { $$ = ast_new_step(p, $1, @2, $3, $5, $7, $7 && paren_after_arrow(p, @7), $9, @10); }
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
    | IDENT ':' value                     { colon_for_equals(p, @2, $1.text, yyerrstatus); $$ = ast_new_field(p, $1, $3); }
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
            colon_for_equals(p, @2, $1.text, yyerrstatus);
            $$ = ast_new_statement(p, ast_vec_push(p, empty(p), ast_new_name(p, $1)), false, @1, $3);
        }
    | '(' ident_list opt_comma ')' ':' call
        {
            colon_for_equals(p, @5, NULL, yyerrstatus);
            $$ = ast_new_statement(p, $2, true, span_join(@1, @4), $6);
        }
    | IDENT ',' ident_list opt_comma '=' call
        {
            /* `a, b = f()`: reported, then read as `(a, b) = f()`. */
            unparenthesized_targets(p, @2, $1.text, $3, $6->callee.text, yyerrstatus);
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
    | IDENT ':' expr                      { colon_for_equals(p, @2, $1.text, yyerrstatus); $$ = ast_new_arg(p, &$1, $3); }
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
            unquoted_key(p, @1, $1.text, yyerrstatus);
            $$ = ast_new_map_entry(p, ast_new_string(p, @1, $1.text, strlen($1.text)), $3);
        }
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

/* True when a line break lies between the previous token and offset `at`
   (a missing `,` is only likely between items on one line). */
static bool expects_close_only_line_break(const parse_ctx *p, uint32_t at)
{
    uint32_t i = at;
    while (i > 0 && (p->src->text[i - 1] == ' ' || p->src->text[i - 1] == '\t' || p->src->text[i - 1] == '\r'))
        i--;
    return i == 0 || p->src->text[i - 1] == '\n';
}

static bool has_token(const yysymbol_kind_t *expected, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(yysymbol_name(expected[i]), name) == 0)
            return true;
    return false;
}

/* The grammar accepts a few mistakes to report them precisely (see
   colon_for_equals below); the tokens that only those rules allow are not
   named as "expected". */
static int drop_recovery_tokens(yysymbol_kind_t *expected, int n)
{
    bool eq = has_token(expected, n, "'='"), paren = has_token(expected, n, "'('");
    bool close_paren = has_token(expected, n, "')'"), close_brace = has_token(expected, n, "'}'");
    bool string = has_token(expected, n, "\"a string\""), integer = has_token(expected, n, "\"an integer\"");
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const char *name = yysymbol_name(expected[i]);
        if (eq && strcmp(name, "':'") == 0)
            continue; /* `name: value` for `name = value` */
        if (eq && paren && !close_paren && strcmp(name, "','") == 0)
            continue; /* `a, b = step()` for `(a, b) = step()` */
        if (string && close_brace && !integer && expected[i] == YYSYMBOL_IDENT)
            continue; /* an unquoted map key */
        expected[kept++] = expected[i];
    }
    return kept;
}

/* The identifier just before offset `at`, if any ("return" in `return m`). */
static bool word_before(const parse_ctx *p, uint32_t at, char *buf, size_t size)
{
    uint32_t e = at;
    while (e > 0 && (p->src->text[e - 1] == ' ' || p->src->text[e - 1] == '\t'))
        e--;
    uint32_t b = e;
    while (b > 0 && (isalnum((unsigned char)p->src->text[b - 1]) || p->src->text[b - 1] == '_'))
        b--;
    if (b == e || e - b >= size)
        return false;
    memcpy(buf, p->src->text + b, e - b);
    buf[e - b] = '\0';
    return true;
}

/* Help for words from other languages. */
static const char *foreign_word_help(const char *w)
{
    if (strcmp(w, "def") == 0 || strcmp(w, "fn") == 0 || strcmp(w, "func") == 0 || strcmp(w, "function") == 0)
        return "steps are declared with `step NAME(PARAMS) { source = \"...\" }`";
    if (strcmp(w, "return") == 0)
        return "pipelines have no `return`: a step's outputs are bound with `name = step(...)` and passed on by name";
    if (strcmp(w, "let") == 0 || strcmp(w, "var") == 0 || strcmp(w, "const") == 0 || strcmp(w, "val") == 0)
        return "bind a name directly: `name = step(...)`";
    if (strcmp(w, "if") == 0 || strcmp(w, "for") == 0 || strcmp(w, "while") == 0)
        return "pipelines are a fixed flow of step invocations: there are no conditions or loops";
    return NULL;
}

/* The closing bracket for an opening one. */
static char closer(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, parse_ctx *p)
{
    (void)scanner;
    const span *loc = yypcontext_location(ctx);
    parse_note_syntax_error(p, *loc);
    if (p->lex_error_seen && p->ntokens <= p->quiet_through)
        return 0; /* a consequence of the lexical error just reported */
    if (p->in_broken_item)
        return 0; /* one per declaration: the others are most often the parser out of step */
    if (continues_unterminated(p, loc->start))
        return 0; /* the rest of a string that was not closed on its line (E0002) */
    p->in_broken_item = true;
    p->syntax_error_seen = true;
    p->syntax_error_at = loc->start;
    enum { MAX_EXPECTED = 24 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
    if (n < 0)
        n = 0;
    n = drop_recovery_tokens(expected, n);
    /* The seven tokens that start a value are named together as "a value". */
    int values = 0;
    for (int i = 0; i < n; i++)
        values += starts_value(expected[i]);
    bool collapse = values == 7;
    const char *names[MAX_EXPECTED + 1];
    char bufs[MAX_EXPECTED][64];
    int shown = 0;
    char close = p->depth > 0 && p->depth <= 64 ? closer(p->open_char[p->depth - 1]) : 0;
    bool expects_close = false, expects_comma = false, expects_string = false, expects_closer = false;
    for (int i = 0; i < n; i++) {
        const char *name = yysymbol_name(expected[i]);
        if (close && name[0] == '\'' && name[1] == close)
            expects_close = true;
        if (name[0] == '\'' && name[1] == ',')
            expects_comma = true;
        if (name[0] == '\'' && (name[1] == ')' || name[1] == ']' || name[1] == '}'))
            expects_closer = true;
        if (expected[i] == YYSYMBOL_STRING)
            expects_string = true;
        if (collapse && starts_value(expected[i]))
            continue;
        token_name(expected[i], bufs[shown], sizeof bufs[shown]);
        bool dup = false; /* `(` and the `(` of a chained call read the same */
        for (int k = 0; k < shown && !dup; k++)
            dup = strcmp(names[k], bufs[shown]) == 0;
        if (dup)
            continue;
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
    if (tok == YYSYMBOL_IDENT) {
        uint32_t len = loc->end - loc->start;
        snprintf(found, sizeof found, "identifier `%.*s`", len > 40 ? 40 : (int)len, p->src->text + loc->start);
    } else {
        token_name(tok, found, sizeof found);
    }
    diagnostic *dg;
    if (shown)
        dg = diag_report(p->diag, *loc, DIAG_E0010, "expected %s, found %s", sb_cstr(&list), found);
    else
        dg = diag_report(p->diag, *loc, DIAG_E0010, "unexpected %s", found);
    diag_label(p->diag, dg, "unexpected here");
    /* A bracket left open: say where, when the closer was one of the choices
       and the parser met the end of the file or the start of a declaration. */
    bool next_item = tok == YYSYMBOL_YYEOF || tok == YYSYMBOL_STEP || tok == YYSYMBOL_PIPELINE ||
                     tok == YYSYMBOL_IMPORT || strcmp(yysymbol_name(tok), "'@'") == 0;
    /* ... or the first token of a later line: `load(path = "x"` then `train(...)`. */
    uint32_t open_at = expects_close ? p->open_at[p->depth - 1] : 0;
    bool later_line = expects_close && expects_close_only_line_break(p, loc->start) &&
                      memchr(p->src->text + open_at, '\n', loc->start > open_at ? loc->start - open_at : 0) != NULL;
    if (expects_close && (next_item || later_line)) {
        uint32_t at = p->open_at[p->depth - 1];
        span open = {p->file, at, at + 1};
        diag_note(p->diag, dg, open, "the `%c` opened here is not closed", p->open_char[p->depth - 1]);
    }
    char word[32], before[32];
    const char *foreign = NULL;
    if (tok == YYSYMBOL_IDENT && loc->end - loc->start < sizeof word) {
        memcpy(word, p->src->text + loc->start, loc->end - loc->start);
        word[loc->end - loc->start] = '\0';
        foreign = foreign_word_help(word);
    }
    if (!foreign && word_before(p, loc->start, before, sizeof before))
        foreign = foreign_word_help(before);
    if (foreign)
        diag_help(p->diag, dg, "%s", foreign);
    else if (tok == YYSYMBOL_IDENT && expects_string) {
        /* `import lib/data.pipe`: the text as far as it goes. */
        uint32_t e = loc->start;
        while (e < p->src->len && strchr(" \t\r\n,)]}#\"", p->src->text[e]) == NULL)
            e++;
        if (e - loc->start <= 80)
            diag_help(p->diag, dg, "text is written in double quotes: \"%.*s\"", (int)(e - loc->start),
                      p->src->text + loc->start);
        else
            diag_help(p->diag, dg, "text is written in double quotes: \"...\"");
    }
    else if (expects_comma && expects_closer && tok != YYSYMBOL_YYEOF &&
             !expects_close_only_line_break(p, loc->start))
        diag_help(p->diag, dg, "a `,` may be missing before this");
    else if (n == 1 && strcmp(yysymbol_name(expected[0]), "':'") == 0 && word_before(p, loc->start, before, sizeof before))
        diag_help(p->diag, dg, "parameters and outputs are written `name: type`, e.g. `data: dataset`");
    sb_free(&list);
    return 0;
}

static void pipe_yyerror(PIPE_YYLTYPE *loc, void *scanner, parse_ctx *p, const char *msg)
{
    (void)scanner;
    parse_note_syntax_error(p, *loc);
    diag_report(p->diag, *loc, DIAG_E0010, "%s", msg);
}

/* Mistakes the grammar accepts in order to report them precisely and read
   on as if they had been written right: nothing is lost, so they do not
   count as syntax errors that hide later name errors. */
static void colon_for_equals(parse_ctx *p, span colon, const char *name, int recovering)
{
    if (recovering || p->in_broken_item)
        return;
    diagnostic *dg = diag_report(p->diag, colon, DIAG_E0010, "expected `=`, found `:`");
    diag_label(p->diag, dg, "`=` goes here");
    if (name)
        diag_help(p->diag, dg, "write `%s = ...`; `:` only gives a parameter its type (`epochs: int`) and a map "
                               "key its value",
                  name);
    else
        diag_help(p->diag, dg, "bind outputs with `=`; `:` only gives a parameter its type (`epochs: int`) and a map "
                               "key its value");
}

static void unparenthesized_targets(parse_ctx *p, span comma, const char *first, ptr_vec *rest, const char *callee,
                                    int recovering)
{
    if (recovering || p->in_broken_item)
        return;
    strbuf names = STRBUF_INIT;
    sb_puts(&names, first);
    for (size_t i = 0; i < rest->len; i++)
        sb_printf(&names, ", %s", ((ast_name *)rest->items[i])->text);
    diagnostic *dg = diag_report(p->diag, comma, DIAG_E0010, "expected `(` or `=`, found `,`");
    diag_label(p->diag, dg, "several targets need parentheses");
    diag_help(p->diag, dg, "write `(%s) = %s(...)`", sb_cstr(&names), callee);
    sb_free(&names);
}

static void unquoted_key(parse_ctx *p, span key, const char *name, int recovering)
{
    if (recovering || p->in_broken_item)
        return;
    diagnostic *dg = diag_report(p->diag, key, DIAG_E0010, "expected a string, found identifier `%s`", name);
    diag_label(p->diag, dg, "map keys are strings");
    diag_help(p->diag, dg, "write the key in quotes: \"%s\": ...", name);
}
