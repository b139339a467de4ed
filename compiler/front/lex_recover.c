#include "lex_recover.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lex_util.h"
#include "parse_recover.h"
#include "pipe/base.h"

/* How far the guesses about a missing quote look: lines longer than this
   are not guessed about, so that the scans stay linear on any input. */
enum { GUESS_LINE_MAX = 4096 };

bool lex_starts_declaration(const parse_ctx *p, uint32_t at, size_t len)
{
    const char *t = p->src->text;
    size_t n = p->src->len;
    uint32_t b = at;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t'))
        b--;
    if (b > 0 && t[b - 1] != '\n')
        return false;
    size_t i = at + len;
    if (t[at] == '@')
        return i < n && (isalpha((unsigned char)t[i]) || t[i] == '_');
    while (i < n && (t[i] == ' ' || t[i] == '\t'))
        i++;
    if (t[at] == 'i')
        return i < n && t[i] == '"';
    if (i >= n || !(isalpha((unsigned char)t[i]) || t[i] == '_'))
        return false;
    while (i < n && (isalnum((unsigned char)t[i]) || t[i] == '_'))
        i++;
    while (i < n && (t[i] == ' ' || t[i] == '\t'))
        i++;
    return i < n && t[i] == '(';
}

int lex_close_before_item(parse_ctx *p, span *loc, size_t len)
{
    if (p->depth == 0 || !(p->closing || lex_starts_declaration(p, loc->start, len))) {
        p->closing = false;
        return 0;
    }
    size_t inner = p->depth - 1;
    char open = p->open_char[inner];
    char close = open == '(' ? ')' : open == '[' ? ']' : '}';
    if (!p->closing) {
        p->closing = true;
        parse_note_syntax_error(p, *loc);
        if (!p->in_broken_item && !(p->lex_error_seen && p->ntokens + 1 <= p->quiet_through)) {
            diagnostic *dg = diag_report(p->diag, *loc, DIAG_E0010, "expected `%c`, found `%.*s`", close, (int)len,
                                         p->src->text + loc->start);
            diag_label(p->diag, dg, "`%c` missing before this", close);
            span at = {p->file, p->open_at[inner], p->open_at[inner] + 1};
            diag_note(p->diag, dg, at, "the `%c` opened here is not closed", open);
        }
        p->in_broken_item = true;
        p->syntax_error_seen = true;
        p->syntax_error_at = loc->start;
    }
    /* A zero-width closer at the keyword; any syntax error it causes is
       part of the one just reported. */
    p->offset = loc->start;
    loc->end = loc->start;
    p->depth--;
    p->prev_token = close;
    p->ntokens++;
    return close;
}

bool lex_too_deep(parse_ctx *p, span at)
{
    if (p->depth < PARSE_MAX_DEPTH)
        return false;
    /* Reported whatever came before: a file this deep is not read further,
       so this is the one thing left to say about it. */
    parse_note_syntax_error(p, at);
    diagnostic *dg = diag_report(p->diag, at, DIAG_E0121, "brackets nested more than %d deep", PARSE_MAX_DEPTH);
    diag_label(p->diag, dg, "bracket %d opens here", PARSE_MAX_DEPTH + 1);
    span outer = {p->file, p->open_at[0], p->open_at[0] + 1};
    diag_note(p->diag, dg, outer, "the outermost of them opens here");
    diag_help(p->diag, dg,
              "`(`, `[` and `{` nest at most %d deep together: write the value flatter, or keep deep data in a "
              "file the step reads",
              PARSE_MAX_DEPTH);
    p->too_deep = true;
    p->in_broken_item = true;
    p->syntax_error_seen = true;
    p->syntax_error_at = at.start;
    return true;
}

bool lex_unterminated_split(const char *text, size_t len, size_t *keep, size_t *pushed)
{
    size_t k = len;
    bool closer = false;
    while (k > 1 && strchr(")]}, \t\r", text[k - 1]) != NULL) {
        closer = closer || strchr(")]}", text[k - 1]) != NULL;
        k--;
    }
    *keep = len;
    *pushed = 0;
    if (!closer)
        return false;
    /* Shown without the whitespace before them. */
    size_t n = len - k;
    while (n > 0 && strchr(" \t\r", text[k]) != NULL) {
        k++;
        n--;
    }
    *keep = k;
    *pushed = n;
    return true;
}

ast_expr *lex_unterminated_string(parse_ctx *p, span sp, const char *text, size_t len, bool closer, size_t pushed)
{
    /* The closing quote of a string continued from the line above (reported
       there) opens no new mistake. */
    bool continued = parse_continues_unterminated(p, sp.start);
    p->unterminated_seen = true;
    p->unterminated_end = sp.end;
    if (!continued && !parse_lex_error_quiet(p, sp.start)) {
        diagnostic *dg = diag_report(p->diag, sp, DIAG_E0002, "unterminated string");
        diag_label(p->diag, dg, "this string is never closed");
        if (closer)
            diag_help(p->diag, dg, "close it with `\"` before `%.*s`", (int)pushed, p->src->text + sp.end);
        else
            diag_help(p->diag, dg, "close it with `\"` on the same line; write a newline inside a string as `\\n`");
    }
    parse_lex_error_done(p, true);
    size_t body = len - 1;
    if (body > 0 && text[len - 1] == '\\')
        body--;
    ast_expr *e = lex_string(p, sp, text + 1, body);
    e->poisoned = true;
    return e;
}

static bool is_unit(const char *s, size_t n, const char *const *units)
{
    for (; *units; units++)
        if (strlen(*units) == n && memcmp(*units, s, n) == 0)
            return true;
    return false;
}

ast_expr *lex_bad_number(parse_ctx *p, span sp, const char *text, size_t len)
{
    static const char *const sizes[] = {"KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB", NULL};
    static const char *const durations[] = {"ms", "s", "m", "h", "d", NULL};
    int shown = len > 64 ? 64 : (int)len;
    if (!parse_lex_error_quiet(p, sp.start)) {
        diagnostic *dg = diag_report(p->diag, sp, DIAG_E0004, "malformed number `%.*s`", shown, text);
        size_t sign = text[0] == '-' ? 1 : 0, digits = sign;
        while (digits < len && text[digits] >= '0' && text[digits] <= '9')
            digits++;
        const char *unit = text + digits;
        size_t unit_len = len - digits;
        bool plain = sign == 0 && digits > 0;
        if (plain && is_unit(unit, unit_len, sizes)) {
            diag_label(p->diag, dg, "a size is a string");
            diag_help(p->diag, dg, "write it in quotes: \"%.*s\"", shown, text);
        } else if (plain && is_unit(unit, unit_len, durations)) {
            diag_label(p->diag, dg, "a duration is a string");
            diag_help(p->diag, dg, "write it in quotes: \"%.*s\"", shown, text);
        } else if (digits == sign + 1 && text[sign] == '0' && unit_len > 1 && strchr("xXbBoO", unit[0])) {
            diag_label(p->diag, dg, "not a decimal number");
            diag_help(p->diag, dg, "numbers are decimal only: write the value in base 10");
        } else if (digits > sign && unit_len == 1 && unit[0] == '.') {
            diag_label(p->diag, dg, "no digit after the point");
            diag_help(p->diag, dg, "write `%.*s0`", shown, text);
        } else if (digits == sign && unit_len > 0 && unit[0] == '.') {
            diag_label(p->diag, dg, "no digit before the point");
            diag_help(p->diag, dg, "write `%s0%.*s`", sign ? "-" : "", shown - (int)sign, text + sign);
        } else if (memchr(text, '_', len)) {
            diag_label(p->diag, dg, "not a valid integer or float");
            diag_help(p->diag, dg, "numbers have no digit separators: write `1000`, not `1_000`");
        } else {
            diag_label(p->diag, dg, "not a valid integer or float");
            diag_help(p->diag, dg, "numbers look like `42`, `-3`, `0.5`, `1e-3`; sizes and durations are strings such "
                                   "as \"16GB\" or \"2h\"");
        }
    }
    parse_lex_error_done(p, true);
    ast_expr *e = ast_new_int(p, sp, "0", 1);
    e->poisoned = true;
    return e;
}

int lex_word(parse_ctx *p, span sp, const char *text, size_t len, PIPE_YYSTYPE *lval)
{
    static const struct { const char *word; int token; } keywords[] = {
        {"import", IMPORT}, {"step", STEP}, {"pipeline", PIPELINE}, {"true", TRUE}, {"false", FALSE},
    };
    if (isalpha((unsigned char)text[0]) || text[0] == '_') {
        for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
            if (strlen(keywords[i].word) == len && memcmp(keywords[i].word, text, len) == 0)
                return keywords[i].token;
        lval->name = lex_name(p, sp, text, len);
        return IDENT;
    }
    /* -?DIGITS, -?DIGITS.DIGITS(EXP)?, -?DIGITS EXP */
    size_t i = text[0] == '-' ? 1 : 0, start = i;
    while (i < len && isdigit((unsigned char)text[i]))
        i++;
    bool ok = i > start, is_float = false;
    if (ok && i < len && text[i] == '.') {
        size_t f = ++i;
        while (i < len && isdigit((unsigned char)text[i]))
            i++;
        ok = i > f;
        is_float = true;
    }
    if (ok && i < len && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        if (i < len && (text[i] == '+' || text[i] == '-'))
            i++;
        size_t e = i;
        while (i < len && isdigit((unsigned char)text[i]))
            i++;
        ok = i > e;
        is_float = true;
    }
    if (ok && i == len) {
        lval->expr = lex_number(p, sp, text, len, is_float);
        return is_float ? FLOAT : INT;
    }
    lval->expr = lex_bad_number(p, sp, text, len);
    return INT;
}

ast_expr *lex_shell_variable(parse_ctx *p, span sp, const char *text, size_t len)
{
    if (!parse_lex_error_quiet(p, sp.start)) {
        diagnostic *dg = diag_report(p->diag, sp, DIAG_E0001, "character `$` cannot start a token");
        diag_label(p->diag, dg, "no variable expansion in .pipe files");
        diag_help(p->diag, dg, "pass the value as a pipeline parameter (`pipeline NAME(path: string = \"...\")`), "
                               "or read the variable in the step at run time");
    }
    parse_lex_error_done(p, true);
    ast_expr *e = ast_new_string(p, sp, arena_strndup(p->arena, text, len), len);
    e->poisoned = true;
    return e;
}

bool lex_line_ends_in_string(const parse_ctx *p, uint32_t at)
{
    const char *t = p->src->text;
    bool in_string = false;
    size_t end = p->src->len - at > GUESS_LINE_MAX ? at + GUESS_LINE_MAX : p->src->len;
    if (end < p->src->len && memchr(t + at, '\n', end - at) == NULL)
        return false;
    for (size_t i = at; i < p->src->len && t[i] != '\n'; i++) {
        if (in_string && t[i] == '\\')
            i++;
        else if (t[i] == '"')
            in_string = !in_string;
        else if (!in_string && t[i] == '#')
            break; /* a comment */
    }
    return in_string;
}

bool lex_missing_open_quote_here(const parse_ctx *p, span sp, const char *text, size_t len)
{
    static const char *const keywords[] = {"import", "step", "pipeline", "true", "false"};
    size_t word = len - 1;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i]) == word && memcmp(keywords[i], text, word) == 0)
            return false;
    return lex_line_ends_in_string(p, sp.end - 1);
}

ast_expr *lex_missing_open_quote(parse_ctx *p, span sp, const char *text, size_t len)
{
    size_t word = len - 1;
    span at = {sp.file, sp.start, sp.start + (uint32_t)word};
    int shown = word > 64 ? 64 : (int)word;
    /* `""word"`: an empty string right before the word; the quote is doubled. */
    ast_expr *prev = p->last_string;
    bool doubled = prev && prev->sp.end == sp.start && prev->u.s.len == 0 && prev->sp.end - prev->sp.start == 2;
    bool quiet = parse_continues_unterminated(p, sp.start) || parse_lex_error_quiet(p, at.start);
    if (!quiet && doubled) {
        span quote = {sp.file, prev->sp.start, prev->sp.start + 1};
        diagnostic *dg = diag_report(p->diag, quote, DIAG_E0002, "doubled `\"` before `%.*s`", shown, text);
        diag_label(p->diag, dg, "one `\"` too many");
        diag_help(p->diag, dg, "write \"%.*s\"", shown, text);
    } else if (!quiet) {
        diagnostic *dg = diag_report(p->diag, at, DIAG_E0002, "missing `\"` before `%.*s`", shown, text);
        diag_label(p->diag, dg, "the string's opening quote belongs here");
        diag_help(p->diag, dg, "write \"%.*s\"", shown, text);
    }
    if (doubled)
        prev->poisoned = true;
    parse_lex_error_done(p, true);
    /* Read on as the string that was meant; after another error on the
       line, the guess is less sure, and the value is not checked. */
    ast_expr *e = ast_new_string(p, sp, arena_strndup(p->arena, text, word), word);
    e->poisoned = quiet;
    p->last_string = e;
    return e;
}

void lex_c_comment(parse_ctx *p, span sp)
{
    for (uint32_t i = sp.start; i < sp.end; i++) {
        if (p->src->text[i] == '\n') {
            p->newline_seen = true;
            p->line_start = i + 1;
        }
    }
    if (parse_lex_error_quiet(p, sp.start))
        return;
    span slashes = {sp.file, sp.start, sp.start + 2};
    diagnostic *dg = diag_report(p->diag, slashes, DIAG_E0001, "character `/` cannot start a token");
    diag_label(p->diag, dg, "not a comment");
    diag_help(p->diag, dg, "comments start with `#` and run to the end of the line");
}

ast_expr *lex_single_quoted(parse_ctx *p, span sp, const char *text, size_t len)
{
    if (!parse_lex_error_quiet(p, sp.start)) {
        span quote = {sp.file, sp.start, sp.start + 1};
        diagnostic *dg = diag_report(p->diag, quote, DIAG_E0001, "character `'` cannot start a token");
        diag_label(p->diag, dg, "strings use double quotes");
        diag_help(p->diag, dg, "write \"%.*s\"", len - 2 > 64 ? 64 : (int)(len - 2), text + 1);
    }
    parse_lex_error_done(p, true);
    size_t n;
    const char *s = decode_string(p, text + 1, len - 2, sp.start + 1, &n);
    return ast_new_string(p, sp, s, n);
}

/* Describes the first offending character for the message. */
static void describe_char(const char *s, size_t n, char *buf, size_t size)
{
    unsigned char c = (unsigned char)s[0];
    size_t len = pipe_utf8_valid_prefix(s, n);
    if (len == 0)
        snprintf(buf, size, "byte 0x%02X (not valid UTF-8)", c);
    else if (c < 0x20 || c == 0x7f)
        snprintf(buf, size, "control character U+%04X", c);
    else
        snprintf(buf, size, "character `%.*s`", (int)len, s);
}

void lex_bad_chars(parse_ctx *p, span sp, const char *text, size_t len)
{
    if (parse_lex_error_quiet(p, sp.start)) {
        parse_lex_error_done(p, false);
        return;
    }
    parse_lex_error_done(p, false);
    char what[64];
    describe_char(text, len, what, sizeof what);
    diagnostic *dg = diag_report(p->diag, sp, DIAG_E0001, "%s cannot start a token", what);
    if (text[0] == '-') {
        diag_label(p->diag, dg, len == 1 ? "a lone `-`" : "not part of the language");
        diag_help(p->diag, dg, "`-` only starts a negative number (`-1`) or an arrow (`->`)");
    } else if (text[0] == '\'') {
        diag_label(p->diag, dg, "strings use double quotes");
        diag_help(p->diag, dg, "strings use double quotes: \"...\", on one line");
    } else if (text[0] == ';') {
        diag_label(p->diag, dg, "no `;` in .pipe files");
        diag_help(p->diag, dg, "fields and statements end at the end of the line; remove the `;`");
    } else if (text[0] == '/' && len > 1 && (text[1] == '/' || text[1] == '*')) {
        diag_label(p->diag, dg, "not a comment");
        diag_help(p->diag, dg, "comments start with `#` and run to the end of the line");
    } else if (text[0] == '$') {
        diag_label(p->diag, dg, "no variable expansion in .pipe files");
        diag_help(p->diag, dg, "pass the value as a pipeline parameter, or read the variable in the step at run time");
    } else if (len > 1) {
        diag_label(p->diag, dg, "these characters are not part of the language");
    } else {
        diag_label(p->diag, dg, "not part of the language");
    }
    /* `path = /data/train.csv"`: the quote that ends it has no partner. */
    size_t rest = p->src->len - sp.end > GUESS_LINE_MAX ? GUESS_LINE_MAX : p->src->len - sp.end;
    const char *nl = memchr(p->src->text + sp.end, '\n', rest);
    size_t line = nl ? (size_t)(nl - (p->src->text + sp.end)) : rest;
    const char *q = memchr(p->src->text + sp.end, '"', line);
    if (text[0] != '\'' && text[0] != ';' && q &&
        lex_line_ends_in_string(p, (uint32_t)(q - p->src->text))) {
        /* The text meant: from where the value starts to that quote. */
        uint32_t b = sp.start;
        while (b > 0 && strchr(" \t\n=(,[{", p->src->text[b - 1]) == NULL)
            b--;
        uint32_t e = (uint32_t)(q - p->src->text);
        if (e - b <= 80)
            diag_help(p->diag, dg, "a `\"` seems to be missing: write \"%.*s\"", (int)(e - b), p->src->text + b);
        else
            diag_help(p->diag, dg, "a `\"` seems to be missing: text is written in double quotes");
    }
}
