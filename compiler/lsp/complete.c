/* textDocument/completion, at the place the cursor is:
   - after `@`: decorators; where an option's name goes in a decorator's
     parentheses: its options; after `OPTION =` (or in its string): an enum
     option's values; each with its doc from the settings table
     (pipe/settings.def, the words of `pipec explain @NAME`);
   - in a pipeline's body, where a call goes: the steps (this file and its
     imports); in a call's parentheses: the step's parameters, then after
     `NAME =` the pipeline's parameters and artifacts;
   - after `{` in a step's `command` string: its parameters and outputs.
   The place is found by reading the text up to the cursor as the lexer
   does (strings, comments, brackets), so it works on a half-typed line the
   parser gave up on; the names come from the last check of the text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/decorator_doc.h"
#include "index.h"
#include "pipe/settings.h"
#include "server.h"

enum { ITEM_FUNCTION = 3, ITEM_VARIABLE = 6, ITEM_PROPERTY = 10, ITEM_ENUM_MEMBER = 20, MAX_DEPTH = 64 };

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

typedef enum {
    PLACE_NONE,
    PLACE_DECORATOR,
    PLACE_OPTION,      /* decorator */
    PLACE_VALUE,       /* decorator, option; quoted: in its string */
    PLACE_STEP,        /* owner: the pipeline */
    PLACE_ARG_NAME,    /* owner: the called step */
    PLACE_ARG_VALUE,   /* owner: the pipeline */
    PLACE_PLACEHOLDER, /* owner: the step */
} place_kind;

typedef struct place {
    place_kind kind;
    bool quoted;
    char decorator[64], option[64], owner[64];
} place;

/* Copies the identifier ending at text[end) into out; false when none. */
static bool name_before(const char *text, size_t end, char *out, size_t size)
{
    size_t start = end;
    while (start > 0 && ident_char(text[start - 1]))
        start--;
    if (start == end || end - start >= size)
        return false;
    memcpy(out, text + start, end - start);
    out[end - start] = '\0';
    return true;
}

static size_t skip_space_back(const char *text, size_t i)
{
    while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r'))
        i--;
    return i;
}

/* The block `{` at open belongs to `step NAME` or `pipeline NAME` on its
   line: that keyword ("step", "pipeline") and NAME in name, or NULL. */
static const char *block_owner(const char *text, size_t open, char *name, size_t size)
{
    size_t line = open;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    while (text[line] == ' ' || text[line] == '\t')
        line++;
    static const char *const keywords[] = {"step", "pipeline"};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(keywords[k]);
        if (strncmp(text + line, keywords[k], n) != 0 || (text[line + n] != ' ' && text[line + n] != '\t'))
            continue;
        size_t i = line + n;
        while (text[i] == ' ' || text[i] == '\t')
            i++;
        size_t e = i;
        while (e < open && ident_char(text[e]))
            e++;
        if (e > i && e - i < size) {
            memcpy(name, text + i, e - i);
            name[e - i] = '\0';
            return keywords[k];
        }
    }
    return NULL;
}

/* Whether text[..end) ends with `NAME =` (not `==`), NAME copied out. */
static bool after_assign(const char *text, size_t end, char *name, size_t size)
{
    size_t i = skip_space_back(text, end);
    if (i < 2 || text[i - 1] != '=' || strchr("=!<>", text[i - 2]))
        return false;
    return name_before(text, skip_space_back(text, i - 1), name, size);
}

/* Where text[0..at) ends. */
static place find_place(const char *text, size_t at)
{
    place p = {PLACE_NONE, false, "", "", ""};
    size_t open[MAX_DEPTH];
    char kind[MAX_DEPTH];
    size_t depth = 0, string_start = 0;
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
            string_start = i;
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
    if (depth > MAX_DEPTH)
        return p;
    char top = depth ? kind[depth - 1] : 0;
    if (in_string) {
        size_t start = at;
        while (start > string_start + 1 && ident_char(text[start - 1]))
            start--;
        /* `command = "..."` or `command = [..., "..."]` in a step's block. */
        size_t field_at = top == '[' ? open[depth - 1] : string_start, block = top == '[' ? depth - 1 : depth;
        char field[16];
        const char *owner = block > 0 && kind[block - 1] == '{'
                                ? block_owner(text, open[block - 1], p.owner, sizeof p.owner)
                                : NULL;
        if (owner && strcmp(owner, "step") == 0 && text[start - 1] == '{' &&
            after_assign(text, field_at, field, sizeof field) && strcmp(field, "command") == 0) {
            p.kind = PLACE_PLACEHOLDER;
        } else if (top == '(' && start == string_start + 1 &&
                   after_assign(text, string_start, p.option, sizeof p.option) && open[depth - 1] > 0 &&
                   name_before(text, open[depth - 1], p.decorator, sizeof p.decorator) &&
                   open[depth - 1] > strlen(p.decorator) &&
                   text[open[depth - 1] - strlen(p.decorator) - 1] == '@') {
            p.kind = PLACE_VALUE;
            p.quoted = true;
        }
        return p;
    }
    size_t start = at;
    while (start > 0 && ident_char(text[start - 1]))
        start--;
    if (start > 0 && text[start - 1] == '@') {
        p.kind = PLACE_DECORATOR;
        return p;
    }
    size_t before = skip_space_back(text, start);
    if (top == '{') {
        /* A call goes after `=` or where a statement starts. */
        const char *owner = block_owner(text, open[depth - 1], p.owner, sizeof p.owner);
        size_t line = start;
        while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t'))
            line--;
        bool statement_start = line == 0 || text[line - 1] == '\n' || line - 1 == open[depth - 1];
        bool after_eq = before > 0 && text[before - 1] == '=' && (before < 2 || !strchr("=!<>", text[before - 2]));
        if (owner && strcmp(owner, "pipeline") == 0 && (statement_start || after_eq))
            p.kind = PLACE_STEP;
        return p;
    }
    if (top != '(' || open[depth - 1] == 0)
        return p;
    char callee[64];
    if (!name_before(text, open[depth - 1], callee, sizeof callee))
        return p;
    bool decorator = open[depth - 1] > strlen(callee) && text[open[depth - 1] - strlen(callee) - 1] == '@';
    bool name_place = before > 0 && (text[before - 1] == '(' || text[before - 1] == ',');
    char option[64];
    bool value_place = !name_place && after_assign(text, start, option, sizeof option);
    if (decorator) {
        snprintf(p.decorator, sizeof p.decorator, "%s", callee);
        if (name_place)
            p.kind = PLACE_OPTION;
        else if (value_place) {
            snprintf(p.option, sizeof p.option, "%s", option);
            p.kind = PLACE_VALUE;
        }
        return p;
    }
    /* A call in a pipeline's body: `(` inside the pipeline's `{`. */
    char pipeline[64];
    const char *owner = depth >= 2 && kind[depth - 2] == '{' ? block_owner(text, open[depth - 2], pipeline, sizeof pipeline)
                                                              : NULL;
    if (!owner || strcmp(owner, "pipeline") != 0)
        return p;
    if (name_place) {
        snprintf(p.owner, sizeof p.owner, "%s", callee);
        p.kind = PLACE_ARG_NAME;
    } else if (value_place) {
        snprintf(p.owner, sizeof p.owner, "%s", pipeline);
        p.kind = PLACE_ARG_VALUE;
    }
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

static void item(strbuf *out, bool *first, const char *label, int kind, const char *detail, const char *insert)
{
    sb_puts(out, *first ? "{\"label\":" : ",{\"label\":");
    *first = false;
    sb_json_string(out, label);
    sb_printf(out, ",\"kind\":%d", kind);
    if (detail) {
        sb_puts(out, ",\"detail\":");
        sb_json_string(out, detail);
    }
    if (insert) {
        sb_puts(out, ",\"insertText\":");
        sb_json_string(out, insert);
    }
}

/* The names the check knows for p (steps, a step's parameters, a
   pipeline's parameters and artifacts), each once. */
static void names_from_index(strbuf *out, bool *first, const doc_index *ix, const place *p)
{
    for (size_t i = 0; i < ix->len; i++) {
        const occurrence *o = &ix->items[i];
        if (!o->definition)
            continue;
        char insert[128];
        if (p->kind == PLACE_STEP && o->kind == OCC_STEP) {
            item(out, first, o->name, ITEM_FUNCTION, "step", NULL);
        } else if (p->kind == PLACE_ARG_NAME && o->kind == OCC_STEP_PARAM && strcmp(o->scope, p->owner) == 0) {
            snprintf(insert, sizeof insert, "%s = ", o->name);
            item(out, first, o->name, ITEM_VARIABLE, "parameter", insert);
        } else if (p->kind == PLACE_ARG_VALUE && strcmp(o->scope, p->owner) == 0 &&
                   (o->kind == OCC_ARTIFACT || o->kind == OCC_PIPELINE_PARAM)) {
            item(out, first, o->name, ITEM_VARIABLE, o->kind == OCC_ARTIFACT ? "artifact" : "pipeline parameter",
                 NULL);
        } else {
            continue;
        }
        sb_putc(out, '}');
    }
}

/* A step's parameters and outputs, for `{NAME}` in its command. */
static void placeholders(strbuf *out, bool *first, const check_session *c, const char *step)
{
    const program *pg = &c->pg;
    for (size_t f = 0; f < pg->files.len; f++) {
        const ast_file *file = pg->files.items[f];
        if (file->file != c->root)
            continue;
        for (size_t i = 0; i < file->items.len; i++) {
            const ast_item *it = file->items.items[i];
            if (it->kind != ITEM_STEP || !it->u.step->name.text || strcmp(it->u.step->name.text, step) != 0)
                continue;
            const ast_step *st = it->u.step;
            for (size_t k = 0; k < st->params.len; k++) {
                const ast_param *pa = st->params.items[k];
                if (pa->name.text) {
                    item(out, first, pa->name.text, ITEM_VARIABLE, "parameter", NULL);
                    sb_putc(out, '}');
                }
            }
            for (size_t k = 0; k < st->outputs.len; k++) {
                const ast_output *o = st->outputs.items[k];
                if (o->name.text) {
                    item(out, first, o->name.text, ITEM_VARIABLE, "output", NULL);
                    sb_putc(out, '}');
                }
            }
            return;
        }
    }
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
    const pipe_decorator_info *dec =
        p.kind == PLACE_OPTION || p.kind == PLACE_VALUE ? pipe_decorator_named(p.decorator) : NULL;
    const pipe_option *opt = NULL;
    for (int i = 0; dec && p.kind == PLACE_VALUE && i < dec->noptions; i++)
        if (strcmp(dec->options[i].name, p.option) == 0)
            opt = &dec->options[i];
    if (p.kind == PLACE_NONE || ((p.kind == PLACE_OPTION || p.kind == PLACE_VALUE) && !dec) ||
        (p.kind == PLACE_VALUE && (!opt || !opt->values))) {
        sb_puts(out, "null");
        return 0;
    }
    size_t mark = out->len;
    bool first = true;
    sb_puts(out, "{\"isIncomplete\":false,\"items\":[");
    if (p.kind == PLACE_DECORATOR) {
        for (int k = 0; k < PIPE_DEC_COUNT; k++) {
            const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)k);
            item(out, &first, info->name, ITEM_FUNCTION, info->doc, NULL);
            put_doc(out, info->name, NULL);
            sb_putc(out, '}');
        }
    } else if (p.kind == PLACE_OPTION) {
        for (int i = 0; i < dec->noptions; i++) {
            const pipe_option *o = &dec->options[i];
            char insert[128];
            snprintf(insert, sizeof insert, "%s = ", o->name);
            item(out, &first, o->name, ITEM_PROPERTY, o->doc, insert);
            put_doc(out, dec->name, o->name);
            sb_putc(out, '}');
        }
    } else if (p.kind == PLACE_VALUE) {
        for (const char *const *v = opt->values; *v; v++) {
            char quoted[128];
            snprintf(quoted, sizeof quoted, "\"%s\"", *v);
            item(out, &first, *v, ITEM_ENUM_MEMBER, opt->default_text && strcmp(opt->default_text, *v) == 0 ? "default" : NULL,
                 p.quoted ? *v : quoted);
            sb_putc(out, '}');
        }
    } else {
        check_session *c = lsp_doc_check(d);
        if (p.kind == PLACE_PLACEHOLDER) {
            placeholders(out, &first, c, p.owner);
        } else {
            doc_index ix;
            doc_index_build(&ix, c);
            names_from_index(out, &first, &ix, &p);
            doc_index_free(&ix);
        }
    }
    if (first) { /* nothing to offer */
        out->len = mark;
        sb_puts(out, "null");
        return 0;
    }
    sb_puts(out, "]}");
    return 0;
}
