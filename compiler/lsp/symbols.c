/* textDocument/documentSymbol: the outline. Steps (Function) with their
   parameters and outputs; pipelines (Module) with their parameters and
   invocations (Event, named by their invocation ids: train, train_2).
   workspace/symbol: the steps and pipelines of every open document and
   the files it imports, by a query's letters in order. */
#include <string.h>

#include "server.h"

enum { KIND_MODULE = 2, KIND_PROPERTY = 7, KIND_FUNCTION = 12, KIND_VARIABLE = 13, KIND_EVENT = 24 };

static void put_symbol(strbuf *sb, const lsp_doc *d, const char *name, const char *detail, int kind, span range,
                       span selection)
{
    /* The selection must lie inside the range. */
    if (selection.start < range.start || selection.end > range.end)
        range = span_join(range, selection);
    sb_puts(sb, "{\"name\":");
    sb_json_string(sb, name);
    if (detail) {
        sb_puts(sb, ",\"detail\":");
        sb_json_string(sb, detail);
    }
    sb_printf(sb, ",\"kind\":%d,\"range\":", kind);
    lsp_put_offsets(sb, d, range.start, range.end);
    sb_puts(sb, ",\"selectionRange\":");
    lsp_put_offsets(sb, d, selection.start, selection.end);
}

static void put_params(strbuf *sb, const lsp_doc *d, const ptr_vec *params, size_t *n)
{
    for (size_t i = 0; i < params->len; i++) {
        const ast_param *p = params->items[i];
        if (!p->name.text || !*p->name.text)
            continue;
        sb_puts(sb, (*n)++ ? "," : "");
        put_symbol(sb, d, p->name.text, p->type.text, KIND_VARIABLE, p->sp, p->name.sp);
        sb_putc(sb, '}');
    }
}

static void put_step(strbuf *sb, const lsp_doc *d, const ast_step *st)
{
    put_symbol(sb, d, st->name.text, "step", KIND_FUNCTION, st->sp, st->name.sp);
    sb_puts(sb, ",\"children\":[");
    size_t n = 0;
    put_params(sb, d, &st->params, &n);
    for (size_t i = 0; i < st->outputs.len; i++) {
        const ast_output *o = st->outputs.items[i];
        if (!o->name.text || !*o->name.text)
            continue;
        sb_puts(sb, n++ ? "," : "");
        put_symbol(sb, d, o->name.text, o->type.text, KIND_PROPERTY, span_join(o->name.sp, o->type.sp), o->name.sp);
        sb_putc(sb, '}');
    }
    sb_puts(sb, "]}");
}

static const pipeline_info *pipeline_of(const program *pg, const ast_pipeline *decl)
{
    for (size_t i = 0; i < pg->pipelines.len; i++) {
        const pipeline_info *pl = pg->pipelines.items[i];
        if (pl->decl == decl)
            return pl;
    }
    return NULL;
}

static void put_pipeline(strbuf *sb, const lsp_doc *d, const program *pg, const ast_pipeline *pl)
{
    put_symbol(sb, d, pl->name.text, "pipeline", KIND_MODULE, pl->sp, pl->name.sp);
    sb_puts(sb, ",\"children\":[");
    size_t n = 0, next = 0;
    put_params(sb, d, &pl->params, &n);
    /* The checker's invocations are in statement order (those it could
       check): one walk along both lists. */
    const pipeline_info *info = pipeline_of(pg, pl);
    for (size_t i = 0; i < pl->statements.len; i++) {
        const ast_statement *st = pl->statements.items[i];
        const invocation *inv = info && next < info->invocations.len ? info->invocations.items[next] : NULL;
        const char *id = NULL;
        if (inv && inv->stmt == st) {
            id = inv->id;
            next++;
        }
        if (!st->call || !st->call->callee.text || !*st->call->callee.text)
            continue;
        sb_puts(sb, n++ ? "," : "");
        put_symbol(sb, d, id ? id : st->call->callee.text, st->call->callee.text, KIND_EVENT, st->sp,
                   st->call->callee.sp);
        sb_putc(sb, '}');
    }
    sb_puts(sb, "]}");
}

int lsp_document_symbols(lsp_server *s, const json_value *params, strbuf *out)
{
    lsp_doc *d = lsp_request_doc(s, params, NULL);
    if (!d)
        return RPC_INVALID_PARAMS;
    check_session *c = lsp_doc_check(d);
    const ast_file *root = c->pg.root;
    size_t n = 0;
    sb_putc(out, '[');
    for (size_t i = 0; root && i < root->items.len; i++) {
        const ast_item *it = root->items.items[i];
        if (it->kind == ITEM_STEP && it->u.step->name.text && *it->u.step->name.text) {
            sb_puts(out, n++ ? "," : "");
            put_step(out, d, it->u.step);
        } else if (it->kind == ITEM_PIPELINE && it->u.pipeline->name.text && *it->u.pipeline->name.text) {
            sb_puts(out, n++ ? "," : "");
            put_pipeline(out, d, &c->pg, it->u.pipeline);
        }
    }
    sb_putc(out, ']');
    return 0;
}

/* Whether query's letters appear in name in order, ignoring case (what
   editors' symbol pickers expect). */
static bool matches(const char *name, const char *query)
{
    for (; *query; query++) {
        char q = (char)(*query >= 'A' && *query <= 'Z' ? *query - 'A' + 'a' : *query);
        while (*name && (*name >= 'A' && *name <= 'Z' ? *name - 'A' + 'a' : *name) != q)
            name++;
        if (!*name)
            return false;
        name++;
    }
    return true;
}

static void put_workspace_symbol(strbuf *sb, size_t *n, const lsp_doc *d, const check_session *c, const char *name,
                                 int kind, span sp, const char *container)
{
    sb_puts(sb, (*n)++ ? ",{\"name\":" : "{\"name\":");
    sb_json_string(sb, name);
    sb_printf(sb, ",\"kind\":%d,\"location\":", kind);
    lsp_put_location(sb, d, c, sp);
    sb_puts(sb, ",\"containerName\":");
    sb_json_string(sb, container);
    sb_putc(sb, '}');
}

int lsp_workspace_symbols(lsp_server *s, const json_value *params, strbuf *out)
{
    const char *query = json_string(json_get(params, "query"));
    if (!query)
        query = "";
    /* A file imported by several open documents is listed once. */
    ptr_vec seen = {0};
    arena a;
    arena_init(&a);
    size_t n = 0;
    sb_putc(out, '[');
    for (size_t k = 0; k < s->ndocs; k++) {
        lsp_doc *d = s->docs[k];
        if (!d->text)
            continue;
        check_session *c = lsp_doc_check(d);
        for (size_t f = 0; f < c->pg.files.len; f++) {
            const ast_file *file = c->pg.files.items[f];
            const char *path = c->sources.files[file->file]->path;
            bool dup = false;
            for (size_t i = 0; i < seen.len && !dup; i++)
                dup = strcmp(seen.items[i], path) == 0;
            if (dup)
                continue;
            vec_push(&a, &seen, arena_strdup(&a, path));
            for (size_t i = 0; i < file->items.len; i++) {
                const ast_item *it = file->items.items[i];
                if (it->kind == ITEM_STEP && it->u.step->name.text && matches(it->u.step->name.text, query))
                    put_workspace_symbol(out, &n, d, c, it->u.step->name.text, KIND_FUNCTION, it->u.step->name.sp,
                                         path);
                else if (it->kind == ITEM_PIPELINE && it->u.pipeline->name.text &&
                         matches(it->u.pipeline->name.text, query))
                    put_workspace_symbol(out, &n, d, c, it->u.pipeline->name.text, KIND_MODULE,
                                         it->u.pipeline->name.sp, path);
            }
        }
    }
    sb_putc(out, ']');
    arena_free(&a);
    return 0;
}
