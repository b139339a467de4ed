/* textDocument/hover: a decorator's or an option's doc from the settings
   table (the text of `pipec explain @NAME`), a step's signature (and, on a
   call, the invocation's entry of bundle.yaml: its effective settings), a
   parameter's or an artifact's type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/decorator_doc.h"
#include "gen/bundle.h"
#include "model/model_build.h"
#include "index.h"
#include "server.h"

/* The source text of a span (a default value as written). */
static void put_source(strbuf *sb, const check_session *c, span sp)
{
    const source_file *f = c->sources.files[sp.file];
    sb_putn(sb, f->text + sp.start, sp.end - sp.start);
}

static void put_param(strbuf *sb, const check_session *c, const ast_param *p)
{
    sb_printf(sb, "%s: %s", p->name.text, p->type.text ? p->type.text : "?");
    if (p->default_value) {
        sb_puts(sb, " = ");
        put_source(sb, c, p->default_value->sp);
    }
}

static void step_signature(strbuf *sb, const check_session *c, const step_info *st)
{
    const ast_step *decl = st->decl;
    sb_printf(sb, "```pipe\nstep %s(", st->name);
    for (size_t i = 0; i < decl->params.len; i++) {
        sb_puts(sb, i ? ", " : "");
        put_param(sb, c, decl->params.items[i]);
    }
    sb_putc(sb, ')');
    for (size_t i = 0; i < decl->outputs.len; i++) {
        const ast_output *o = decl->outputs.items[i];
        sb_printf(sb, "%s%s: %s", i ? ", " : decl->outputs.len > 1 ? " -> (" : " -> ", o->name.text ? o->name.text : "?",
                  o->type.text ? o->type.text : "?");
    }
    if (decl->outputs.len > 1)
        sb_putc(sb, ')');
    sb_puts(sb, "\n```\n");
    if (st->description)
        sb_printf(sb, "\n%s\n", st->description);
    sb_printf(sb, "\n%s step, declared in `%s`\n", st->is_command ? "command" : "native",
              c->sources.files[st->file]->path);
}

static const ast_param *find_param(const ptr_vec *params, const char *name)
{
    for (size_t i = 0; i < params->len; i++) {
        const ast_param *p = params->items[i];
        if (p->name.text && strcmp(p->name.text, name) == 0)
            return p;
    }
    return NULL;
}

static const ast_pipeline *find_pipeline(const check_session *c, const char *name)
{
    for (size_t i = 0; i < c->pg.pipelines.len; i++) {
        const pipeline_info *pl = c->pg.pipelines.items[i];
        if (strcmp(pl->name, name) == 0)
            return pl->decl;
    }
    return NULL;
}

/* An artifact: the step output that a statement of its pipeline binds it to. */
static void artifact_words(strbuf *sb, const check_session *c, const occurrence *o)
{
    for (size_t i = 0; i < c->pg.pipelines.len; i++) {
        const pipeline_info *pl = c->pg.pipelines.items[i];
        if (strcmp(pl->name, o->scope) != 0)
            continue;
        for (size_t k = 0; k < pl->invocations.len; k++) {
            const invocation *inv = pl->invocations.items[k];
            for (size_t t = 0; inv->targets && t < inv->step->noutputs; t++)
                if (inv->targets[t] && strcmp(inv->targets[t], o->name) == 0) {
                    const output_info *out = &inv->step->outputs[t];
                    sb_printf(sb, "```pipe\n%s: %s\n```\n\nartifact: output `%s` of `%s` (invocation `%s`)\n",
                              o->name, out->type_name, out->name, inv->step->name, inv->id);
                    return;
                }
        }
    }
    sb_printf(sb, "artifact `%s`\n", o->name);
}

/* The invocation whose call names the step at o (a call, not the
   declaration): its entry of bundle.yaml, from the same model and writer
   as `pipec build`, so what it shows is what will be deployed. Only for a
   file without errors (the model is built from a checked program). */
static void invocation_settings(strbuf *sb, const check_session *c, const occurrence *o)
{
    if (o->definition || o->sp.file != c->root)
        return;
    if (diag_error_count(&c->diag)) {
        sb_puts(sb, "\n*Its effective settings show once the file has no errors.*\n");
        return;
    }
    for (size_t i = 0; i < c->pg.pipelines.len; i++) {
        const pipeline_info *pl = c->pg.pipelines.items[i];
        for (size_t k = 0; k < pl->invocations.len; k++) {
            const invocation *inv = pl->invocations.items[k];
            if (strcmp(inv->step->name, o->name) != 0 || !inv->stmt || inv->stmt->sp.start > o->sp.start ||
                inv->stmt->sp.end < o->sp.end)
                continue;
            /* A statement with nested calls holds several: the one whose callee is here. */
            if (inv->stmt->call && inv->stmt->call->callee.sp.start != o->sp.start &&
                strcmp(inv->stmt->call->callee.text, o->name) == 0)
                continue;
            arena a;
            arena_init(&a);
            model m;
            model_build(&m, &a, &c->pg, pl);
            strbuf yaml = STRBUF_INIT;
            char err[256];
            if (inv->index < m.manifest.ninvocations &&
                gen_invocation_text(&m.manifest, inv->index, &yaml, err, sizeof err) == 0)
                sb_printf(sb, "\nInvocation `%s` of pipeline `%s`, as `bundle.yaml` will have it (after the "
                              "pipeline's defaults):\n\n```yaml\n%s```\n",
                          inv->id, pl->name, sb_cstr(&yaml));
            sb_free(&yaml);
            arena_free(&a);
            return;
        }
    }
}

static bool hover_text(strbuf *sb, const check_session *c, const occurrence *o)
{
    switch (o->kind) {
    case OCC_DECORATOR:
    case OCC_OPTION: {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        bool ok = f && decorator_doc_hover(o->kind == OCC_OPTION ? o->scope : o->name,
                                           o->kind == OCC_OPTION ? o->name : NULL, f);
        if (f)
            fclose(f);
        if (ok)
            sb_putn(sb, text, len);
        free(text);
        return ok;
    }
    case OCC_STEP: {
        const step_info *st = program_find_step(&c->pg, o->name);
        if (st) {
            step_signature(sb, c, st);
            invocation_settings(sb, c, o);
        }
        return st != NULL;
    }
    case OCC_STEP_PARAM: {
        const step_info *st = program_find_step(&c->pg, o->scope);
        const ast_param *p = st ? find_param(&st->decl->params, o->name) : NULL;
        if (!p)
            return false;
        sb_puts(sb, "```pipe\n");
        put_param(sb, c, p);
        sb_printf(sb, "\n```\n\nparameter of step `%s`\n", st->name);
        return true;
    }
    case OCC_PIPELINE_PARAM: {
        const ast_pipeline *pl = find_pipeline(c, o->scope);
        const ast_param *p = pl ? find_param(&pl->params, o->name) : NULL;
        if (!p)
            return false;
        sb_puts(sb, "```pipe\n");
        put_param(sb, c, p);
        sb_printf(sb, "\n```\n\nparameter of pipeline `%s` (may be overridden at run time)\n", o->scope);
        return true;
    }
    case OCC_ARTIFACT: artifact_words(sb, c, o); return true;
    case OCC_PIPELINE: sb_printf(sb, "pipeline `%s`\n", o->name); return true;
    }
    return false;
}

int lsp_hover(lsp_server *s, const json_value *params, strbuf *out)
{
    name_lookup l;
    if (!name_lookup_init(&l, s, params))
        return RPC_INVALID_PARAMS;
    strbuf text = STRBUF_INIT;
    if (l.at && hover_text(&text, l.check, l.at)) {
        sb_puts(out, "{\"contents\":{\"kind\":\"markdown\",\"value\":");
        sb_json_string(out, sb_cstr(&text));
        sb_puts(out, "},\"range\":");
        lsp_put_offsets(out, l.doc, l.at->sp.start, l.at->sp.end);
        sb_putc(out, '}');
    } else {
        sb_puts(out, "null");
    }
    sb_free(&text);
    name_lookup_free(&l);
    return 0;
}
