#include "diag.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "utf8.h"
#include "pipe/base.h"

/* Source lines longer than this many columns are shown as a window around the span. */
enum { LINE_WINDOW = 120, LINE_CONTEXT_BEFORE = 40 };

void diag_init(diag_engine *d, arena *a, source_set *sources)
{
    memset(d, 0, sizeof *d);
    d->arena = a;
    d->sources = sources;
    d->max_errors = DIAG_MAX_ERRORS_DEFAULT;
}

static bool is_error(const diag_engine *d, const diagnostic *dg)
{
    return diag_code_get(dg->code)->severity == DIAG_ERROR || d->werror;
}

bool diag_is_error(const diag_engine *d, const diagnostic *dg) { return is_error(d, dg); }

void diag_code_help_uri(diag_code code, char *buf, size_t size)
{
    /* Markdown heading anchors are lower case: "## E0303" is #e0303. */
    char anchor[8];
    snprintf(anchor, sizeof anchor, "%s", diag_code_name(code));
    for (char *c = anchor; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(buf, size, "https://github.com/pipec/pipec/blob/main/docs/diagnostics.md#%s", anchor);
}

static diagnostic *add(diag_engine *d, span sp, bool has_pos, diag_code code, const char *fmt, va_list ap)
{
    if (diag_code_get(code)->severity == DIAG_ERROR || d->werror) {
        if (d->errors >= d->max_errors) {
            d->overflowed = true;
            memset(&d->sink, 0, sizeof d->sink);
            return &d->sink;
        }
        d->errors++;
    } else {
        d->warnings++;
    }
    diagnostic *dg = arena_alloc(d->arena, sizeof *dg);
    dg->code = code;
    dg->sp = sp;
    dg->has_pos = has_pos;
    dg->message = arena_vprintf(d->arena, fmt, ap);
    dg->seq = d->diags.len;
    vec_push(d->arena, &d->diags, dg);
    return dg;
}

diagnostic *diag_report(diag_engine *d, span sp, diag_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = add(d, sp, true, code, fmt, ap);
    va_end(ap);
    return dg;
}

diagnostic *diag_report_file(diag_engine *d, uint32_t file, diag_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    span sp = {file, 0, 0};
    diagnostic *dg = add(d, sp, false, code, fmt, ap);
    va_end(ap);
    return dg;
}

diagnostic *diag_given_twice(diag_engine *d, span second, span first, const char *help, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = add(d, second, true, DIAG_E0105, fmt, ap);
    va_end(ap);
    diag_label(d, dg, "second occurrence");
    diag_note(d, dg, first, "first given here");
    diag_help(d, dg, "%s", help ? help : "remove one of them");
    return dg;
}

static bool is_sink(const diag_engine *d, const diagnostic *dg) { return dg == &d->sink; }

void diag_byte_columns(diagnostic *dg) { dg->byte_columns = true; }

/* The line and column of offset in dg's file, as dg counts columns. */
static void dg_position(const diag_engine *d, const diagnostic *dg, uint32_t offset, unsigned *line, unsigned *col)
{
    const source_file *f = d->sources->files[dg->sp.file];
    source_position(f, offset, line, col);
    if (dg->byte_columns) {
        uint32_t start, end;
        source_line_range(f, *line, &start, &end);
        *col = offset >= start ? offset - start + 1 : 1;
    }
}

/* One of a diagnostic's texts (label, help, fix), formatted in the arena;
   the sink (a diagnostic that is not kept) takes none. */
#define DIAG_SET_TEXT(field)                          \
    do {                                              \
        if (is_sink(d, dg))                           \
            return;                                   \
        va_list ap;                                   \
        va_start(ap, fmt);                            \
        dg->field = arena_vprintf(d->arena, fmt, ap); \
        va_end(ap);                                   \
    } while (0)

void diag_label(diag_engine *d, diagnostic *dg, const char *fmt, ...) { DIAG_SET_TEXT(label); }

void diag_help(diag_engine *d, diagnostic *dg, const char *fmt, ...) { DIAG_SET_TEXT(help); }

void diag_fix(diag_engine *d, diagnostic *dg, const char *fmt, ...) { DIAG_SET_TEXT(fix); }

void diag_fix_at(diag_engine *d, diagnostic *dg, span at, const char *fmt, ...)
{
    DIAG_SET_TEXT(fix);
    dg->fix_sp = at;
    dg->has_fix_sp = true;
}

void diag_note(diag_engine *d, diagnostic *dg, span sp, const char *fmt, ...)
{
    if (is_sink(d, dg))
        return;
    note_entry *n = arena_alloc(d->arena, sizeof *n);
    va_list ap;
    va_start(ap, fmt);
    n->message = arena_vprintf(d->arena, fmt, ap);
    va_end(ap);
    n->sp = sp;
    n->has_span = true;
    vec_push(d->arena, &dg->notes, n);
}

void diag_note_plain(diag_engine *d, diagnostic *dg, const char *fmt, ...)
{
    if (is_sink(d, dg))
        return;
    note_entry *n = arena_alloc(d->arena, sizeof *n);
    va_list ap;
    va_start(ap, fmt);
    n->message = arena_vprintf(d->arena, fmt, ap);
    va_end(ap);
    vec_push(d->arena, &dg->notes, n);
}

size_t diag_error_count(const diag_engine *d) { return d->errors; }

bool diag_has_errors_in_file(const diag_engine *d, uint32_t file)
{
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        if (dg->sp.file == file && is_error(d, dg))
            return true;
    }
    return false;
}

void diag_format_position(const diag_engine *d, span sp, char *buf, size_t size)
{
    const source_file *f = d->sources->files[sp.file];
    unsigned line, col;
    source_position(f, sp.start, &line, &col);
    snprintf(buf, size, "%s:%u:%u", f->path, line, col);
}

static int compare_diags(const void *pa, const void *pb)
{
    const diagnostic *a = *(const diagnostic *const *)pa, *b = *(const diagnostic *const *)pb;
    if (a->sp.file != b->sp.file)
        return a->sp.file < b->sp.file ? -1 : 1;
    if (a->sp.start != b->sp.start)
        return a->sp.start < b->sp.start ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_diag(const diagnostic *a, const diagnostic *b)
{
    return a->sp.file == b->sp.file && a->sp.start == b->sp.start && a->sp.end == b->sp.end &&
           a->code == b->code && strcmp(a->message, b->message) == 0;
}

static const char *severity_name(const diag_engine *d, const diagnostic *dg)
{
    return is_error(d, dg) ? "error" : "warning";
}

/* Appends one code point (or a replacement for an unprintable byte) of the
   source line; returns bytes consumed and adds the display width to *width. */
static size_t put_display_char(strbuf *sb, const char *s, size_t n, size_t *width)
{
    unsigned char c = (unsigned char)s[0];
    if (c == '\t') {
        sb_puts(sb, "    ");
        *width += 4;
        return 1;
    }
    if (c < 0x20 || c == 0x7f) {
        sb_puts(sb, "\xef\xbf\xbd");
        *width += 1;
        return 1;
    }
    size_t len = pipe_utf8_valid_prefix(s, n);
    if (len == 0) {
        sb_puts(sb, "\xef\xbf\xbd");
        *width += 1;
        return 1;
    }
    sb_putn(sb, s, len);
    *width += 1;
    return len;
}

static void render_excerpt(const diag_engine *d, const diagnostic *dg, strbuf *sb)
{
    const source_file *f = d->sources->files[dg->sp.file];
    unsigned line, col;
    source_position(f, dg->sp.start, &line, &col);
    uint32_t ls, le;
    source_line_range(f, line, &ls, &le);
    uint32_t s = dg->sp.start < ls ? ls : dg->sp.start;
    uint32_t e = dg->sp.end > le ? le : dg->sp.end;
    if (e < s)
        e = s;

    /* Long lines: show a window that starts a little before the span. */
    uint32_t from = ls, to = le;
    bool cut_left = false, cut_right = false;
    if (utf8_count(f->text + ls, le - ls) > LINE_WINDOW) {
        size_t skip = col > LINE_CONTEXT_BEFORE ? col - 1 - LINE_CONTEXT_BEFORE : 0;
        while (skip-- > 0 && from < le) {
            size_t len = pipe_utf8_valid_prefix(f->text + from, le - from);
            from += len ? (uint32_t)len : 1;
            cut_left = true;
        }
        to = from;
        for (size_t cols = 0; cols < LINE_WINDOW && to < le; cols++) {
            size_t len = pipe_utf8_valid_prefix(f->text + to, le - to);
            to += len ? (uint32_t)len : 1;
        }
        cut_right = to < le;
        if (e > to)
            e = to;
    }

    char num[16];
    int w = snprintf(num, sizeof num, "%u", line);
    sb_printf(sb, "  %s | ", num);
    size_t width = 0, caret_start = 0, caret_end = 0;
    if (cut_left) {
        sb_puts(sb, "...");
        width += 3;
    }
    uint32_t i = from;
    while (i < to) {
        if (i == s)
            caret_start = width;
        if (i == e)
            caret_end = width;
        i += (uint32_t)put_display_char(sb, f->text + i, to - i, &width);
    }
    if (s >= to)
        caret_start = width;
    if (e >= to)
        caret_end = width;
    if (cut_right)
        sb_puts(sb, "...");
    sb_putc(sb, '\n');
    sb_printf(sb, "  %*s | ", w, "");
    for (size_t k = 0; k < caret_start; k++)
        sb_putc(sb, ' ');
    size_t n = caret_end > caret_start ? caret_end - caret_start : 1;
    for (size_t k = 0; k < n; k++)
        sb_putc(sb, '^');
    if (dg->label) {
        sb_putc(sb, ' ');
        sb_puts(sb, dg->label);
    }
    sb_putc(sb, '\n');
}

static void render_text(const diag_engine *d, const diagnostic *dg, strbuf *sb)
{
    char pos[4096];
    if (dg->has_pos) {
        unsigned line, col;
        dg_position(d, dg, dg->sp.start, &line, &col);
        snprintf(pos, sizeof pos, "%s:%u:%u", d->sources->files[dg->sp.file]->path, line, col);
    } else
        snprintf(pos, sizeof pos, "%s:1:1", d->sources->files[dg->sp.file]->path);
    sb_printf(sb, "%s: %s[%s]: %s\n", pos, severity_name(d, dg), diag_code_name(dg->code), dg->message);
    if (dg->has_pos)
        render_excerpt(d, dg, sb);
    if (dg->help)
        sb_printf(sb, "  = help: %s\n", dg->help);
    for (size_t i = 0; i < dg->notes.len; i++) {
        const note_entry *n = dg->notes.items[i];
        if (n->has_span) {
            diag_format_position(d, n->sp, pos, sizeof pos);
            sb_printf(sb, "  = note: %s (%s)\n", n->message, pos);
        } else {
            sb_printf(sb, "  = note: %s\n", n->message);
        }
    }
    sb_putc(sb, '\n');
}

static void span_bounds(const diag_engine *d, const diagnostic *dg, unsigned *l1, unsigned *c1, unsigned *l2,
                        unsigned *c2)
{
    if (!dg->has_pos) {
        *l1 = *c1 = *l2 = *c2 = 1;
        return;
    }
    dg_position(d, dg, dg->sp.start, l1, c1);
    dg_position(d, dg, dg->sp.end, l2, c2);
}

static void render_json(const diag_engine *d, const diagnostic *dg, strbuf *sb)
{
    unsigned l1, c1, l2, c2;
    span_bounds(d, dg, &l1, &c1, &l2, &c2);
    sb_puts(sb, "{\"file\":");
    sb_json_string(sb, d->sources->files[dg->sp.file]->path);
    sb_printf(sb, ",\"line\":%u,\"column\":%u,\"end_line\":%u,\"end_column\":%u,\"severity\":", l1, c1, l2, c2);
    sb_json_string(sb, severity_name(d, dg));
    sb_puts(sb, ",\"code\":");
    sb_json_string(sb, diag_code_name(dg->code));
    sb_puts(sb, ",\"message\":");
    sb_json_string(sb, dg->message);
    sb_puts(sb, ",\"help\":");
    sb_json_string(sb, dg->help); /* null when there is none */
    sb_puts(sb, ",\"notes\":[");
    for (size_t i = 0; i < dg->notes.len; i++) {
        const note_entry *n = dg->notes.items[i];
        if (i)
            sb_putc(sb, ',');
        sb_puts(sb, "{\"message\":");
        sb_json_string(sb, n->message);
        if (n->has_span) {
            unsigned nl, nc;
            source_position(d->sources->files[n->sp.file], n->sp.start, &nl, &nc);
            sb_puts(sb, ",\"file\":");
            sb_json_string(sb, d->sources->files[n->sp.file]->path);
            sb_printf(sb, ",\"line\":%u,\"column\":%u", nl, nc);
        }
        sb_putc(sb, '}');
    }
    sb_puts(sb, "]}\n");
}

/* dg: the diagnostic whose primary position this is (its column rule), or
   NULL for a note's. */
static void sarif_location(const diag_engine *d, const diagnostic *dg, span sp, bool has_pos, strbuf *sb)
{
    const source_file *f = d->sources->files[sp.file];
    unsigned l1 = 1, c1 = 1, l2 = 1, c2 = 1;
    if (has_pos && dg) {
        dg_position(d, dg, sp.start, &l1, &c1);
        dg_position(d, dg, sp.end, &l2, &c2);
    } else if (has_pos) {
        source_position(f, sp.start, &l1, &c1);
        source_position(f, sp.end, &l2, &c2);
    }
    sb_puts(sb, "{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    sb_json_string(sb, f->path);
    sb_printf(sb, "},\"region\":{\"startLine\":%u,\"startColumn\":%u,\"endLine\":%u,\"endColumn\":%u}}", l1, c1, l2,
              c2 > c1 || l2 > l1 ? c2 : c1 + 1);
}

static void render_sarif(const diag_engine *d, diagnostic **items, size_t n, strbuf *sb)
{
    sb_puts(sb, "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{");
    sb_puts(sb, "\"tool\":{\"driver\":{\"name\":\"pipec\",\"informationUri\":\"https://github.com/pipec/pipec\","
                "\"rules\":[");
    /* One rule per distinct code, in order of first use; ruleIndex refers to it. */
    diag_code rules[DIAG_CODE_COUNT];
    size_t rule_index[DIAG_CODE_COUNT], nrules = 0;
    bool has_rule[DIAG_CODE_COUNT] = {false};
    for (size_t i = 0; i < n; i++) {
        diag_code c = items[i]->code;
        if (!has_rule[c]) {
            has_rule[c] = true;
            rule_index[c] = nrules;
            rules[nrules++] = c;
        }
    }
    for (size_t k = 0; k < nrules; k++) {
        const diag_code_info *info = diag_code_get(rules[k]);
        if (k)
            sb_putc(sb, ',');
        sb_puts(sb, "{\"id\":");
        sb_json_string(sb, info->name);
        sb_puts(sb, ",\"shortDescription\":{\"text\":");
        sb_json_string(sb, info->title);
        sb_puts(sb, "},\"helpUri\":");
        char uri[128];
        diag_code_help_uri(rules[k], uri, sizeof uri);
        sb_json_string(sb, uri);
        sb_putc(sb, '}');
    }
    /* Columns count Unicode code points, as in the text and JSON formats. */
    sb_puts(sb, "]}},\"columnKind\":\"unicodeCodePoints\",\"results\":[");
    for (size_t i = 0; i < n; i++) {
        const diagnostic *dg = items[i];
        if (i)
            sb_putc(sb, ',');
        sb_puts(sb, "{\"ruleId\":");
        sb_json_string(sb, diag_code_name(dg->code));
        sb_printf(sb, ",\"ruleIndex\":%zu,\"level\":", rule_index[dg->code]);
        sb_json_string(sb, severity_name(d, dg));
        sb_puts(sb, ",\"message\":{\"text\":");
        strbuf msg = STRBUF_INIT;
        sb_puts(&msg, dg->message);
        if (dg->help)
            sb_printf(&msg, "\nhelp: %s", dg->help);
        sb_json_string(sb, sb_cstr(&msg));
        sb_free(&msg);
        sb_puts(sb, "},\"locations\":[");
        sarif_location(d, dg, dg->sp, dg->has_pos, sb);
        sb_puts(sb, "}]");
        size_t related = 0;
        for (size_t k = 0; k < dg->notes.len; k++) {
            const note_entry *note = dg->notes.items[k];
            if (!note->has_span)
                continue;
            sb_puts(sb, related ? "," : ",\"relatedLocations\":[");
            sarif_location(d, NULL, note->sp, true, sb);
            sb_printf(sb, ",\"id\":%zu,\"message\":{\"text\":", related);
            sb_json_string(sb, note->message);
            sb_puts(sb, "}}");
            related++;
        }
        if (related)
            sb_putc(sb, ']');
        sb_putc(sb, '}');
    }
    sb_puts(sb, "]}]}\n");
}

diagnostic **diag_sorted(const diag_engine *d, size_t *kept_out)
{
    size_t n = d->diags.len;
    diagnostic **items = xmalloc((n ? n : 1) * sizeof *items);
    if (n)
        memcpy(items, d->diags.items, n * sizeof *items);
    qsort(items, n, sizeof *items, compare_diags);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t k = kept; k-- > 0 && items[k]->sp.start == items[i]->sp.start;)
            dup = dup || same_diag(items[k], items[i]);
        if (!dup)
            items[kept++] = items[i];
    }
    *kept_out = kept;
    return items;
}

void diag_flush_errors_only(diag_engine *d, const char *check_hint, diag_writer out, void *user)
{
    size_t kept;
    diagnostic **items = diag_sorted(d, &kept);
    strbuf sb = STRBUF_INIT;
    size_t errors = 0, warnings = 0;
    for (size_t i = 0; i < kept; i++) {
        if (is_error(d, items[i])) {
            render_text(d, items[i], &sb);
            errors++;
        } else {
            warnings++;
        }
    }
    if (d->overflowed)
        sb_printf(&sb, "pipec: stopped after %zu errors; fix these and run again\n", d->max_errors);
    if (errors)
        sb_printf(&sb, "%zu error%s emitted\n", errors, errors == 1 ? "" : "s");
    if (warnings)
        sb_printf(&sb, "%zu warning%s not shown (`%s` prints %s)\n", warnings, warnings == 1 ? "" : "s",
                  check_hint, warnings == 1 ? "it" : "them");
    if (sb.len)
        out(user, sb.data, sb.len);
    sb_free(&sb);
    free(items);
}

void diag_flush(diag_engine *d, diag_format fmt, diag_writer out, void *user)
{
    size_t kept;
    diagnostic **items = diag_sorted(d, &kept);
    strbuf sb = STRBUF_INIT;
    size_t errors = 0, warnings = 0;
    for (size_t i = 0; i < kept; i++) {
        if (is_error(d, items[i]))
            errors++;
        else
            warnings++;
    }
    if (fmt == DIAG_FORMAT_SARIF) {
        render_sarif(d, items, kept, &sb);
    } else {
        for (size_t i = 0; i < kept; i++) {
            if (fmt == DIAG_FORMAT_JSON)
                render_json(d, items[i], &sb);
            else
                render_text(d, items[i], &sb);
        }
        if (fmt == DIAG_FORMAT_TEXT && d->overflowed)
            sb_printf(&sb, "pipec: stopped after %zu errors; fix these and run again\n", d->max_errors);
        if (fmt == DIAG_FORMAT_TEXT && (errors || warnings)) {
            if (errors && warnings)
                sb_printf(&sb, "%zu error%s and %zu warning%s emitted\n", errors, errors == 1 ? "" : "s", warnings,
                          warnings == 1 ? "" : "s");
            else if (errors)
                sb_printf(&sb, "%zu error%s emitted\n", errors, errors == 1 ? "" : "s");
            else
                sb_printf(&sb, "%zu warning%s emitted\n", warnings, warnings == 1 ? "" : "s");
        }
    }
    if (sb.len)
        out(user, sb.data, sb.len);
    sb_free(&sb);
    free(items);
}
