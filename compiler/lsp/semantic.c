/* textDocument/semanticTokens/full: decorators, options, steps,
   pipelines, parameters, artifacts, types and strings, from the checker's
   trees (index.h for the names), declarations marked; in a step's
   `command`, each `{NAME}` placeholder is a parameter token of its own
   between the string's pieces. */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "server.h"

/* The legend's order (initialize's semanticTokensProvider). */
enum { TOK_DECORATOR, TOK_PROPERTY, TOK_FUNCTION, TOK_NAMESPACE, TOK_PARAMETER, TOK_VARIABLE, TOK_TYPE, TOK_STRING };

typedef struct token {
    uint32_t start, end;
    int type;
    bool declaration;
} token;

typedef struct tokens {
    token *items;
    size_t len, cap;
    uint32_t file;
    const char *text; /* the file's */
} tokens;

static void add(tokens *t, span sp, int type, bool declaration)
{
    if (sp.file != t->file || sp.end <= sp.start)
        return;
    if (t->len == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->items = xrealloc(t->items, t->cap * sizeof *t->items);
    }
    t->items[t->len++] = (token){sp.start, sp.end, type, declaration};
}

static void add_expr(tokens *t, const ast_expr *e)
{
    if (!e)
        return;
    if (e->kind == EXPR_STRING) {
        add(t, e->sp, TOK_STRING, false);
    } else if (e->kind == EXPR_LIST) {
        for (size_t i = 0; i < e->u.items.len; i++)
            add_expr(t, e->u.items.items[i]);
    } else if (e->kind == EXPR_MAP) {
        for (size_t i = 0; i < e->u.items.len; i++) {
            const ast_map_entry *m = e->u.items.items[i];
            add(t, m->key.sp, TOK_STRING, false);
            add_expr(t, m->value);
        }
    } else if (e->kind == EXPR_CALL) {
        for (size_t g = 0; g < e->u.call->groups.len; g++) {
            const ptr_vec *group = e->u.call->groups.items[g];
            for (size_t k = 0; k < group->len; k++)
                add_expr(t, ((const ast_arg *)group->items[k])->value);
        }
    }
}

static bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* A string of `command` as written: its `{NAME}` placeholders as
   parameters, the pieces between as strings (`{{` and `}}` are text). */
static void add_command_string(tokens *t, span sp)
{
    uint32_t piece = sp.start;
    for (uint32_t i = sp.start; i < sp.end; i++) {
        if (t->text[i] == '\\') {
            i++;
        } else if (t->text[i] == '{' && i + 1 < sp.end && t->text[i + 1] == '{') {
            i++;
        } else if (t->text[i] == '{') {
            uint32_t e = i + 1;
            while (e < sp.end && word_char(t->text[e]))
                e++;
            if (e == i + 1 || e >= sp.end || t->text[e] != '}')
                continue;
            add(t, (span){sp.file, piece, i}, TOK_STRING, false);
            add(t, (span){sp.file, i, e + 1}, TOK_PARAMETER, false);
            piece = e + 1;
            i = e;
        }
    }
    add(t, (span){sp.file, piece, sp.end}, TOK_STRING, false);
}

static void add_command(tokens *t, const ast_expr *e)
{
    if (e && e->kind == EXPR_STRING)
        add_command_string(t, e->sp);
    else if (e && e->kind == EXPR_LIST)
        for (size_t i = 0; i < e->u.items.len; i++)
            add_command(t, e->u.items.items[i]);
    else
        add_expr(t, e);
}

static void add_args(tokens *t, const ptr_vec *args)
{
    for (size_t i = 0; i < args->len; i++)
        add_expr(t, ((const ast_arg *)args->items[i])->value);
}

static void add_params(tokens *t, const ptr_vec *params)
{
    for (size_t i = 0; i < params->len; i++) {
        const ast_param *p = params->items[i];
        add(t, p->type.sp, TOK_TYPE, false);
        add_expr(t, p->default_value);
    }
}

static void add_decorators(tokens *t, const ptr_vec *decorators)
{
    for (size_t i = 0; i < decorators->len; i++)
        add_args(t, &((const ast_decorator *)decorators->items[i])->args);
}

/* What the index does not hold: types and strings. */
static void add_literals(tokens *t, const ast_file *f)
{
    for (size_t i = 0; i < f->items.len; i++) {
        const ast_item *it = f->items.items[i];
        if (it->kind == ITEM_IMPORT) {
            add(t, it->u.import->path.sp, TOK_STRING, false);
        } else if (it->kind == ITEM_STEP) {
            const ast_step *st = it->u.step;
            add_decorators(t, &st->decorators);
            add_params(t, &st->params);
            for (size_t k = 0; k < st->outputs.len; k++)
                add(t, ((const ast_output *)st->outputs.items[k])->type.sp, TOK_TYPE, false);
            for (size_t k = 0; k < st->fields.len; k++) {
                const ast_field *fd = st->fields.items[k];
                if (fd->name.text && strcmp(fd->name.text, "command") == 0)
                    add_command(t, fd->value);
                else
                    add_expr(t, fd->value);
            }
        } else {
            const ast_pipeline *pl = it->u.pipeline;
            add_decorators(t, &pl->decorators);
            add_params(t, &pl->params);
            for (size_t k = 0; k < pl->statements.len; k++) {
                const ast_statement *st = pl->statements.items[k];
                if (!st->call)
                    continue;
                for (size_t g = 0; g < st->call->groups.len; g++)
                    add_args(t, st->call->groups.items[g]);
            }
        }
    }
}

static int by_start(const void *a, const void *b)
{
    const token *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int lsp_semantic_tokens(lsp_server *s, const json_value *params, strbuf *out)
{
    static const int type_of[] = {
        [OCC_STEP] = TOK_FUNCTION,        [OCC_STEP_PARAM] = TOK_PARAMETER, [OCC_PIPELINE] = TOK_NAMESPACE,
        [OCC_PIPELINE_PARAM] = TOK_PARAMETER, [OCC_ARTIFACT] = TOK_VARIABLE, [OCC_DECORATOR] = TOK_DECORATOR,
        [OCC_OPTION] = TOK_PROPERTY,
    };
    lsp_doc *d = lsp_request_doc(s, params, NULL);
    if (!d)
        return RPC_INVALID_PARAMS;
    check_session *c = lsp_doc_check(d);
    doc_index ix;
    doc_index_build(&ix, c);
    tokens t = {.file = c->root, .text = c->sources.files[c->root]->text};
    for (size_t i = 0; i < ix.len; i++)
        add(&t, ix.items[i].sp, type_of[ix.items[i].kind], ix.items[i].definition);
    if (c->pg.root)
        add_literals(&t, c->pg.root);
    if (t.len)
        qsort(t.items, t.len, sizeof *t.items, by_start);
    /* Relative to the token before: line, start (UTF-16), length, type,
       modifiers. A token never overlaps the one before nor spans lines. */
    const source_file *f = c->sources.files[c->root];
    lsp_pos prev = {0, 0};
    uint32_t last_end = 0;
    size_t n = 0;
    sb_puts(out, "{\"data\":[");
    for (size_t i = 0; i < t.len; i++) {
        const token *k = &t.items[i];
        if (n && k->start < last_end)
            continue;
        lsp_pos a = text_position(f, k->start), b = text_position(f, k->end);
        if (b.line != a.line)
            continue;
        sb_printf(out, "%s%u,%u,%u,%d,%d", n++ ? "," : "", a.line - prev.line,
                  a.line == prev.line ? a.character - prev.character : a.character, b.character - a.character, k->type,
                  k->declaration ? 1 : 0);
        prev = a;
        last_end = k->end;
    }
    sb_puts(out, "]}");
    free(t.items);
    doc_index_free(&ix);
    return 0;
}
