/* The checker's driver: runs the passes in order and answers look-ups. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema.h"
#include "strbuf.h"
#include "suggest.h"

const char *value_type_name(value_type t)
{
    switch (t) {
    case TYPE_INT: return "int";
    case TYPE_FLOAT: return "float";
    case TYPE_BOOL: return "bool";
    case TYPE_STRING: return "string";
    case TYPE_ARTIFACT: return "artifact";
    }
    return "?";
}

value_type sema_type_of(const char *name)
{
    if (strcmp(name, "int") == 0)
        return TYPE_INT;
    if (strcmp(name, "float") == 0)
        return TYPE_FLOAT;
    if (strcmp(name, "bool") == 0)
        return TYPE_BOOL;
    if (strcmp(name, "string") == 0)
        return TYPE_STRING;
    return TYPE_ARTIFACT;
}

bool sema_value_matches(value_type t, const ast_expr *v)
{
    switch (t) {
    case TYPE_INT: return v->kind == EXPR_INT;
    case TYPE_FLOAT: return v->kind == EXPR_INT || v->kind == EXPR_FLOAT;
    case TYPE_BOOL: return v->kind == EXPR_BOOL;
    case TYPE_STRING: return v->kind == EXPR_STRING;
    case TYPE_ARTIFACT: return false;
    }
    return false;
}

void sema_check_params(sema *s, ptr_vec *params, param_info **out, size_t *n, bool pipeline)
{
    program *pg = s->pg;
    param_info *infos = arena_alloc(pg->arena, (params->len ? params->len : 1) * sizeof *infos);
    size_t count = 0;
    for (size_t i = 0; i < params->len; i++) {
        ast_param *p = params->items[i];
        bool dup = false;
        for (size_t k = 0; k < count && !dup; k++) {
            if (strcmp(infos[k].name, p->name.text) == 0) {
                diagnostic *dg = diag_report(pg->diag, p->name.sp, DIAG_E0105, "parameter `%s` declared twice",
                                             p->name.text);
                diag_label(pg->diag, dg, "second declaration");
                diag_note(pg->diag, dg, infos[k].decl->name.sp, "first declared here");
                diag_help(pg->diag, dg, "rename or remove one of them");
                dup = true;
            }
        }
        if (dup)
            continue;
        param_info *pi = &infos[count++];
        pi->name = p->name.text;
        pi->type_name = p->type.text;
        pi->type = sema_type_of(p->type.text);
        pi->decl = p;
        pi->default_value = p->default_value;
        if (pi->type == TYPE_ARTIFACT && pipeline) {
            diagnostic *dg = diag_report(pg->diag, p->sp, DIAG_E0208,
                                         "pipeline parameter `%s` has artifact type `%s`", p->name.text,
                                         p->type.text);
            diag_label(pg->diag, dg, "pipeline parameters are values");
            const char *typo = sema_value_type_typo(p->type.text);
            if (typo)
                diag_help(pg->diag, dg, "did you mean `%s: %s`? pipeline parameters are `int`, `float`, `bool` or "
                                        "`string`",
                          p->name.text, typo);
            else
                diag_help(pg->diag, dg, "pipeline parameters are `int`, `float`, `bool` or `string`; artifacts are "
                                        "produced by steps (pass a path as a `string` and load it in a step)");
            pi->reported = true;
            pi->default_value = NULL;
            continue;
        }
        if (pi->type == TYPE_ARTIFACT && p->default_value) {
            diagnostic *dg = diag_report(pg->diag, p->sp, DIAG_E0208,
                                         "artifact parameter `%s` cannot have a default", p->name.text);
            diag_label(pg->diag, dg, "an artifact comes from another step");
            const char *typo = sema_value_type_typo(p->type.text);
            if (typo)
                diag_help(pg->diag, dg, "did you mean `%s: %s`? `%s` is not a value type, so it names an artifact",
                          p->name.text, typo, p->type.text);
            else
                diag_help(pg->diag, dg, "remove `= ...`: pass the artifact in the pipeline, `%s = ...`",
                          p->name.text);
            pi->default_value = NULL;
            pi->reported = true;
            continue;
        }
        if (p->default_value && p->default_value->poisoned) {
            pi->default_value = NULL; /* already reported; not required either (see match_args) */
            continue;
        }
        if (p->default_value && !sema_value_matches(pi->type, p->default_value)) {
            diagnostic *dg = diag_report(pg->diag, p->default_value->sp, DIAG_E0201,
                                         "default of `%s` must be %s `%s`, found %s", p->name.text,
                                         pi->type == TYPE_INT ? "an" : "a", p->type.text,
                                         expr_kind_name(p->default_value->kind));
            diag_label(pg->diag, dg, "expected `%s`", p->type.text);
            pi->default_value = NULL;
        }
    }
    *out = infos;
    *n = count;
}


bool sema_damaged(const sema *s, span sp)
{
    for (size_t f = 0; f < s->pg->files.len; f++) {
        const ast_file *af = s->pg->files.items[f];
        if (af->file != sp.file)
            continue;
        for (size_t i = 0; i < af->syntax_error_spans.len; i++) {
            const span *e = af->syntax_error_spans.items[i];
            if (e->start >= sp.start && e->start < sp.end)
                return true;
        }
    }
    const diag_engine *d = s->pg->diag;
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        if (dg->sp.file != sp.file || dg->sp.start < sp.start || dg->sp.start >= sp.end)
            continue;
        if (diag_code_is_syntax(dg->code))
            return true;
    }
    return false;
}

static uint32_t item_end(const ast_item *it)
{
    switch (it->kind) {
    case ITEM_IMPORT: return it->u.import->path.sp.end;
    case ITEM_STEP: return it->u.step->sp.end;
    case ITEM_PIPELINE: return it->u.pipeline->sp.end;
    }
    return 0;
}

static int compare_offsets(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* One pass per file: the offsets of its errors, sorted, against the
   regions before each declaration's keyword. */
static void find_damaged_decls(sema *s)
{
    program *pg = s->pg;
    const diag_engine *d = pg->diag;
    for (size_t f = 0; f < pg->files.len; f++) {
        const ast_file *af = pg->files.items[f];
        size_t n = af->syntax_error_spans.len;
        for (size_t i = 0; i < d->diags.len; i++) {
            const diagnostic *dg = d->diags.items[i];
            n += dg->sp.file == af->file &&
                 (diag_code_is_syntax(dg->code));
        }
        if (n == 0)
            continue;
        uint32_t *at = xmalloc(n * sizeof *at);
        size_t k = 0;
        for (size_t i = 0; i < af->syntax_error_spans.len; i++)
            at[k++] = ((const span *)af->syntax_error_spans.items[i])->start;
        for (size_t i = 0; i < d->diags.len; i++) {
            const diagnostic *dg = d->diags.items[i];
            if (dg->sp.file == af->file && (diag_code_is_syntax(dg->code)))
                at[k++] = dg->sp.start;
        }
        qsort(at, n, sizeof *at, compare_offsets);
        uint32_t start = 0;
        size_t e = 0;
        for (size_t i = 0; i < af->items.len; i++) {
            const ast_item *it = af->items.items[i];
            const void *node = it->kind == ITEM_STEP ? (const void *)it->u.step
                               : it->kind == ITEM_PIPELINE ? (const void *)it->u.pipeline
                                                           : (const void *)it->u.import;
            /* The decorators: from the item before to the keyword. */
            uint32_t keyword = it->kind == ITEM_STEP ? it->u.step->keyword.start
                               : it->kind == ITEM_PIPELINE ? it->u.pipeline->keyword.start
                                                           : it->u.import->keyword.start;
            while (e < n && at[e] < start)
                e++;
            if (e < n && at[e] < keyword)
                vec_push(pg->arena, &s->damaged_decls, (void *)node);
            start = item_end(it);
        }
        free(at);
    }
}

static int compare_pointers(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

bool sema_decl_damaged(sema *s, uint32_t file, const void *decl)
{
    (void)file;
    if (!s->damage_known) {
        find_damaged_decls(s);
        if (s->damaged_decls.len)
            qsort(s->damaged_decls.items, s->damaged_decls.len, sizeof(void *), compare_pointers);
        s->damage_known = true;
    }
    return s->damaged_decls.len &&
           bsearch(&decl, s->damaged_decls.items, s->damaged_decls.len, sizeof(void *), compare_pointers) != NULL;
}

const char *sema_value_type_typo(const char *type_name)
{
    static const char *const value_types[] = {"int", "float", "bool", "string"};
    if (sema_type_of(type_name) != TYPE_ARTIFACT)
        return NULL;
    return suggest_closest(type_name, value_types, 4);
}

const char *sema_text(const sema *s, span sp)
{
    const source_file *f = s->pg->sources->files[sp.file];
    uint32_t end = sp.end > f->len ? (uint32_t)f->len : sp.end;
    uint32_t start = sp.start > end ? end : sp.start;
    return arena_strndup(s->pg->arena, f->text + start, end - start);
}

step_info *program_find_step(const program *pg, const char *name) { return symtab_get(&pg->step_index, name); }

void program_free(program *pg) { symtab_free(&pg->step_index); }

static void run_passes(program *pg, uint32_t root, const check_options *opts)
{
    static const check_options no_opts = {0};
    sema s = {0};
    s.pg = pg;
    s.opts = opts ? opts : &no_opts;
    sema_load_imports(&s, root);
    sema_declare_steps(&s);
    sema_check_pipelines(&s);
}

static void init_program(program *pg, arena *a, diag_engine *d, source_set *sources)
{
    memset(pg, 0, sizeof *pg);
    pg->arena = a;
    pg->diag = d;
    pg->sources = sources;
}

bool program_load(program *pg, arena *a, diag_engine *d, source_set *sources, const char *path,
                  const check_options *opts, char *err, size_t errsize)
{
    init_program(pg, a, d, sources);
    int idx = source_load(sources, path, err, errsize);
    if (idx < 0)
        return false;
    run_passes(pg, (uint32_t)idx, opts);
    return true;
}

void program_check_loaded(program *pg, arena *a, diag_engine *d, source_set *sources, uint32_t file,
                          const check_options *opts)
{
    init_program(pg, a, d, sources);
    run_passes(pg, file, opts);
}

pipeline_info *program_select_pipeline(program *pg, const char *name)
{
    uint32_t file = pg->root ? pg->root->file : 0;
    if (name) {
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < pg->pipelines.len; i++) {
            pipeline_info *pl = pg->pipelines.items[i];
            if (strcmp(pl->name, name) == 0)
                return pl;
            if (n < 64)
                names[n++] = pl->name;
        }
        diagnostic *dg = diag_report_file(pg->diag, file, DIAG_E0114, "no pipeline named `%s` in this file", name);
        const char *close = suggest_closest(name, names, n);
        char list[1024];
        format_name_list(list, sizeof list, names, n);
        if (close)
            diag_help(pg->diag, dg, "did you mean `--pipeline %s`?", close);
        else if (n)
            diag_help(pg->diag, dg, "the pipelines are %s", list);
        return NULL;
    }
    if (pg->pipelines.len == 1)
        return pg->pipelines.items[0];
    if (pg->pipelines.len == 0) {
        diagnostic *dg = diag_report_file(pg->diag, file, DIAG_E0114, "this file declares no pipeline");
        diag_help(pg->diag, dg, "add `pipeline NAME() { ... }` invoking its steps, or build the file that imports "
                                "this one");
        return NULL;
    }
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < pg->pipelines.len && n < 64; i++)
        names[n++] = ((pipeline_info *)pg->pipelines.items[i])->name;
    char list[1024];
    format_name_list(list, sizeof list, names, n);
    diagnostic *dg = diag_report_file(pg->diag, file, DIAG_E0114, "this file declares %zu pipelines; choose one",
                                      pg->pipelines.len);
    diag_help(pg->diag, dg, "pass `--pipeline NAME`; the pipelines are %s", list);
    return NULL;
}
