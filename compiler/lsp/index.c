#include "index.h"

#include <stdlib.h>
#include <string.h>

#include "server.h"

static void add(doc_index *ix, occ_kind kind, const char *name, const char *scope, span sp, bool definition)
{
    if (!name || !*name)
        return;
    if (ix->len == ix->cap) {
        ix->cap = ix->cap ? ix->cap * 2 : 64;
        ix->items = xrealloc(ix->items, ix->cap * sizeof *ix->items);
    }
    ix->items[ix->len++] = (occurrence){kind, name, scope ? scope : "", sp, definition};
}

static void add_decorators(doc_index *ix, const ptr_vec *decorators)
{
    for (size_t i = 0; i < decorators->len; i++) {
        const ast_decorator *d = decorators->items[i];
        add(ix, OCC_DECORATOR, d->name.text, NULL, d->name.sp, false);
        for (size_t k = 0; k < d->args.len; k++) {
            const ast_arg *a = d->args.items[k];
            add(ix, OCC_OPTION, a->name.text, d->name.text, a->name.sp, false);
        }
    }
}

static void add_params(doc_index *ix, occ_kind kind, const char *scope, const ptr_vec *params)
{
    for (size_t i = 0; i < params->len; i++) {
        const ast_param *p = params->items[i];
        add(ix, kind, p->name.text, scope, p->name.sp, true);
    }
}

/* Whether a statement of pl binds name. */
static bool binds(const ast_pipeline *pl, const char *name)
{
    for (size_t i = 0; i < pl->statements.len; i++) {
        const ast_statement *st = pl->statements.items[i];
        for (size_t k = 0; k < st->targets.len; k++) {
            const ast_name *t = st->targets.items[k];
            if (t->text && strcmp(t->text, name) == 0)
                return true;
        }
    }
    return false;
}

static void add_call(doc_index *ix, const ast_pipeline *pl, const ast_call *call)
{
    add(ix, OCC_STEP, call->callee.text, NULL, call->callee.sp, false);
    for (size_t g = 0; g < call->groups.len; g++) {
        const ptr_vec *group = call->groups.items[g];
        for (size_t k = 0; k < group->len; k++) {
            const ast_arg *a = group->items[k];
            add(ix, OCC_STEP_PARAM, a->name.text, call->callee.text, a->name.sp, false);
            if (!a->value)
                continue;
            if (a->value->kind == EXPR_CALL)
                add_call(ix, pl, a->value->u.call);
            else if (a->value->kind == EXPR_IDENT) {
                const ast_name *n = &a->value->u.ident;
                /* As the checker reads it: a bound artifact, else a parameter. */
                add(ix, n->text && binds(pl, n->text) ? OCC_ARTIFACT : OCC_PIPELINE_PARAM, n->text, pl->name.text,
                    n->sp, false);
            }
        }
    }
}

static void add_pipeline(doc_index *ix, const ast_pipeline *pl)
{
    add(ix, OCC_PIPELINE, pl->name.text, NULL, pl->name.sp, true);
    add_decorators(ix, &pl->decorators);
    add_params(ix, OCC_PIPELINE_PARAM, pl->name.text, &pl->params);
    for (size_t i = 0; i < pl->statements.len; i++) {
        const ast_statement *st = pl->statements.items[i];
        for (size_t k = 0; k < st->targets.len; k++) {
            const ast_name *t = st->targets.items[k];
            if (t->text && strcmp(t->text, "_") != 0)
                add(ix, OCC_ARTIFACT, t->text, pl->name.text, t->sp, true);
        }
        if (st->call)
            add_call(ix, pl, st->call);
    }
}

void doc_index_build(doc_index *ix, const check_session *c)
{
    memset(ix, 0, sizeof *ix);
    const program *pg = &c->pg;
    for (size_t f = 0; f < pg->files.len; f++) {
        const ast_file *file = pg->files.items[f];
        for (size_t i = 0; i < file->items.len; i++) {
            const ast_item *it = file->items.items[i];
            if (it->kind == ITEM_STEP) {
                const ast_step *st = it->u.step;
                add(ix, OCC_STEP, st->name.text, NULL, st->name.sp, true);
                add_decorators(ix, &st->decorators);
                add_params(ix, OCC_STEP_PARAM, st->name.text, &st->params);
            } else if (it->kind == ITEM_PIPELINE && file->file == c->root) {
                /* Pipelines in imported files are ignored (the language). */
                add_pipeline(ix, it->u.pipeline);
            }
        }
    }
}

void doc_index_free(doc_index *ix) { free(ix->items); }

const occurrence *doc_index_at(const doc_index *ix, uint32_t file, uint32_t offset)
{
    for (size_t i = 0; i < ix->len; i++) {
        const occurrence *o = &ix->items[i];
        if (o->sp.file == file && o->sp.start <= offset && offset <= o->sp.end)
            return o;
    }
    return NULL;
}

bool occ_same(const occurrence *a, const occurrence *b)
{
    return a->kind == b->kind && strcmp(a->name, b->name) == 0 && strcmp(a->scope, b->scope) == 0;
}

const occurrence *doc_index_definition(const doc_index *ix, const occurrence *o)
{
    for (size_t i = 0; i < ix->len; i++)
        if (ix->items[i].definition && occ_same(&ix->items[i], o))
            return &ix->items[i];
    return NULL;
}

bool name_lookup_init(name_lookup *l, lsp_server *s, const json_value *params)
{
    uint32_t offset;
    memset(l, 0, sizeof *l);
    l->doc = lsp_request_doc(s, params, &offset);
    if (!l->doc)
        return false;
    l->check = lsp_doc_check(l->doc);
    doc_index_build(&l->ix, l->check);
    l->at = doc_index_at(&l->ix, l->check->root, offset);
    l->offset = offset;
    return true;
}

void name_lookup_free(name_lookup *l) { doc_index_free(&l->ix); }
