/* src/<pipeline>.h (argument structs and entry prototypes) and
   src/<pipeline>_main.c (static tables, the embedded manifest, main). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "util/escape.h"
#include "pipe/version.h"
#include "template.h"

static const char *c_type(const pipe_mparam *p)
{
    switch (p->type) {
    case PIPE_TYPE_INT: return "int64_t";
    case PIPE_TYPE_FLOAT: return "double";
    case PIPE_TYPE_BOOL: return "bool";
    case PIPE_TYPE_STRING:
    case PIPE_TYPE_ARTIFACT: return "const char *";
    }
    return "void *";
}

static const char *type_enum(const pipe_mparam *p)
{
    switch (p->type) {
    case PIPE_TYPE_INT: return "PIPE_TYPE_INT";
    case PIPE_TYPE_FLOAT: return "PIPE_TYPE_FLOAT";
    case PIPE_TYPE_BOOL: return "PIPE_TYPE_BOOL";
    case PIPE_TYPE_STRING: return "PIPE_TYPE_STRING";
    case PIPE_TYPE_ARTIFACT: return "PIPE_TYPE_ARTIFACT";
    }
    return "PIPE_TYPE_STRING";
}

static const char *args_type(bundle *b, const pipe_mstep *st)
{
    return arena_printf(b->arena, "%s_%s_args", b->mf->pipeline, st->name);
}

static int render(const char *tmpl, const tmpl_var *vars, size_t n, strbuf *out, char *err, size_t errsize)
{
    const char *missing = NULL;
    if (tmpl_render(tmpl, vars, n, out, &missing) != 0) {
        snprintf(err, errsize, "internal error: template %s needs a value for `%.40s`", tmpl, missing);
        return -1;
    }
    return 0;
}

static void step_declaration(bundle *b, const pipe_mstep *st, strbuf *sb)
{
    if (pipe_step_is_command(st)) {
        sb_printf(sb, "\n/* Step `%s` runs a program (its `command`): it has no C entry function. */\n", st->name);
        return;
    }
    strbuf member = STRBUF_INIT;
    const char *args = args_type(b, st);
    sb_printf(sb, "\n/* Step `%s`", st->name);
    if (st->description) {
        sb_puts(sb, ": ");
        esc_c_comment(sb, st->description);
    }
    sb_puts(sb, " */\n");
    sb_printf(sb, "typedef struct %s {\n", args);
    for (size_t i = 0; i < st->nparams; i++) {
        const pipe_mparam *p = &st->params[i];
        const char *type = c_type(p);
        sb_printf(sb, "    %s%s%s;", type, type[strlen(type) - 1] == '*' ? "" : " ", esc_c_member(p->name, &member));
        if (p->type == PIPE_TYPE_ARTIFACT)
            sb_printf(sb, " /* path of the input artifact (%s) */", p->type_name);
        sb_putc(sb, '\n');
    }
    if (st->nparams == 0)
        sb_puts(sb, "    char pipe_unused; /* the step takes no parameters */\n");
    sb_printf(sb, "} %s;\n", args);
    sb_printf(sb, "int %s(pipe_ctx *ctx, const %s *args);\n", st->entry, args);
    sb_free(&member);
}

static int gen_header(bundle *b, char *err, size_t errsize)
{
    strbuf decls = STRBUF_INIT, guard = STRBUF_INIT;
    for (size_t i = 0; i < b->mf->nsteps; i++)
        step_declaration(b, &b->mf->steps[i], &decls);
    sb_puts(&guard, "PIPELINE_");
    for (const char *p = b->mf->pipeline; *p; p++)
        sb_putc(&guard, (char)toupper((unsigned char)*p));
    sb_puts(&guard, "_H");
    tmpl_var vars[] = {{"source", b->source_name}, {"pipeline", b->mf->pipeline}, {"guard", sb_cstr(&guard)},
                       {"abi_version", PIPE_VERSION_TEXT(PIPE_ABI_VERSION)}, {"steps", sb_cstr(&decls)}};
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "src/%s.h", b->mf->pipeline), false);
    int rc = render("pipeline.h.tmpl", vars, sizeof vars / sizeof vars[0], out, err, errsize);
    sb_free(&decls);
    sb_free(&guard);
    return rc;
}

/* The name of the constant that points at a step's entry function says
   where the step is declared: an entry that no source defines is reported
   by the linker as an undefined reference from
   `.data.rel.ro.pipe_step_NAME_at_FILE_line_N' (the bundle compiles the
   driver with -fdata-sections), which names the step and its place in the
   .pipe file in every build type. */
static const char *entry_constant(bundle *b, const bundle_step *bs)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "pipe_step_%s_at_", bs->m->name);
    const char *file = strrchr(bs->ms->decl_file, '/');
    file = file ? file + 1 : bs->ms->decl_file;
    for (const char *p = file; *p && sb.len < 160; p++)
        sb_putc(&sb, isalnum((unsigned char)*p) ? *p : '_');
    sb_printf(&sb, "_line_%u", bs->ms->decl_line);
    const char *out = arena_strdup(b->arena, sb_cstr(&sb));
    sb_free(&sb);
    return out;
}

/* One step's share of the driver: the constant holding its entry function
   (converted to pipe_step_fn, which the runtime calls with a pointer to the
   argument struct it filled), its fields appended to the one field table,
   and its row of the step table. Data only: no function per step, so that
   the C compiler's time stays linear in the number of steps. */
static void step_tables(bundle *b, const bundle_step *bs, size_t first_field, strbuf *entries, strbuf *fields,
                        strbuf *table)
{
    const pipe_mstep *st = bs->m;
    const char *constant = entry_constant(b, bs), *args = args_type(b, st);
    if (st->needs_cuda) {
        /* Without CUDA the .cu files are not compiled: a weak reference lets
           the bundle link, and the runtime fails the step with a message
           when its entry is NULL. */
        sb_printf(entries, "#if !PIPE_BUILT_WITH_CUDA\n#pragma weak %s\n#endif\n", st->entry);
    }
    sb_printf(entries, "static const pipe_step_fn %s = (pipe_step_fn)%s;\n", constant, st->entry);
    strbuf member = STRBUF_INIT;
    if (st->nparams > 0)
        sb_printf(fields, "    /* %s */\n", st->name);
    for (size_t i = 0; i < st->nparams; i++) {
        const pipe_mparam *p = &st->params[i];
        sb_printf(fields, "    {\"%s\", %s, offsetof(%s, %s)},\n", p->name, type_enum(p), args,
                  esc_c_member(p->name, &member));
    }
    sb_free(&member);
    if (st->nparams > 0)
        sb_printf(table, "    {\"%s\", &%s, sizeof(%s), pipe_driver_fields + %zu, %zu},\n", st->name, constant, args,
                  first_field, st->nparams);
    else
        sb_printf(table, "    {\"%s\", &%s, sizeof(%s), NULL, 0},\n", st->name, constant, args);
}

static void manifest_literal(const char *text, strbuf *sb)
{
    strbuf line = STRBUF_INIT;
    bool first = true;
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text + 1) : strlen(text);
        sb_reset(&line);
        sb_putn(&line, text, n);
        if (!first)
            sb_putc(sb, '\n');
        sb_puts(sb, "    ");
        esc_c_string(sb, sb_cstr(&line));
        first = false;
        text += n;
    }
    if (first)
        sb_puts(sb, "    \"\"");
    sb_free(&line);
}

int gen_driver(bundle *b, const char *manifest_yaml, strbuf *out, char *err, size_t errsize)
{
    strbuf entries = STRBUF_INIT, fields = STRBUF_INIT, rows = STRBUF_INIT, tables = STRBUF_INIT;
    strbuf manifest = STRBUF_INIT, hooks = STRBUF_INIT;
    size_t nnative = 0, nfields = 0;
    for (size_t i = 0; i < b->mf->nsteps; i++) {
        const bundle_step *bs = &b->steps[i];
        if (pipe_step_is_command(bs->m))
            continue;
        step_tables(b, bs, nfields, &entries, &fields, &rows);
        nfields += bs->m->nparams;
        nnative++;
    }
    if (nnative) {
        sb_puts(&tables, "\n/* Each step's entry function, under a name that says where the step is declared. */\n");
        sb_puts(&tables, sb_cstr(&entries));
        if (nfields) {
            sb_puts(&tables, "\n/* The members of every argument struct, step by step, in parameter order. */\n"
                             "static const pipe_field pipe_driver_fields[] = {\n");
            sb_puts(&tables, sb_cstr(&fields));
            sb_puts(&tables, "};\n");
        }
        sb_puts(&tables, "\nstatic const pipe_step_impl pipe_driver_steps[] = {\n");
        sb_puts(&tables, sb_cstr(&rows));
        sb_puts(&tables, "};\n");
    } else {
        sb_puts(&tables, "\n/* Every step of this pipeline runs a program: no step table. */\n");
    }
    manifest_literal(manifest_yaml, &manifest);
    if (b->needs_cuda)
        sb_printf(&hooks, "\n#if PIPE_BUILT_WITH_CUDA\nextern const pipe_cuda_hooks %s_cuda_hooks;\n"
                          "#define CUDA_HOOKS (&%s_cuda_hooks)\n#else\n#define CUDA_HOOKS NULL\n#endif\n",
                  b->mf->pipeline, b->mf->pipeline);
    else
        sb_puts(&hooks, "\n#define CUDA_HOOKS NULL /* no step of this pipeline uses a GPU */\n");
    const char *header = arena_printf(b->arena, "%s.h", b->mf->pipeline);
    const char *steps_ref = nnative ? "pipe_driver_steps, sizeof pipe_driver_steps / sizeof pipe_driver_steps[0]"
                                    : "NULL, 0";
    tmpl_var vars[] = {{"source", b->source_name},       {"pipeline", b->mf->pipeline},
                       {"header", header},               {"step_tables", sb_cstr(&tables)},
                       {"manifest", sb_cstr(&manifest)}, {"cuda_hooks", sb_cstr(&hooks)},
                       {"steps_ref", steps_ref}};
    int rc = render("main.c.tmpl", vars, sizeof vars / sizeof vars[0], out, err, errsize);
    sb_free(&entries);
    sb_free(&fields);
    sb_free(&rows);
    sb_free(&tables);
    sb_free(&manifest);
    sb_free(&hooks);
    return rc;
}

const char *gen_driver_path(bundle *b) { return arena_printf(b->arena, "src/%s_main.c", b->mf->pipeline); }

/* The driver embeds bundle.yaml as gen_manifest wrote it. */
static int gen_main(bundle *b, char *err, size_t errsize)
{
    const bundle_file *manifest = NULL;
    for (size_t i = 0; i < b->files.len && !manifest; i++)
        if (strcmp(((bundle_file *)b->files.items[i])->path, "bundle.yaml") == 0)
            manifest = b->files.items[i];
    strbuf *out = bundle_add_file(b, gen_driver_path(b), false);
    return gen_driver(b, manifest && manifest->text.data ? manifest->text.data : "", out, err, errsize);
}

int gen_c(bundle *b, char *err, size_t errsize)
{
    if (gen_header(b, err, errsize) != 0)
        return -1;
    return gen_main(b, err, errsize);
}
