/* textDocument/codeAction: quick fixes from the checker's suggestions. A
   diagnostic whose help line suggests a replacement for its own span (a
   misspelt step, parameter, artifact, decorator, option, field or enum
   value: diag_fix), or an edit elsewhere (a positional call rewritten with
   keywords, missing parameters added: diag_fix_at), offers it as an edit
   that makes it go away. */
#include <stdlib.h>

#include "server.h"

static bool get_range(const json_value *r, lsp_pos *a, lsp_pos *b)
{
    return lsp_get_position(json_get(r, "start"), a) && lsp_get_position(json_get(r, "end"), b);
}

int lsp_code_action(lsp_server *s, const json_value *params, strbuf *out)
{
    lsp_pos a, b;
    lsp_doc *d = lsp_request_doc(s, params, NULL);
    if (!d)
        return RPC_INVALID_PARAMS;
    if (!get_range(json_get(params, "range"), &a, &b)) {
        s->error = "no range";
        return RPC_INVALID_PARAMS;
    }
    check_session *c = lsp_doc_check(d);
    const source_file *f = c->sources.files[c->root];
    size_t start = text_offset(f->text, f->len, a), end = text_offset(f->text, f->len, b);
    size_t n;
    diagnostic **items = diag_sorted(&c->diag, &n);
    size_t k = 0;
    sb_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        const diagnostic *dg = items[i];
        /* Those the range touches. */
        if (!dg->fix || !dg->has_pos || dg->sp.file != c->root || dg->sp.end < start || dg->sp.start > end)
            continue;
        sb_puts(out, k++ ? ",{\"title\":" : "{\"title\":");
        strbuf title = STRBUF_INIT;
        if (dg->code == DIAG_E0303)
            sb_puts(&title, "Pass the arguments by keyword");
        else if (dg->code == DIAG_E0104)
            sb_printf(&title, "Add `%s`", dg->fix + (dg->fix[0] == ',' ? 2 : 0));
        else
            sb_printf(&title, "Replace with `%s`", dg->fix);
        sb_json_string(out, sb_cstr(&title));
        sb_free(&title);
        sb_puts(out, ",\"kind\":\"quickfix\",\"isPreferred\":true,\"diagnostics\":[{\"range\":");
        lsp_put_offsets(out, d, dg->sp.start, dg->sp.end);
        sb_puts(out, ",\"code\":");
        sb_json_string(out, diag_code_name(dg->code));
        sb_puts(out, ",\"source\":\"pipec\",\"message\":");
        sb_json_string(out, dg->message);
        sb_puts(out, "}],\"edit\":{\"changes\":{");
        sb_json_string(out, d->uri);
        sb_puts(out, ":[{\"range\":");
        span at = dg->has_fix_sp ? dg->fix_sp : dg->sp;
        lsp_put_offsets(out, d, at.start, at.end);
        sb_puts(out, ",\"newText\":");
        sb_json_string(out, dg->fix);
        sb_puts(out, "}]}}}");
    }
    sb_putc(out, ']');
    free(items);
    return 0;
}
