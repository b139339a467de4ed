/* textDocument/completion: decorators after `@`, a decorator's options
   where an option's name goes, each with its doc from the settings table
   (pipe/settings.def, the words of `pipec explain @NAME`). The place is
   found by reading the text up to the cursor as the lexer does (strings,
   comments, brackets), so it works on a half-typed line the parser gave
   up on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/decorator_doc.h"
#include "pipe/settings.h"
#include "server.h"

enum { ITEM_FUNCTION = 3, ITEM_PROPERTY = 10, MAX_DEPTH = 64 };

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

typedef enum { PLACE_NONE, PLACE_DECORATOR, PLACE_OPTION } place_kind;

typedef struct place {
    place_kind kind;
    char decorator[64]; /* PLACE_OPTION */
} place;

/* Where text[0..at) ends: after `@` and part of a name, or where an
   option's name goes in a decorator's parentheses. */
static place find_place(const char *text, size_t at)
{
    place p = {PLACE_NONE, ""};
    size_t open[MAX_DEPTH];
    char kind[MAX_DEPTH];
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < at; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\' && i + 1 < at)
                i++;
            else if (c == '"' || c == '\n')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '#') {
            while (i < at && text[i] != '\n')
                i++;
            if (i == at)
                return p; /* in a comment */
        } else if (c == '(' || c == '[' || c == '{') {
            if (depth < MAX_DEPTH) {
                open[depth] = i;
                kind[depth] = c;
            }
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    if (in_string)
        return p;
    size_t start = at;
    while (start > 0 && ident_char(text[start - 1]))
        start--;
    if (start > 0 && text[start - 1] == '@') {
        p.kind = PLACE_DECORATOR;
        return p;
    }
    if (depth == 0 || depth > MAX_DEPTH || kind[depth - 1] != '(')
        return p;
    /* An option's name goes right after `(` or `,`. */
    size_t before = start;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t' || text[before - 1] == '\n' ||
                          text[before - 1] == '\r'))
        before--;
    if (before == 0 || (text[before - 1] != '(' && text[before - 1] != ','))
        return p;
    /* The parenthesis follows `@NAME`. */
    size_t name_end = open[depth - 1], name_start = name_end;
    while (name_start > 0 && ident_char(text[name_start - 1]))
        name_start--;
    if (name_start == name_end || name_start == 0 || text[name_start - 1] != '@' ||
        name_end - name_start >= sizeof p.decorator)
        return p;
    memcpy(p.decorator, text + name_start, name_end - name_start);
    p.decorator[name_end - name_start] = '\0';
    p.kind = PLACE_OPTION;
    return p;
}

static void put_doc(strbuf *out, const char *decorator, const char *option)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f && decorator_doc_hover(decorator, option, f)) {
        fclose(f);
        f = NULL;
        sb_puts(out, ",\"documentation\":{\"kind\":\"markdown\",\"value\":");
        sb_json_string(out, text);
        sb_putc(out, '}');
    }
    if (f)
        fclose(f);
    free(text);
}

int lsp_completion(lsp_server *s, const json_value *params, strbuf *out)
{
    lsp_pos pos;
    lsp_doc *d = lsp_find_doc(s, params);
    if (!d || !lsp_get_position(json_get(params, "position"), &pos)) {
        s->error = d ? "no position" : "the document is not open";
        return RPC_INVALID_PARAMS;
    }
    place p = find_place(d->text, text_offset(d->text, d->len, pos));
    const pipe_decorator_info *dec = p.kind == PLACE_OPTION ? pipe_decorator_named(p.decorator) : NULL;
    if (p.kind == PLACE_NONE || (p.kind == PLACE_OPTION && !dec)) {
        sb_puts(out, "null");
        return 0;
    }
    sb_puts(out, "{\"isIncomplete\":false,\"items\":[");
    if (p.kind == PLACE_DECORATOR) {
        for (int k = 0; k < PIPE_DEC_COUNT; k++) {
            const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)k);
            sb_puts(out, k ? ",{\"label\":" : "{\"label\":");
            sb_json_string(out, info->name);
            sb_printf(out, ",\"kind\":%d,\"detail\":", ITEM_FUNCTION);
            sb_json_string(out, info->doc);
            put_doc(out, info->name, NULL);
            sb_putc(out, '}');
        }
    } else {
        for (int i = 0; i < dec->noptions; i++) {
            const pipe_option *o = &dec->options[i];
            sb_puts(out, i ? ",{\"label\":" : "{\"label\":");
            sb_json_string(out, o->name);
            sb_printf(out, ",\"kind\":%d,\"detail\":", ITEM_PROPERTY);
            sb_json_string(out, o->doc);
            sb_puts(out, ",\"insertText\":");
            char insert[128];
            snprintf(insert, sizeof insert, "%s = ", o->name);
            sb_json_string(out, insert);
            put_doc(out, dec->name, o->name);
            sb_putc(out, '}');
        }
    }
    sb_puts(out, "]}");
    return 0;
}
