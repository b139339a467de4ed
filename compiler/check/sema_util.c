/* Helpers shared by the checker's passes (sema_load.c, sema_steps.c,
   sema_pipelines.c). They call no pass back: sema.c depends on the passes,
   the passes on these helpers, one way. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema_util.h"
#include "util/suggest.h"

/* Value types and their names. */

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

const char *sema_value_type_typo(const char *type_name)
{
    static const char *const value_types[] = {"int", "float", "bool", "string"};
    if (sema_type_of(type_name) != TYPE_ARTIFACT)
        return NULL;
    return suggest_closest(type_name, value_types, 4);
}

/* Parameter lists of steps and pipelines. */

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

/* What lexical and syntax errors may have cost. */

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
            n += dg->sp.file == af->file && diag_code_is_syntax(dg->code);
        }
        if (n == 0)
            continue;
        uint32_t *at = xmalloc(n * sizeof *at);
        size_t k = 0;
        for (size_t i = 0; i < af->syntax_error_spans.len; i++)
            at[k++] = ((const span *)af->syntax_error_spans.items[i])->start;
        for (size_t i = 0; i < d->diags.len; i++) {
            const diagnostic *dg = d->diags.items[i];
            if (dg->sp.file == af->file && diag_code_is_syntax(dg->code))
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
            start = ast_item_end(it);
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

/* Source text and paths. */

const char *sema_text(const sema *s, span sp)
{
    const source_file *f = s->pg->sources->files[sp.file];
    uint32_t end = sp.end > f->len ? (uint32_t)f->len : sp.end;
    uint32_t start = sp.start > end ? end : sp.start;
    return arena_strndup(s->pg->arena, f->text + start, end - start);
}

const char *sema_dirname(arena *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    return arena_strndup(a, path, (size_t)(slash - path));
}

/* dir/rel with "./" segments dropped and "x/.." folded where x is a plain
   segment, so diagnostics show short, stable paths. */
const char *sema_join_path(arena *a, const char *dir, const char *rel)
{
    if (rel[0] == '/' || strcmp(dir, ".") == 0)
        dir = "";
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *joined = arena_alloc(a, n);
    snprintf(joined, n, "%s%s%s", dir, *dir && strcmp(dir, "/") != 0 ? "/" : "", rel);
    /* Normalize segment by segment. */
    char *out = arena_alloc(a, n + 1);
    size_t o = 0;
    const char *p = joined;
    bool absolute = *p == '/';
    if (absolute)
        out[o++] = '/';
    while (*p) {
        while (*p == '/')
            p++;
        const char *seg = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - seg);
        if (len == 0 || (len == 1 && seg[0] == '.'))
            continue;
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            /* Fold only over a real segment that is not itself "..". */
            size_t start = o;
            while (start > (absolute ? 1u : 0u) && out[start - 1] != '/')
                start--;
            size_t last_len = o - start;
            bool prev_dotdot = last_len == 2 && out[start] == '.' && out[start + 1] == '.';
            if (last_len > 0 && !prev_dotdot) {
                o = start > (absolute ? 1u : 0u) ? start - 1 : start;
                continue;
            }
        }
        if (o > 0 && out[o - 1] != '/')
            out[o++] = '/';
        memcpy(out + o, seg, len);
        o += len;
    }
    if (o == 0)
        out[o++] = '.';
    out[o] = '\0';
    return out;
}

/* Look-ups. */

step_info *program_find_step(const program *pg, const char *name) { return symtab_get(&pg->step_index, name); }
