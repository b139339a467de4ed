/* The decorators of a step or a pipeline checked against the settings table
   (pipe/settings.def): where each may appear, its options by name or
   position, each given once; the values themselves are checked by kind in
   option_values.c. Then the options in force for an invocation: a step's
   own over its pipeline's over the table's default, a map's (ENV_MAP,
   STRING_MAP) key by key. */
#include "decorators.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "option_values.h"
#include "pipe/base.h"
#include "util/strbuf.h"
#include "util/suggest.h"

const decorator_schema *decorator_lookup(const char *name) { return pipe_decorator_named(name); }

const decorator_schema *decorator_by_id(decorator_id id) { return pipe_decorator_get((pipe_decorator)id); }

int option_index(const decorator_schema *s, const char *name)
{
    for (int i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].name, name) == 0)
            return i;
    return -1;
}

static void list_names(strbuf *sb, const char *const *names, size_t n)
{
    char buf[1024];
    format_name_list(buf, sizeof buf, names, n);
    sb_puts(sb, buf);
}

static void unknown_option(diag_engine *d, const decorator_schema *s, ast_arg *arg)
{
    diagnostic *dg = diag_report(d, arg->name.sp, DIAG_E0109, "@%s has no option `%s`", s->name, arg->name.text);
    diag_label(d, dg, "unknown option");
    const char *names[PIPE_MAX_DECORATOR_OPTIONS + 1];
    for (int i = 0; i < s->noptions; i++)
        names[i] = s->options[i].name;
    const char *close = suggest_closest_or_prefix(arg->name.text, names, (size_t)s->noptions);
    strbuf sb = STRBUF_INIT;
    list_names(&sb, names, (size_t)s->noptions);
    if (s->noptions == 0)
        diag_help(d, dg, "@%s takes no options: write `@%s`", s->name, s->name);
    else if (close) {
        diag_help(d, dg, "did you mean `%s`? the options of @%s are %s", close, s->name, sb_cstr(&sb));
        diag_fix(d, dg, "%s", close);
    }
    else
        diag_help(d, dg, "the options of @%s are %s", s->name, sb_cstr(&sb));
    sb_free(&sb);
}

static void check_one(arena *a, diag_engine *d, ast_decorator *dec, const decorator_schema *s, decorator_inst *inst)
{
    bool seen_keyword = false, reported_positional = false;
    for (size_t i = 0; i < dec->args.len; i++) {
        ast_arg *arg = dec->args.items[i];
        int idx;
        span name_sp;
        if (!arg->name.text) {
            if (!s->positional) {
                inst->uncertain = true;
                if (!reported_positional) {
                    diagnostic *dg = diag_report(d, arg->value->sp, DIAG_E0117, "@%s takes no positional arguments",
                                                 s->name);
                    diag_label(d, dg, "positional argument");
                    const source_file *f = d->sources->files[arg->value->sp.file];
                    uint32_t len = arg->value->sp.end - arg->value->sp.start;
                    if (s->noptions > 0 && len <= 40)
                        diag_help(d, dg, "name the option, e.g. `@%s(%s = %.*s)`", s->name, s->options[0].name,
                                  (int)len, f->text + arg->value->sp.start);
                    else if (s->noptions > 0)
                        diag_help(d, dg, "name the option, e.g. `@%s(%s = ...)`", s->name, s->options[0].name);
                    else
                        diag_help(d, dg, "@%s takes no options: write `@%s`", s->name, s->name);
                    reported_positional = true;
                }
                continue;
            }
            if (seen_keyword) {
                diagnostic *dg =
                    diag_report(d, arg->value->sp, DIAG_E0118, "positional argument after a keyword argument");
                diag_label(d, dg, "positional argument");
                diag_help(d, dg, "put the positional value first, or name it");
                continue;
            }
            idx = 0;
            name_sp = arg->value->sp;
        } else {
            seen_keyword = true;
            idx = option_index(s, arg->name.text);
            if (idx < 0) {
                unknown_option(d, s, arg);
                inst->uncertain = true;
                continue;
            }
            name_sp = arg->name.sp;
        }
        opt_value *ov = &inst->opts[idx];
        if (ov->set) {
            diag_given_twice(d, name_sp, ov->name_sp, NULL, "option `%s` of @%s given twice",
                             s->options[idx].name, s->name);
            continue;
        }
        ov->set = true;
        ov->name_sp = name_sp;
        ov->arg_sp = arg->sp;
        option_value_parse(a, d, s, &s->options[idx], arg->value, ov);
    }
    if ((decorator_id)s->id == DEC_TIMEOUT && !inst->opts[TIMEOUT_LIMIT].set && !reported_positional && !inst->uncertain) {
        diagnostic *dg = diag_report(d, dec->name.sp, DIAG_E0104, "@timeout needs a duration");
        diag_label(d, dg, "no limit given");
        diag_help(d, dg, "write `@timeout(\"2h\")` or `@timeout(limit = \"30m\")`");
    }
}

/* A lexical or syntax error was reported inside the decorator. */
static bool decorator_damaged(const diag_engine *d, const ast_decorator *dec)
{
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        if (dg->sp.file != dec->sp.file || dg->sp.start < dec->sp.start || dg->sp.start >= dec->sp.end)
            continue;
        if (diag_code_is_syntax(dg->code))
            return true;
    }
    return false;
}

/* A syntax error earlier on the line of sp (or at it). */
static bool syntax_error_before(const diag_engine *d, span sp)
{
    const char *text = d->sources->files[sp.file]->text;
    uint32_t line = sp.start;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        if (dg->sp.file == sp.file && dg->sp.start >= line && dg->sp.start <= sp.start &&
            dg->code == DIAG_E0010)
            return true;
    }
    return false;
}

void decorators_check(arena *a, diag_engine *d, const ptr_vec *decorators, bool on_pipeline, decorator_set *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < decorators->len; i++) {
        ast_decorator *dec = decorators->items[i];
        const decorator_schema *s = decorator_lookup(dec->name.text);
        if (!s) {
            const char *names[DEC_COUNT];
            char at_names[DEC_COUNT][32];
            for (int k = 0; k < DEC_COUNT; k++) {
                names[k] = decorator_by_id((decorator_id)k)->name;
                snprintf(at_names[k], sizeof at_names[k], "@%s", names[k]);
            }
            if (syntax_error_before(d, dec->name.sp))
                continue; /* `s@kypilot`: the parser stumbled here already */
            diagnostic *dg = diag_report(d, dec->name.sp, DIAG_E0108, "unknown decorator `@%s`", dec->name.text);
            diag_label(d, dg, "not a decorator");
            const char *close = suggest_closest_or_prefix(dec->name.text, names, DEC_COUNT);
            if (close) {
                diag_help(d, dg, "did you mean `@%s`?", close);
                diag_fix(d, dg, "%s", close);
                out->misspelled[decorator_lookup(close)->id] = true;
            } else {
                const char *list[DEC_COUNT];
                for (int k = 0; k < DEC_COUNT; k++)
                    list[k] = at_names[k];
                strbuf sb = STRBUF_INIT;
                list_names(&sb, list, DEC_COUNT);
                diag_help(d, dg, "the decorators are %s", sb_cstr(&sb));
                sb_free(&sb);
            }
            continue;
        }
        if (on_pipeline ? !s->on_pipeline : !s->on_step) {
            diagnostic *dg = diag_report(d, dec->name.sp, DIAG_E0115, "@%s is not allowed on a %s", s->name,
                                         on_pipeline ? "pipeline" : "step");
            diag_label(d, dg, "not allowed here");
            if ((decorator_id)s->id == DEC_ACCELERATE)
                diag_help(d, dg, "put @run_with_accelerate on the step that trains, not on the pipeline");
            continue;
        }
        if (out->by_id[s->id]) {
            diag_code code = (decorator_id)s->id == DEC_ACCELERATE ? DIAG_E0302 : DIAG_E0105;
            diagnostic *dg = (decorator_id)s->id == DEC_ACCELERATE
                                 ? diag_report(d, dec->name.sp, code, "step wrapped twice with @run_with_accelerate")
                                 : diag_report(d, dec->name.sp, code, "decorator @%s given twice", s->name);
            diag_label(d, dg, "second @%s", s->name);
            diag_note(d, dg, out->by_id[s->id]->decl->name.sp, "first @%s here", s->name);
            diag_help(d, dg, (decorator_id)s->id == DEC_ACCELERATE ? "remove one of them: a step is launched once, with one set of "
                                                       "options"
                                                     : "merge the options into one @%s", s->name);
            continue;
        }
        decorator_inst *inst = arena_alloc(a, sizeof *inst);
        inst->schema = s;
        inst->decl = dec;
        inst->on_pipeline = on_pipeline;
        /* Options lost to a syntax error inside the parentheses. */
        inst->uncertain = decorator_damaged(d, dec);
        check_one(a, d, dec, s, inst);
        out->by_id[s->id] = inst;
    }
}

/* ---- defaults and merging ---- */

opt_value option_default(decorator_id dec, int opt) { return option_value_initial(&decorator_by_id(dec)->options[opt]); }

const decorator_inst *effective_decorator(const effective_options *e, decorator_id dec)
{
    if (e->step && e->step->by_id[dec])
        return e->step->by_id[dec];
    if (e->pipeline && e->pipeline->by_id[dec])
        return e->pipeline->by_id[dec];
    return NULL;
}

static const opt_value *explicit_value(const decorator_set *set, decorator_id dec, int opt)
{
    if (!set || !set->by_id[dec])
        return NULL;
    const opt_value *v = &set->by_id[dec]->opts[opt];
    return v->set && v->valid ? v : NULL;
}

bool option_uncertain(const decorator_inst *inst, int opt)
{
    if (!inst)
        return false;
    const opt_value *v = &inst->opts[opt];
    return v->set ? !v->valid : inst->uncertain;
}

bool effective_uncertain(const effective_options *e, decorator_id dec, int opt)
{
    const decorator_set *sets[2] = {e->step, e->pipeline};
    for (int i = 0; i < 2; i++) {
        const decorator_inst *inst = sets[i] ? sets[i]->by_id[dec] : NULL;
        if (!inst && sets[i] && sets[i]->misspelled[dec])
            return true; /* `@docekr(...)` may have set it */
        if (!inst)
            continue;
        if (option_uncertain(inst, opt))
            return true;
        if (inst->opts[opt].set)
            return false; /* this one is in force */
    }
    return false;
}

opt_value effective_opt(const effective_options *e, decorator_id dec, int opt)
{
    const opt_value *v = explicit_value(e->step, dec, opt);
    if (!v)
        v = explicit_value(e->pipeline, dec, opt);
    return v ? *v : option_default(dec, opt);
}

/* A map's entries when it is the value in force on that side. */
static const ptr_vec *map_entries(const opt_value *v)
{
    return v && v->expr && v->expr->kind == EXPR_MAP ? &v->expr->u.items : NULL;
}

static const ast_map_entry *map_find(const ptr_vec *entries, const char *key)
{
    for (size_t i = 0; entries && i < entries->len; i++) {
        const ast_map_entry *e = entries->items[i];
        if (strcmp(e->key.text, key) == 0)
            return e;
    }
    return NULL;
}

bool option_merges_by_key(decorator_id dec, int opt) { return pipe_kind_is_map(decorator_by_id(dec)->options[opt].kind); }

const ast_map_entry **effective_map(arena *a, const effective_options *e, decorator_id dec, int opt, size_t *n)
{
    const ptr_vec *own = map_entries(explicit_value(e->step, dec, opt));
    const ptr_vec *inherited = map_entries(explicit_value(e->pipeline, dec, opt));
    size_t cap = (own ? own->len : 0) + (inherited ? inherited->len : 0);
    *n = 0;
    if (cap == 0)
        return NULL;
    const ast_map_entry **out = arena_alloc(a, cap * sizeof *out);
    /* The pipeline's keys in its order, each with the step's value where
       the step gives one; then the step's other keys in the step's order. */
    for (size_t i = 0; inherited && i < inherited->len; i++) {
        const ast_map_entry *base = inherited->items[i];
        const ast_map_entry *over = map_find(own, base->key.text);
        out[(*n)++] = over ? over : base;
    }
    for (size_t i = 0; own && i < own->len; i++) {
        const ast_map_entry *mine = own->items[i];
        if (!map_find(inherited, mine->key.text))
            out[(*n)++] = mine;
    }
    return out;
}
