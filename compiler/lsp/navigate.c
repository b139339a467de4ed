/* textDocument/definition and textDocument/references for steps, their
   parameters, pipelines, pipeline parameters and artifacts (index.h): a
   step's definition is its name after `step`, in this file or the one that
   declares it. */
#include "index.h"
#include "server.h"

/* Decorators and options are looked up in the settings table, not declared. */
static bool declared_kind(const occurrence *o) { return o && o->kind != OCC_DECORATOR && o->kind != OCC_OPTION; }

int lsp_definition(lsp_server *s, const json_value *params, strbuf *out)
{
    name_lookup l;
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    const occurrence *def = declared_kind(l.at) ? doc_index_definition(&l.ix, l.at) : NULL;
    if (def)
        lsp_put_location(out, l.doc, l.check, def->sp);
    else
        sb_puts(out, "null");
    name_lookup_free(&l);
    return 0;
}

int lsp_references(lsp_server *s, const json_value *params, strbuf *out)
{
    name_lookup l;
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    const json_value *decl = json_get(json_get(params, "context"), "includeDeclaration");
    bool with_decl = !decl || (decl->kind == JSON_BOOL && decl->boolean);
    if (!declared_kind(l.at)) {
        sb_puts(out, "null");
    } else {
        size_t n = 0;
        sb_putc(out, '[');
        for (size_t i = 0; i < l.ix.len; i++) {
            const occurrence *r = &l.ix.items[i];
            if (!occ_same(r, l.at) || (r->definition && !with_decl))
                continue;
            if (n++)
                sb_putc(out, ',');
            lsp_put_location(out, l.doc, l.check, r->sp);
        }
        sb_putc(out, ']');
    }
    name_lookup_free(&l);
    return 0;
}
