#include "lex_util.h"

#include <string.h>

#include "parse_recover.h"
#include "pipe/base.h"

int lex_token(parse_ctx *p, int token, uint32_t at)
{
    parse_item_start(p, token, at);
    p->prev_token = token;
    p->newline_seen = false;
    p->ntokens++;
    return token;
}

void lex_newline(parse_ctx *p)
{
    p->newline_seen = true;
    p->line_start = p->offset;
}

ast_name lex_name(parse_ctx *p, span sp, const char *text, size_t len)
{
    ast_name n = {arena_strndup(p->arena, text, len), sp};
    return n;
}

void lex_open_bracket(parse_ctx *p, uint32_t at, char c)
{
    /* lex_too_deep stops the file before a bracket past the limit. */
    p->open_at[p->depth] = at;
    p->open_char[p->depth] = c;
    p->depth++;
}

void lex_close_bracket(parse_ctx *p)
{
    if (p->depth > 0)
        p->depth--;
}

int lex_open_paren(parse_ctx *p, uint32_t at)
{
    lex_open_bracket(p, at, '(');
    return p->prev_token == ')' && !p->newline_seen ? CHAIN_LPAREN : '(';
}

ast_expr *lex_number(parse_ctx *p, span sp, const char *text, size_t len, bool is_float)
{
    /* ast_new_* report literals out of range (E0004). */
    size_t before = p->diag->errors;
    ast_expr *e = is_float ? ast_new_float(p, sp, text, len) : ast_new_int(p, sp, text, len);
    if (p->diag->errors != before) {
        e->poisoned = true;
        parse_lex_error_done(p, true);
    }
    return e;
}

ast_expr *lex_string(parse_ctx *p, span sp, const char *body, size_t len)
{
    size_t before = p->diag->errors, n;
    const char *s = decode_string(p, body, len, sp.start + 1, &n);
    ast_expr *e = ast_new_string(p, sp, s, n);
    e->poisoned = p->diag->errors != before;
    p->last_string = e;
    return e;
}

const char *decode_string(parse_ctx *p, const char *body, size_t len, uint32_t body_offset, size_t *out_len)
{
    char *out = arena_alloc(p->arena, len + 1);
    size_t o = 0, i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)body[i];
        if (c == '\\' && i + 1 < len) {
            char e = body[i + 1];
            char v = e == 'n' ? '\n' : e == 't' ? '\t' : e == '"' ? '"' : e == '\\' ? '\\' : 0;
            if (!v) {
                size_t elen = pipe_utf8_valid_prefix(body + i + 1, len - i - 1);
                span sp = {p->file, body_offset + (uint32_t)i, body_offset + (uint32_t)(i + 1 + (elen ? elen : 1))};
                const char *escape = body + i + 1;
                i += 1 + (elen ? elen : 1);
                if (parse_lex_error_quiet(p, sp.start))
                    continue;
                diagnostic *dg = diag_report(p->diag, sp, DIAG_E0003, "unknown escape `\\%.*s` in a string",
                                             (int)(elen ? elen : 1), escape);
                diag_label(p->diag, dg, "unknown escape");
                diag_help(p->diag, dg, "the escapes are `\\\"`, `\\\\`, `\\n` and `\\t`; write a backslash as `\\\\`");
                continue;
            }
            out[o++] = v;
            i += 2;
            continue;
        }
        if (c < 0x20 || c == 0x7f) {
            span sp = {p->file, body_offset + (uint32_t)i, body_offset + (uint32_t)i + 1};
            i++;
            if (parse_lex_error_quiet(p, sp.start))
                continue;
            diagnostic *dg = diag_report(p->diag, sp, DIAG_E0001, "control character U+%04X inside a string", c);
            diag_label(p->diag, dg, "control character");
            diag_help(p->diag, dg, "write a tab as `\\t` and a newline as `\\n`");
            continue;
        }
        if (c >= 0x80) {
            size_t n = pipe_utf8_valid_prefix(body + i, len - i);
            if (n == 0) {
                span sp = {p->file, body_offset + (uint32_t)i, body_offset + (uint32_t)i + 1};
                i++;
                if (parse_lex_error_quiet(p, sp.start))
                    continue;
                diagnostic *dg = diag_report(p->diag, sp, DIAG_E0001, "byte 0x%02X inside a string is not valid UTF-8", c);
                diag_label(p->diag, dg, "not UTF-8");
                diag_help(p->diag, dg, "save the file as UTF-8");
                continue;
            }
            memcpy(out + o, body + i, n);
            o += n;
            i += n;
            continue;
        }
        out[o++] = (char)c;
        i++;
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}

bool lex_paren_after_arrow(const parse_ctx *p, span outputs)
{
    const char *t = p->src->text + outputs.start + 2, *end = p->src->text + p->src->len;
    while (t < end && (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r'))
        t++;
    return t < end && *t == '(';
}
