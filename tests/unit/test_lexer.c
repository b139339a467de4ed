/* Lexer unit tests: every token kind with its span, and every malformed
   literal with its diagnostic code and position. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/diag.h"
#include "front/parse.h"
#include "parser.h"

int pipe_yylex_init_extra(parse_ctx *extra, void **scanner);
int pipe_yylex_destroy(void *scanner);
void *pipe_yy_scan_bytes(const char *bytes, int len, void *scanner);

typedef struct lexed {
    int kinds[64];
    span spans[64];
    PIPE_YYSTYPE values[64];
    int n;
    arena a;
    source_set src;
    diag_engine d;
} lexed;

static void lex(lexed *l, const char *text)
{
    memset(l, 0, sizeof *l);
    arena_init(&l->a);
    source_set_init(&l->src);
    diag_init(&l->d, &l->a, &l->src);
    int idx = source_add(&l->src, "t.pipe", text, strlen(text));
    parse_ctx p = {0};
    p.arena = &l->a;
    p.diag = &l->d;
    p.src = l->src.files[idx];
    p.file = (uint32_t)idx;
    p.result = arena_alloc(&l->a, sizeof *p.result);
    void *scanner;
    pipe_yylex_init_extra(&p, &scanner);
    pipe_yy_scan_bytes(text, (int)strlen(text), scanner);
    for (;;) {
        PIPE_YYSTYPE v;
        span sp;
        int t = pipe_yylex(&v, &sp, scanner);
        if (t == 0 || l->n == 64)
            break;
        l->kinds[l->n] = t;
        l->spans[l->n] = sp;
        l->values[l->n] = v;
        l->n++;
    }
    pipe_yylex_destroy(scanner);
}

static void done(lexed *l)
{
    source_set_free(&l->src);
    arena_free(&l->a);
}

/* The code and start offset of diagnostic i, in report order. */
static const char *code_at(lexed *l, size_t i, uint32_t *start)
{
    if (i >= l->d.diags.len)
        return "";
    diagnostic *dg = l->d.diags.items[i];
    if (start)
        *start = dg->sp.start;
    return diag_code_name(dg->code);
}

static void test_tokens(void)
{
    lexed l;
    lex(&l, "import step pipeline true false name _x9 @ ( ) { } [ ] , = : -> .");
    int expected[] = {IMPORT, STEP, PIPELINE, TRUE, FALSE, IDENT, IDENT, '@', '(', ')', '{', '}', '[', ']', ',',
                      '=', ':', ARROW, '.'};
    CHECK_EQ_INT(l.n, (int)(sizeof expected / sizeof expected[0]));
    for (int i = 0; i < l.n && i < (int)(sizeof expected / sizeof expected[0]); i++)
        CHECK_EQ_INT(l.kinds[i], expected[i]);
    CHECK_EQ_U64(l.spans[0].start, 0);
    CHECK_EQ_U64(l.spans[0].end, 6);
    CHECK_EQ_U64(l.spans[17].end - l.spans[17].start, 2);
    CHECK_STREQ(l.values[5].name.text, "name");
    CHECK_EQ_U64(l.d.diags.len, 0);
    done(&l);

    /* Keywords are whole words only. */
    lex(&l, "steps imports truely");
    CHECK_EQ_INT(l.n, 3);
    for (int i = 0; i < l.n; i++)
        CHECK_EQ_INT(l.kinds[i], IDENT);
    done(&l);

    /* `(` right after `)` on the same line chains a call; on a new line it does not. */
    lex(&l, "f(a)(b)\n(c)");
    CHECK_EQ_INT(l.kinds[3], ')');
    CHECK_EQ_INT(l.kinds[4], CHAIN_LPAREN);
    CHECK_EQ_INT(l.kinds[7], '(');
    done(&l);
}

static void test_numbers(void)
{
    lexed l;
    lex(&l, "0 42 -7 9223372036854775807 -9223372036854775808 1.5 -0.25 1e-3 2.5E+4 3e2");
    CHECK_EQ_INT(l.n, 10);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(l.kinds[i], INT);
    for (int i = 5; i < 10; i++)
        CHECK_EQ_INT(l.kinds[i], FLOAT);
    CHECK(l.values[1].expr->u.i == 42);
    CHECK(l.values[2].expr->u.i == -7);
    CHECK(l.values[3].expr->u.i == INT64_MAX);
    CHECK(l.values[4].expr->u.i == INT64_MIN);
    CHECK(l.values[6].expr->u.f == -0.25);
    CHECK(l.values[7].expr->u.f == 1e-3);
    CHECK(l.values[8].expr->u.f == 2.5e4);
    CHECK_EQ_U64(l.d.diags.len, 0);
    done(&l);

    /* Malformed and out-of-range literals: E0004 at the literal. */
    static const char *const bad[] = {"1.", "1e", "1e+", "12abc", "1.2.3", "0x10", ".5", "-.5", "1_000",
                                      "9223372036854775808", "-9223372036854775809", "1e999", "5GB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "x = %s", bad[i]);
        lex(&l, text);
        uint32_t start = 99;
        CHECK_STREQ(code_at(&l, 0, &start), "E0004");
        CHECK_EQ_U64(start, 4);
        CHECK_EQ_U64(l.d.diags.len, 1);
        /* The literal still becomes one number token, so parsing goes on. */
        CHECK_EQ_INT(l.n, 3);
        CHECK(l.kinds[2] == INT || l.kinds[2] == FLOAT);
        done(&l);
    }
}

static void test_strings(void)
{
    lexed l;
    lex(&l, "\"plain\" \"a\\\"b\\\\c\\nd\\te\" \"\" \"h\xc3\xa9 \xe2\x82\xac\"");
    CHECK_EQ_INT(l.n, 4);
    CHECK_STREQ(l.values[0].expr->u.s.text, "plain");
    CHECK_STREQ(l.values[1].expr->u.s.text, "a\"b\\c\nd\te");
    CHECK_STREQ(l.values[2].expr->u.s.text, "");
    CHECK_STREQ(l.values[3].expr->u.s.text, "h\xc3\xa9 \xe2\x82\xac");
    CHECK_EQ_U64(l.spans[0].start, 0);
    CHECK_EQ_U64(l.spans[0].end, 7);
    CHECK_EQ_U64(l.d.diags.len, 0);
    done(&l);

    uint32_t at;
    /* Unterminated at the end of the line and at the end of the file: E0002 at the quote. */
    lex(&l, "x = \"abc\ny");
    CHECK_STREQ(code_at(&l, 0, &at), "E0002");
    CHECK_EQ_U64(at, 4);
    CHECK_EQ_INT(l.kinds[2], STRING);
    CHECK_EQ_INT(l.kinds[3], IDENT); /* the next line lexes normally */
    done(&l);
    lex(&l, "x = \"abc");
    CHECK_STREQ(code_at(&l, 0, &at), "E0002");
    CHECK_EQ_U64(at, 4);
    done(&l);
    lex(&l, "\"ends in backslash\\");
    CHECK_STREQ(code_at(&l, 0, &at), "E0002");
    done(&l);

    /* Unknown escapes: E0003 at the backslash; one lexical error per line
       (the others on a line are most often the same mistake). */
    lex(&l, "\"a\\qb\\x41\"\n\"\\d\"");
    CHECK_STREQ(code_at(&l, 0, &at), "E0003");
    CHECK_EQ_U64(at, 2);
    CHECK_STREQ(code_at(&l, 1, &at), "E0003");
    CHECK_EQ_U64(at, 12);
    CHECK_EQ_U64(l.d.diags.len, 2);
    CHECK_EQ_INT(l.n, 2);
    CHECK(l.values[0].expr->poisoned);
    done(&l);

    /* Control characters and invalid UTF-8 inside strings. */
    lex(&l, "\"tab\there\"");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 4);
    done(&l);
    lex(&l, "\"bad \xff byte\"");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 5);
    done(&l);
    lex(&l, "\"overlong \xc0\xaf\"");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    done(&l);
}

static void test_bad_characters(void)
{
    lexed l;
    uint32_t at;
    /* A run of characters that start no token is one E0001. */
    lex(&l, "a $%^ b");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 2);
    CHECK_EQ_U64(l.d.diags.len, 1);
    CHECK_EQ_INT(l.n, 2);
    done(&l);
    lex(&l, "a - b");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 2);
    done(&l);
    /* 'single quotes': one E0001 at the quote, then read as the string meant. */
    lex(&l, "'single' x");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 0);
    CHECK_EQ_U64(l.d.diags.len, 1);
    CHECK_EQ_INT(l.n, 2);
    CHECK_EQ_INT(l.kinds[0], STRING);
    CHECK_STREQ(l.values[0].expr->u.s.text, "single");
    CHECK(!l.values[0].expr->poisoned);
    done(&l);
    /* A lone quote is still one bad character. */
    lex(&l, "a ' b");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 2);
    CHECK_EQ_INT(l.n, 2);
    done(&l);
    /* $VAR and ${VAR}: one E0001 each, read as a poisoned string. */
    lex(&l, "$HOME\n${DATA_DIR} x");
    CHECK_EQ_U64(l.d.diags.len, 2);
    CHECK_STREQ(code_at(&l, 1, &at), "E0001");
    CHECK_EQ_U64(at, 6);
    CHECK_EQ_INT(l.n, 3);
    CHECK_EQ_INT(l.kinds[0], STRING);
    CHECK(l.values[0].expr->poisoned);
    CHECK_EQ_INT(l.kinds[1], STRING);
    CHECK_EQ_INT(l.kinds[2], IDENT);
    done(&l);
    /* C and C++ comments: one E0001 each, skipped to their end. */
    lex(&l, "a // not a comment, (really\nb /* one\ntwo */ c");
    CHECK_EQ_U64(l.d.diags.len, 2);
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 2);
    CHECK_EQ_INT(l.n, 3);
    CHECK_EQ_INT(l.kinds[1], IDENT);
    CHECK_STREQ(l.values[1].name.text, "b");
    CHECK_STREQ(l.values[2].name.text, "c");
    done(&l);
    lex(&l, "x\xff\xfey");
    CHECK_STREQ(code_at(&l, 0, &at), "E0001");
    CHECK_EQ_U64(at, 1);
    done(&l);
    /* A NUL byte in the middle of the file. */
    static const char with_nul[] = {'\0', ' ', 'b'};
    arena a;
    arena_init(&a);
    source_set src;
    source_set_init(&src);
    diag_engine d;
    diag_init(&d, &a, &src);
    int idx = source_add(&src, "nul.pipe", with_nul, sizeof with_nul);
    ast_file *f = parse_file(&a, &d, &src, (uint32_t)idx);
    CHECK(f != NULL);
    bool found = false;
    for (size_t i = 0; i < d.diags.len; i++)
        found = found || ((diagnostic *)d.diags.items[i])->code == DIAG_E0001;
    CHECK(found);
    /* ...and the syntax error it causes at the next token is not reported. */
    CHECK_EQ_U64(d.diags.len, 1);
    source_set_free(&src);
    arena_free(&a);
}

/* Parses text and returns the codes of its diagnostics, in report order,
   joined by spaces. */
static const char *parse_codes(const char *text, char *buf, size_t size)
{
    arena a;
    arena_init(&a);
    source_set src;
    source_set_init(&src);
    diag_engine d;
    diag_init(&d, &a, &src);
    int idx = source_add(&src, "t.pipe", text, strlen(text));
    parse_file(&a, &d, &src, (uint32_t)idx);
    buf[0] = '\0';
    for (size_t i = 0; i < d.diags.len; i++) {
        diagnostic *dg = d.diags.items[i];
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s", i ? " " : "", diag_code_name(dg->code));
    }
    source_set_free(&src);
    arena_free(&a);
    return buf;
}

static void test_recovery(void)
{
    char buf[256];
    /* A lexical error hides the syntax error it causes at the next token. */
    CHECK_STREQ(parse_codes("step s(x: int = $) { source = \"a.c\" }", buf, sizeof buf), "E0001");
    CHECK_STREQ(parse_codes("pipeline p() { s(x = \"a)\n}\n", buf, sizeof buf), "E0002");
    /* A syntax error hides the lexical errors later on its line only. */
    CHECK_STREQ(parse_codes("import lib/data.pipe\nstep s() { source = \"a.c\" }", buf, sizeof buf), "E0010");
    CHECK_STREQ(parse_codes("import lib\nstep s() { source = \"a\\q.c\" }", buf, sizeof buf), "E0010 E0003");
    /* A malformed number is one error, and its value is poisoned. */
    CHECK_STREQ(parse_codes("step s(m: string = 16GB) { source = \"a.c\" }", buf, sizeof buf), "E0004");
    /* Mistakes the grammar reads on from: `:` for `=`, unparenthesized
       targets, unquoted map keys. One E0010 each, and nothing lost. */
    CHECK_STREQ(parse_codes("step s() { source: \"a.c\" }\n"
                            "pipeline p() { a, b = s(x: 1)\n t(env = {KEY: \"v\"}) }",
                            buf, sizeof buf),
                "E0010 E0010 E0010 E0010");
    /* An unclosed bracket at the end of the file gets a note. */
    {
        const char *text = "pipeline p() {\n  s(x = 1)\n";
        arena a;
        arena_init(&a);
        source_set src;
        source_set_init(&src);
        diag_engine d;
        diag_init(&d, &a, &src);
        int idx = source_add(&src, "t.pipe", text, strlen(text));
        ast_file *f = parse_file(&a, &d, &src, (uint32_t)idx);
        CHECK_EQ_U64(f->syntax_errors, 1);
        CHECK_EQ_U64(d.diags.len, 1);
        diagnostic *dg = d.diags.len ? d.diags.items[0] : NULL;
        CHECK(dg && dg->notes.len == 1);
        if (dg && dg->notes.len == 1)
            CHECK_EQ_U64(((note_entry *)dg->notes.items[0])->sp.start, 13);
        source_set_free(&src);
        arena_free(&a);
    }
}

static void test_missing_quotes(void)
{
    lexed l;
    uint32_t at;
    /* A value whose opening quote is missing: one E0002 at the value, read
       as the string meant, the rest of the line read as usual. */
    lex(&l, "(memory = 16GB\", shm = \"2GiB\"\nt = H100\")");
    CHECK_EQ_U64(l.d.diags.len, 2);
    CHECK_STREQ(code_at(&l, 0, &at), "E0002");
    CHECK_EQ_U64(at, 10);
    CHECK_STREQ(code_at(&l, 1, &at), "E0002");
    CHECK_EQ_U64(at, 34);
    CHECK_EQ_INT(l.kinds[3], STRING);
    CHECK_STREQ(l.values[3].expr->u.s.text, "16GB");
    CHECK_EQ_INT(l.kinds[7], STRING);
    CHECK_STREQ(l.values[7].expr->u.s.text, "2GiB");
    CHECK_EQ_INT(l.kinds[10], STRING);
    CHECK_STREQ(l.values[10].expr->u.s.text, "H100");
    CHECK_EQ_INT(l.kinds[11], ')');
    done(&l);
    /* Not when the quote opens a string that closes: `import"x.pipe"`. */
    lex(&l, "import\"x.pipe\" a\"b\"");
    CHECK_EQ_U64(l.d.diags.len, 0);
    CHECK_EQ_INT(l.kinds[0], IMPORT);
    CHECK_EQ_INT(l.kinds[1], STRING);
    CHECK_EQ_INT(l.kinds[2], IDENT);
    CHECK_EQ_INT(l.kinds[3], STRING);
    done(&l);
    /* Runs of `-` are one error. */
    lex(&l, "--x");
    CHECK_EQ_U64(l.d.diags.len, 1);
    CHECK_EQ_INT(l.n, 1);
    done(&l);
}

static void test_comments(void)
{
    lexed l;
    lex(&l, "# head\nstep # trailing \"not a string\nx");
    CHECK_EQ_INT(l.n, 2);
    CHECK_EQ_INT(l.kinds[0], STEP);
    CHECK_EQ_INT(l.kinds[1], IDENT);
    CHECK_EQ_U64(l.d.diags.len, 0);
    done(&l);
}

int main(void)
{
    test_tokens();
    test_numbers();
    test_strings();
    test_bad_characters();
    test_comments();
    test_missing_quotes();
    test_recovery();
    return check_summary();
}
