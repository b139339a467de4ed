/* The JSON writer of the AWS Batch target (batch_json.h). */
#include "batch_json.h"

#include "util/escape.h"

void jw_init(json_writer *w, strbuf *out)
{
    w->out = out;
    w->depth = 0;
    w->has_items[0] = false;
    w->after_key = false;
}

static void indent(json_writer *w)
{
    sb_putc(w->out, '\n');
    for (int i = 0; i < w->depth; i++)
        sb_puts(w->out, "  ");
}

/* Before a value or a key: the comma and the new line it needs. */
static void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->has_items[w->depth])
        sb_putc(w->out, ',');
    w->has_items[w->depth] = true;
    indent(w);
}

void jw_key(json_writer *w, const char *key)
{
    before_item(w);
    esc_json_string(w->out, key);
    sb_puts(w->out, ": ");
    w->after_key = true;
}

static void jw_open(json_writer *w, char c)
{
    before_item(w);
    sb_putc(w->out, c);
    if (w->depth + 1 < JW_MAX_DEPTH)
        w->depth++;
    w->has_items[w->depth] = false;
}

static void jw_close(json_writer *w, char c)
{
    bool had = w->has_items[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (had)
        indent(w);
    sb_putc(w->out, c);
    if (w->depth == 0)
        sb_putc(w->out, '\n');
}

void jw_object_start(json_writer *w) { jw_open(w, '{'); }
void jw_object_end(json_writer *w) { jw_close(w, '}'); }
void jw_array_start(json_writer *w) { jw_open(w, '['); }
void jw_array_end(json_writer *w) { jw_close(w, ']'); }

void jw_string(json_writer *w, const char *s)
{
    before_item(w);
    esc_json_string(w->out, s);
}

void jw_int(json_writer *w, long long v)
{
    before_item(w);
    sb_printf(w->out, "%lld", v);
}

void jw_bool(json_writer *w, bool v)
{
    before_item(w);
    sb_puts(w->out, v ? "true" : "false");
}

void jw_kv_string(json_writer *w, const char *key, const char *s)
{
    jw_key(w, key);
    jw_string(w, s);
}

void jw_kv_int(json_writer *w, const char *key, long long v)
{
    jw_key(w, key);
    jw_int(w, v);
}
