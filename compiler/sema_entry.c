/* W0407: a native step whose sources do not appear to define its entry
   function. A text scan, not a C parser (a definition made by a macro is not
   seen), hence a warning: without it the mistake shows up as an undefined
   reference in generated code when the bundle links. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sema.h"
#include "pipe/base.h"

/* The end of a comment or literal starting at p, or p when none starts there. */
static const char *skip_inert(const char *p, const char *end)
{
    if (p + 1 < end && p[0] == '/' && p[1] == '/') {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        return nl ? nl : end;
    }
    if (p + 1 < end && p[0] == '/' && p[1] == '*') {
        for (const char *q = p + 2; q + 1 < end; q++)
            if (q[0] == '*' && q[1] == '/')
                return q + 2;
        return end;
    }
    if (*p == '"' || *p == '\'') {
        for (const char *q = p + 1; q < end; q++) {
            if (*q == '\\')
                q++;
            else if (*q == *p || *q == '\n')
                return q + 1;
        }
        return end;
    }
    return p;
}

/* Past whitespace and comments. */
static const char *skip_space(const char *p, const char *end)
{
    while (p < end) {
        const char *q = skip_inert(p, end);
        if (q != p && (*p == '/'))
            p = q;
        else if (isspace((unsigned char)*p))
            p++;
        else
            break;
    }
    return p;
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* `name (...) {` outside comments and literals. */
static bool defines(const char *text, size_t len, const char *name)
{
    const char *p = text, *end = text + len;
    size_t n = strlen(name);
    while (p < end) {
        const char *q = skip_inert(p, end);
        if (q != p) {
            p = q;
            continue;
        }
        if (!is_ident_char(*p)) {
            p++;
            continue;
        }
        const char *word = p;
        while (p < end && is_ident_char(*p))
            p++;
        if ((size_t)(p - word) != n || memcmp(word, name, n) != 0)
            continue;
        const char *r = skip_space(p, end);
        if (r >= end || *r != '(')
            continue;
        int depth = 0;
        while (r < end) {
            const char *inert = skip_inert(r, end);
            if (inert != r) {
                r = inert;
                continue;
            }
            depth += *r == '(' ? 1 : *r == ')' ? -1 : 0;
            r++;
            if (depth == 0)
                break;
        }
        r = skip_space(r, end);
        if (r < end && *r == '{')
            return true;
    }
    return false;
}

void sema_check_entry_defined(sema *s, step_info *st, ast_field *entry_field)
{
    program *pg = s->pg;
    if (st->is_command || !st->entry || st->nsources == 0)
        return;
    for (size_t i = 0; i < st->nsources; i++) {
        char *text = NULL;
        size_t len = 0;
        if (pipe_read_file(st->sources[i].resolved, &text, &len, NULL, 0) != 0)
            return; /* missing (E0116) or unreadable: nothing to say */
        bool found = defines(text, len, st->entry);
        free(text);
        if (found)
            return;
    }
    bool given = entry_field && entry_field->value->kind == EXPR_STRING;
    span at = given ? entry_field->value->sp : st->decl->name.sp;
    diagnostic *dg = diag_report(pg->diag, at, DIAG_W0407, "no source of step `%s` appears to define `%s`", st->name,
                                 st->entry);
    diag_label(pg->diag, dg, given ? "the entry function" : "the entry function defaults to the step's name");
    diag_help(pg->diag, dg, "define `int %s(pipe_ctx *ctx, const <pipeline>_%s_args *args) { ... }` in one of "
                            "them, or set `entry` to the function's name; without a definition the bundle does not "
                            "link",
              st->entry, st->name);
    diag_note(pg->diag, dg, st->sources[0].sp, "searched the %zu file%s of `source`", st->nsources,
              st->nsources == 1 ? "" : "s");
}
