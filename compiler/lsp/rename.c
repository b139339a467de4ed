/* textDocument/prepareRename and textDocument/rename: a step, a step's
   parameter (with the `{NAME}` placeholders of its `command`), a pipeline,
   a pipeline's parameter or an artifact, across the document. Refused,
   with the reason, where the new name is not an identifier or would clash,
   and for a step declared in an imported file (its other callers are not
   known here). */
#include <stdio.h>
#include <string.h>

#include "index.h"
#include "server.h"

static bool renamable(const occurrence *o)
{
    return o && o->kind != OCC_DECORATOR && o->kind != OCC_OPTION;
}

/* The reason o cannot be renamed, or NULL. */
static const char *refusal(const name_lookup *l, const occurrence *def, char *buf, size_t size)
{
    if (!def) {
        snprintf(buf, size, "`%s` is not declared", l->at->name);
        return buf;
    }
    if (def->sp.file != l->check->root) {
        snprintf(buf, size, "`%s` is declared in %s: rename it there", l->at->name,
                 l->check->sources.files[def->sp.file]->path);
        return buf;
    }
    return NULL;
}

static bool is_identifier(const char *s)
{
    static const char *const keywords[] = {"import", "step", "pipeline", "true", "false"};
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(s, keywords[i]) == 0)
            return false;
    return strcmp(s, "_") != 0;
}

/* What the new name would clash with: a declaration in the same space. */
static const occurrence *clash(const name_lookup *l, const char *name)
{
    const occurrence *o = l->at;
    for (size_t i = 0; i < l->ix.len; i++) {
        const occurrence *c = &l->ix.items[i];
        if (!c->definition || strcmp(c->name, name) != 0)
            continue;
        bool global = o->kind == OCC_STEP || o->kind == OCC_PIPELINE;
        if (global && (c->kind == OCC_STEP || c->kind == OCC_PIPELINE))
            return c;
        bool flow = o->kind == OCC_ARTIFACT || o->kind == OCC_PIPELINE_PARAM;
        if (flow && (c->kind == OCC_ARTIFACT || c->kind == OCC_PIPELINE_PARAM) && strcmp(c->scope, o->scope) == 0)
            return c;
        if (o->kind == OCC_STEP_PARAM && c->kind == OCC_STEP_PARAM && strcmp(c->scope, o->scope) == 0)
            return c;
    }
    /* A step's outputs share its parameters' names (E0105). */
    if (o->kind == OCC_STEP_PARAM) {
        const step_info *st = program_find_step(&l->check->pg, o->scope);
        for (size_t i = 0; st && i < st->noutputs; i++)
            if (strcmp(st->outputs[i].name, name) == 0)
                return o;
    }
    return NULL;
}

static void put_edit(strbuf *out, const lsp_doc *d, uint32_t start, uint32_t end, const char *text, size_t *n)
{
    sb_puts(out, (*n)++ ? ",{\"range\":" : "{\"range\":");
    lsp_put_offsets(out, d, start, end);
    sb_puts(out, ",\"newText\":");
    sb_json_string(out, text);
    sb_putc(out, '}');
}

/* The `{old}` placeholders in the strings of step's `command`, as written
   in the source (an escape never holds a brace; `{{` and `}}` are braces). */
static void rename_placeholders(strbuf *out, const lsp_doc *d, const check_session *c, const char *step,
                                const char *old, const char *name, size_t *n)
{
    const step_info *st = program_find_step(&c->pg, step);
    if (!st || !st->decl)
        return;
    const char *text = c->sources.files[st->decl->file]->text;
    size_t olen = strlen(old);
    for (size_t f = 0; f < st->decl->fields.len; f++) {
        const ast_field *field = st->decl->fields.items[f];
        if (!field->name.text || strcmp(field->name.text, "command") != 0 || !field->value ||
            field->value->kind != EXPR_LIST)
            continue;
        for (size_t k = 0; k < field->value->u.items.len; k++) {
            const ast_expr *e = field->value->u.items.items[k];
            if (e->kind != EXPR_STRING || e->sp.end < e->sp.start + 2)
                continue;
            for (uint32_t i = e->sp.start + 1; i + 1 < e->sp.end; i++) {
                if (text[i] == '\\' || (text[i] == '{' && text[i + 1] == '{') || (text[i] == '}' && text[i + 1] == '}')) {
                    i++;
                } else if (text[i] == '{' && i + 1 + olen < e->sp.end && strncmp(text + i + 1, old, olen) == 0 &&
                           text[i + 1 + olen] == '}') {
                    put_edit(out, d, i + 1, (uint32_t)(i + 1 + olen), name, n);
                    i += (uint32_t)olen + 1;
                }
            }
        }
    }
}

int lsp_prepare_rename(lsp_server *s, const json_value *params, strbuf *out)
{
    name_lookup l;
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    char why[512];
    /* null: the editor says it cannot rename here; `rename` gives the reason. */
    if (!renamable(l.at) || refusal(&l, doc_index_definition(&l.ix, l.at), why, sizeof why)) {
        sb_puts(out, "null");
    } else {
        sb_puts(out, "{\"range\":");
        lsp_put_offsets(out, l.doc, l.at->sp.start, l.at->sp.end);
        sb_puts(out, ",\"placeholder\":");
        sb_json_string(out, l.at->name);
        sb_putc(out, '}');
    }
    name_lookup_free(&l);
    return 0;
}

int lsp_rename(lsp_server *s, const json_value *params, strbuf *out)
{
    static char why[512];
    const char *name = json_string(json_get(params, "newName"));
    name_lookup l;
    if (!name) {
        s->error = "no newName";
        return RPC_INVALID_PARAMS;
    }
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    int rc = LSP_REQUEST_FAILED;
    const occurrence *other;
    if (!renamable(l.at)) {
        s->error = "there is no step, parameter, pipeline or artifact here to rename";
    } else if ((s->error = refusal(&l, doc_index_definition(&l.ix, l.at), why, sizeof why))) {
    } else if (!is_identifier(name)) {
        snprintf(why, sizeof why, "`%s` is not a name: letters, digits and `_`, not starting with a digit, not a "
                                  "keyword",
                 name);
        s->error = why;
    } else if (strcmp(name, l.at->name) != 0 && (other = clash(&l, name))) {
        char at[256];
        diag_format_position(&l.check->diag, other->sp, at, sizeof at);
        snprintf(why, sizeof why, "`%s` is already declared (%s)", name, at);
        s->error = why;
    } else {
        rc = 0;
        size_t n = 0;
        sb_puts(out, "{\"changes\":{");
        sb_json_string(out, l.doc->uri);
        sb_puts(out, ":[");
        const occurrence at = *l.at;
        for (size_t i = 0; i < l.ix.len; i++)
            if (occ_same(&l.ix.items[i], &at))
                put_edit(out, l.doc, l.ix.items[i].sp.start, l.ix.items[i].sp.end, name, &n);
        if (at.kind == OCC_STEP_PARAM)
            rename_placeholders(out, l.doc, l.check, at.scope, at.name, name, &n);
        sb_puts(out, "]}}");
    }
    name_lookup_free(&l);
    return rc;
}
