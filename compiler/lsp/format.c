/* textDocument/formatting: `pipec fmt` on the document's text, answered
   as one edit of the whole document (none when it is already canonical,
   null when it has errors: fmt never rewrites what it could not parse).
   textDocument/rangeFormatting: the same layout, as the edits of the lines
   fmt changes (hunks of a line diff) that touch the range's lines. */
#include <stdlib.h>
#include <string.h>

#include "session/fmt.h"
#include "server.h"

/* The start of each line of text[0..len), and len at the end. */
static size_t *line_starts(const char *text, size_t len, size_t *n)
{
    size_t count = 1;
    for (size_t i = 0; i < len; i++)
        count += text[i] == '\n' && i + 1 < len;
    size_t *at = xmalloc((count + 1) * sizeof *at);
    size_t k = 0;
    at[k++] = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n' && i + 1 < len)
            at[k++] = i + 1;
    at[k] = len;
    *n = len ? count : 0;
    return at;
}

typedef struct lines {
    const char *text;
    size_t *at, n;
} lines;

static bool same_line(const lines *a, size_t i, const lines *b, size_t j)
{
    size_t la = a->at[i + 1] - a->at[i], lb = b->at[j + 1] - b->at[j];
    return la == lb && (la == 0 || memcmp(a->text + a->at[i], b->text + b->at[j], la) == 0);
}

/* How far a hunk may reach before the rest is one hunk. */
enum { SYNC_WINDOW = 64 };

/* The edits turning old into new, line by line: where the lines differ,
   the nearest lines that match again end the hunk. Those whose old lines
   touch [first, last] are written (all of them: first 0, last SIZE_MAX). */
static void put_hunks(strbuf *out, const source_file *f, const lines *old, const lines *new, size_t first,
                      size_t last)
{
    size_t i = 0, j = 0, n = 0;
    sb_putc(out, '[');
    while (i < old->n || j < new->n) {
        if (i < old->n && j < new->n && same_line(old, i, new, j)) {
            i++;
            j++;
            continue;
        }
        size_t a = old->n - i, b = new->n - j; /* no match again: the rest */
        bool found = false;
        for (size_t d = 1; d <= 2 * SYNC_WINDOW && !found; d++)
            for (size_t x = 0; x <= d && !found; x++)
                if (i + x < old->n && j + d - x < new->n && x <= SYNC_WINDOW && d - x <= SYNC_WINDOW &&
                    same_line(old, i + x, new, j + d - x)) {
                    a = x;
                    b = d - x;
                    found = true;
                }
        /* Old lines [i, i + a) become new lines [j, j + b). */
        if (i <= last && (a ? i + a - 1 : i) >= first) {
            sb_puts(out, n++ ? ",{\"range\":" : "{\"range\":");
            lsp_put_range(out, text_position(f, old->at[i]), text_position(f, old->at[i + a]));
            sb_puts(out, ",\"newText\":");
            strbuf text = STRBUF_INIT;
            sb_putn(&text, new->text + new->at[j], new->at[j + b] - new->at[j]);
            sb_json_string(out, sb_cstr(&text));
            sb_free(&text);
            sb_putc(out, '}');
        }
        i += a;
        j += b;
    }
    sb_putc(out, ']');
}

/* fmt's text of d into text; false when d has errors. */
static bool format_doc(lsp_doc *d, arena *a, source_set *sources, int *file, strbuf *text)
{
    diag_engine diag;
    diag_init(&diag, a, sources);
    *file = source_add(sources, d->path, d->text, d->len);
    return format_source(a, &diag, sources, (uint32_t)*file, text);
}

int lsp_range_formatting(lsp_server *s, const json_value *params, strbuf *out)
{
    lsp_doc *d = lsp_find_doc(s, params);
    lsp_pos from, to;
    const json_value *range = json_get(params, "range");
    if (!d || !lsp_get_position(json_get(range, "start"), &from) || !lsp_get_position(json_get(range, "end"), &to)) {
        s->error = d ? "no range" : "the document is not open";
        return RPC_INVALID_PARAMS;
    }
    arena a;
    arena_init(&a);
    source_set sources;
    source_set_init(&sources);
    strbuf text = STRBUF_INIT;
    int file;
    if (!format_doc(d, &a, &sources, &file, &text)) {
        sb_puts(out, "null");
    } else {
        lines old = {d->text, NULL, 0}, new = {text.data ? text.data : "", NULL, 0};
        old.at = line_starts(d->text, d->len, &old.n);
        new.at = line_starts(new.text, text.len, &new.n);
        /* A range ending at the start of a line does not take that line. */
        uint32_t last = to.line > from.line && to.character == 0 ? to.line - 1 : to.line;
        put_hunks(out, sources.files[file], &old, &new, from.line, last);
        free(old.at);
        free(new.at);
    }
    sb_free(&text);
    source_set_free(&sources);
    arena_free(&a);
    return 0;
}

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
    strbuf text = STRBUF_INIT;
    int file;
    if (!format_doc(d, &a, &sources, &file, &text)) {
        sb_puts(out, "null");
    } else if (text.len == d->len && (d->len == 0 || memcmp(text.data, d->text, d->len) == 0)) {
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
