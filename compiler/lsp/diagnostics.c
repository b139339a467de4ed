/* textDocument/publishDiagnostics from the checker's diagnostics, the same
   list `pipec check` prints: code, range, the help line, the notes as
   related locations, and where the code's explanation is. */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static void put_diagnostic(strbuf *sb, const lsp_doc *d, const check_session *c, const diagnostic *dg)
{
    sb_puts(sb, "{\"range\":");
    if (dg->has_pos)
        lsp_put_offsets(sb, d, dg->sp.start, dg->sp.end);
    else
        lsp_put_range(sb, (lsp_pos){0, 0}, (lsp_pos){0, 0});
    char href[128];
    diag_code_help_uri(dg->code, href, sizeof href);
    sb_printf(sb, ",\"severity\":%d,\"source\":\"pipec\",\"code\":", diag_is_error(&c->diag, dg) ? 1 : 2);
    sb_json_string(sb, diag_code_name(dg->code));
    sb_puts(sb, ",\"codeDescription\":{\"href\":");
    sb_json_string(sb, href);
    sb_puts(sb, "},\"message\":");
    /* The message as `pipec check` words it: the help line and the notes
       without a place follow it. */
    strbuf msg = STRBUF_INIT;
    sb_puts(&msg, dg->message);
    if (dg->help)
        sb_printf(&msg, "\nhelp: %s", dg->help);
    size_t placed = 0;
    for (size_t i = 0; i < dg->notes.len; i++) {
        const note_entry *n = dg->notes.items[i];
        if (n->has_span)
            placed++;
        else
            sb_printf(&msg, "\nnote: %s", n->message);
    }
    sb_json_string(sb, sb_cstr(&msg));
    sb_free(&msg);
    if (placed) {
        sb_puts(sb, ",\"relatedInformation\":[");
        size_t k = 0;
        for (size_t i = 0; i < dg->notes.len; i++) {
            const note_entry *n = dg->notes.items[i];
            if (!n->has_span)
                continue;
            sb_puts(sb, k++ ? ",{\"location\":" : "{\"location\":");
            lsp_put_location(sb, d, c, n->sp);
            sb_puts(sb, ",\"message\":");
            sb_json_string(sb, n->message);
            sb_putc(sb, '}');
        }
        sb_putc(sb, ']');
    }
    sb_putc(sb, '}');
}

void lsp_publish_diagnostics(lsp_server *s, lsp_doc *d)
{
    check_session *c = lsp_doc_check(d);
    size_t n;
    diagnostic **items = diag_sorted(&c->diag, &n);
    strbuf p = STRBUF_INIT;
    sb_puts(&p, "{\"uri\":");
    sb_json_string(&p, d->uri);
    sb_printf(&p, ",\"version\":%lld,\"diagnostics\":[", (long long)d->version);
    size_t k = 0;
    /* A file this one imports has its own diagnostics when it is open. */
    for (size_t i = 0; i < n; i++) {
        if (items[i]->sp.file != c->root)
            continue;
        if (k++)
            sb_putc(&p, ',');
        put_diagnostic(&p, d, c, items[i]);
    }
    sb_puts(&p, "]}");
    free(items);
    lsp_notify(s, "textDocument/publishDiagnostics", sb_cstr(&p));
    sb_free(&p);
    d->published = true;
}
