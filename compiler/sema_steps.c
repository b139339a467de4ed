/* Step declarations: names, parameters, outputs, body fields, sources and
   decorators. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "escape.h"
#include "sema.h"
#include "sema_util.h"
#include "strbuf.h"
#include "suggest.h"

static const char *const field_names[] = {"source", "entry", "description", "cache", "environment"};
enum { FIELD_SOURCE, FIELD_ENTRY, FIELD_DESCRIPTION, FIELD_CACHE, FIELD_ENVIRONMENT, FIELD_COUNT };

static bool is_c_identifier(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *c = s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return false;
    /* a keyword or main cannot name the entry function */
    return !esc_is_c_keyword(s) && strcmp(s, "main") != 0 && strncmp(s, "pipe_", 5) != 0;
}

static void field_type_error(sema *s, ast_field *f, const char *expected)
{
    if (f->value->poisoned)
        return;
    diagnostic *dg = diag_report(s->pg->diag, f->value->sp, DIAG_E0201, "field `%s` expects %s, found %s", f->name.text,
                                 expected, expr_kind_name(f->value->kind));
    diag_label(s->pg->diag, dg, "expected %s", expected);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void add_source(sema *s, step_info *st, ptr_vec *out, ast_expr *e)
{
    program *pg = s->pg;
    if (e->poisoned)
        return; /* not the path that was meant; already reported */
    const char *path = e->u.s.text;
    size_t n = strlen(path);
    bool is_c = n > 2 && strcmp(path + n - 2, ".c") == 0;
    bool is_cu = n > 3 && strcmp(path + n - 3, ".cu") == 0;
    if (!is_c && !is_cu) {
        diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0201, "source \"%s\" is not a `.c` or `.cu` file", path);
        diag_label(pg->diag, dg, "expected a .c or .cu path");
        diag_help(pg->diag, dg, "list the C and CUDA files that implement the step; headers are found through "
                                "the includes of those files");
        return;
    }
    for (const char *c = path; *c; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0201, "source path contains a control character");
            diag_label(pg->diag, dg, "not a usable file name");
            return;
        }
    }
    source_ref *ref = arena_alloc(pg->arena, sizeof *ref);
    ref->path = path;
    ref->resolved = sema_join_path(pg->arena, st->dir, path);
    ref->is_cuda = is_cu;
    ref->sp = e->sp;
    if (!file_exists(ref->resolved)) {
        diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0116, "source file \"%s\" does not exist", path);
        diag_label(pg->diag, dg, "no such file");
        if (strcmp(ref->resolved, path) != 0)
            diag_help(pg->diag, dg, "source paths are relative to the .pipe file; this one resolves to %s",
                      ref->resolved);
        else
            diag_help(pg->diag, dg, "source paths are relative to the .pipe file");
    }
    for (size_t i = 0; i < out->len; i++) {
        source_ref *prev = out->items[i];
        if (strcmp(prev->resolved, ref->resolved) == 0) {
            diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0105, "source \"%s\" listed twice", path);
            diag_label(pg->diag, dg, "second occurrence");
            diag_note(pg->diag, dg, prev->sp, "first listed here");
            diag_help(pg->diag, dg, "remove one of them");
            return;
        }
    }
    vec_push(pg->arena, out, ref);
}

static void check_sources(sema *s, step_info *st, ast_field *f)
{
    ptr_vec refs = {0};
    ast_expr *v = f->value;
    if (v->kind == EXPR_STRING) {
        add_source(s, st, &refs, v);
    } else if (v->kind == EXPR_LIST) {
        for (size_t i = 0; i < v->u.items.len; i++) {
            ast_expr *item = v->u.items.items[i];
            if (item->poisoned)
                continue;
            if (item->kind != EXPR_STRING) {
                diagnostic *dg = diag_report(s->pg->diag, item->sp, DIAG_E0201,
                                             "`source` entries must be strings, found %s", expr_kind_name(item->kind));
                diag_label(s->pg->diag, dg, "expected a path string");
                continue;
            }
            add_source(s, st, &refs, item);
        }
    } else {
        field_type_error(s, f, "a path string or a list of path strings");
        return;
    }
    st->sources = arena_alloc(s->pg->arena, (refs.len ? refs.len : 1) * sizeof *st->sources);
    for (size_t i = 0; i < refs.len; i++)
        st->sources[i] = *(source_ref *)refs.items[i];
    st->nsources = refs.len;
}

static void check_environment(sema *s, ast_field *f)
{
    program *pg = s->pg;
    for (size_t i = 0; i < f->value->u.items.len; i++) {
        ast_map_entry *e = f->value->u.items.items[i];
        if (!esc_env_name_ok(e->key.text)) {
            diagnostic *dg = diag_report(pg->diag, e->key.sp, DIAG_E0201,
                                         "\"%s\" is not a valid environment variable name", e->key.text);
            diag_label(pg->diag, dg, "not a variable name");
            diag_help(pg->diag, dg, "names use letters, digits and `_` and do not start with a digit");
        }
        if (e->value->kind != EXPR_STRING && !e->value->poisoned) {
            diagnostic *dg =
                diag_report(pg->diag, e->value->sp, DIAG_E0201, "environment values must be strings, found %s",
                            expr_kind_name(e->value->kind));
            diag_label(pg->diag, dg, "expected a string");
        }
        for (size_t k = 0; k < i; k++) {
            ast_map_entry *prev = f->value->u.items.items[k];
            if (strcmp(prev->key.text, e->key.text) == 0) {
                diagnostic *dg = diag_report(pg->diag, e->key.sp, DIAG_E0105, "key \"%s\" given twice", e->key.text);
                diag_label(pg->diag, dg, "second occurrence");
                diag_note(pg->diag, dg, prev->key.sp, "first given here");
                diag_help(pg->diag, dg, "remove one of them");
            }
        }
    }
}

/* Names people write for a field, from other tools. */
static const char *field_alias(const char *name)
{
    static const char *const aliases[][2] = {
        {"sources", "source"}, {"src", "source"}, {"srcs", "source"}, {"files", "source"},
        {"entrypoint", "entry"}, {"entry_point", "entry"}, {"function", "entry"}, {"main", "entry"},
        {"desc", "description"}, {"doc", "description"}, {"env", "environment"}, {"envs", "environment"},
        {"environ", "environment"}, {"caching", "cache"}, {"enable_cache", "cache"},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i][0], name) == 0)
            return aliases[i][1];
    return NULL;
}

/* Returns the field it suggests, if any. */
static const char *unknown_field(sema *s, ast_field *f)
{
    program *pg = s->pg;
    const char *meant = field_alias(f->name.text);
    if (!meant)
        meant = suggest_closest_or_prefix(f->name.text, field_names, FIELD_COUNT);
    /* A name on a line the parser stumbled on (`d escription = ...`) was
       reported as a syntax error already. */
    const char *text = pg->sources->files[f->name.sp.file]->text;
    uint32_t line = f->name.sp.start;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    span before = {f->name.sp.file, line, f->name.sp.end};
    if (sema_damaged(s, before))
        return meant;
    diagnostic *dg = diag_report(pg->diag, f->name.sp, DIAG_E0110, "steps have no field `%s`", f->name.text);
    diag_label(pg->diag, dg, "unknown field");
    char list[256];
    format_name_list(list, sizeof list, field_names, FIELD_COUNT);
    if (meant) {
        diag_help(pg->diag, dg, "did you mean `%s`? the fields are %s", meant, list);
        return meant;
    }
    /* An option of a decorator written as a field: say which decorator. */
    for (int d = 0; d < DEC_COUNT; d++) {
        const decorator_schema *ds = decorator_by_id((decorator_id)d);
        if (option_index(ds, f->name.text) >= 0) {
            diag_help(pg->diag, dg, "`%s` is an option of @%s: write `@%s(%s = ...)` above the step", f->name.text,
                      ds->name, ds->name, f->name.text);
            return NULL;
        }
    }
    diag_help(pg->diag, dg, "the fields are %s; options such as resources go in decorators (`@resources(...)`)",
              list);
    return NULL;
}

static void check_fields(sema *s, step_info *st)
{
    program *pg = s->pg;
    ast_field *seen[FIELD_COUNT] = {0};
    bool source_misspelled = false; /* `souce = ...`, reported as E0110 */
    for (size_t i = 0; i < st->decl->fields.len; i++) {
        ast_field *f = st->decl->fields.items[i];
        int idx = -1;
        for (int k = 0; k < FIELD_COUNT; k++)
            if (strcmp(field_names[k], f->name.text) == 0)
                idx = k;
        if (idx < 0) {
            const char *meant = unknown_field(s, f);
            if (meant && strcmp(meant, "source") == 0)
                source_misspelled = true;
            continue;
        }
        if (seen[idx]) {
            diagnostic *dg = diag_report(pg->diag, f->name.sp, DIAG_E0105, "field `%s` given twice", f->name.text);
            diag_label(pg->diag, dg, "second occurrence");
            diag_note(pg->diag, dg, seen[idx]->name.sp, "first given here");
            diag_help(pg->diag, dg, "remove one of them");
            continue;
        }
        seen[idx] = f;
        ast_expr *v = f->value;
        if (v->poisoned)
            continue; /* a lexical error in the value, reported already */
        switch (idx) {
        case FIELD_SOURCE: check_sources(s, st, f); break;
        case FIELD_ENTRY:
            if (v->kind != EXPR_STRING) {
                field_type_error(s, f, "a C function name string");
            } else if (!is_c_identifier(v->u.s.text)) {
                diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201,
                                             "entry \"%s\" is not a usable C function name", v->u.s.text);
                diag_label(pg->diag, dg, "not a C identifier");
                diag_help(pg->diag, dg, "use letters, digits and `_`, not a C keyword, `main` or a `pipe_` name");
            } else {
                st->entry = v->u.s.text;
            }
            break;
        case FIELD_DESCRIPTION:
            if (v->kind != EXPR_STRING)
                field_type_error(s, f, "a string");
            else
                st->description = v->u.s.text;
            break;
        case FIELD_CACHE:
            if (v->kind != EXPR_BOOL)
                field_type_error(s, f, "`true` or `false`");
            else
                st->cache = v->u.b;
            break;
        case FIELD_ENVIRONMENT:
            if (v->kind != EXPR_MAP) {
                field_type_error(s, f, "a map of strings");
            } else {
                check_environment(s, f);
                st->environment = v;
            }
            break;
        }
    }
    if (!seen[FIELD_SOURCE]) {
        /* A field lost to a syntax error in the body may have been the source. */
        if (!source_misspelled && !sema_damaged(s, st->decl->sp)) {
            diagnostic *dg =
                diag_report(pg->diag, st->decl->keyword, DIAG_E0113, "step `%s` has no `source`", st->name);
            diag_label(pg->diag, dg, "this step");
            diag_help(pg->diag, dg, "add `source = \"src/%s.c\"` (a .c or .cu file, relative to this .pipe file)",
                      st->name);
        }
    } else if (st->nsources == 0 && seen[FIELD_SOURCE]->value->kind == EXPR_LIST &&
               seen[FIELD_SOURCE]->value->u.items.len == 0 && !sema_damaged(s, seen[FIELD_SOURCE]->value->sp)) {
        diagnostic *dg = diag_report(pg->diag, st->decl->keyword, DIAG_E0113, "step `%s` has an empty `source` list",
                                     st->name);
        diag_label(pg->diag, dg, "this step");
        diag_help(pg->diag, dg, "list at least one .c or .cu file: `source = [\"src/%s.c\"]`", st->name);
        diag_note(pg->diag, dg, seen[FIELD_SOURCE]->value->sp, "the list is here");
    }
    if (!st->entry) {
        st->entry = st->name;
        /* The default entry is the step's name: it must be usable in C too. */
        if (!seen[FIELD_ENTRY] && !is_c_identifier(st->name)) {
            diagnostic *dg = diag_report(pg->diag, st->decl->name.sp, DIAG_E0201,
                                         "step `%s` needs an `entry`: its name is not a usable C function name",
                                         st->name);
            diag_label(pg->diag, dg, "the default entry function");
            diag_help(pg->diag, dg, "add `entry = \"%s_step\"` to the step, or rename it; the entry cannot be a C "
                                    "keyword, `main` or a `pipe_` name",
                      st->name);
        }
    }
}

static void check_outputs(sema *s, step_info *st)
{
    program *pg = s->pg;
    ptr_vec *outs = &st->decl->outputs;
    st->outputs = arena_alloc(pg->arena, (outs->len ? outs->len : 1) * sizeof *st->outputs);
    for (size_t i = 0; i < outs->len; i++) {
        ast_output *o = outs->items[i];
        bool dup = false;
        for (size_t k = 0; k < st->noutputs && !dup; k++) {
            if (strcmp(st->outputs[k].name, o->name.text) == 0) {
                diagnostic *dg =
                    diag_report(pg->diag, o->name.sp, DIAG_E0105, "output `%s` declared twice", o->name.text);
                diag_label(pg->diag, dg, "second declaration");
                diag_note(pg->diag, dg, st->outputs[k].decl->name.sp, "first declared here");
                diag_help(pg->diag, dg, "outputs are bound in order by name: give each its own name");
                dup = true;
            }
        }
        if (dup)
            continue;
        if (sema_type_of(o->type.text) != TYPE_ARTIFACT) {
            diagnostic *dg = diag_report(pg->diag, o->name.sp, DIAG_E0208, "output `%s` has value type `%s`",
                                         o->name.text, o->type.text);
            diag_label(pg->diag, dg, "outputs are artifacts");
            diag_help(pg->diag, dg, "give it an artifact type, e.g. `%s: metrics`; a step hands results to later "
                                    "steps as files",
                      o->name.text);
        }
        output_info *oi = &st->outputs[st->noutputs++];
        oi->name = o->name.text;
        oi->type_name = o->type.text;
        oi->decl = o;
    }
}

static void declare_step(sema *s, ast_step *decl)
{
    program *pg = s->pg;
    step_info *prev = program_find_step(pg, decl->name.text);
    if (prev) {
        diagnostic *dg = diag_report(pg->diag, decl->name.sp, DIAG_E0101, "step `%s` declared twice", decl->name.text);
        diag_label(pg->diag, dg, "second declaration");
        diag_note(pg->diag, dg, prev->decl->name.sp, "first declared here");
        diag_help(pg->diag, dg, "rename one of them; step names are unique across a file and its imports");
        return;
    }
    step_info *st = arena_alloc(pg->arena, sizeof *st);
    st->name = decl->name.text;
    st->decl = decl;
    st->file = decl->file;
    st->dir = sema_dirname(pg->arena, pg->sources->files[decl->file]->path);
    st->cache = true;
    vec_push(pg->arena, &pg->steps, st);
    symtab_put(&pg->step_index, st->name, st);

    sema_check_params(s, &decl->params, &st->params, &st->nparams, false);
    check_outputs(s, st);
    check_fields(s, st);
    decorators_check(pg->arena, pg->diag, &decl->decorators, false, &st->decorators);
    st->accelerated = st->decorators.by_id[DEC_ACCELERATE] != NULL;
    sema_check_accelerate(s, st);
}

/* Declares the steps of a file in reading order, an import standing for the
   steps of the file it brings in (so "declared twice" points at the later
   one as a reader meets them). */
static void declare_file(sema *s, ast_file *file, ptr_vec *done)
{
    program *pg = s->pg;
    for (size_t i = 0; i < done->len; i++)
        if (done->items[i] == file)
            return;
    vec_push(pg->arena, done, file);
    for (size_t i = 0; i < file->items.len; i++) {
        ast_item *it = file->items.items[i];
        if (it->kind == ITEM_STEP) {
            declare_step(s, it->u.step);
            continue;
        }
        if (it->kind != ITEM_IMPORT)
            continue;
        for (size_t k = 0; k < s->import_links.len; k++) {
            import_link *link = s->import_links.items[k];
            if (link->import != it->u.import)
                continue;
            for (size_t f = 0; f < pg->files.len; f++) {
                ast_file *imported = pg->files.items[f];
                if (imported->file == link->file)
                    declare_file(s, imported, done);
            }
        }
    }
}

void sema_declare_steps(sema *s)
{
    program *pg = s->pg;
    ptr_vec done = {0};
    if (pg->root)
        declare_file(s, pg->root, &done);
    /* Files reached only through an import cycle (reported) are declared too. */
    for (size_t f = 0; f < pg->files.len; f++)
        declare_file(s, pg->files.items[f], &done);
}
