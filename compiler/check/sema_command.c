/* Command steps: `command = [...]` with its `{NAME}` placeholders (E0119)
   and what a command step cannot have (E0120). The runtime expands the
   placeholders (runtime/src/step/command.c) with the same scanner
   (pipe/placeholder.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "pipe/placeholder.h"
#include "sema.h"
#include "sema_util.h"
#include "util/suggest.h"

void sema_check_command_value(sema *s, step_info *st, ast_field *f)
{
    program *pg = s->pg;
    ast_expr *v = f->value;
    if (v->kind != EXPR_LIST) {
        diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201, "field `command` expects a list of strings, found %s",
                                     expr_kind_name(v->kind));
        diag_label(pg->diag, dg, "expected a list of strings");
        if (v->kind == EXPR_STRING)
            diag_help(pg->diag, dg, "the program and each argument are separate strings, run without a shell: "
                                    "`command = [\"python3\", \"train.py\", \"--lr\", \"{lr}\"]`");
        return;
    }
    st->command = arena_alloc(pg->arena, (v->u.items.len + 1) * sizeof *st->command);
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_expr *item = v->u.items.items[i];
        if (item->poisoned)
            continue;
        if (item->kind != EXPR_STRING) {
            diagnostic *dg = diag_report(pg->diag, item->sp, DIAG_E0201, "`command` entries must be strings, found %s",
                                         expr_kind_name(item->kind));
            diag_label(pg->diag, dg, "expected a string");
            diag_help(pg->diag, dg, "quote it, or pass a parameter's value with a placeholder: `\"{NAME}\"`");
            continue;
        }
        if (strlen(item->u.s.text) != item->u.s.len) {
            diagnostic *dg =
                diag_report(pg->diag, item->sp, DIAG_E0201, "a `command` argument cannot hold a NUL character");
            diag_label(pg->diag, dg, "not a usable argument");
            continue;
        }
        st->command[st->ncommand++] = item->u.s.text;
    }
}

/* The source span of the decoded bytes [from, to) of string literal e: its
   text in the file has escapes of two bytes where the value has one. */
static span decoded_span(const sema *s, const ast_expr *e, size_t from, size_t to)
{
    const source_file *f = s->pg->sources->files[e->sp.file];
    uint32_t raw = e->sp.start + 1; /* after the opening quote */
    uint32_t start = raw;
    for (size_t decoded = 0; decoded < to && raw < e->sp.end; decoded++) {
        if (decoded == from)
            start = raw;
        raw += f->text[raw] == '\\' ? 2 : 1;
    }
    if (from >= to)
        start = raw;
    span sp = {e->sp.file, start, raw};
    return sp;
}

/* Parameters and outputs: what a placeholder may name. */
static const char **placeholder_names(sema *s, const step_info *st, size_t *n)
{
    const char **names = arena_alloc(s->pg->arena, (st->nparams + st->noutputs + 1) * sizeof *names);
    *n = 0;
    for (size_t i = 0; i < st->nparams; i++)
        names[(*n)++] = st->params[i].name;
    for (size_t i = 0; i < st->noutputs; i++)
        names[(*n)++] = st->outputs[i].name;
    return names;
}

static void report_brace(sema *s, const ast_expr *e, size_t at, char brace)
{
    diag_engine *d = s->pg->diag;
    diagnostic *dg = diag_report(d, decoded_span(s, e, at, at + 1), DIAG_E0119, "lone `%c` in `command`", brace);
    diag_byte_columns(dg);
    diag_label(d, dg, brace == '{' ? "opens no placeholder" : "closes no placeholder");
    diag_help(d, dg, "write `%c%c` for a literal `%c`, or `{NAME}` for a parameter, input or output", brace, brace,
              brace);
}

static void check_placeholders(sema *s, const step_info *st, const ast_expr *e)
{
    diag_engine *d = s->pg->diag;
    const char *text = e->u.s.text;
    size_t nnames = 0;
    const char **names = NULL;
    pipe_placeholder ph;
    for (size_t pos = 0; pipe_placeholder_next(text, &pos, &ph);) {
        if (ph.kind == PIPE_PH_LONE_OPEN || ph.kind == PIPE_PH_LONE_CLOSE)
            report_brace(s, e, ph.start, text[ph.start]);
        if (ph.kind != PIPE_PH_NAME && ph.kind != PIPE_PH_EMPTY)
            continue;
        size_t i = ph.start, end = ph.end, len = end - i - 2;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len < 200 ? len : 200), text + i + 1);
        if (!names)
            names = placeholder_names(s, st, &nnames);
        bool known = false;
        for (size_t k = 0; k < nnames && !known; k++)
            known = strlen(names[k]) == len && strncmp(names[k], text + i + 1, len) == 0;
        if (!known) {
            span sp = decoded_span(s, e, i, end);
            diagnostic *dg;
            if (len == 0) {
                dg = diag_report(d, sp, DIAG_E0119, "empty placeholder `{}` in `command`");
                diag_label(d, dg, "names nothing");
            } else {
                dg = diag_report(d, sp, DIAG_E0119, "`{%s}` names no parameter, input or output of step `%s`", name,
                                 st->name);
                diag_label(d, dg, "unknown placeholder");
            }
            diag_byte_columns(dg);
            char list[512];
            format_name_list(list, sizeof list, names, nnames);
            const char *meant = len ? suggest_closest(name, names, nnames) : NULL;
            if (meant)
                diag_help(d, dg, "did you mean `{%s}`? placeholders name the step's parameters and outputs: %s", meant,
                          list);
            else if (nnames)
                diag_help(d, dg, "placeholders name the step's parameters and outputs: %s; write `{{` and `}}` for "
                                 "literal braces",
                          list);
            else
                diag_help(d, dg, "step `%s` has no parameters or outputs; write `{{` and `}}` for literal braces",
                          st->name);
        }
    }
}

/* E0120 names each field or source that a command step cannot have. */
static void conflict(sema *s, ast_field *command, diagnostic **dg, span at, const char *what, const char *note)
{
    diag_engine *d = s->pg->diag;
    if (!*dg) {
        *dg = diag_report(d, command->name.sp, DIAG_E0120, "a step with a `command` cannot have %s", what);
        diag_label(d, *dg, "runs a program");
        diag_help(d, *dg, "a step is either native (`source` with C, C++ or CUDA files, `entry`, `libraries`) or "
                          "runs a program (`command`, with `source` naming the files it needs)");
    }
    diag_note(d, *dg, at, "%s", note);
}

void sema_check_command_step(sema *s, step_info *st, ast_field *command, ast_field *entry, ast_field *libraries)
{
    diag_engine *d = s->pg->diag;
    diagnostic *dg = NULL;
    if (entry)
        conflict(s, command, &dg, entry->name.sp, "an `entry`", "the `entry` is set here");
    if (libraries)
        conflict(s, command, &dg, libraries->name.sp, "`libraries`", "the `libraries` are set here");
    for (size_t i = 0; i < st->nsources; i++)
        if (source_kind_compiled(st->sources[i].kind))
            conflict(s, command, &dg, st->sources[i].sp, "a C, C++ or CUDA source",
                     arena_printf(s->pg->arena, "\"%s\" is listed in `source` here", st->sources[i].path));
    ast_expr *v = command->value;
    if (v->poisoned || v->kind != EXPR_LIST)
        return;
    if (v->u.items.len == 0) {
        diagnostic *empty = diag_report(d, command->name.sp, DIAG_E0120, "`command` of step `%s` is empty", st->name);
        diag_label(d, empty, "no program to run");
        diag_help(d, empty, "name the program and its arguments: `command = [\"python3\", \"%s.py\"]`", st->name);
        return;
    }
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_expr *item = v->u.items.items[i];
        if (!item->poisoned && item->kind == EXPR_STRING && strlen(item->u.s.text) == item->u.s.len)
            check_placeholders(s, st, item);
    }
    sema_check_params_used(s, st, v->u.items.len);
}
