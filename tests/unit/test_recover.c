/* Error recovery (compiler/front/lex_recover.c, compiler/front/parse_recover.c), one
   heuristic at a time: each is called directly on a parse context over a
   small text, as the lexer or the parser would call it, and what it
   reports, returns and remembers is checked. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/diag.h"
#include "front/lex_recover.h"
#include "front/parse.h"
#include "front/parse_recover.h"
#include "parser.h"

typedef struct fixture {
    arena a;
    source_set src;
    diag_engine d;
    parse_ctx p;
} fixture;

static void setup(fixture *f, const char *text)
{
    memset(f, 0, sizeof *f);
    arena_init(&f->a);
    source_set_init(&f->src);
    diag_init(&f->d, &f->a, &f->src);
    int idx = source_add(&f->src, "t.pipe", text, strlen(text));
    f->p.arena = &f->a;
    f->p.diag = &f->d;
    f->p.src = f->src.files[idx];
    f->p.file = (uint32_t)idx;
    f->p.result = arena_alloc(&f->a, sizeof *f->p.result);
}

static void teardown(fixture *f)
{
    source_set_free(&f->src);
    arena_free(&f->a);
}

/* The span of the first occurrence of needle at or after offset from; the
   lexer is then on its line (as it is when it calls the helpers). */
static span find_from(fixture *f, const char *needle, uint32_t from)
{
    const char *text = f->p.src->text;
    const char *hit = strstr(text + from, needle);
    CHECK_NOT_NULL(hit);
    uint32_t at = hit ? (uint32_t)(hit - text) : 0;
    uint32_t line = at;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    f->p.line_start = line;
    span sp = {f->p.file, at, at + (uint32_t)strlen(needle)};
    return sp;
}

static span find(fixture *f, const char *needle) { return find_from(f, needle, 0); }

/* A bracket left open: the first character of needle. */
static void open_at(fixture *f, const char *needle)
{
    span sp = find(f, needle);
    f->p.open_at[f->p.depth] = sp.start;
    f->p.open_char[f->p.depth] = needle[0];
    f->p.depth++;
}

static size_t count(const fixture *f) { return f->d.diags.len; }

/* Diagnostic i, or an empty one (so that a missing one fails the checks
   without crashing the test). */
static const diagnostic *diag_at(const fixture *f, size_t i)
{
    static const diagnostic none = {.message = "", .label = "", .help = ""};
    CHECK(i < f->d.diags.len);
    return i < f->d.diags.len ? f->d.diags.items[i] : &none;
}

static const char *help_of(const diagnostic *dg) { return dg->help ? dg->help : "(none)"; }
static const char *label_of(const diagnostic *dg) { return dg->label ? dg->label : "(none)"; }

static void test_starts_declaration(void)
{
    fixture f;
    setup(&f, "step s(x: int) {}\n  pipeline p () {}\nx step s(\nimport \"a.pipe\"\nimport a\n@retry\n@ retry\n"
              "step s {\n");
    CHECK(lex_starts_declaration(&f.p, find(&f, "step s(x").start, 4));
    CHECK(lex_starts_declaration(&f.p, find(&f, "pipeline p").start, 8));
    CHECK(!lex_starts_declaration(&f.p, find(&f, "step s(\n").start, 4)); /* not first on its line */
    CHECK(lex_starts_declaration(&f.p, find(&f, "import \"").start, 6));
    CHECK(!lex_starts_declaration(&f.p, find(&f, "import a").start, 6));
    CHECK(lex_starts_declaration(&f.p, find(&f, "@retry").start, 1));
    CHECK(!lex_starts_declaration(&f.p, find(&f, "@ retry").start, 1));
    CHECK(!lex_starts_declaration(&f.p, find(&f, "step s {").start, 4));
    teardown(&f);
}

static void test_close_before_item(void)
{
    fixture f;
    setup(&f, "pipeline p() {\n    load(path = [\"x\"\nstep s() { source = \"s.c\" }\n");
    /* No bracket open: nothing to close. */
    span kw = find(&f, "step s()");
    CHECK_EQ_INT(lex_close_before_item(&f.p, &kw, 4), 0);
    CHECK_EQ_U64(count(&f), 0);
    /* `{`, `(` and `[` left open before the step. */
    open_at(&f, "{");
    open_at(&f, "(path");
    open_at(&f, "[");
    span loc = kw;
    CHECK_EQ_INT(lex_close_before_item(&f.p, &loc, 4), ']');
    CHECK_EQ_U64(loc.end, kw.start); /* zero width */
    CHECK_EQ_U64(count(&f), 1);
    const diagnostic *dg = diag_at(&f, 0);
    CHECK(dg->code == DIAG_E0010);
    CHECK_STREQ(dg->message, "expected `]`, found `step`");
    CHECK_STREQ(label_of(dg), "`]` missing before this");
    CHECK_EQ_U64(dg->notes.len, 1);
    CHECK(f.p.in_broken_item);
    CHECK_EQ_U64(f.p.result->syntax_errors, 1);
    /* Read again after each closer: the others close without a report. */
    loc = kw;
    CHECK_EQ_INT(lex_close_before_item(&f.p, &loc, 4), ')');
    loc = kw;
    CHECK_EQ_INT(lex_close_before_item(&f.p, &loc, 4), '}');
    loc = kw;
    CHECK_EQ_INT(lex_close_before_item(&f.p, &loc, 4), 0);
    CHECK(!f.p.closing);
    CHECK_EQ_U64(count(&f), 1);
    CHECK_EQ_U64(f.p.result->syntax_errors, 1);
    teardown(&f);

    /* Inside a declaration that already has its syntax error: closed quietly. */
    setup(&f, "step a( {\nstep b() {}\n");
    open_at(&f, "(");
    f.p.in_broken_item = true;
    loc = find(&f, "step b");
    CHECK_EQ_INT(lex_close_before_item(&f.p, &loc, 4), ')');
    CHECK_EQ_U64(count(&f), 0);
    CHECK_EQ_U64(f.p.result->syntax_errors, 1);
    teardown(&f);
}

static void test_unterminated_split(void)
{
    size_t keep, pushed;
    const char *t1 = "\"1})";
    CHECK(lex_unterminated_split(t1, strlen(t1), &keep, &pushed));
    CHECK_EQ_U64(keep, 2);
    CHECK_EQ_U64(pushed, 2);
    const char *t2 = "\"a b })";
    CHECK(lex_unterminated_split(t2, strlen(t2), &keep, &pushed));
    CHECK_EQ_U64(keep, 5); /* the space before the brackets stays in the string */
    CHECK_EQ_U64(pushed, 2);
    const char *t3 = "\"abc, ";
    CHECK(!lex_unterminated_split(t3, strlen(t3), &keep, &pushed)); /* no bracket */
    CHECK_EQ_U64(keep, strlen(t3));
    CHECK_EQ_U64(pushed, 0);
    const char *t4 = "\")";
    CHECK(lex_unterminated_split(t4, strlen(t4), &keep, &pushed));
    CHECK_EQ_U64(keep, 1); /* the quote itself stays */
    CHECK_EQ_U64(pushed, 1);
}

static void test_unterminated_string(void)
{
    fixture f;
    setup(&f, "x = f(a = \"1})\ny = \"more\"\n");
    span sp = find(&f, "\"1");
    ast_expr *e = lex_unterminated_string(&f.p, sp, "\"1", 2, true, 2);
    CHECK(e->poisoned);
    CHECK_STREQ(e->u.s.text, "1");
    CHECK_EQ_U64(count(&f), 1);
    const diagnostic *dg = diag_at(&f, 0);
    CHECK(dg->code == DIAG_E0002);
    CHECK_STREQ(help_of(dg), "close it with `\"` before `})`");
    CHECK(f.p.unterminated_seen);
    /* The string's closing quote on the next line opens no new mistake. */
    span next = find(&f, "\"\n");
    lex_unterminated_string(&f.p, next, "\"", 1, false, 0);
    CHECK_EQ_U64(count(&f), 1);
    teardown(&f);

    setup(&f, "s = \"abc\n");
    sp = find(&f, "\"abc");
    lex_unterminated_string(&f.p, sp, "\"abc", 4, false, 0);
    CHECK_STREQ(help_of(diag_at(&f, 0)), "close it with `\"` on the same line; write a newline inside a string as `\\n`");
    teardown(&f);
}

static void test_line_ends_in_string(void)
{
    fixture f;
    setup(&f, "gpu = H100\")\nx = \"a\" \"b\nk = \"v\" # \"x\ne = \"\\\"\"\n");
    CHECK(lex_line_ends_in_string(&f.p, find(&f, "\")").start));
    CHECK(lex_line_ends_in_string(&f.p, find(&f, "\"a\"").start));
    CHECK(!lex_line_ends_in_string(&f.p, find(&f, "\"a\"").start + 2));
    CHECK(!lex_line_ends_in_string(&f.p, find(&f, "\"v\"").start)); /* the comment's quote does not count */
    CHECK(!lex_line_ends_in_string(&f.p, find(&f, "\"\\").start)); /* an escaped quote does not close */
    teardown(&f);
}

static void test_missing_open_quote(void)
{
    fixture f;
    setup(&f, "@resources(gpu_type = H100\")\nimport\"x.pipe\"\n");
    span word = find(&f, "H100\"");
    CHECK(lex_missing_open_quote_here(&f.p, word, "H100\"", 5));
    span kw = find(&f, "import\"");
    CHECK(!lex_missing_open_quote_here(&f.p, kw, "import\"", 7));
    ast_expr *e = lex_missing_open_quote(&f.p, word, "H100\"", 5);
    CHECK_STREQ(e->u.s.text, "H100");
    CHECK(!e->poisoned);
    CHECK_EQ_U64(count(&f), 1);
    CHECK(diag_at(&f, 0)->code == DIAG_E0002);
    CHECK_STREQ(diag_at(&f, 0)->message, "missing `\"` before `H100`");
    CHECK_STREQ(help_of(diag_at(&f, 0)), "write \"H100\"");
    teardown(&f);

    /* `""H100"`: the empty string before the word had the quote too many. */
    setup(&f, "gpu_type = \"\"H100\"\n");
    ast_expr prev = {.kind = EXPR_STRING, .sp = find(&f, "\"\"")};
    prev.u.s.text = "";
    prev.u.s.len = 0;
    f.p.last_string = &prev;
    word = find(&f, "H100\"");
    lex_missing_open_quote(&f.p, word, "H100\"", 5);
    CHECK_STREQ(diag_at(&f, 0)->message, "doubled `\"` before `H100`");
    CHECK_EQ_U64(diag_at(&f, 0)->sp.start, prev.sp.start);
    CHECK(prev.poisoned);
    teardown(&f);
}

/* lex_bad_number on text: the label and help it reports. */
static void check_bad_number(const char *text, const char *label, const char *help)
{
    fixture f;
    setup(&f, text);
    span sp = {f.p.file, 0, (uint32_t)strlen(text)};
    ast_expr *e = lex_bad_number(&f.p, sp, text, strlen(text));
    CHECK(e->poisoned);
    CHECK_EQ_U64(count(&f), 1);
    const diagnostic *dg = diag_at(&f, 0);
    CHECK(dg->code == DIAG_E0004);
    CHECK_STREQ(label_of(dg), label);
    CHECK_STREQ(help_of(dg), help);
    teardown(&f);
}

static void test_bad_number(void)
{
    check_bad_number("16GB", "a size is a string", "write it in quotes: \"16GB\"");
    check_bad_number("2h", "a duration is a string", "write it in quotes: \"2h\"");
    check_bad_number("0x10", "not a decimal number", "numbers are decimal only: write the value in base 10");
    check_bad_number("1.", "no digit after the point", "write `1.0`");
    check_bad_number("-.5", "no digit before the point", "write `-0.5`");
    check_bad_number("1_000", "not a valid integer or float",
                     "numbers have no digit separators: write `1000`, not `1_000`");
    check_bad_number("12abc", "not a valid integer or float",
                     "numbers look like `42`, `-3`, `0.5`, `1e-3`; sizes and durations are strings such as \"16GB\" "
                     "or \"2h\"");
}

static void test_quiet_lines(void)
{
    fixture f;
    setup(&f, "a = 1x 2y\nb = 3z\n");
    span first = find(&f, "1x");
    CHECK(!parse_lex_error_quiet(&f.p, first.start)); /* reported, and remembered */
    parse_lex_error_done(&f.p, true);
    CHECK(f.p.lex_error_seen);
    CHECK_EQ_U64(f.p.quiet_through, f.p.ntokens + 2);
    CHECK(parse_lex_error_quiet(&f.p, find(&f, "2y").start)); /* same line */
    CHECK(!parse_lex_error_quiet(&f.p, find(&f, "3z").start)); /* next line */
    teardown(&f);

    /* After a syntax error, lexical errors later on its line are quiet. */
    setup(&f, "import lib/data.pipe\nx = $Y\n");
    f.p.syntax_error_seen = true;
    f.p.syntax_error_at = find(&f, "lib").start;
    CHECK(parse_lex_error_quiet(&f.p, find(&f, "/data").start));
    CHECK(!parse_lex_error_quiet(&f.p, find(&f, "$Y").start));
    teardown(&f);
}

static void test_continues_unterminated(void)
{
    fixture f;
    setup(&f, "a = \"x\nrest\" here\nnext\n");
    f.p.unterminated_seen = true;
    f.p.unterminated_end = find(&f, "\nrest").start;
    CHECK(parse_continues_unterminated(&f.p, find(&f, "\" here").start));
    CHECK(!parse_continues_unterminated(&f.p, find(&f, "next").start)); /* two lines on */
    f.p.unterminated_seen = false;
    CHECK(!parse_continues_unterminated(&f.p, find(&f, "\" here").start));
    teardown(&f);
}

static void test_item_start(void)
{
    fixture f;
    setup(&f, "x = f( step\n  step s() {}\n");
    f.p.in_broken_item = true;
    parse_item_start(&f.p, STEP, find(&f, "step\n").start);
    CHECK(f.p.in_broken_item); /* not first on its line */
    parse_item_start(&f.p, IDENT, find(&f, "step s").start);
    CHECK(f.p.in_broken_item); /* not a declaration keyword */
    parse_item_start(&f.p, STEP, find(&f, "step s").start);
    CHECK(!f.p.in_broken_item);
    teardown(&f);
}

static void test_lexical_mistakes(void)
{
    fixture f;
    setup(&f, "p = $HOME\n");
    span sp = find(&f, "$HOME");
    ast_expr *e = lex_shell_variable(&f.p, sp, "$HOME", 5);
    CHECK(e->poisoned);
    CHECK(diag_at(&f, 0)->code == DIAG_E0001);
    CHECK_STREQ(diag_at(&f, 0)->message, "character `$` cannot start a token");
    teardown(&f);

    setup(&f, "p = 'a\\tb'\n");
    sp = find(&f, "'a");
    sp.end = sp.start + 6;
    e = lex_single_quoted(&f.p, sp, "'a\\tb'", 6);
    CHECK_STREQ(e->u.s.text, "a\tb"); /* read as the string it means */
    CHECK_STREQ(diag_at(&f, 0)->message, "character `'` cannot start a token");
    CHECK_STREQ(help_of(diag_at(&f, 0)), "write \"a\\tb\"");
    CHECK_EQ_U64(diag_at(&f, 0)->sp.end - diag_at(&f, 0)->sp.start, 1);
    teardown(&f);

    setup(&f, "/* one\ntwo */ x = 1\n");
    sp = find(&f, "/*");
    sp.end = find(&f, " x").start;
    lex_c_comment(&f.p, sp);
    CHECK_STREQ(label_of(diag_at(&f, 0)), "not a comment");
    uint32_t second_line = find(&f, "two").start;
    CHECK(f.p.newline_seen);
    CHECK_EQ_U64(f.p.line_start, second_line);
    teardown(&f);
}

static void check_bad_chars(const char *text, const char *chars, const char *message, const char *label,
                            const char *help)
{
    fixture f;
    setup(&f, text);
    span sp = find(&f, chars);
    lex_bad_chars(&f.p, sp, chars, strlen(chars));
    CHECK_EQ_U64(count(&f), 1);
    const diagnostic *dg = diag_at(&f, 0);
    CHECK(dg->code == DIAG_E0001);
    CHECK_STREQ(dg->message, message);
    CHECK_STREQ(label_of(dg), label);
    CHECK_STREQ(help_of(dg), help);
    CHECK_EQ_U64(f.p.quiet_through, f.p.ntokens + 1); /* no token returned */
    teardown(&f);
}

static void test_bad_chars(void)
{
    check_bad_chars("source = \"a.c\";\n", ";", "character `;` cannot start a token", "no `;` in .pipe files",
                    "fields and statements end at the end of the line; remove the `;`");
    check_bad_chars("x = - 1\n", "-", "character `-` cannot start a token", "a lone `-`",
                    "`-` only starts a negative number (`-1`) or an arrow (`->`)");
    check_bad_chars("x = ~~\n", "~~", "character `~` cannot start a token",
                    "these characters are not part of the language", "(none)");
    /* A value whose opening quote is missing: the help writes it out. */
    check_bad_chars("train(path = /data/train.csv\")\n", "/", "character `/` cannot start a token",
                    "not part of the language", "a `\"` seems to be missing: write \"/data/train.csv\"");
    check_bad_chars("x = \x01\n", "\x01", "control character U+0001 cannot start a token", "not part of the language",
                    "(none)");
}

static syntax_token tok(int token, const char *name)
{
    syntax_token t = {token, name};
    return t;
}

static void test_drop_recovery_tokens(void)
{
    /* `name: value` for `name = value`: `:` is not named. */
    syntax_token a[] = {tok('=', "'='"), tok(':', "':'"), tok('(', "'('")};
    CHECK_EQ_INT(parse_drop_recovery_tokens(a, 3), 2);
    CHECK_EQ_INT(a[0].token, '=');
    CHECK_EQ_INT(a[1].token, '(');
    /* `a, b = f()` for `(a, b) = f()`: `,` is not named... */
    syntax_token b[] = {tok('=', "'='"), tok('(', "'('"), tok(',', "','")};
    CHECK_EQ_INT(parse_drop_recovery_tokens(b, 3), 2);
    /* ...unless it may separate arguments. */
    syntax_token c[] = {tok('=', "'='"), tok('(', "'('"), tok(',', "','"), tok(')', "')'")};
    CHECK_EQ_INT(parse_drop_recovery_tokens(c, 4), 4);
    syntax_token d[] = {tok(':', "':'")};
    CHECK_EQ_INT(parse_drop_recovery_tokens(d, 1), 1);
}

static void test_words(void)
{
    CHECK_NOT_NULL(parse_foreign_word_help("def"));
    CHECK_NOT_NULL(parse_foreign_word_help("function"));
    CHECK_STREQ(parse_foreign_word_help("let"), "bind a name directly: `name = step(...)`");
    CHECK_NOT_NULL(parse_foreign_word_help("return"));
    CHECK_NOT_NULL(parse_foreign_word_help("while"));
    CHECK_NULL(parse_foreign_word_help("train"));

    fixture f;
    setup(&f, "  return  m\nx\n    y");
    char buf[8];
    CHECK(parse_word_before(&f.p, find(&f, "m").start, buf, sizeof buf));
    CHECK_STREQ(buf, "return");
    CHECK(!parse_word_before(&f.p, find(&f, "m").start, buf, 4)); /* does not fit */
    CHECK(!parse_word_before(&f.p, find(&f, "return").start, buf, sizeof buf));
    CHECK(parse_line_break_before(&f.p, find(&f, "return").start));
    CHECK(!parse_line_break_before(&f.p, find(&f, "m").start));
    CHECK(parse_line_break_before(&f.p, find(&f, "y").start));
    CHECK(parse_line_break_before(&f.p, 0));
    teardown(&f);
}

static void test_syntax_error_begin(void)
{
    fixture f;
    setup(&f, "step s(x int) {}\n");
    span at = find(&f, "int");
    /* Right after a lexical error: counted, not reported. */
    f.p.lex_error_seen = true;
    f.p.ntokens = 4;
    f.p.quiet_through = 4;
    CHECK(!parse_syntax_error_begin(&f.p, at));
    CHECK_EQ_U64(f.p.result->syntax_errors, 1);
    f.p.ntokens = 5;
    CHECK(parse_syntax_error_begin(&f.p, at));
    CHECK(f.p.in_broken_item);
    CHECK(f.p.syntax_error_seen);
    CHECK_EQ_U64(f.p.syntax_error_at, at.start);
    /* One per declaration. */
    CHECK(!parse_syntax_error_begin(&f.p, find(&f, ")")));
    CHECK_EQ_U64(f.p.result->syntax_errors, 3);
    CHECK_EQ_U64(f.p.result->syntax_error_spans.len, 3);
    teardown(&f);
}

static const syntax_token value_tokens[] = {
    {INT, "an integer"}, {FLOAT, "a float"}, {STRING, "a string"}, {TRUE, "`true`"},
    {FALSE, "`false`"},  {'[', "'['"},       {'{', "'{'"},
};

static void test_syntax_error_report(void)
{
    fixture f;
    /* The seven value tokens read "a value"; an open bracket at the end of
       the file gets its note. */
    setup(&f, "pipeline p() {\n    train(epochs = ");
    open_at(&f, "{");
    open_at(&f, "(epochs");
    syntax_error e = {.at = {f.p.file, (uint32_t)f.p.src->len, (uint32_t)f.p.src->len}, .found = tok(0, "end of file")};
    for (size_t i = 0; i < sizeof value_tokens / sizeof value_tokens[0]; i++)
        e.expected[e.nexpected++] = value_tokens[i];
    e.expected[e.nexpected++] = tok(IDENT, "an identifier");
    parse_syntax_error_report(&f.p, &e);
    const diagnostic *dg = diag_at(&f, 0);
    CHECK(dg->code == DIAG_E0010);
    CHECK_STREQ(dg->message, "expected an identifier or a value, found end of file");
    CHECK_STREQ(label_of(dg), "unexpected here");
    CHECK_EQ_U64(dg->notes.len, 0); /* the closer was not one of the choices */
    teardown(&f);

    setup(&f, "pipeline p() {\n    train(epochs = 3\n");
    open_at(&f, "{");
    open_at(&f, "(epochs");
    e = (syntax_error){.at = {f.p.file, (uint32_t)f.p.src->len, (uint32_t)f.p.src->len}, .found = tok(0, "end of file")};
    e.expected[e.nexpected++] = tok(',', "','");
    e.expected[e.nexpected++] = tok(')', "')'");
    parse_syntax_error_report(&f.p, &e);
    dg = diag_at(&f, 0);
    CHECK_STREQ(dg->message, "expected `,` or `)`, found end of file");
    CHECK_EQ_U64(dg->notes.len, 1);
    if (dg->notes.len) {
        const note_entry *n = dg->notes.items[0];
        CHECK_STREQ(n->message, "the `(` opened here is not closed");
        CHECK_EQ_U64(n->sp.start, f.p.open_at[1]);
    }
    CHECK_STREQ(help_of(dg), "(none)"); /* no `,` is missing at the end of the file */
    teardown(&f);
}

/* parse_syntax_error_report with `found` (an identifier) at needle and the
   expected tokens given: the help it gives. */
static void check_syntax_help(const char *text, const char *needle, int found, const syntax_token *expected, int n,
                              const char *help)
{
    fixture f;
    setup(&f, text);
    syntax_error e = {.at = find(&f, needle), .found = tok(found, found == IDENT ? "an identifier" : "a string")};
    for (int i = 0; i < n; i++)
        e.expected[e.nexpected++] = expected[i];
    parse_syntax_error_report(&f.p, &e);
    CHECK_STREQ(help_of(diag_at(&f, 0)), help);
    teardown(&f);
}

static void test_syntax_error_help(void)
{
    const syntax_token paren[] = {tok('(', "'('")};
    check_syntax_help("def train(x: int) {}\n", "train", IDENT, paren, 1,
                      "steps are declared with `step NAME(PARAMS) { source = \"...\" }`");
    const syntax_token close[] = {tok('}', "'}'")};
    check_syntax_help("pipeline p() { return m }\n", "return", IDENT, close, 1,
                      "pipelines have no `return`: a step's outputs are bound with `name = step(...)` and passed on "
                      "by name");
    const syntax_token string[] = {tok(STRING, "a string")};
    check_syntax_help("import lib/data.pipe\n", "lib", IDENT, string, 1,
                      "text is written in double quotes: \"lib/data.pipe\"");
    const syntax_token comma[] = {tok(',', "','"), tok(')', "')'")};
    check_syntax_help("train(a = 1 b = 2)\n", "b", IDENT, comma, 2, "a `,` may be missing before this");
    check_syntax_help("train(a = 1\n  b = 2)\n", "b", IDENT, comma, 2, "(none)"); /* on a new line */
    const syntax_token colon[] = {tok(':', "':'")};
    check_syntax_help("step s(data dataset) {}\n", "dataset", IDENT, colon, 1,
                      "parameters and outputs are written `name: type`, e.g. `data: dataset`");
}

static void test_accepted_mistakes(void)
{
    fixture f;
    setup(&f, "train(epochs: 3)\n");
    span colon = find(&f, ":");
    parse_colon_for_equals(&f.p, colon, "epochs", 0);
    CHECK_STREQ(diag_at(&f, 0)->message, "expected `=`, found `:`");
    CHECK_STREQ(help_of(diag_at(&f, 0)),
                "write `epochs = ...`; `:` only gives a parameter its type (`epochs: int`) and a map key its value");
    parse_colon_for_equals(&f.p, colon, "epochs", 1); /* recovering */
    CHECK_EQ_U64(count(&f), 1);
    f.p.in_broken_item = true;
    parse_colon_for_equals(&f.p, colon, "epochs", 0);
    CHECK_EQ_U64(count(&f), 1);
    CHECK_EQ_U64(f.p.result->syntax_errors, 0); /* nothing lost */
    teardown(&f);

    setup(&f, "(m, s): train()\n");
    parse_colon_for_equals(&f.p, find(&f, ":"), NULL, 0);
    CHECK_STREQ(help_of(diag_at(&f, 0)), "bind outputs with `=`; `:` only gives a parameter its type (`epochs: int`) "
                                         "and a map key its value");
    teardown(&f);

    setup(&f, "a, b, c = split()\n");
    ast_name b = {"b", find(&f, "b,")}, c = {"c", find(&f, "c =")};
    ptr_vec rest = {0};
    vec_push(&f.a, &rest, &b);
    vec_push(&f.a, &rest, &c);
    parse_unparenthesized_targets(&f.p, find(&f, ","), "a", &rest, "split", 0);
    CHECK_STREQ(diag_at(&f, 0)->message, "expected `(` or `=`, found `,`");
    CHECK_STREQ(help_of(diag_at(&f, 0)), "write `(a, b, c) = split(...)`");
    teardown(&f);

    setup(&f, "environment = {DEBUG: \"1\"}\n");
    parse_unquoted_key(&f.p, find(&f, "DEBUG"), "DEBUG", 0);
    CHECK_STREQ(diag_at(&f, 0)->message, "expected a string, found identifier `DEBUG`");
    CHECK_STREQ(help_of(diag_at(&f, 0)), "write the key in quotes: \"DEBUG\": ...");
    teardown(&f);
}

int main(void)
{
    test_starts_declaration();
    test_close_before_item();
    test_unterminated_split();
    test_unterminated_string();
    test_line_ends_in_string();
    test_missing_open_quote();
    test_bad_number();
    test_quiet_lines();
    test_continues_unterminated();
    test_item_start();
    test_lexical_mistakes();
    test_bad_chars();
    test_drop_recovery_tokens();
    test_words();
    test_syntax_error_begin();
    test_syntax_error_report();
    test_syntax_error_help();
    test_accepted_mistakes();
    return check_summary();
}
