/* textDocument/definition and textDocument/references for steps, their
   parameters, pipelines, pipeline parameters and artifacts (index.h): a
   step's definition is its name after `step`, in this file or the one that
   declares it. On that name after `step` itself, or on the step's `entry`
   or `command` value: where its code is, a native step's entry function
   (where W0407's scan found it), a command step's script (the first
   argument of `command` that names a file). */
#include <string.h>
#include <sys/stat.h>

#include "index.h"
#include "server.h"

/* The LSP position of byte offset at of text (UTF-16 code units). */
static lsp_pos offset_position(const char *text, size_t at)
{
    lsp_pos p = {0, 0};
    for (size_t i = 0; i < at; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            p.line++;
            p.character = 0;
        } else if ((c & 0xC0) != 0x80) {
            p.character += c >= 0xF0 ? 2 : 1; /* outside the BMP: a surrogate pair */
        }
    }
    return p;
}

/* A command argument that names a file: relative to the step's folder. */
static const char *script_of(const step_info *st, strbuf *path)
{
    for (size_t i = 0; i < st->ncommand; i++) {
        const char *arg = st->command[i];
        if (!*arg || strchr(arg, '{') || arg[0] == '-')
            continue;
        sb_reset(path);
        if (arg[0] != '/')
            sb_printf(path, "%s/", st->dir);
        sb_puts(path, arg);
        struct stat sb;
        if (stat(sb_cstr(path), &sb) == 0 && S_ISREG(sb.st_mode))
            return sb_cstr(path);
    }
    return NULL;
}

/* Where st's code is, as a Location; false when not known. */
static bool put_code_location(strbuf *out, const step_info *st)
{
    if (st->entry_found && st->entry_source < st->nsources && st->sources[st->entry_source].text) {
        const source_ref *src = &st->sources[st->entry_source];
        lsp_pos a = offset_position(src->text, st->entry_offset);
        lsp_pos b = a;
        b.character += (uint32_t)strlen(st->entry);
        sb_puts(out, "{\"uri\":");
        lsp_put_file_uri(out, src->resolved);
        sb_puts(out, ",\"range\":");
        lsp_put_range(out, a, b);
        sb_putc(out, '}');
        return true;
    }
    strbuf path = STRBUF_INIT;
    const char *script = st->is_command ? script_of(st, &path) : NULL;
    if (script) {
        lsp_pos zero = {0, 0};
        sb_puts(out, "{\"uri\":");
        lsp_put_file_uri(out, script);
        sb_puts(out, ",\"range\":");
        lsp_put_range(out, zero, zero);
        sb_putc(out, '}');
    }
    sb_free(&path);
    return script != NULL;
}

/* The step whose `entry` or `command` value covers offset of the root file. */
static const step_info *code_field_at(const check_session *c, uint32_t offset)
{
    for (size_t i = 0; i < c->pg.steps.len; i++) {
        const step_info *st = c->pg.steps.items[i];
        if (st->file != c->root)
            continue;
        for (size_t k = 0; k < st->decl->fields.len; k++) {
            const ast_field *f = st->decl->fields.items[k];
            if (f->name.text && f->value && (!strcmp(f->name.text, "entry") || !strcmp(f->name.text, "command")) &&
                f->value->sp.start <= offset && offset <= f->value->sp.end)
                return st;
        }
    }
    return NULL;
}

/* Decorators and options are looked up in the settings table, not declared. */
static bool declared_kind(const occurrence *o) { return o && o->kind != OCC_DECORATOR && o->kind != OCC_OPTION; }

int lsp_definition(lsp_server *s, const json_value *params, strbuf *out)
{
    name_lookup l;
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    const occurrence *def = declared_kind(l.at) ? doc_index_definition(&l.ix, l.at) : NULL;
    /* On a step's own name after `step`: where its code is. */
    const step_info *st = l.at && l.at->definition && l.at->kind == OCC_STEP && l.at->sp.file == l.check->root
                              ? program_find_step(&l.check->pg, l.at->name)
                              : NULL;
    if (!st && !l.at)
        st = code_field_at(l.check, l.offset);
    size_t mark = out->len;
    if (!st || !put_code_location(out, st)) {
        out->len = mark;
        if (def)
            lsp_put_location(out, l.doc, l.check, def->sp);
        else
            sb_puts(out, "null");
    }
    name_lookup_free(&l);
    return 0;
}

int lsp_references(lsp_server *s, const json_value *params, strbuf *out)
{
    name_lookup l;
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    const json_value *decl = json_get(json_get(params, "context"), "includeDeclaration");
    bool with_decl = !decl || (decl->kind == JSON_BOOL && decl->boolean);
    if (!declared_kind(l.at)) {
        sb_puts(out, "null");
    } else {
        size_t n = 0;
        sb_putc(out, '[');
        for (size_t i = 0; i < l.ix.len; i++) {
            const occurrence *r = &l.ix.items[i];
            if (!occ_same(r, l.at) || (r->definition && !with_decl))
                continue;
            if (n++)
                sb_putc(out, ',');
            lsp_put_location(out, l.doc, l.check, r->sp);
        }
        sb_putc(out, ']');
    }
    name_lookup_free(&l);
    return 0;
}
