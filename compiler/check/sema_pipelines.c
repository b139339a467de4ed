/* Pipelines: calls, arguments, bindings and the invocations they make. */
#include <stdio.h>
#include <string.h>

#include "sema.h"
#include "sema_util.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/symtab.h"

typedef enum { BIND_PARAM, BIND_ARTIFACT, BIND_POISON } binding_kind;

/* A name in a pipeline's scope: a parameter, an output bound by a
   statement, or a name bound by a statement that failed to check (poison:
   uses are accepted silently so one mistake does not cascade). */
typedef struct binding {
    binding_kind kind;
    const char *name;
    span sp;
    param_info *param;
    invocation *producer;
    size_t output;
    bool used;
} binding;

typedef struct scope {
    sema *s;
    pipeline_info *pl;
    symtab names;        /* name -> binding* */
    ptr_vec bindings;    /* binding* in order */
    symtab later;        /* names bound by later statements: name -> ast_name* */
    symtab ids;          /* invocation ids taken */
    symtab step_counts;  /* step name -> (void*)count */
    symtab used_early;   /* names used (and reported) before the statement that binds them */
    symtab reported;     /* unknown names reported (E0106) */
} scope;

static const char *a_or_an(const char *word) { return strchr("aeiou", word[0]) ? "an" : "a"; }

static binding *new_binding(scope *sc, binding_kind kind, const char *name, span sp)
{
    program *pg = sc->s->pg;
    binding *b = arena_alloc(pg->arena, sizeof *b);
    b->kind = kind;
    b->name = name;
    b->sp = sp;
    symtab_put(&sc->names, b->name, b);
    vec_push(pg->arena, &sc->bindings, b);
    return b;
}

static void bind(scope *sc, binding_kind kind, ast_name *name, invocation *inv, size_t output)
{
    program *pg = sc->s->pg;
    binding *prev = symtab_get(&sc->names, name->text);
    if (prev) {
        diagnostic *dg = diag_report(pg->diag, name->sp, DIAG_E0107, "`%s` is already bound in pipeline `%s`",
                                     name->text, sc->pl->name);
        diag_label(pg->diag, dg, "bound a second time");
        diag_note(pg->diag, dg, prev->sp, prev->kind == BIND_PARAM ? "`%s` is a parameter of the pipeline"
                                                                   : "`%s` is first bound here", name->text);
        diag_help(pg->diag, dg, "give this output another name");
        /* Later uses may mean either binding: accept them silently, and do not
           call the first one unused. */
        prev->used = true;
        if (prev->kind != BIND_POISON) {
            binding *b = new_binding(sc, BIND_POISON, name->text, name->sp);
            b->used = true;
        }
        return;
    }
    binding *b = new_binding(sc, kind, name->text, name->sp);
    b->producer = inv;
    b->output = output;
    /* A use before this statement was reported (E0106) and counts as a use. */
    b->used = symtab_get(&sc->used_early, name->text) != NULL;
}

/* `_` as a target discards an output: it is never bound, so it may appear
   any number of times and no argument can name it. */
static bool is_discard(const ast_name *name) { return strcmp(name->text, "_") == 0; }

static void poison_targets(scope *sc, ast_statement *stmt)
{
    for (size_t i = 0; i < stmt->targets.len; i++)
        if (!is_discard(stmt->targets.items[i]))
            bind(sc, BIND_POISON, stmt->targets.items[i], NULL, 0);
}

/* p: the parameter the name was passed to, when known. */
static void report_unknown_name(scope *sc, ast_name *name, const param_info *p)
{
    program *pg = sc->s->pg;
    if (sc->s->lost_names)
        return;
    if (name->text[0] == '$')
        return; /* `$VAR`, reported by the lexer */
    if (symtab_get(&sc->reported, name->text))
        return; /* one report per name: the other uses are the same mistake */
    symtab_put(&sc->reported, name->text, (void *)1);
    if (is_discard(name)) {
        diagnostic *dg = diag_report(pg->diag, name->sp, DIAG_E0106, "`_` discards an output and cannot be used as "
                                                                     "an argument");
        diag_label(pg->diag, dg, "not a name");
        diag_help(pg->diag, dg, "bind the output you want to pass to a name (`x = step(...)`), then pass `x`");
        return;
    }
    diagnostic *dg = diag_report(pg->diag, name->sp, DIAG_E0106, "no artifact or pipeline parameter named `%s`",
                                 name->text);
    diag_label(pg->diag, dg, "not bound");
    ast_name *later = symtab_get(&sc->later, name->text);
    if (later) {
        symtab_put(&sc->used_early, name->text, (void *)1);
        diag_note(pg->diag, dg, later->sp, "`%s` is bound later, here", name->text);
        diag_help(pg->diag, dg, "move the statement that produces `%s` above this one", name->text);
        return;
    }
    const char **names = arena_alloc(pg->arena, (sc->bindings.len + 1) * sizeof *names);
    size_t n = 0;
    for (size_t i = 0; i < sc->bindings.len; i++) {
        binding *b = sc->bindings.items[i];
        if (symtab_get(&sc->names, b->name) == b) /* the binding in force, once per name */
            names[n++] = b->name;
    }
    const char *close = suggest_closest_or_prefix(name->text, names, n);
    if (close) {
        binding *meant = symtab_get(&sc->names, close);
        meant->used = true; /* it was meant to be used: no W0404 for it */
        diag_help(pg->diag, dg, "did you mean `%s`?", close);
        diag_fix(pg->diag, dg, "%s", close);
    } else if (p && p->type == TYPE_STRING) {
        diag_help(pg->diag, dg, "to pass the text, write it in quotes: `%s = \"%s\"`", p->name, name->text);
    } else if (n == 0) {
        diag_help(pg->diag, dg, "bind it first (`%s = step(...)`) or declare it as a pipeline parameter",
                  name->text);
    } else {
        char list[1024];
        format_name_list(list, sizeof list, names, n);
        diag_help(pg->diag, dg, "the names bound here are %s", list);
    }
}

static void check_orphan_args(scope *sc, ptr_vec *args);
static void look_up_value(scope *sc, ast_expr *v);

/* The source text of `name = value` arguments, "a = 1, b = 2". */
static const char *args_text(scope *sc, ptr_vec *args, size_t from)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = from; i < args->len; i++) {
        ast_arg *a = args->items[i];
        if (!a->name.text)
            continue;
        sb_printf(&sb, "%s%s", sb.len ? ", " : "", sema_text(sc->s, a->sp));
    }
    const char *text = arena_strdup(sc->s->pg->arena, sb.len ? sb_cstr(&sb) : "");
    sb_free(&sb);
    return text;
}

/* E0301 for `run_with_accelerate(step, options...)(args...)`, anywhere. */
static void accelerate_as_function(scope *sc, ast_call *call)
{
    program *pg = sc->s->pg;
    diagnostic *dg = diag_report(pg->diag, call->callee.sp, DIAG_E0301,
                                 "`run_with_accelerate` is a decorator, not a function");
    diag_label(pg->diag, dg, "used as a function");
    ptr_vec *first = call->groups.items[0];
    ast_arg *a0 = first->len ? first->items[0] : NULL;
    step_info *wrapped = NULL;
    if (a0 && !a0->name.text && a0->value->kind == EXPR_IDENT)
        wrapped = program_find_step(pg, a0->value->u.ident.text);
    if (wrapped && wrapped->accelerated) {
        diag_help(pg->diag, dg, "`%s` is already accelerated: call it directly, `%s(...)`, with keyword arguments",
                  wrapped->name, wrapped->name);
        diag_note(pg->diag, dg, wrapped->decorators.by_id[DEC_ACCELERATE]->decl->name.sp,
                  "`%s` is accelerated here", wrapped->name);
    } else if (wrapped) {
        const char *opts = args_text(sc, first, 1);
        diag_help(pg->diag, dg, "write `@run_with_accelerate(%s)` above `step %s`, then call `%s(...)` with keyword "
                                "arguments",
                  *opts ? opts : "...", wrapped->name, wrapped->name);
        diag_note(pg->diag, dg, wrapped->decl->name.sp, "`%s` is declared here", wrapped->name);
    } else {
        diag_help(pg->diag, dg, "write `@run_with_accelerate(...)` above the step's declaration, then call the "
                                "step with keyword arguments");
    }
    /* The step is meant to be invoked (no W0405); the later groups hold its
       arguments, which may name artifacts. */
    if (wrapped)
        wrapped->invoked = true;
    for (size_t g = 1; g < call->groups.len; g++)
        check_orphan_args(sc, call->groups.items[g]);
}

/* Checks a nested call used as a value; returns true if the value was a call. */
static bool reject_call_value(scope *sc, ast_expr *v)
{
    program *pg = sc->s->pg;
    if (v->kind != EXPR_CALL)
        return false;
    ast_call *c = v->u.call;
    if (strcmp(c->callee.text, "run_with_accelerate") == 0) {
        accelerate_as_function(sc, c);
        return true;
    }
    step_info *st = program_find_step(pg, c->callee.text);
    diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0308, "step call `%s(...)` inside an argument", c->callee.text);
    diag_label(pg->diag, dg, "nested call");
    if (st && st->noutputs == 1)
        diag_help(pg->diag, dg, "bind its output first, `%s = %s(...)` on a line of its own, then pass `%s`",
                  st->outputs[0].name, st->name, st->outputs[0].name);
    else
        diag_help(pg->diag, dg, "bind its output first, `x = %s(...)` on a line of its own, then pass `x`",
                  c->callee.text);
    if (st)
        st->invoked = true; /* meant to be invoked: no W0405 */
    for (size_t g = 0; g < c->groups.len; g++)
        check_orphan_args(sc, c->groups.items[g]);
    return true;
}

/* Type-checks one argument value against a parameter and records it. */
static void check_arg_value(scope *sc, step_info *st, param_info *p, ast_expr *v, arg_binding *out)
{
    program *pg = sc->s->pg;
    out->sp = v->sp;
    if (reject_call_value(sc, v))
        return;
    if (p->reported) {
        look_up_value(sc, v); /* its declaration is wrong (reported): only look up the names */
        return;
    }
    if (v->kind == EXPR_IDENT) {
        binding *b = symtab_get(&sc->names, v->u.ident.text);
        if (!b) {
            report_unknown_name(sc, &v->u.ident, p);
            return;
        }
        b->used = true;
        out->ref = b->name;
        if (b->kind == BIND_POISON)
            return;
        if (b->kind == BIND_PARAM) {
            out->kind = ARG_PIPELINE_PARAM;
            value_type t = b->param->type;
            bool ok = p->type != TYPE_ARTIFACT && (t == p->type || (t == TYPE_INT && p->type == TYPE_FLOAT));
            if (!ok) {
                diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201,
                                             "parameter `%s` of `%s` expects %s `%s`, found pipeline parameter `%s` "
                                             "of type `%s`",
                                             p->name, st->name, a_or_an(p->type_name), p->type_name, b->name,
                                             b->param->type_name);
                diag_label(pg->diag, dg, "expected `%s`", p->type_name);
                diag_note(pg->diag, dg, b->sp, "`%s` is declared here", b->name);
            }
            return;
        }
        out->kind = ARG_ARTIFACT;
        out->producer = b->producer;
        out->producer_output = b->output;
        const char *have = b->producer->step->outputs[b->output].type_name;
        if (p->type != TYPE_ARTIFACT) {
            diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201,
                                         "parameter `%s` of `%s` expects %s `%s`, found artifact `%s` of type `%s`",
                                         p->name, st->name, a_or_an(p->type_name), p->type_name, b->name, have);
            diag_label(pg->diag, dg, "expected `%s`", p->type_name);
            diag_note(pg->diag, dg, b->sp, "`%s` is bound here", b->name);
        } else if (strcmp(have, p->type_name) != 0) {
            diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0202,
                                         "parameter `%s` of `%s` expects an artifact of type `%s`, found `%s` of "
                                         "type `%s`",
                                         p->name, st->name, p->type_name, b->name, have);
            diag_label(pg->diag, dg, "expected `%s`, found `%s`", p->type_name, have);
            diag_note(pg->diag, dg, b->sp, "`%s` is bound here", b->name);
        }
        return;
    }
    out->kind = ARG_LITERAL;
    out->value = v;
    if (v->poisoned)
        return; /* a lexical error, already reported */
    if (p->type == TYPE_ARTIFACT) {
        diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201,
                                     "parameter `%s` of `%s` expects an artifact of type `%s`, found %s", p->name,
                                     st->name, p->type_name, expr_kind_name(v->kind));
        diag_label(pg->diag, dg, "expected an artifact");
        const char *typo = sema_value_type_typo(p->type_name);
        if (typo) {
            diag_help(pg->diag, dg, "`%s` is not a value type, so it names an artifact: did you mean `%s: %s` in "
                                    "the declaration of `%s`?",
                      p->type_name, p->name, typo, st->name);
            diag_note(pg->diag, dg, p->decl->type.sp, "the type is declared here");
        } else {
            diag_help(pg->diag, dg, "pass the output of an earlier step: `x = producer(...)`, then `%s = x`",
                      p->name);
        }
    } else if (!sema_value_matches(p->type, v)) {
        diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201, "parameter `%s` of `%s` expects %s `%s`, found %s",
                                     p->name, st->name, a_or_an(p->type_name), p->type_name,
                                     expr_kind_name(v->kind));
        diag_label(pg->diag, dg, "expected `%s`", p->type_name);
        if (p->type == TYPE_INT && v->kind == EXPR_FLOAT)
            diag_help(pg->diag, dg, "write a whole number");
        else if (v->kind == EXPR_STRING && p->type != TYPE_STRING)
            diag_help(pg->diag, dg, "remove the quotes");
    }
}

/* For a value that is not type-checked: nested calls are still rejected,
   names still looked up (and marked used). */
static void look_up_value(scope *sc, ast_expr *v)
{
    if (reject_call_value(sc, v))
        return;
    if (v->kind != EXPR_IDENT)
        return;
    binding *b = symtab_get(&sc->names, v->u.ident.text);
    if (b)
        b->used = true;
    else
        report_unknown_name(sc, &v->u.ident, NULL);
}

/* For a call whose step is unknown: still look at the argument values. */
static void check_orphan_args(scope *sc, ptr_vec *args)
{
    for (size_t i = 0; i < args->len; i++)
        look_up_value(sc, ((ast_arg *)args->items[i])->value);
}

/* The index of parameter `name` of st, or st->nparams. */
static size_t param_index(const step_info *st, const char *name)
{
    for (size_t k = 0; k < st->nparams; k++)
        if (strcmp(st->params[k].name, name) == 0)
            return k;
    return st->nparams;
}

/* Returns the index of the parameter it suggests, or st->nparams. */
static size_t unknown_parameter(scope *sc, step_info *st, ast_arg *a)
{
    program *pg = sc->s->pg;
    const char **names = arena_alloc(pg->arena, (st->nparams + 1) * sizeof *names);
    for (size_t i = 0; i < st->nparams; i++)
        names[i] = st->params[i].name;
    char list[1024];
    format_name_list(list, sizeof list, names, st->nparams);
    diagnostic *dg = diag_report(pg->diag, a->name.sp, DIAG_E0103, "step `%s` has no parameter `%s`", st->name,
                                 a->name.text);
    diag_label(pg->diag, dg, "unknown parameter");
    const char *close = suggest_closest_or_prefix(a->name.text, names, st->nparams);
    if (close) {
        diag_help(pg->diag, dg, "did you mean `%s`? the parameters of `%s` are %s", close, st->name, list);
        diag_fix(pg->diag, dg, "%s", close);
    }
    else if (st->nparams)
        diag_help(pg->diag, dg, "the parameters of `%s` are %s", st->name, list);
    else
        diag_help(pg->diag, dg, "`%s` takes no parameters", st->name);
    diag_note(pg->diag, dg, st->decl->name.sp, "`%s` is declared here", st->name);
    return close ? param_index(st, close) : st->nparams;
}

/* E0303's fix: the positional arguments from args[first] on, while each
   has a parameter, rewritten `NAME = VALUE` (one edit over all of them). */
static void keyword_fix(scope *sc, diagnostic *dg, const step_info *st, const ptr_vec *args, size_t first)
{
    strbuf text = STRBUF_INIT;
    size_t last = first;
    for (size_t i = first, k = 0; i < args->len && k < st->nparams; i++, k++) {
        const ast_arg *a = args->items[i];
        if (a->name.text || !a->value)
            break;
        sb_printf(&text, "%s%s = %s", i > first ? ", " : "", st->params[k].name, sema_text(sc->s, a->value->sp));
        last = i;
    }
    if (text.len) {
        span at = ((const ast_arg *)args->items[first])->value->sp;
        at.end = ((const ast_arg *)args->items[last])->value->sp.end;
        diag_fix_at(sc->s->pg->diag, dg, at, "%s", sb_cstr(&text));
    }
    sb_free(&text);
}

/* The artifact of type bound last so far, else fallback. */
static const char *artifact_of_type(scope *sc, const char *type, const char *fallback)
{
    for (size_t i = sc->bindings.len; i-- > 0;) {
        const binding *b = sc->bindings.items[i];
        if (b->kind == BIND_ARTIFACT && b->producer && b->output < b->producer->step->noutputs &&
            strcmp(b->producer->step->outputs[b->output].type_name, type) == 0)
            return b->name;
    }
    return fallback;
}

/* E0104's fix: the missing parameters added before the call's `)`, each
   with a value of its type to fill in (an artifact: the last one bound of
   its type, else the parameter's name). */
static void missing_fix(scope *sc, diagnostic *dg, const ast_call *call, size_t nargs, const char **missing,
                        size_t nmissing, const step_info *st)
{
    const char *text = sema_text(sc->s, call->sp);
    size_t len = strlen(text);
    if (!len || text[len - 1] != ')')
        return; /* a call the parser closed itself */
    strbuf add = STRBUF_INIT;
    for (size_t m = 0; m < nmissing; m++) {
        const char *value = missing[m];
        for (size_t k = 0; k < st->nparams; k++)
            if (strcmp(st->params[k].name, missing[m]) == 0) {
                static const char *const zero[] = {[TYPE_INT] = "0", [TYPE_FLOAT] = "0.0", [TYPE_BOOL] = "false",
                                                   [TYPE_STRING] = "\"\""};
                if (st->params[k].type != TYPE_ARTIFACT)
                    value = zero[st->params[k].type];
                else
                    value = artifact_of_type(sc, st->params[k].type_name, value);
            }
        sb_printf(&add, "%s%s = %s", nargs || m ? ", " : "", missing[m], value);
    }
    span at = call->sp;
    at.start = at.end = call->sp.end - 1;
    diag_fix_at(sc->s->pg->diag, dg, at, "%s", sb_cstr(&add));
    sb_free(&add);
}

/* Matches the arguments of a call to the step's parameters. */
static arg_binding *match_args(scope *sc, step_info *st, ast_call *call)
{
    program *pg = sc->s->pg;
    ptr_vec *args = call->groups.items[0];
    arg_binding *bound = arena_alloc(pg->arena, (st->nparams ? st->nparams : 1) * sizeof *bound);
    ast_arg **given = arena_alloc(pg->arena, (st->nparams ? st->nparams : 1) * sizeof *given);
    /* Parameters named anywhere in the call, for guessing what a misplaced
       positional argument was meant to be. */
    bool *named = arena_alloc(pg->arena, (st->nparams ? st->nparams : 1) * sizeof *named);
    bool *suggested = arena_alloc(pg->arena, (st->nparams ? st->nparams : 1) * sizeof *suggested);
    for (size_t i = 0; i < args->len; i++) {
        ast_arg *a = args->items[i];
        size_t k = a->name.text ? param_index(st, a->name.text) : st->nparams;
        if (k < st->nparams)
            named[k] = true;
    }
    bool seen_keyword = false, reported_positional = false;
    const ast_arg *reported_at = NULL; /* the argument E0303 was reported at */
    size_t next_positional = 0;
    for (size_t i = 0; i < args->len; i++) {
        ast_arg *a = args->items[i];
        size_t idx;
        if (!a->name.text) {
            if (seen_keyword) {
                diagnostic *dg = diag_report(pg->diag, a->value->sp, DIAG_E0118,
                                             "positional argument after a keyword argument");
                diag_label(pg->diag, dg, "positional argument");
                size_t guess = st->nparams;
                for (size_t k = 0; k < st->nparams && guess == st->nparams; k++)
                    if (!given[k] && !named[k])
                        guess = k;
                if (guess < st->nparams) {
                    diag_help(pg->diag, dg, "name it: `%s = %s`", st->params[guess].name,
                              sema_text(sc->s, a->value->sp));
                    named[guess] = true;
                } else {
                    diag_help(pg->diag, dg, "name it, `parameter = value`, or put the positional arguments first");
                }
                reject_call_value(sc, a->value);
                continue;
            }
            if (st->accelerated && !reported_positional) {
                diagnostic *dg = diag_report(pg->diag, a->value->sp, DIAG_E0303,
                                             "positional argument in a call to accelerated step `%s`", st->name);
                diag_label(pg->diag, dg, "positional argument");
                if (next_positional < st->nparams)
                    diag_help(pg->diag, dg, "pass arguments by keyword: `%s = %s`; the launcher hands them to "
                                            "every rank by name",
                              st->params[next_positional].name, sema_text(sc->s, a->value->sp));
                else if (st->nparams == 0)
                    diag_help(pg->diag, dg, "`%s` takes no parameters: call it as `%s()`", st->name, st->name);
                else
                    diag_help(pg->diag, dg, "pass arguments by keyword; the launcher hands them to every rank by "
                                            "name");
                diag_note(pg->diag, dg, st->decorators.by_id[DEC_ACCELERATE]->decl->name.sp,
                          "`%s` is accelerated here", st->name);
                keyword_fix(sc, dg, st, args, i);
                reported_positional = true;
                reported_at = a;
            }
            if (next_positional >= st->nparams && a == reported_at) {
                /* One mistake, reported as E0303; the extra ones are the same. */
                for (; i < args->len; i++)
                    reject_call_value(sc, ((ast_arg *)args->items[i])->value);
                break;
            }
            if (next_positional >= st->nparams) {
                diagnostic *dg = diag_report(pg->diag, a->value->sp, DIAG_E0103,
                                             "too many arguments: step `%s` takes %zu parameter%s", st->name,
                                             st->nparams, st->nparams == 1 ? "" : "s");
                diag_label(pg->diag, dg, "unexpected argument");
                if (st->nparams) {
                    const char **names = arena_alloc(pg->arena, st->nparams * sizeof *names);
                    for (size_t k = 0; k < st->nparams; k++)
                        names[k] = st->params[k].name;
                    char list[1024];
                    format_name_list(list, sizeof list, names, st->nparams);
                    diag_help(pg->diag, dg, "the parameters of `%s` are %s; remove the extra argument%s", st->name,
                              list, i + 1 < args->len ? "s" : "");
                } else {
                    diag_help(pg->diag, dg, "`%s` takes no parameters: call it as `%s()`", st->name, st->name);
                }
                diag_note(pg->diag, dg, st->decl->name.sp, "`%s` is declared here", st->name);
                /* Later extra arguments are the same mistake. */
                for (; i < args->len; i++)
                    reject_call_value(sc, ((ast_arg *)args->items[i])->value);
                break;
            }
            idx = next_positional++;
        } else {
            seen_keyword = true;
            idx = param_index(st, a->name.text);
            if (idx == st->nparams) {
                size_t meant = unknown_parameter(sc, st, a);
                if (meant < st->nparams)
                    suggested[meant] = true; /* `dtaa = x` for `data`: not also missing */
                look_up_value(sc, a->value);
                continue;
            }
        }
        if (given[idx]) {
            span at = a->name.text ? a->name.sp : a->value->sp;
            diag_given_twice(pg->diag, at, given[idx]->sp, NULL, "argument `%s` given twice", st->params[idx].name);
            look_up_value(sc, a->value);
            continue;
        }
        given[idx] = a;
        check_arg_value(sc, st, &st->params[idx], a->value, &bound[idx]);
    }
    const char **missing = arena_alloc(pg->arena, (st->nparams ? st->nparams : 1) * sizeof *missing);
    size_t nmissing = 0;
    for (size_t k = 0; k < st->nparams; k++) {
        if (given[k])
            continue;
        if (st->params[k].default_value) {
            bound[k].kind = ARG_DEFAULT;
            bound[k].value = st->params[k].default_value;
            continue;
        }
        if (st->params[k].decl->default_value || suggested[k])
            continue; /* its default was wrong, or a misspelling of it was given: reported already */
        missing[nmissing++] = st->params[k].name;
    }
    /* A call that lost arguments to a syntax error is not short of them. */
    if (nmissing && !sema_damaged(sc->s, call->sp)) {
        char list[1024];
        format_name_list(list, sizeof list, missing, nmissing);
        diagnostic *dg =
            diag_report(pg->diag, call->callee.sp, DIAG_E0104, "missing required parameter%s %s in call to `%s`",
                        nmissing == 1 ? "" : "s", list, st->name);
        diag_label(pg->diag, dg, "missing %s", list);
        const char **examples = arena_alloc(pg->arena, nmissing * sizeof *examples);
        for (size_t k = 0; k < nmissing; k++)
            examples[k] = arena_printf(pg->arena, "%s = ...", missing[k]);
        char example[1024];
        format_name_list(example, sizeof example, examples, nmissing);
        diag_help(pg->diag, dg, "add %s to the call", example);
        diag_note(pg->diag, dg, st->decl->name.sp, "`%s` is declared here", st->name);
        missing_fix(sc, dg, call, args->len, missing, nmissing, st);
    }
    return bound;
}

static const char *invocation_id(scope *sc, step_info *st)
{
    program *pg = sc->s->pg;
    size_t n = (size_t)(uintptr_t)symtab_get(&sc->step_counts, st->name);
    /* A step's first invocation is named after the step (reserved up front,
       so `train_2` the step keeps its name); later ones skip taken ids. */
    const char *id = st->name;
    if (++n > 1) {
        do
            id = arena_printf(pg->arena, "%s_%zu", st->name, n++);
        while (symtab_get(&sc->ids, id));
        n--;
    }
    symtab_put(&sc->step_counts, st->name, (void *)(uintptr_t)n);
    symtab_put(&sc->ids, id, (void *)1);
    return id;
}

static void add_dep(program *pg, invocation *inv, invocation *dep)
{
    for (size_t i = 0; i < inv->deps.len; i++)
        if (inv->deps.items[i] == dep)
            return;
    vec_push(pg->arena, &inv->deps, dep);
}

static void unknown_step(scope *sc, ast_call *call)
{
    program *pg = sc->s->pg;
    /* Lost to a syntax error, or declared in an import that failed to load. */
    if (sc->s->lost_names || sc->s->import_failed)
        return;
    diagnostic *dg = diag_report(pg->diag, call->callee.sp, DIAG_E0102, "no step named `%s`", call->callee.text);
    diag_label(pg->diag, dg, "unknown step");
    const char **names = arena_alloc(pg->arena, (pg->steps.len + 1) * sizeof *names);
    for (size_t i = 0; i < pg->steps.len; i++)
        names[i] = ((step_info *)pg->steps.items[i])->name;
    const char *close = suggest_closest_or_prefix(call->callee.text, names, pg->steps.len);
    for (size_t i = 0; i < pg->pipelines.len; i++) {
        pipeline_info *pl = pg->pipelines.items[i];
        if (strcmp(pl->name, call->callee.text) == 0) {
            diag_help(pg->diag, dg, "`%s` is a pipeline; a pipeline cannot invoke another one: invoke its steps "
                                    "here instead",
                      pl->name);
            diag_note(pg->diag, dg, pl->decl->name.sp, "pipeline `%s` is declared here", pl->name);
            return;
        }
    }
    if (decorator_lookup(call->callee.text)) {
        diag_help(pg->diag, dg, "`%s` is a decorator: write `@%s(...)` above a step", call->callee.text,
                  call->callee.text);
        return;
    }
    if (close) {
        step_info *meant = program_find_step(pg, close);
        meant->invoked = true; /* it was meant to be invoked: no W0405 for it */
        diag_help(pg->diag, dg, "did you mean `%s`?", close);
        diag_fix(pg->diag, dg, "%s", close);
        diag_note(pg->diag, dg, meant->decl->name.sp, "`%s` is declared here", close);
    } else {
        diag_help(pg->diag, dg, "declare it with `step %s(...) { source = \"...\" }` or import the file that "
                                "declares it",
                  call->callee.text);
    }
}

/* A statement whose line has a syntax error before the callee (`model
   train(...)`, `(a, b) == split(...)`, `(a, b)c = split(...)`): its targets
   are not what was written. */
static bool targets_lost(const sema *s, const ast_statement *stmt)
{
    span callee = stmt->call->callee.sp;
    const char *text = s->pg->sources->files[callee.file]->text;
    uint32_t line = callee.start;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    span before = {callee.file, line, callee.end};
    return sema_damaged(s, before);
}

static void check_statement(scope *sc, ast_statement *stmt)
{
    program *pg = sc->s->pg;
    ast_call *call = stmt->call;
    if (strcmp(call->callee.text, "run_with_accelerate") == 0) {
        accelerate_as_function(sc, call);
        poison_targets(sc, stmt);
        return;
    }
    if (call->groups.len > 1) {
        diagnostic *dg = diag_report(pg->diag, call->sp, DIAG_E0010, "the result of `%s(...)` cannot be called",
                                     call->callee.text);
        diag_label(pg->diag, dg, "chained call");
        diag_help(pg->diag, dg, "call the step once, with all its arguments: `%s(name = value, ...)`",
                  call->callee.text);
        for (size_t g = 1; g < call->groups.len; g++)
            check_orphan_args(sc, call->groups.items[g]);
    }
    step_info *st = program_find_step(pg, call->callee.text);
    if (!st) {
        unknown_step(sc, call);
        check_orphan_args(sc, call->groups.items[0]);
        poison_targets(sc, stmt);
        return;
    }
    st->invoked = true;
    invocation *inv = arena_alloc(pg->arena, sizeof *inv);
    inv->step = st;
    inv->stmt = stmt;
    inv->index = sc->pl->invocations.len;
    inv->id = invocation_id(sc, st);
    inv->options.step = &st->decorators;
    inv->options.pipeline = &sc->pl->decorators;
    inv->args = match_args(sc, st, call);
    for (size_t k = 0; k < st->nparams; k++)
        if (inv->args[k].kind == ARG_ARTIFACT)
            add_dep(pg, inv, inv->args[k].producer);
    inv->targets = arena_alloc(pg->arena, (st->noutputs ? st->noutputs : 1) * sizeof *inv->targets);
    vec_push(pg->arena, &sc->pl->invocations, inv);

    if (stmt->targets.len != st->noutputs && targets_lost(sc->s, stmt)) {
        poison_targets(sc, stmt); /* the syntax error said it */
        return;
    }
    /* No targets: the outputs are written to the store and nothing reads
       them here. Targets, when given, bind every output in order. */
    if (stmt->targets.len && stmt->targets.len != st->noutputs) {
        diagnostic *dg = diag_report(pg->diag, stmt->targets_sp, DIAG_E0203,
                                     "%zu target%s for step `%s`, which has %zu output%s", stmt->targets.len,
                                     stmt->targets.len == 1 ? "" : "s", st->name, st->noutputs,
                                     st->noutputs == 1 ? "" : "s");
        diag_label(pg->diag, dg, "expected %zu", st->noutputs);
        strbuf outs = STRBUF_INIT;
        for (size_t i = 0; i < st->noutputs; i++)
            sb_printf(&outs, "%s%s", i ? ", " : "", st->outputs[i].name);
        if (st->noutputs == 0)
            diag_help(pg->diag, dg, "`%s` produces nothing: call it without `... =`", st->name);
        else if (st->noutputs == 1)
            diag_help(pg->diag, dg, "bind its one output, `%s = %s(...)`, or call it without targets",
                      st->outputs[0].name, st->name);
        else
            diag_help(pg->diag, dg, "bind all its outputs in order, `(%s) = %s(...)`, with `_` for those you do "
                                    "not need",
                      sb_cstr(&outs), st->name);
        diag_note(pg->diag, dg, st->decl->name.sp, "`%s` is declared here", st->name);
        sb_free(&outs);
        poison_targets(sc, stmt);
        return;
    }
    for (size_t i = 0; i < stmt->targets.len; i++) {
        ast_name *t = stmt->targets.items[i];
        if (is_discard(t))
            continue; /* written to the store, bound to nothing */
        inv->targets[i] = t->text;
        /* An output of a value type was reported (E0208); its uses are not. */
        bool value_typed = sema_type_of(st->outputs[i].type_name) != TYPE_ARTIFACT;
        bind(sc, value_typed ? BIND_POISON : BIND_ARTIFACT, t, inv, i);
    }
}

static void check_pipeline(sema *s, ast_pipeline *decl)
{
    program *pg = s->pg;
    for (size_t i = 0; i < pg->pipelines.len; i++) {
        pipeline_info *prev = pg->pipelines.items[i];
        if (strcmp(prev->name, decl->name.text) == 0) {
            diagnostic *dg = diag_report(pg->diag, decl->name.sp, DIAG_E0101, "pipeline `%s` declared twice",
                                         decl->name.text);
            diag_label(pg->diag, dg, "second declaration");
            diag_note(pg->diag, dg, prev->decl->name.sp, "first declared here");
            diag_help(pg->diag, dg, "rename one of them; `--pipeline NAME` picks a pipeline by its name");
            return;
        }
    }
    pipeline_info *pl = arena_alloc(pg->arena, sizeof *pl);
    pl->name = decl->name.text;
    pl->decl = decl;
    vec_push(pg->arena, &pg->pipelines, pl);
    sema_check_params(s, &decl->params, &pl->params, &pl->nparams, true);
    decorators_check(pg->arena, pg->diag, &decl->decorators, true, &pl->decorators);

    scope sc = {0};
    sc.s = s;
    sc.pl = pl;
    for (size_t i = 0; i < pl->nparams; i++) {
        /* An artifact-typed parameter was reported (E0208); its uses are not. */
        binding_kind kind = pl->params[i].type == TYPE_ARTIFACT ? BIND_POISON : BIND_PARAM;
        binding *b = new_binding(&sc, kind, pl->params[i].name, pl->params[i].decl->name.sp);
        b->param = &pl->params[i];
        b->used = true; /* unused parameters are harmless */
    }
    for (size_t i = decl->statements.len; i-- > 0;) {
        ast_statement *stmt = decl->statements.items[i];
        for (size_t k = 0; k < stmt->targets.len; k++) {
            ast_name *t = stmt->targets.items[k];
            if (!is_discard(t))
                symtab_put(&sc.later, t->text, t);
        }
    }
    for (size_t i = 0; i < decl->statements.len; i++) {
        ast_statement *stmt = decl->statements.items[i];
        if (program_find_step(pg, stmt->call->callee.text))
            symtab_put(&sc.ids, stmt->call->callee.text, (void *)1);
    }
    for (size_t i = 0; i < decl->statements.len; i++)
        check_statement(&sc, decl->statements.items[i]);

    if (!s->lost_names) {
        for (size_t i = 0; i < sc.bindings.len; i++) {
            binding *b = sc.bindings.items[i];
            if (b->kind != BIND_ARTIFACT || b->used)
                continue;
            diagnostic *dg = diag_report(pg->diag, b->sp, DIAG_W0404, "output `%s` is bound but never used", b->name);
            diag_label(pg->diag, dg, "never used");
            if (b->producer->stmt->targets.len == 1)
                diag_help(pg->diag, dg, "pass `%s` to a later step; if nothing needs it, call `%s(...)` without "
                                        "`%s =` (the output is still written to the store)",
                          b->name, b->producer->step->name, b->name);
            else
                diag_help(pg->diag, dg, "pass `%s` to a later step; if nothing needs it, write `_` in its place "
                                        "(the output is still written to the store)",
                          b->name);
        }
    }
    bool pipeline_damaged = sema_decl_damaged(s, decl->file, decl), any_damaged = pipeline_damaged;
    for (size_t i = 0; i < pl->invocations.len; i++) {
        invocation *inv = pl->invocations.items[i];
        bool damaged = pipeline_damaged || sema_decl_damaged(s, inv->step->file, inv->step->decl);
        any_damaged = any_damaged || damaged;
        sema_check_effective(s, inv->step, &inv->options, damaged);
    }
    if (!any_damaged)
        sema_check_pipeline_rules(s, pl);
    symtab_free(&sc.names);
    symtab_free(&sc.later);
    symtab_free(&sc.ids);
    symtab_free(&sc.step_counts);
    symtab_free(&sc.used_early);
    symtab_free(&sc.reported);
}

void sema_check_pipelines(sema *s)
{
    program *pg = s->pg;
    for (size_t i = 0; i < pg->root->items.len; i++) {
        ast_item *it = pg->root->items.items[i];
        if (it->kind == ITEM_PIPELINE)
            check_pipeline(s, it->u.pipeline);
    }
    for (size_t i = 0; i < pg->steps.len; i++) {
        step_info *st = pg->steps.items[i];
        if (st->invoked)
            continue;
        effective_options own = {&st->decorators, NULL};
        sema_check_effective(s, st, &own, sema_decl_damaged(s, st->file, st->decl));
        if (st->file == pg->root->file && pg->pipelines.len > 0 && !s->lost_names) {
            diagnostic *dg = diag_report(pg->diag, st->decl->name.sp, DIAG_W0405, "step `%s` is never invoked",
                                         st->name);
            diag_label(pg->diag, dg, "declared but not used");
            diag_help(pg->diag, dg, "call it from a pipeline, or remove it");
        }
    }
}
