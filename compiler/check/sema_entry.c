/* W0407: a native step whose sources do not appear to define its entry
   function. A text scan, not a C parser (a definition made by a macro is not
   seen), hence a warning: without it the mistake shows up as an undefined
   reference in generated code when the bundle links. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "sema.h"
#include "util/symtab.h"
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

/* What one source defines: every `name (...) {` outside comments and
   literals. One pass per file however many steps share it (a file holding
   the entries of 10,000 steps is read and scanned once, not 10,000 times),
   linear in its length: each '(' remembers the word before it on a stack,
   and its ')' asks whether a '{' follows. */
typedef struct defined_names {
    symtab names; /* name -> 1 + the offset of its name in the text (never NULL) */
    bool unreadable;
    const char *text; /* the file's bytes, kept for the bundle (read once) */
    size_t len;
} defined_names;

static void scan_definitions(arena *a, const char *text, size_t len, symtab *names)
{
    const char *p = text, *end = text + len;
    struct word {
        const char *at;
        size_t len;
    } *open = NULL; /* per open '(': the word just before it (at NULL: none) */
    size_t depth = 0, cap = 0;
    const char *word = NULL;
    size_t word_len = 0;
    while (p < end) {
        const char *q = skip_inert(p, end);
        if (q != p) {
            if (*p != '/') /* a literal between a name and its '(': not a definition */
                word = NULL;
            p = q;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (is_ident_char(*p)) {
            word = p;
            while (p < end && is_ident_char(*p))
                p++;
            word_len = (size_t)(p - word);
            continue;
        }
        if (*p == '(') {
            if (depth == cap) {
                cap = cap ? 2 * cap : 64;
                open = xrealloc(open, cap * sizeof *open);
            }
            open[depth++] = (struct word){word, word_len};
        } else if (*p == ')' && depth > 0) {
            struct word w = open[--depth];
            const char *r = skip_space(p + 1, end);
            if (w.at && r < end && *r == '{') {
                char *name = arena_strndup(a, w.at, w.len);
                if (!symtab_get(names, name))
                    symtab_put(names, name, (void *)(uintptr_t)(w.at - text + 1));
            }
        }
        word = NULL;
        p++;
    }
    free(open);
}

/* The names a source defines, scanned on first use. */
static const defined_names *definitions_in(sema *s, const char *path)
{
    defined_names *d = symtab_get(&s->entry_scans, path);
    if (d)
        return d;
    d = arena_alloc(s->pg->arena, sizeof *d);
    memset(d, 0, sizeof *d);
    char *text = NULL;
    size_t len = 0;
    if (pipe_read_file(path, &text, &len, NULL, 0) != 0)
        d->unreadable = true; /* missing (E0116) or unreadable: nothing to say */
    else {
        scan_definitions(s->pg->arena, text, len, &d->names);
        char *kept = arena_alloc(s->pg->arena, len + 1);
        memcpy(kept, text, len + 1);
        d->text = kept;
        d->len = len;
    }
    free(text);
    symtab_put(&s->entry_scans, arena_strdup(s->pg->arena, path), d);
    return d;
}

void sema_free_entry_scans(sema *s)
{
    for (size_t i = 0; i < s->entry_scans.cap; i++)
        if (s->entry_scans.keys[i])
            symtab_free(&((defined_names *)s->entry_scans.values[i])->names);
    symtab_free(&s->entry_scans);
}

void sema_check_entry_defined(sema *s, step_info *st, ast_field *entry_field)
{
    program *pg = s->pg;
    if (st->is_command || !st->entry || st->nsources == 0)
        return;
    for (size_t i = 0; i < st->nsources; i++) {
        const defined_names *d = definitions_in(s, st->sources[i].resolved);
        st->sources[i].text = d->text;
        st->sources[i].len = d->len;
        void *found = d->unreadable ? NULL : symtab_get(&d->names, st->entry);
        if (found) { /* where the language server's definition goes */
            st->entry_found = true;
            st->entry_source = i;
            st->entry_offset = (size_t)(uintptr_t)found - 1;
        }
        if (d->unreadable || found)
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
