/* textDocument/definition and textDocument/references for steps, their
   parameters, pipelines, pipeline parameters and artifacts (index.h): a
   step's definition is its name after `step`, in this file or the one that
   declares it. */
#include "index.h"
#include "server.h"

int lsp_definition(lsp_server *s, const json_value *params, strbuf *out)
{
    uint32_t offset;
    lsp_doc *d = lsp_request_doc(s, params, &offset);
    if (!d)
        return RPC_INVALID_PARAMS;
    check_session *c = lsp_doc_check(d);
    doc_index ix;
    doc_index_build(&ix, c);
    const occurrence *o = doc_index_at(&ix, c->root, offset);
    const occurrence *def = o && o->kind != OCC_DECORATOR && o->kind != OCC_OPTION ? doc_index_definition(&ix, o)
                                                                                    : NULL;
    if (def)
        lsp_put_location(out, d, c, def->sp);
    else
        sb_puts(out, "null");
    doc_index_free(&ix);
    return 0;
}

int lsp_references(lsp_server *s, const json_value *params, strbuf *out)
{
    uint32_t offset;
    lsp_doc *d = lsp_request_doc(s, params, &offset);
    if (!d)
        return RPC_INVALID_PARAMS;
    const json_value *decl = json_get(json_get(params, "context"), "includeDeclaration");
    bool with_decl = !decl || (decl->kind == JSON_BOOL && decl->boolean);
    check_session *c = lsp_doc_check(d);
    doc_index ix;
    doc_index_build(&ix, c);
    const occurrence *o = doc_index_at(&ix, c->root, offset);
    if (!o || o->kind == OCC_DECORATOR || o->kind == OCC_OPTION) {
        sb_puts(out, "null");
    } else {
        size_t n = 0;
        sb_putc(out, '[');
        for (size_t i = 0; i < ix.len; i++) {
            const occurrence *r = &ix.items[i];
            if (!occ_same(r, o) || (r->definition && !with_decl))
                continue;
            if (n++)
                sb_putc(out, ',');
            lsp_put_location(out, d, c, r->sp);
        }
        sb_putc(out, ']');
    }
    doc_index_free(&ix);
    return 0;
}
