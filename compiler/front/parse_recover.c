#include "parse_recover.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "parser.h"
#include "util/strbuf.h"

void parse_note_syntax_error(parse_ctx *p, span sp)
{
    p->result->syntax_errors++;
    span *copy = arena_alloc(p->arena, sizeof *copy);
    *copy = sp;
    vec_push(p->arena, &p->result->syntax_error_spans, copy);
}

/* Whether `from` is on the line of `at` (at >= from). Constant time for
   the line the lexer is on, which is where the callers look. */
static bool same_line(const parse_ctx *p, uint32_t from, uint32_t at)
{
    if (at < from)
        return false;
    if (at >= p->line_start)
        return from >= p->line_start;
    return memchr(p->src->text + from, '\n', at - from) == NULL;
}

/* Lexical errors later on the line of a syntax error are not reported: the
   parser is discarding those tokens, and they are most often a consequence
   of the same mistake (`import lib/data.pipe`). Nor are lexical errors after
   another one on the same line: a missing quote turns the rest of the line
   inside out. */
static bool line_quiet(const parse_ctx *p, uint32_t at)
{
    return (p->syntax_error_seen && same_line(p, p->syntax_error_at, at)) ||
           (p->lex_error_reported && same_line(p, p->lex_error_at, at));
}

bool parse_lex_error_quiet(parse_ctx *p, uint32_t at)
{
    if (line_quiet(p, at))
        return true;
    p->lex_error_reported = true;
    p->lex_error_at = at;
    return false;
}

void parse_lex_error_done(parse_ctx *p, bool returns_token)
{
    p->lex_error_seen = true;
    p->quiet_through = p->ntokens + (returns_token ? 2 : 1);
}

/* Strings do not span lines: the line after an unterminated one is most
   likely the rest of it, so not a new mistake. */
bool parse_continues_unterminated(const parse_ctx *p, uint32_t at)
{
    if (!p->unterminated_seen || at < p->unterminated_end)
        return false;
    const char *nl = memchr(p->src->text + p->unterminated_end, '\n', at - p->unterminated_end);
    if (!nl)
        return false;
    size_t after = (size_t)(nl - p->src->text) + 1;
    return after >= at || memchr(p->src->text + after, '\n', at - after) == NULL;
}

void parse_item_start(parse_ctx *p, int token, uint32_t at)
{
    if (token != IMPORT && token != STEP && token != PIPELINE && token != '@')
        return;
    const char *t = p->src->text;
    while (at > 0 && (t[at - 1] == ' ' || t[at - 1] == '\t'))
        at--;
    if (at == 0 || t[at - 1] == '\n')
        p->in_broken_item = false;
}

/* Human names for tokens: "`)`", "an identifier", "end of file". */
static void token_name(const syntax_token *t, char *buf, size_t size)
{
    const char *name = t->name;
    size_t n = strlen(name);
    if (t->token == 0) {
        snprintf(buf, size, "end of file");
    } else if (n >= 2 && name[0] == '\'' && name[n - 1] == '\'') {
        snprintf(buf, size, "`%.*s`", (int)(n - 2), name + 1);
    } else if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
        snprintf(buf, size, "%.*s", (int)(n - 2), name + 1);
    } else {
        snprintf(buf, size, "%s", name);
    }
}

/* The seven tokens that start a value. */
static bool starts_value(const syntax_token *t)
{
    return t->token == INT || t->token == FLOAT || t->token == STRING || t->token == TRUE || t->token == FALSE ||
           t->token == '[' || t->token == '{';
}

bool parse_line_break_before(const parse_ctx *p, uint32_t at)
{
    uint32_t i = at;
    while (i > 0 && (p->src->text[i - 1] == ' ' || p->src->text[i - 1] == '\t' || p->src->text[i - 1] == '\r'))
        i--;
    return i == 0 || p->src->text[i - 1] == '\n';
}

static bool has_token(const syntax_token *expected, int n, int token)
{
    for (int i = 0; i < n; i++)
        if (expected[i].token == token)
            return true;
    return false;
}

static bool has_name(const syntax_token *expected, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(expected[i].name, name) == 0)
            return true;
    return false;
}

int parse_drop_recovery_tokens(syntax_token *expected, int n)
{
    bool eq = has_token(expected, n, '='), paren = has_token(expected, n, '(');
    bool close_paren = has_token(expected, n, ')'), close_brace = has_token(expected, n, '}');
    /* Compared by name as written in quotes: bison names these two without
       the quotes, so as it stands the map-key rule below never applies. */
    bool string = has_name(expected, n, "\"a string\""), integer = has_name(expected, n, "\"an integer\"");
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int t = expected[i].token;
        if (eq && t == ':')
            continue; /* `name: value` for `name = value` */
        if (eq && paren && !close_paren && t == ',')
            continue; /* `a, b = step()` for `(a, b) = step()` */
        if (string && close_brace && !integer && t == IDENT)
            continue; /* an unquoted map key */
        expected[kept++] = expected[i];
    }
    return kept;
}

bool parse_word_before(const parse_ctx *p, uint32_t at, char *buf, size_t size)
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

const char *parse_foreign_word_help(const char *w)
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

bool parse_syntax_error_begin(parse_ctx *p, span at)
{
    parse_note_syntax_error(p, at);
    if (p->lex_error_seen && p->ntokens <= p->quiet_through)
        return false; /* a consequence of the lexical error just reported */
    if (p->in_broken_item)
        return false; /* one per declaration: the others are most often the parser out of step */
    if (parse_continues_unterminated(p, at.start))
        return false; /* the rest of a string that was not closed on its line (E0002) */
    p->in_broken_item = true;
    p->syntax_error_seen = true;
    p->syntax_error_at = at.start;
    return true;
}

/* The help line for a syntax error, if one of the usual mistakes fits. */
static void syntax_error_help(parse_ctx *p, diagnostic *dg, const syntax_error *e, bool expects_comma,
                              bool expects_closer, bool expects_string)
{
    const span *loc = &e->at;
    const syntax_token *tok = &e->found;
    char word[32], before[32];
    const char *foreign = NULL;
    if (tok->token == IDENT && loc->end - loc->start < sizeof word) {
        memcpy(word, p->src->text + loc->start, loc->end - loc->start);
        word[loc->end - loc->start] = '\0';
        foreign = parse_foreign_word_help(word);
    }
    if (!foreign && parse_word_before(p, loc->start, before, sizeof before))
        foreign = parse_foreign_word_help(before);
    /* `@step` / `@pipeline` (ZenML's and Metaflow's spelling): the keyword
       is all it takes. */
    uint32_t at_sign = loc->start;
    while (at_sign > 0 && (p->src->text[at_sign - 1] == ' ' || p->src->text[at_sign - 1] == '\t'))
        at_sign--;
    bool keyword_after_at = (tok->token == STEP || tok->token == PIPELINE) && at_sign > 0 &&
                            p->src->text[at_sign - 1] == '@';
    if (keyword_after_at) {
        const char *kw = tok->token == STEP ? "step" : "pipeline";
        diag_help(p->diag, dg, "`@%s` is not needed: `%s` is a keyword, not a decorator, and starts a %s "
                               "declaration by itself; remove `@%s`",
                  kw, kw, kw, kw);
    } else if (foreign)
        diag_help(p->diag, dg, "%s", foreign);
    else if (tok->token == IDENT && expects_string) {
        /* `import lib/data.pipe`: the text as far as it goes. */
        uint32_t end = loc->start;
        while (end < p->src->len && strchr(" \t\r\n,)]}#\"", p->src->text[end]) == NULL)
            end++;
        if (end - loc->start <= 80)
            diag_help(p->diag, dg, "text is written in double quotes: \"%.*s\"", (int)(end - loc->start),
                      p->src->text + loc->start);
        else
            diag_help(p->diag, dg, "text is written in double quotes: \"...\"");
    }
    else if (expects_comma && expects_closer && tok->token != 0 && !parse_line_break_before(p, loc->start))
        diag_help(p->diag, dg, "a `,` may be missing before this");
    else if (e->nexpected == 1 && e->expected[0].token == ':' &&
             parse_word_before(p, loc->start, before, sizeof before))
        diag_help(p->diag, dg, "parameters and outputs are written `name: type`, e.g. `data: dataset`");
}

void parse_syntax_error_report(parse_ctx *p, syntax_error *e)
{
    const span *loc = &e->at;
    int n = e->nexpected = parse_drop_recovery_tokens(e->expected, e->nexpected);
    const syntax_token *expected = e->expected;
    /* The seven tokens that start a value are named together as "a value". */
    int values = 0;
    for (int i = 0; i < n; i++)
        values += starts_value(&expected[i]);
    bool collapse = values == 7;
    const char *names[SYNTAX_MAX_EXPECTED + 1];
    char bufs[SYNTAX_MAX_EXPECTED][64];
    int shown = 0;
    char close = p->depth > 0 ? closer(p->open_char[p->depth - 1]) : 0;
    bool expects_close = false, expects_comma = false, expects_string = false, expects_closer = false;
    for (int i = 0; i < n; i++) {
        int t = expected[i].token;
        if (close && t == close)
            expects_close = true;
        if (t == ',')
            expects_comma = true;
        if (t == ')' || t == ']' || t == '}')
            expects_closer = true;
        if (t == STRING)
            expects_string = true;
        if (collapse && starts_value(&expected[i]))
            continue;
        token_name(&expected[i], bufs[shown], sizeof bufs[shown]);
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
    const syntax_token *tok = &e->found;
    if (tok->token == IDENT) {
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
    bool next_item = tok->token == 0 || tok->token == STEP || tok->token == PIPELINE || tok->token == IMPORT ||
                     tok->token == '@';
    /* ... or the first token of a later line: `load(path = "x"` then `train(...)`. */
    uint32_t open_at = expects_close ? p->open_at[p->depth - 1] : 0;
    bool later_line = expects_close && parse_line_break_before(p, loc->start) &&
                      memchr(p->src->text + open_at, '\n', loc->start > open_at ? loc->start - open_at : 0) != NULL;
    if (expects_close && (next_item || later_line)) {
        uint32_t at = p->open_at[p->depth - 1];
        span open = {p->file, at, at + 1};
        diag_note(p->diag, dg, open, "the `%c` opened here is not closed", p->open_char[p->depth - 1]);
    }
    syntax_error_help(p, dg, e, expects_comma, expects_closer, expects_string);
    sb_free(&list);
}

/* Mistakes the grammar accepts are not counted as syntax errors: nothing is
   lost, so they do not hide later name errors. */
void parse_colon_for_equals(parse_ctx *p, span colon, const char *name, int recovering)
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

void parse_unparenthesized_targets(parse_ctx *p, span comma, const char *first, ptr_vec *rest, const char *callee,
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

void parse_unquoted_key(parse_ctx *p, span key, const char *name, int recovering)
{
    if (recovering || p->in_broken_item)
        return;
    diagnostic *dg = diag_report(p->diag, key, DIAG_E0010, "expected a string, found identifier `%s`", name);
    diag_label(p->diag, dg, "map keys are strings");
    diag_help(p->diag, dg, "write the key in quotes: \"%s\": ...", name);
}
