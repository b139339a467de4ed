/* The open documents: their text, their check, and positions, ranges and
   locations in them as LSP writes them; document URIs and file paths. */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *lsp_uri_to_path(const char *uri)
{
    static const char scheme[] = "file://";
    if (strncmp(uri, scheme, sizeof scheme - 1) != 0 || uri[sizeof scheme - 1] != '/')
        return xstrdup(uri); /* untitled:... and the like: a name only */
    const char *p = uri + sizeof scheme - 1;
    char *path = xmalloc(strlen(p) + 1);
    size_t n = 0;
    for (; *p; p++) {
        int hi, lo;
        if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
            path[n++] = (char)(hi * 16 + lo);
            p += 2;
        } else {
            path[n++] = *p;
        }
    }
    path[n] = '\0';
    return path;
}

void lsp_put_file_uri(strbuf *sb, const char *path)
{
    strbuf uri = STRBUF_INIT;
    sb_puts(&uri, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            sb_putc(&uri, (char)*p);
        else
            sb_printf(&uri, "%%%02X", *p);
    }
    sb_json_string(sb, sb_cstr(&uri));
    sb_free(&uri);
}

void lsp_put_position(strbuf *sb, lsp_pos p) { sb_printf(sb, "{\"line\":%u,\"character\":%u}", p.line, p.character); }

void lsp_put_range(strbuf *sb, lsp_pos start, lsp_pos end)
{
    sb_puts(sb, "{\"start\":");
    lsp_put_position(sb, start);
    sb_puts(sb, ",\"end\":");
    lsp_put_position(sb, end);
    sb_putc(sb, '}');
}

void lsp_put_offsets(strbuf *sb, const lsp_doc *d, uint32_t start, uint32_t end)
{
    const source_file *f = d->check->sources.files[d->check->root];
    lsp_put_range(sb, text_position(f, start), text_position(f, end));
}

void lsp_put_location(strbuf *sb, const lsp_doc *d, const check_session *c, span sp)
{
    sb_puts(sb, "{\"uri\":");
    if (sp.file == c->root) {
        sb_json_string(sb, d->uri);
        sb_puts(sb, ",\"range\":");
        lsp_put_offsets(sb, d, sp.start, sp.end);
    } else {
        const source_file *f = c->sources.files[sp.file];
        lsp_put_file_uri(sb, f->path);
        sb_puts(sb, ",\"range\":");
        lsp_put_range(sb, text_position(f, sp.start), text_position(f, sp.end));
    }
    sb_putc(sb, '}');
}

static bool get_uint32(const json_value *v, uint32_t *out)
{
    int64_t n;
    if (!json_integer(v, &n) || n < 0 || n > UINT32_MAX)
        return false;
    *out = (uint32_t)n;
    return true;
}

bool lsp_get_position(const json_value *v, lsp_pos *out)
{
    return get_uint32(json_get(v, "line"), &out->line) && get_uint32(json_get(v, "character"), &out->character);
}

lsp_doc *lsp_find_doc(lsp_server *s, const json_value *params)
{
    const char *uri = json_string(json_get(json_get(params, "textDocument"), "uri"));
    for (size_t i = 0; uri && i < s->ndocs; i++)
        if (strcmp(s->docs[i]->uri, uri) == 0)
            return s->docs[i];
    return NULL;
}

void lsp_doc_drop_check(lsp_doc *d)
{
    if (d->check) {
        check_session_free(d->check);
        free(d->check);
        d->check = NULL;
    }
}

check_session *lsp_doc_check(lsp_doc *d)
{
    if (!d->check) {
        d->check = xmalloc(sizeof *d->check);
        check_session_init(d->check, false);
        check_session_text(d->check, d->path, d->text, d->len, false);
    }
    return d->check;
}

lsp_doc *lsp_request_doc(lsp_server *s, const json_value *params, uint32_t *offset)
{
    lsp_doc *d = lsp_find_doc(s, params);
    lsp_pos pos = {0, 0};
    if (!d) {
        s->error = "the document is not open";
        return NULL;
    }
    if (offset && !lsp_get_position(json_get(params, "position"), &pos)) {
        s->error = "no position";
        return NULL;
    }
    check_session *c = lsp_doc_check(d);
    const source_file *f = c->sources.files[c->root];
    if (offset)
        *offset = (uint32_t)text_offset(f->text, f->len, pos);
    return d;
}

void lsp_doc_set_text(lsp_doc *d, const char *text, size_t len)
{
    d->len = 0;
    text_splice(&d->text, &d->len, &d->cap, 0, 0, text, len);
}

void lsp_doc_free(lsp_doc *d)
{
    lsp_doc_drop_check(d);
    free(d->uri);
    free(d->path);
    free(d->text);
    free(d);
}
