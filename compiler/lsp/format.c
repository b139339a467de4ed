/* textDocument/formatting: `pipec fmt` on the document's text, answered
   as one edit of the whole document (none when it is already canonical,
   null when it has errors: fmt never rewrites what it could not parse). */
#include <string.h>

#include "cli/fmt.h"
#include "server.h"

int lsp_formatting(lsp_server *s, const json_value *params, strbuf *out)
{
    lsp_doc *d = lsp_find_doc(s, params);
    if (!d) {
        s->error = "the document is not open";
        return RPC_INVALID_PARAMS;
    }
    arena a;
    arena_init(&a);
    source_set sources;
    source_set_init(&sources);
    diag_engine diag;
    diag_init(&diag, &a, &sources);
    int file = source_add(&sources, d->path, d->text, d->len);
    strbuf text = STRBUF_INIT;
    if (!format_source(&a, &diag, &sources, (uint32_t)file, &text)) {
        sb_puts(out, "null");
    } else if (text.len == d->len && memcmp(text.data, d->text, d->len) == 0) {
        sb_puts(out, "[]");
    } else {
        sb_puts(out, "[{\"range\":");
        lsp_put_range(out, (lsp_pos){0, 0}, text_position(sources.files[file], d->len));
        sb_puts(out, ",\"newText\":");
        sb_json_string(out, sb_cstr(&text));
        sb_puts(out, "}]");
    }
    sb_free(&text);
    source_set_free(&sources);
    arena_free(&a);
    return 0;
}
